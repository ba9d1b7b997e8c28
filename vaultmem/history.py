"""Git: the vault's history. Every call passes git an argument list, never a shell string.

For now this owns making a folder a repository and the first commit of ``vaultmem init``.
vaultmem commits as the user's configured git identity; when none is configured it falls
back to ``vaultmem <vaultmem@localhost>`` so a fresh machine can still commit.
"""

from __future__ import annotations

import os
from pathlib import Path

import git

from .errors import GitError

FALLBACK_NAME = "vaultmem"
FALLBACK_EMAIL = "vaultmem@localhost"


def _identity_env(repo: git.Repo) -> dict[str, str]:
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
        with repo.git.custom_environment(**_identity_env(repo)):
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
