"""git as vaultmem runs it (``git/runner.py``): git's own words in every error, the fallback
identity, and a clear message when git is missing or the folder is in no repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vaultmem.errors import GitError
from vaultmem.git.history import History
from vaultmem.git.repository import commit_init, identity_env
from vaultmem.git.runner import git_process, run_git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    run_git(["init", "--quiet", "--initial-branch=main"], root)
    return root


def test_a_failing_command_says_which_and_what_git_said(repo: Path) -> None:
    with pytest.raises(GitError, match="^git cat-file failed: fatal: Not a valid object name nope"):
        run_git(["cat-file", "-p", "nope"], repo)


def test_git_reads_stdin_and_output_is_bytes(repo: Path) -> None:
    sha = run_git(["hash-object", "-w", "--stdin"], repo, stdin=b"\xff\x00 bytes\n").strip()
    assert run_git(["cat-file", "blob", sha.decode()], repo) == b"\xff\x00 bytes\n"


def test_a_command_over_its_timeout_is_killed_with_what_it_started(repo: Path) -> None:
    script = repo.parent / "slow-editor"
    pid_file = repo.parent / "child.pid"
    script.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    script.chmod(0o755)
    assert git_process(["rev-parse", "--git-dir"], repo, timeout=30).stdout == b".git\n"
    with pytest.raises(subprocess.TimeoutExpired):
        git_process(["-c", f"alias.slow=!{script}", "slow"], repo, timeout=1)
    pid = int(pid_file.read_text())
    done = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    assert done.stdout.strip() in ("", "Z")  # gone (or a zombie awaiting its reaper)


def test_missing_git_is_named(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-such-folder"))
    with pytest.raises(GitError, match="^git is not installed$"):
        History(repo)
    with pytest.raises(GitError, match="git is not installed; install git, then try again"):
        run_git(["status"], repo)
    with pytest.raises(GitError, match="install git .*, or run `vaultmem init --no-git`"):
        commit_init(repo, [])


def test_a_folder_in_no_repository(tmp_path: Path) -> None:
    for folder in (tmp_path, tmp_path / "missing"):
        with pytest.raises(GitError, match="is not in a git repository; run `git init` there"):
            History(folder)


def test_history_finds_the_repository_around_a_vault_in_a_subfolder(repo: Path) -> None:
    vault = repo / "notes" / "vault"
    vault.mkdir(parents=True)
    history = History(vault)
    assert (history.top, history.git_dir) == (repo.resolve(), (repo / ".git").resolve())
    assert history.prefix == "notes/vault/"


def test_the_fallback_identity_fills_only_what_config_lacks(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(repo.parent / "empty.gitconfig"))
    assert identity_env(repo) == {
        "GIT_AUTHOR_NAME": "vaultmem",
        "GIT_COMMITTER_NAME": "vaultmem",
        "GIT_AUTHOR_EMAIL": "vaultmem@localhost",
        "GIT_COMMITTER_EMAIL": "vaultmem@localhost",
    }
    run_git(["config", "user.name", "Ada"], repo)
    assert identity_env(repo) == {
        "GIT_AUTHOR_EMAIL": "vaultmem@localhost",
        "GIT_COMMITTER_EMAIL": "vaultmem@localhost",
    }
    (repo / "a.md").write_text("- a\n")
    history = History(repo)
    assert history.commit("first") is not None
    assert history.run("log", "-1", "--format=%an <%ae>").strip() == "Ada <vaultmem@localhost>"


def test_the_package_never_imports_gitpython() -> None:
    code = (
        "import sys; sys.modules['git'] = None\n"  # as if GitPython were not installed
        "import vaultmem.git.sync, vaultmem.git.repository, vaultmem.git.versioning\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
