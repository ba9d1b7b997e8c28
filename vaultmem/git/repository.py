"""Making a vault's folder a git repository at ``vaultmem init`` (or joining the vault of a
fresh clone), and who vaultmem commits as.

vaultmem commits as the user's configured git identity; when none is configured it falls
back to ``vaultmem <vaultmem@localhost>`` so a fresh machine can still commit.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from vaultmem.errors import GitError
from vaultmem.git.runner import git_process, git_words, literal, run_git

FALLBACK_NAME = "vaultmem"
FALLBACK_EMAIL = "vaultmem@localhost"


def find_repository(root: Path) -> tuple[Path, Path] | None:
    """The top folder of the git repository holding the folder ``root`` and its git folder
    (``.git``, or a linked worktree's), both resolved; ``None`` when ``root`` is in no
    repository or does not exist.

    Raises:
        GitError: git is not installed, or refused (a repository owned by another user).
    """
    try:
        done = git_process(["rev-parse", "--show-toplevel", "--absolute-git-dir"], root)
    except FileNotFoundError:
        if root.is_dir():
            raise GitError("git is not installed") from None
        return None
    if done.returncode:
        if "not a git repository" in git_words(done):
            return None
        raise GitError(f"git cannot read the repository holding {root}: {git_words(done)}")
    top, git_dir = os.fsdecode(done.stdout).split("\n")[:2]
    return Path(top).resolve(), Path(git_dir).resolve()


def identity_env(cwd: Path) -> dict[str, str]:
    """The fallback identity (``vaultmem <vaultmem@localhost>``) as environment variables
    for whichever of ``user.name`` and ``user.email`` git's config (and environment) gives
    the repository at ``cwd`` none of; empty when both are set."""
    try:
        out = run_git(["config", "-z", "--get-regexp", r"^user\.(name|email)$"], cwd)
    except GitError:
        out = b""  # exit code 1: neither is set
    keys = {entry.split(b"\n", 1)[0] for entry in out.split(b"\0")}
    env: dict[str, str] = {}
    if b"user.name" not in keys and "GIT_AUTHOR_NAME" not in os.environ:
        env.update(GIT_AUTHOR_NAME=FALLBACK_NAME, GIT_COMMITTER_NAME=FALLBACK_NAME)
    if b"user.email" not in keys and "GIT_AUTHOR_EMAIL" not in os.environ:
        env.update(GIT_AUTHOR_EMAIL=FALLBACK_EMAIL, GIT_COMMITTER_EMAIL=FALLBACK_EMAIL)
    return env


@dataclass
class InitCommit:
    """What ``init`` did with git: the ``repository`` it found or made (``"new"``,
    ``"existing"``, or ``"none"`` with ``git=False`` outside one), and the files it
    committed, vault-relative."""

    repository: str
    committed: list[str] = field(default_factory=list)


def commit_init(root: Path, added: list[str], *, git: bool = True) -> InitCommit:
    """Make ``root`` a git repository unless it is inside one, and commit; with ``git``
    false, neither (the person's choice: ``vaultmem init --no-git``).

    In a new repository everything in the folder is committed (the template and the notes
    already there: history, sync and restore cover them); in an existing one only the files
    ``init`` added, whatever else is pending or staged there.

    Raises:
        GitError: git is missing or refused the commit.
    """
    if not git:
        return InitCommit("none" if _in_no_repository(root) else "existing")
    if shutil.which("git") is None:
        raise GitError(
            "git is not installed: install git (vaultmem keeps the vault's history in it), "
            "or run `vaultmem init --no-git`"
        )
    message = "vaultmem: initialise vault"
    try:
        found = find_repository(root)
        if found is None:
            run_git(["init", "--quiet", "--initial-branch=main"], root)
            env = identity_env(root)
            run_git(["add", "--all"], root, env=env)
            names = os.fsdecode(run_git(["diff", "--cached", "--name-only", "-z"], root, env=env))
            if names.strip("\0"):
                run_git(["commit", "--quiet", "--no-verify", "-m", message], root, env=env)
            return InitCommit("new", [name for name in names.split("\0") if name])
        # An existing repository may have the person's own work staged: commit only the
        # files init added, named relative to the repository's top folder.
        top = found[0]
        paths = literal([(root / rel).relative_to(top).as_posix() for rel in added])
        if not paths:
            return InitCommit("existing")
        env = identity_env(top)
        run_git(["add", "--", *paths], top, env=env)
        if not run_git(["diff", "--cached", "--name-only", "--", *paths], top, env=env).strip():
            return InitCommit("existing")
        run_git(["commit", "--quiet", "--no-verify", "-m", message, "--", *paths], top, env=env)
        return InitCommit("existing", list(added))
    except GitError as exc:
        raise GitError(f"git failed in {root}: {exc}") from exc


def _in_no_repository(root: Path) -> bool:
    """Whether ``root`` is in no git repository (also when git is not installed)."""
    try:
        return find_repository(root) is None
    except GitError:
        return True


def check_out_cloned_branch(root: Path) -> str | None:
    """In a fresh clone with no commit checked out (the remote's HEAD names a branch it does
    not have), check out the remote's branch, so ``init`` joins its vault instead of
    starting a second history beside it. Returns the branch checked out.

    Raises:
        GitError: the remote has several branches and none is ``main`` or ``master``.
    """
    if shutil.which("git") is None:
        return None  # no clone without git: commit_init says what to install
    found = find_repository(root)
    if found is None:
        return None
    top = found[0]
    if git_process(["rev-parse", "--verify", "--quiet", "HEAD"], top).returncode == 0:
        return None
    out = run_git(["for-each-ref", "--format=%(refname:short)", "refs/remotes"], top)
    names = [n for n in os.fsdecode(out).split("\n") if n and not n.endswith("/HEAD")]
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
    done = git_process(["checkout", "--quiet", "-b", branch, "--track", chosen[0]], top)
    if done.returncode:
        raise GitError(f"cannot check out {chosen[0]} in {root}: {git_words(done)}")
    return branch
