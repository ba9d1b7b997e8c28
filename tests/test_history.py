"""Git history of a vault: commit messages that say what changed, the log of a note and of
one line, diffs, and restoring a past snapshot into the vault or into another folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from conftest import write

from vaultmem import GitError, Vault, VaultmemError
from vaultmem.cli import cli
from vaultmem.git.history import describe_changes


def test_commit_says_what_changed(vault: Vault) -> None:
    write(vault.root, "memory/2026-01-01.md", "- a\n")
    write(vault.root, "memory/2026-01-02.md", "- b\n")
    write(vault.root, "facts/people/alice.md", "- c\n")
    (vault.root / "MEMORY.md").write_text("changed\n")
    vault.index()
    made = vault.commit()
    assert made is not None
    assert made.message == "memory: 2 daily notes, 1 fact file, MEMORY.md"
    assert vault.commit() is None  # nothing left: the index stays out of git
    assert ".vaultmem/index.db" not in git.Repo(vault.root).git.ls_files()


def test_describe_changes() -> None:
    assert (
        describe_changes(["topics/a.md", "x.md", "y.md", "z.md"])
        == "memory: 1 topic, 3 other files"
    )


def test_log_of_the_vault_a_note_and_a_line(vault: Vault) -> None:
    note = write(vault.root, "facts/a.md", "# A\n\n- Alice likes tea\n")
    vault.commit("first")
    write(vault.root, "facts/b.md", "- other\n")
    vault.commit("second")
    note.write_text("# A\n\n- intro\n- Alice likes green tea\n")
    vault.commit("third")
    assert [c.message for c in vault.log()][:3] == ["third", "second", "first"]
    assert [c.message for c in vault.log("facts/a.md")] == ["third", "first"]
    versions = vault.line_history("facts/a.md", 4)
    assert [(v.commit.message, v.text) for v in versions] == [
        ("third", "- Alice likes green tea"),
        ("first", "- Alice likes tea"),
    ]
    assert "+- Alice likes green tea" in vault.diff("HEAD~1", "facts/a.md")


def test_restore_into_the_vault_is_a_commit_that_can_be_undone(vault: Vault) -> None:
    note = write(vault.root, "facts/a.md", "- version one zebu\n")
    first = vault.commit("one")
    assert first is not None
    note.write_text("- version two yak\n")
    write(vault.root, "facts/new.md", "- added later\n")
    vault.commit("two")
    note.write_text("- uncommitted work wombat\n")  # present state, not yet committed
    result = vault.restore(first.sha)
    assert note.read_text() == "- version one zebu\n"
    assert not (vault.root / "facts/new.md").exists()
    assert result.saved is not None and "before a restore" in result.saved.message
    assert [h.path for h in vault.search("zebu")] == ["facts/a.md"]
    assert vault.search("wombat") == []
    vault.restore(f"{result.commit.sha}~1")  # undo: back to the saved present state
    assert note.read_text() == "- uncommitted work wombat\n"
    assert (vault.root / "facts/new.md").exists()
    assert [h.path for h in vault.search("wombat")] == ["facts/a.md"]


def test_restore_some_paths_by_date(vault: Vault) -> None:
    a = write(vault.root, "a.md", "old a\n")
    b = write(vault.root, "b.md", "old b\n")
    env = {"GIT_COMMITTER_DATE": "2026-01-10T12:00:00", "GIT_AUTHOR_DATE": "2026-01-10T12:00:00"}
    subprocess.run(["git", "add", "-A"], cwd=vault.root, check=True)
    subprocess.run(
        ["git", "commit", "-qm", "january"], cwd=vault.root, check=True, env={**_env(), **env}
    )
    a.write_text("new a\n")
    b.write_text("new b\n")
    vault.commit("now")
    vault.restore("2026-01-15", ["a.md"])
    assert (a.read_text(), b.read_text()) == ("old a\n", "new b\n")
    with pytest.raises(GitError, match="no commit on or before 2020-01-01"):
        vault.restore("2020-01-01")


def test_restore_to_another_folder_leaves_the_vault_alone(vault: Vault, tmp_path: Path) -> None:
    note = write(vault.root, "memory/2026-01-01.md", "- the past quagga\n")
    past = vault.commit("past")
    assert past is not None
    note.write_text("- the present\n")
    vault.commit("present")
    before = note.read_text()
    head = git.Repo(vault.root).head.commit.hexsha
    vault.restore(past.sha, to=tmp_path / "snapshot")
    assert note.read_text() == before
    assert git.Repo(vault.root).head.commit.hexsha == head
    with Vault(tmp_path / "snapshot") as snapshot:
        assert [h.path for h in snapshot.search("quagga")] == ["memory/2026-01-01.md"]
    with pytest.raises(VaultmemError, match="not an empty folder"):
        vault.restore(past.sha, to=tmp_path / "snapshot")


def test_unknown_revisions_and_missing_repositories(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="neither a date"):
        vault.restore("no-such-rev")
    (tmp_path / "bare/.vaultmem").mkdir(parents=True)
    with (
        Vault(tmp_path / "bare") as lonely,
        pytest.raises(GitError, match="not in a git repository"),
    ):
        lonely.commit()


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_a_vault_in_a_subfolder_of_a_larger_repository(tmp_path: Path) -> None:
    git.Repo.init(tmp_path / "repo")
    write(tmp_path / "repo", "README.md", "not the vault's\n")
    Vault.init(tmp_path / "repo" / "notes")
    with Vault(tmp_path / "repo" / "notes") as vault:
        note = write(vault.root, "facts/a.md", "- then: sandpiper\n")
        first = vault.commit()
        assert first is not None and first.files == ("facts/a.md",)
        note.write_text("- now\n")
        vault.commit()
        assert [c.files for c in vault.log("facts/a.md")][0] == ("facts/a.md",)
        result = vault.restore(first.sha, to=tmp_path / "snap")
        assert "facts/a.md" in result.paths and "README.md" not in result.paths
        assert (tmp_path / "snap/facts/a.md").read_text() == "- then: sandpiper\n"
        vault.restore(first.sha, ["facts/a.md"])
        assert note.read_text() == "- then: sandpiper\n"


def test_restore_refuses_a_date_that_does_not_exist(vault: Vault) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["restore", "--at", "2026-02-30", "--vault", str(vault.root)])
    assert done.exit_code == 1
    assert done.output == "Error: 2026-02-30 is not a date of the calendar (YYYY-MM-DD)\n"


def test_restore_refuses_a_snapshot_inside_the_vault(vault: Vault) -> None:
    write(vault.root, "facts/a.md", "- kept\n")
    made = vault.commit("one")
    assert made is not None
    with pytest.raises(VaultmemError, match="is inside the vault"):
        vault.restore(made.sha, to=vault.root / "snap")
    assert not (vault.root / "snap").exists()


def test_restore_of_a_path_that_did_not_exist_then_says_so(vault: Vault) -> None:
    first = vault.commit("nothing yet") or vault.log()[0]
    write(vault.root, "facts/later.md", "- written later\n")
    vault.commit("later")
    head = vault.log()[0].sha
    with pytest.raises(GitError, match=r"facts/later.md did not exist at .*nothing was restored"):
        vault.restore(first.sha, ["facts/later.md"])
    with pytest.raises(GitError, match="missing.md did not exist"):
        vault.restore(first.sha, ["missing.md"], to=vault.root.parent / "snap")
    assert vault.log()[0].sha == head  # nothing committed
    assert (vault.root / "facts/later.md").exists()


def test_a_note_git_cannot_add_does_not_block_the_commit(vault: Vault) -> None:
    # As root every file is readable; a folder name git refuses is unaddable for anyone.
    write(vault.root, "notes/GIT~1/odd.md", "- git refuses this path\n")
    write(vault.root, "facts/a.md", "- everything else is committed\n")
    runner = CliRunner()
    done = runner.invoke(cli, ["commit", "--vault", str(vault.root)])
    assert done.exit_code == 0, done.output
    assert "Warning: notes/GIT~1/odd.md was not committed: " in done.output
    tracked = git.Repo(vault.root).git.ls_files()
    assert "facts/a.md" in tracked and "GIT~1" not in tracked


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file")
def test_an_unreadable_note_does_not_block_the_commit(vault: Vault) -> None:
    secret = write(vault.root, "facts/locked.md", "- unreadable\n")
    secret.chmod(0)
    write(vault.root, "facts/a.md", "- everything else is committed\n")
    made = vault.commit()
    assert made is not None and made.files == ("facts/a.md",)
    assert any("facts/locked.md" in n for n in vault.notices)


def test_vaultmems_temp_files_are_never_committed(vault: Vault) -> None:
    (vault.root / ".gitignore").write_text("")  # an old vault: no rule for them
    write(vault.root, "facts/.vaultmem-tmp-abc123", "half a write")
    write(vault.root, ".vaultmem/tmp/x", "half a write")
    write(vault.root, "facts/a.md", "- kept\n")
    assert vault.commit() is not None
    tracked = git.Repo(vault.root).git.ls_files()
    assert "vaultmem-tmp" not in tracked and ".vaultmem/tmp" not in tracked
    assert vault.commit() is None
