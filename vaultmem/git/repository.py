"""Making a vault's folder a git repository at ``vaultmem init`` (or joining the vault of a
fresh clone), and who vaultmem commits as.

vaultmem commits as the user's configured git identity; when none is configured it falls
back to ``vaultmem <vaultmem@localhost>`` so a fresh machine can still commit.
"""

from __future__ import annotations

import os
from pathlib import Path

import git

from vaultmem.errors import GitError

FALLBACK_NAME = "vaultmem"
FALLBACK_EMAIL = "vaultmem@localhost"


def git_stderr(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return (text or "").strip().removeprefix("stderr:").strip().strip("'")


def identity_env(repo: git.Repo) -> dict[str, str]:
    reader = repo.config_reader()
    env: dict[str, str] = {}
    if not reader.has_option("user", "name") and "GIT_AUTHOR_NAME" not in os.environ:
        env.update(GIT_AUTHOR_NAME=FALLBACK_NAME, GIT_COMMITTER_NAME=FALLBACK_NAME)
    if not reader.has_option("user", "email") and "GIT_AUTHOR_EMAIL" not in os.environ:
        env.update(GIT_AUTHOR_EMAIL=FALLBACK_EMAIL, GIT_COMMITTER_EMAIL=FALLBACK_EMAIL)
    return env


def commit_init(root: Path, added: list[str]) -> bool:
    """Make ``root`` a git repository unless it is inside one, and commit.

    In a new repository everything in the folder is committed (the template and any notes
    that were already there); in an existing one only the files ``init`` added. Returns
    whether a commit was made.

    Raises:
        GitError: git is missing or refused the commit.
    """
    try:
        try:
            repo = git.Repo(root, search_parent_directories=True)
            fresh = False
        except git.InvalidGitRepositoryError:
            repo = git.Repo.init(root, initial_branch="main")
            fresh = True
        message = "vaultmem: initialise vault"
        with repo.git.custom_environment(**identity_env(repo)):
            if fresh:
                repo.git.add("--all")
                if not repo.git.diff("--cached", "--name-only"):
                    return False
                repo.git.commit("--quiet", "--no-verify", "-m", message)
                return True
            # An existing repository may have the person's own work staged: commit only the
            # files init added, named relative to the repository's top folder.
            top = Path(str(repo.working_tree_dir)).resolve()
            paths = [(root / rel).relative_to(top).as_posix() for rel in added]
            if not paths:
                return False
            repo.git.add("--", *paths)
            if not repo.git.diff("--cached", "--name-only", "--", *paths):
                return False
            repo.git.commit("--quiet", "--no-verify", "-m", message, "--", *paths)
        return True
    except git.GitCommandError as exc:
        raise GitError(f"git failed in {root}: {exc.stderr.strip() or exc}") from exc
    except git.GitCommandNotFound as exc:
        raise GitError("git is not installed; install git and run `vaultmem init` again") from exc


def check_out_cloned_branch(root: Path) -> str | None:
    """In a fresh clone with no commit checked out (the remote's HEAD names a branch it does
    not have), check out the remote's branch, so ``init`` joins its vault instead of
    starting a second history beside it. Returns the branch checked out.

    Raises:
        GitError: the remote has several branches and none is ``main`` or ``master``.
    """
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.head.is_valid():
        return None
    out = repo.git.execute(["git", "for-each-ref", "--format=%(refname:short)", "refs/remotes"])
    names = [n for n in str(out).split("\n") if n and not n.endswith("/HEAD")]
    if not names:
        return None  # an empty remote: the first commit starts its history
    chosen = names if len(names) == 1 else [n for n in names if n.split("/", 1)[1] == "main"]
    chosen = chosen or [n for n in names if n.split("/", 1)[1] == "master"]
    if len(chosen) != 1:
        raise GitError(
            "this clone has no branch checked out and the remote has several "
            f"({', '.join(names)}); check out the one holding your vault "
            "(`git switch NAME`) and run init again"
        )
    branch = chosen[0].split("/", 1)[1]
    try:
        repo.git.execute(["git", "checkout", "--quiet", "-b", branch, "--track", chosen[0]])
    except git.GitCommandError as exc:
        raise GitError(f"cannot check out {chosen[0]} in {root}: {git_stderr(exc.stderr)}") from exc
    return branch
