"""Input that reaches git is never read as git's options nor as pathspec magic.

Git reads a word that begins with ``-`` as an option wherever it stands: ``vaultmem diff
--output=FILE`` made ``git diff --output=FILE HEAD`` write (truncate) any file. Every
revision a person or a caller names goes through ``History.revision`` (refused when it
begins with ``-``, then turned into a sha), every path is a literal pathspec after ``--``,
and a remote's name is given to git after ``--end-of-options``. The tests hold each entry
point (the CLI in process and as a process, and the Python API) with several payloads.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from conftest import write

from vaultmem import GitError, Vault, VaultmemError
from vaultmem.cli import cli

VICTIM_TEXT = "a file outside the vault that no command may touch\n"

# Revisions that git would read as its own options (some write files, some change what a
# command does), and words no revision can be.
OPTION_REVISIONS = [
    "--output={victim}",
    "--output",
    "-o{victim}",
    "--ext-diff",
    "--no-index",
    "-R",
    "--since=2000-01-01",
    "--all",
    "-",
    "--",
    "--end-of-options",
    "-HEAD",
]
NOT_REVISIONS = ["HEAD\n--output={victim}", "HEAD\x00--output={victim}", "HEAD\t", "\x1b[2J"]


@pytest.fixture
def history_vault(vault: Vault, tmp_path: Path) -> tuple[Vault, Path]:
    """A vault with two commits, and a file outside it that nothing may change."""
    write(vault.root, "facts/a.md", "- first words\n")
    vault.commit("one")
    write(vault.root, "facts/a.md", "- second words\n")
    vault.commit("two")
    write(vault.root, "facts/a.md", "- uncommitted words\n")
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    return vault, victim


def _payload(template: str, victim: Path) -> str:
    return template.format(victim=victim)


def _untouched(victim: Path, vault: Vault) -> None:
    assert victim.read_text() == VICTIM_TEXT
    assert not (vault.root / "HEAD").exists()  # nothing written where git runs either
    assert "- uncommitted words" in (vault.root / "facts/a.md").read_text()


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    assert "Traceback" not in output
    return lines[0]


@pytest.mark.parametrize("template", OPTION_REVISIONS + NOT_REVISIONS)
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda v, r, t: v.diff(r), id="Vault.diff"),
        pytest.param(lambda v, r, t: v.diff(r, "facts/a.md"), id="Vault.diff-path"),
        pytest.param(lambda v, r, t: v.diff(f"{r}..HEAD"), id="Vault.diff-range-old"),
        pytest.param(lambda v, r, t: v.diff(f"HEAD~1..{r}"), id="Vault.diff-range-new"),
        pytest.param(lambda v, r, t: v.restore(r), id="Vault.restore"),
        pytest.param(lambda v, r, t: v.restore(r, ["facts/a.md"]), id="Vault.restore-path"),
        pytest.param(lambda v, r, t: v.restore(r, to=t / "snapshot"), id="Vault.restore-to"),
        pytest.param(lambda v, r, t: v.history.revision(r), id="History.revision"),
        pytest.param(lambda v, r, t: v.history.resolve(r), id="History.resolve"),
    ],
)
def test_a_revision_that_git_would_read_as_an_option_is_refused_by_the_python_api(
    history_vault: tuple[Vault, Path],
    tmp_path: Path,
    template: str,
    call: Callable[[Vault, str, Path], object],
) -> None:
    vault, victim = history_vault
    head = vault.log()[0].sha
    rev = _payload(template, victim)
    with pytest.raises(VaultmemError):
        call(vault, rev, tmp_path)
    _untouched(victim, vault)
    assert vault.log()[0].sha == head  # no restore committed anything
    assert not (tmp_path / "snapshot").exists()


@pytest.mark.parametrize("template", OPTION_REVISIONS)
@pytest.mark.parametrize(
    "args",
    [
        ["diff", "{rev}"],
        ["diff", "{rev}", "facts/a.md"],
        ["diff", "--json", "{rev}"],
        ["restore", "--at", "{rev}"],
        ["restore", "--at={rev}", "facts/a.md"],
        ["restore", "--at", "{rev}", "--to", "{snapshot}"],
    ],
    ids=["diff", "diff-path", "diff-json", "restore", "restore-path", "restore-to"],
)
def test_the_cli_refuses_a_revision_that_git_would_read_as_an_option(
    history_vault: tuple[Vault, Path], tmp_path: Path, template: str, args: list[str]
) -> None:
    vault, victim = history_vault
    rev = _payload(template, victim)
    if rev == "--" and args[0] == "diff":
        pytest.skip("`vaultmem diff --` is the end of vaultmem's options: no revision")
    argv = [a.format(rev=rev, snapshot=tmp_path / "snapshot") for a in args]
    done = CliRunner().invoke(cli, [*argv, "--vault", str(vault.root)])
    assert done.exit_code == 1, done.output
    _one_error_line(done.output)
    _untouched(victim, vault)
    assert not (tmp_path / "snapshot").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "--output={victim}"],
        ["diff", "HEAD~1..--output={victim}"],
        ["restore", "--at=--output={victim}"],
        ["restore", "--at", "-o{victim}", "--to", "{snapshot}"],
    ],
)
def test_a_real_process_refuses_an_option_as_a_revision(
    history_vault: tuple[Vault, Path], tmp_path: Path, args: list[str]
) -> None:
    vault, victim = history_vault
    argv = [a.format(victim=victim, snapshot=tmp_path / "snapshot") for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", *argv, "--vault", str(vault.root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    line = _one_error_line(done.stderr)
    assert "revision" in line
    _untouched(victim, vault)


@pytest.mark.parametrize(
    "path",
    ["--output={victim}", "-o{victim}", "--", "-", "--no-index", "-p", "--output={victim}:1"],
)
def test_a_path_that_looks_like_an_option_is_only_a_path(
    history_vault: tuple[Vault, Path], path: str
) -> None:
    vault, victim = history_vault
    payload = _payload(path, victim)
    assert vault.diff("HEAD", payload) == ""  # no such note: nothing changed there
    assert vault.log(payload) == []
    with pytest.raises(GitError):
        vault.line_history(payload, 1)
    for args in (["diff", "HEAD", payload], ["log", payload], ["log", f"{payload}:1"]):
        done = CliRunner().invoke(cli, [args[0], "--vault", str(vault.root), *args[1:]])
        assert "Traceback" not in done.output
        assert done.exit_code in (0, 1), done.output
    _untouched(victim, vault)


def test_revisions_and_ranges_still_work(history_vault: tuple[Vault, Path]) -> None:
    vault, _ = history_vault
    first, second = (c.sha for c in reversed(vault.log()[:2]))
    assert "+- uncommitted words" in vault.diff()
    assert "+- uncommitted words" in vault.diff("HEAD", "facts/a.md")
    assert "+- second words" in vault.diff(f"{first}..{second}")
    assert "+- second words" in vault.diff("HEAD~1..")
    assert "-- second words" in vault.diff("..HEAD~1")  # HEAD to HEAD~1: taken back
    assert "+- uncommitted words" in vault.diff(first[:10], "facts/a.md")
    assert vault.history.revision("HEAD~1") == first
    assert vault.history.resolve(second[:12]).sha == second
    done = CliRunner().invoke(cli, ["diff", "HEAD~1..HEAD", "--vault", str(vault.root)])
    assert done.exit_code == 0 and "+- second words" in done.output
    with pytest.raises(GitError, match="names no commit"):
        vault.diff("no-such-revision")
    with pytest.raises(GitError, match="names no commit"):
        vault.diff("HEAD:facts/a.md")  # a file at a commit, not a commit


@pytest.fixture
def nested(tmp_path: Path) -> Vault:
    """A vault in a folder of a larger repository, whose other files are not the vault's."""
    repo = git.Repo.init(tmp_path / "repo")
    write(tmp_path / "repo", "README.md", "outside the vault: first\n")
    repo.index.add(["README.md"])
    repo.index.commit("outside: first")
    Vault.init(tmp_path / "repo" / "notes")
    opened = Vault(tmp_path / "repo" / "notes")
    write(opened.root, "facts/a.md", "- inside\n")
    opened.commit("inside")
    write(tmp_path / "repo", "README.md", "outside the vault: second\n")
    repo.index.add(["README.md"])
    repo.index.commit("outside: second")
    write(tmp_path / "repo", "README.md", "outside the vault: uncommitted\n")
    return opened


PATHSPEC_MAGIC = [
    ":(top)",
    ":(top)README.md",
    ":/",
    ":/README.md",
    ":(glob)**",
    ":(top,glob)**",
    ":(icase)readme.md",
    ":!facts",
    ":(exclude)facts",
    ":^facts",
    "*",
    "**",
    "../README.md",
]


@pytest.mark.parametrize("path", PATHSPEC_MAGIC)
def test_a_path_is_never_pathspec_magic_that_leaves_the_vault(nested: Vault, path: str) -> None:
    first = nested.log()[-1].sha
    try:
        logged = [c.message for c in nested.log(path)]
        changed = nested.diff(first, path)
    except VaultmemError as exc:  # a path that leaves the vault may also be refused
        assert "outside the vault" in str(exc)
        return
    assert not any(m.startswith("outside") for m in logged), logged
    assert "README.md" not in changed and "outside the vault" not in changed


def test_a_restored_path_is_that_file_and_no_other(vault: Vault) -> None:
    """A note's name with glob characters names that note only (git's pathspecs would also
    take ``[ab].md`` as ``a.md`` or ``b.md``, ``*`` as every file)."""
    names = ["facts/[ab].md", "facts/a.md", "facts/b.md", "facts/*.md", "facts/x.md"]
    for name in names:
        write(vault.root, name, f"- then: {name}\n")
    first = vault.commit("then")
    assert first is not None
    for name in names:
        write(vault.root, name, f"- now: {name}\n")
    vault.commit("now")
    vault.restore(first.sha, ["facts/[ab].md"])
    vault.restore(first.sha, ["facts/*.md"])
    for name in names:
        when = "then" if name in ("facts/[ab].md", "facts/*.md") else "now"
        assert (vault.root / name).read_text() == f"- {when}: {name}\n"
    assert [c.message for c in vault.log("facts/[ab].md")][-1] == "then"
    assert "facts/a.md" not in vault.diff(first.sha, "facts/*.md")


@pytest.mark.parametrize(
    "name",
    [
        "--upload-pack=touch {marker};git-upload-pack",
        "--receive-pack=touch {marker};git-receive-pack",
        "-u",
        "--exec=touch {marker}",
    ],
)
def test_a_remote_named_like_an_option_never_reaches_git(
    vault: Vault, tmp_path: Path, name: str
) -> None:
    """A remote's name comes from the repository's config, which any program may write:
    ``git fetch --upload-pack=CMD`` would run CMD."""
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="main")
    marker = tmp_path / "ran"
    remote = name.format(marker=marker)
    vault.history.run("config", f"remote.{remote}.url", str(bare))
    vault.history.run("remote", "add", "origin", str(bare))  # what git falls back on
    write(vault.root, "facts/a.md", "- kept\n")
    head = vault.history.run("rev-parse", "HEAD")
    with pytest.raises(GitError, match="not a remote name"):
        vault.sync(remote)
    done = CliRunner().invoke(cli, ["sync", "--remote", remote, "--vault", str(vault.root)])
    assert done.exit_code == 1
    assert "not a remote name" in _one_error_line(done.output)
    assert not marker.exists()
    assert vault.history.run("rev-parse", "HEAD") == head  # nothing committed either
    # The one remote configured is taken when none is named, and still refused.
    vault.history.run("remote", "remove", "origin")
    with pytest.raises(GitError, match="not a remote name"):
        vault.sync()
    assert not marker.exists()


def test_network_commands_end_their_options(vault: Vault, tmp_path: Path) -> None:
    """``run_network`` is the one way fetch and push are called; it refuses an option."""
    for bad in ("--upload-pack=touch x", "", "origin\n-x"):
        with pytest.raises(GitError):
            vault.history.run_network("fetch", bad)
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="main")
    vault.history.run("remote", "add", "origin", str(bare))
    assert vault.sync().pushed
