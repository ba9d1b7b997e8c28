"""Running git: the one way vaultmem calls it, as a process with an argument list (never a
shell string, never a library that re-implements git).

Everything that asks git something comes here: the vault's history and sync (``history.py``,
``sync.py``), a new repository (``repository.py``), and config's question whether this
device's ``local.toml`` is tracked (``vaultmem.config``). Config sits below git/ in the
layers, so this module imports nothing of vaultmem but ``errors``, and config imports it
only when it has that question to ask.

git's messages are read in English (``LC_ALL=C``): sync tells a rejected push from other
failures by git's words, and config a folder outside any repository. What a caller passes
git is made safe here too (issue 33): a revision or a remote's name never reaches git as
an option (``operand``), and a path is always a literal pathspec after ``--`` (``literal``).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from vaultmem.errors import GitError

_ENGLISH = {"LANGUAGE": "C", "LC_ALL": "C"}


def git_process(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS`` in the folder ``cwd`` and wait for it: the one place vaultmem starts
    git. It reads ``stdin`` (nothing when ``None``: git never waits for a person) and runs
    with this process's environment and ``env`` over it.

    With a ``timeout`` git runs in its own process group, so that on timeout git and
    everything it started (ssh, a credential helper) are killed, not left behind.

    Raises:
        FileNotFoundError: git is not installed, or ``cwd`` does not exist.
        subprocess.TimeoutExpired: ``timeout`` seconds passed; git was killed.
        OSError: git could not be started.
    """
    process = subprocess.Popen(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **_ENGLISH, **(env or {})},
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=timeout is not None,
    )
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def run_git(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
) -> bytes:
    """git's output, byte for byte (``git_process``), when it succeeds.

    Raises:
        GitError: git failed (``git COMMAND failed: `` and git's own words), or git is not
            installed.
    """
    try:
        done = git_process(args, cwd, env=env, stdin=stdin)
    except FileNotFoundError as exc:
        if Path(cwd).is_dir():
            raise GitError("git is not installed; install git, then try again") from exc
        raise GitError(f"git cannot run in {cwd}: there is no such folder") from exc
    if done.returncode:
        raise failure(args[0], done)
    return done.stdout


def failure(command: str, done: subprocess.CompletedProcess[bytes]) -> GitError:
    """The error for a git command that exited with an error, in git's own words."""
    return GitError(f"git {command} failed: {git_words(done)}")


def git_words(done: subprocess.CompletedProcess[bytes]) -> str:
    """What git said on its standard error, or its exit code when it said nothing."""
    return done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"


def operand(value: str, what: str) -> str:
    """``value`` (a revision, a remote's name) as git may be given it: git reads a word that
    begins with ``-`` as an option wherever it stands (``git diff --output=FILE`` writes
    any file), so such a word is refused before git sees it, as is one with a control
    character (a NUL cannot even be passed to a process).

    Raises:
        GitError: ``value`` is empty, begins with ``-`` or holds a control character.
    """
    if value and not value.startswith("-") and value.isprintable():
        return value
    shown = value.encode("unicode_escape").decode("ascii")
    raise GitError(
        f"{shown!r} is not a {what}: a {what} never begins with '-' or holds a control character"
        if value
        else f"an empty {what} names nothing"
    )


def literal(paths: list[str], *, top: bool = False) -> list[str]:
    """Paths for git, each word for word (git's ``:(literal)`` pathspec): never pathspec
    magic (``:(top)`` would name the whole repository around a vault in a subfolder) nor a
    glob (a note named ``[ab].md`` would also name ``a.md``). They go after ``--``. Paths
    are relative to the vault folder, where git runs, or with ``top`` to the repository's
    top folder (as git names files in its output)."""
    magic = ":(top,literal)" if top else ":(literal)"
    return [magic + path for path in paths]
