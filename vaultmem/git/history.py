"""Git: the vault's history. Every command goes through ``runner.py``: an argument list,
never a shell string.

It owns committing the vault's changes with a message that says what changed, the log of
the vault, of one note or of one line, diffs, and restoring a past snapshot (into the
vault as a new commit, or into another folder). Git commands run in the vault folder, so
pathspecs are vault-relative even when the vault is a subfolder of a larger repository.

vaultmem commits as the user's configured git identity (``repository.identity_env``).
Making a folder a repository at ``vaultmem init`` is ``repository.py``'s; ``vaultmem sync``
(``sync.py``) is built on this module.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import subprocess
import tarfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from vaultmem.errors import GitError, VaultmemError
from vaultmem.git.repository import find_repository, identity_env
from vaultmem.git.runner import failure, git_process, literal, operand, run_git
from vaultmem.notes.state import TEMP_PREFIX

DEFAULT_TIMEOUT = 60.0
MEMORY_LOG = ".vaultmem/log/"
# vaultmem's own temp files never belong in history, even in an old vault whose .gitignore
# lacks the rule: every add and status names them as excluded (git pathspec magic). So do
# the vectors (vectors.db, vectors.matrix), the LLM pass's answer cache and this device's
# own settings (local.toml: docs/config.md), newer than many vaults' .gitignore.
NEVER_COMMITTED = (
    f":(exclude,glob)**/{TEMP_PREFIX}*",
    ":(exclude).vaultmem/tmp",
    ":(exclude,glob).vaultmem/vectors.*",
    ":(exclude,glob).vaultmem/llm-cache.*",
    ":(exclude).vaultmem/local.toml",
)
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id of the empty tree


@dataclass(frozen=True)
class Commit:
    """One commit of the vault's history."""

    sha: str
    date: str  # ISO 8601 with the committer's offset
    author: str
    message: str
    files: tuple[str, ...] = ()


@dataclass
class LineVersion:
    """One commit that changed a line, with the line's text after it ("" once deleted)."""

    commit: Commit
    text: str
    line: int


@dataclass
class RestoreResult:
    """What a restore did."""

    commit: Commit
    paths: list[str] = field(default_factory=list)
    saved: Commit | None = None  # the commit of the present state, made before restoring


_CATEGORIES = (
    ("", "daily note", "daily notes"),  # the daily folder's, whatever it is named
    ("facts/", "fact file", "fact files"),
    ("topics/", "topic", "topics"),
    ("archive/", "archived file", "archived files"),
)


def describe_changes(paths: list[str], daily_folder: str = "memory") -> str:
    """A commit message saying what changed: ``memory: 3 daily notes, 2 fact files, MEMORY.md``."""
    counts: dict[tuple[str, str], int] = {}
    others: list[str] = []
    daily = daily_folder + "/" if daily_folder else ""
    for path in paths:
        for prefix, one, many in _CATEGORIES:
            if prefix == "" and not daily:
                continue  # a root daily folder: its notes are counted as other files
            if path.startswith(prefix or daily):
                counts[(one, many)] = counts.get((one, many), 0) + 1
                break
        else:
            others.append(path)
    parts = [
        f"{n} {one if n == 1 else many}"
        for _, one, many in _CATEGORIES
        if (n := counts.get((one, many), 0))
    ]
    if len(others) <= 2:
        parts += others
    else:
        parts.append(f"{len(others)} other files")
    return "memory: " + ", ".join(parts)


class History:
    """The git history of one vault."""

    def __init__(
        self, root: Path, timeout: float = DEFAULT_TIMEOUT, daily_folder: str = "memory"
    ) -> None:
        """Open the repository holding ``root``; network commands give up after ``timeout``
        seconds (``[git] timeout_seconds``); the daily notes are in ``daily_folder``
        (``[vault] daily_folder``: commit messages count them, sync merges them by line).

        Raises:
            GitError: the vault is not in a git repository, or git is missing.
        """
        self.root = root
        self.timeout = timeout
        self.daily_folder = daily_folder
        #: What a person should hear of: files left out of a commit, and why.
        self.notices: list[str] = []
        found = find_repository(root)
        if found is None:
            raise GitError(
                f"{root} is not in a git repository; run `git init` there (or `vaultmem init`)"
            )
        #: The repository's top folder (git names files from it; the vault may be a folder
        #: in it) and its git folder (where a merge in progress leaves ``MERGE_HEAD``).
        self.top, self.git_dir = found
        inside = root.resolve().relative_to(self.top).as_posix()
        self.prefix = "" if inside == "." else inside + "/"

    def run(self, *args: str) -> str:
        """Run one git command in the vault folder; its output as text.

        Raises:
            GitError: git failed; the message carries git's own words.
        """
        return self.output(*args).decode("utf-8", "surrogateescape")

    def output(
        self, *args: str, env: Mapping[str, str] | None = None, stdin: bytes | None = None
    ) -> bytes:
        """Run one git command in the vault folder, as the vault's committer, with ``env``
        over the environment and ``stdin`` to read; its output byte for byte (a file as it
        was at a commit).

        Raises:
            GitError: git failed; the message carries git's own words.
        """
        return run_git(args, self.root, env={**self._identity, **(env or {})}, stdin=stdin)

    def run_network(self, command: str, remote: str, *refspecs: str) -> str:
        """Run ``git COMMAND --quiet REMOTE REFSPEC...`` (fetch, push) within the timeout,
        never prompting. The remote's name comes from the repository's config, which
        another program may have written: it is given to git as a name, never as an option
        (``operand``, ``--end-of-options``: a remote named ``--upload-pack=CMD`` would run
        CMD). On timeout git and everything it started (ssh, a credential helper) are
        killed, not left behind (``runner.git_process``).

        Raises:
            GitError: git failed, or did not finish within the timeout, or ``remote`` is
                no remote's name.
        """
        args = (command, "--quiet", "--end-of-options", operand(remote, "remote name"), *refspecs)
        env = {**self._identity, "GIT_TERMINAL_PROMPT": "0"}
        own_ssh = {"GIT_SSH_COMMAND", "GIT_SSH"} & set(os.environ) or self.config("core.sshCommand")
        if not own_ssh:
            env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"  # a password prompt would hang
        try:
            done = git_process(args, self.root, env=env, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            where = self.config(f"remote.{remote}.url") or remote
            raise GitError(
                f"git {args[0]} with the remote {remote!r} ({where}) did not finish within "
                f"{self.timeout:g} s and was stopped; check the network, or raise "
                "[git] timeout_seconds in .vaultmem/config.toml"
            ) from None
        if done.returncode:
            raise failure(args[0], done)
        return done.stdout.decode("utf-8", "replace")

    @cached_property
    def _identity(self) -> dict[str, str]:
        # Asked once: one more git process for every command would slow a sync.
        return identity_env(self.root)

    def config(self, key: str) -> str:
        """The value git's config gives ``key`` here ("" when it gives none)."""
        try:
            return self.run("config", "--get", key).strip()
        except GitError:
            return ""

    def changed_paths(self) -> list[str]:
        """Vault-relative paths with changes not yet committed (ignored files excluded)."""
        out = self.run(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".", *NEVER_COMMITTED
        )
        paths: list[str] = []
        entries = out.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            if len(entry) > 3:
                paths.append(self.vault_relative(entry[3:]))
                if entry[0] in "RC":  # a rename is followed by its source path
                    i += 1
            i += 1
        return paths

    def vault_relative(self, top_relative: str) -> str:
        """A path as git names it (from the repository's top folder), from the vault's."""
        return top_relative.removeprefix(self.prefix)

    def commit(
        self,
        message: str | None = None,
        *,
        memory_log_alone: bool = False,
        only: Iterable[str] | None = None,
    ) -> Commit | None:
        """Commit every change in the vault (the index and caches stay out, by .gitignore),
        or with ``only`` the changes of those files and folders and of the memory log alone:
        what a memory run wrote, never a person's edits elsewhere that happen to be pending
        (they stay as they are, staged or not, for the person's or the daemon's next
        commit).

        Changes to the memory log alone (``.vaultmem/log/``: a search's access counts) make
        no commit of their own; they ride along with the next one (``memory_log_alone``
        commits them too). A file git cannot add (unreadable, or a name git refuses) is
        left out with a notice (``notices``) instead of blocking every commit.

        Returns:
            The new commit, or ``None`` when there was nothing to commit.
        """
        if message:  # a person's words (commit -m): a token in them would be pushed
            from vaultmem.memory.language.secrets import (
                mask_secrets,  # loads only when a message is given
            )

            message = mask_secrets(message)[0]
        paths = self.changed_paths()
        scope = [".", *NEVER_COMMITTED]
        if only is not None:
            mine = [p.strip("/") for p in (*only, MEMORY_LOG)]
            under = tuple(p + "/" for p in mine)
            paths = [p for p in paths if p in mine or p.startswith(under)]
            scope = literal(paths)
        real = [p for p in paths if not p.startswith(MEMORY_LOG)]
        if not real and not (paths and memory_log_alone):
            return None
        left_out = self.add_all(scope)
        if not self.run("diff", "--cached", "--name-only", "--", *scope).strip():
            return None
        kept = [p for p in paths if p not in left_out]
        skip = [f":(exclude,literal){p}" for p in left_out]
        self.run(
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            message or describe_changes(kept, self.daily_folder),
            "--",
            *scope,
            *skip,
        )
        return self.log(limit=1)[0]

    def add_all(self, scope: list[str] | None = None) -> list[str]:
        """Stage every change in the vault (or in the pathspecs of ``scope``) but vaultmem's
        temp files; returns the paths git could not add (each with a notice), which stay as
        they are."""
        scope = scope or [".", *NEVER_COMMITTED]
        try:
            self.run("add", "--all", "--ignore-errors", "--", *scope)
            return []
        except GitError as exc:
            reason = str(exc)
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *scope)
        left = [self.vault_relative(e[3:]) for e in out.split("\0") if len(e) > 3 and e[1] != " "]
        for path in left:
            why = next((ln for ln in reason.split("\n") if path in ln), reason.split("\n")[0])
            self.notices.append(f"{path} was not committed: {why.strip()}")
        return left

    def log(
        self, path: str | None = None, since: str | None = None, limit: int | None = None
    ) -> list[Commit]:
        """Commits that touched the vault (or one note), newest first."""
        args = ["log", "--format=%x1e%H%x1f%cI%x1f%an%x1f%s", "--name-only"]
        if since:
            args.append(f"--since={since}")
        if limit:
            args.append(f"-{limit}")
        out = self.run(*args, "--", *literal([path or "."]))
        commits = []
        for record in out.split("\x1e")[1:]:
            head, _, names = record.partition("\n")
            sha, date, author, message = head.split("\x1f", 3)
            files = tuple(self.vault_relative(n) for n in names.split("\n") if n.strip())
            commits.append(Commit(sha, date, author, message, files))
        return commits

    def line_history(self, path: str, line: int) -> list[LineVersion]:
        """The commits that wrote or changed line ``line`` of ``path`` (as it is now), newest
        first, with the line's text after each (git log -L follows it as lines move)."""
        out = self.run("log", f"-L{line},{line}:{path}", "--format=%x1e%H%x1f%cI%x1f%an%x1f%s")
        versions = []
        for record in out.split("\x1e")[1:]:
            head, _, patch = record.partition("\n")
            sha, date, author, message = head.split("\x1f", 3)
            added = [
                ln[1:]
                for ln in patch.split("\n")
                if ln.startswith("+") and not ln.startswith("+++")
            ]
            hunk = re.search(r"^@@ -\d+(?:,\d+)? \+(\d+)", patch, re.M)
            versions.append(
                LineVersion(
                    Commit(sha, date, author, message),
                    added[-1] if added else "",
                    int(hunk.group(1)) if hunk else line,
                )
            )
        return versions

    def diff(self, rev: str | None = None, path: str | None = None) -> str:
        """The diff of the vault (or one note) against ``rev`` (default: the last commit), or
        between two commits (``OLD..NEW``; either side left out is ``HEAD``).

        Raises:
            GitError: ``rev`` names no commit (``revision``).
        """
        old, dots, new = (rev or "HEAD").partition("..")
        ends = (old or "HEAD", new or "HEAD") if dots else (old,)
        return self.run("diff", *map(self.revision, ends), "--", *literal([path or "."]))

    def revision(self, rev: str) -> str:
        """The sha of the commit ``rev`` names (a sha, ``HEAD~2``, a tag, a branch): the one
        way a revision from a person or a caller reaches git, which then gets only the sha
        (``operand`` refuses a word git would read as an option).

        Raises:
            GitError: ``rev`` is no revision, or names no commit of this repository.
        """
        operand(rev, "revision")
        try:
            sha = self.run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
        except GitError:
            sha = ""
        if not sha:
            raise GitError(f"{rev!r} names no commit of this vault")
        return sha

    def resolve(self, at: str) -> Commit:
        """The commit named by a revision, or the last commit on or before a date (YYYY-MM-DD:
        the end of that day).

        Raises:
            GitError: no such revision, or no commit that old.
            VaultmemError: a date that does not exist (2026-02-30).
        """
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", at):
            try:
                day = dt.date.fromisoformat(at)
            except ValueError:
                raise VaultmemError(f"{at} is not a date of the calendar (YYYY-MM-DD)") from None
            sha = self.run("rev-list", "-1", f"--before={day.isoformat()} 23:59:59", "HEAD").strip()
            if not sha:
                raise GitError(f"the vault has no commit on or before {at}")
        else:
            try:
                sha = self.revision(at)
            except GitError:
                raise GitError(
                    f"{at!r} is neither a date (YYYY-MM-DD) nor a revision of this vault"
                ) from None
        return self.commit_info(sha)

    def commit_info(self, sha: str) -> Commit:
        """One commit by its sha (from ``revision``, or git's own output)."""
        out = self.run("show", "-s", "--format=%H%x1f%cI%x1f%an%x1f%s", sha).strip()
        full, date, author, message = out.split("\x1f", 3)
        return Commit(full, date, author, message)

    def files_at(self, sha: str, paths: list[str]) -> list[str]:
        """Vault-relative files that existed at a commit, under the given paths (or all)."""
        out = self.run(
            "ls-tree", "-r", "-z", "--name-only", "--full-tree", sha, "--", *self._top_paths(paths)
        )
        return [self.vault_relative(p) for p in out.split("\0") if p]

    def _top_paths(self, paths: list[str]) -> list[str]:
        if paths:
            return literal([self.prefix + p.strip("/") for p in paths])
        return literal([self.prefix or "."])

    def export(self, sha: str, paths: list[str], target: Path) -> list[str]:
        """Write the vault's files as they were at ``sha`` into the empty folder ``target``."""
        top_paths = self._top_paths(paths)
        # At the top folder: git archive run in a subfolder would take only that subfolder.
        data = run_git(["archive", "--format=tar", sha, "--", *top_paths], self.top)
        written: list[str] = []
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                if not member.isfile() or not member.name.startswith(self.prefix):
                    continue
                name = member.name.removeprefix(self.prefix)
                parts = name.split("/")
                if not name or name.startswith("/") or ".." in parts:
                    continue  # never write outside the target folder
                destination = target.joinpath(*parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                if source is not None:
                    destination.write_bytes(source.read())
                    written.append(name)
        return written

    def existed_at(self, commit: Commit, paths: list[str]) -> list[str]:
        """The files under ``paths`` at ``commit``.

        Raises:
            GitError: one of the paths named nothing at that commit.
        """
        past = self.files_at(commit.sha, paths)
        for path in (p.strip("/") for p in paths):
            if not any(f == path or f.startswith(path + "/") for f in past):
                raise GitError(
                    f"{path} did not exist at {commit.sha[:10]} ({commit.date[:10]}); "
                    "nothing was restored"
                )
        return past

    def restore(self, at: str, paths: list[str]) -> RestoreResult:
        """Bring the vault's files (or the given paths) back to how they were at ``at``,
        as a new commit, after committing the present state so the restore can be undone.

        Raises:
            GitError: no such revision or date, or a path that did not exist then.
        """
        target = self.resolve(at)
        past = set(self.existed_at(target, paths))
        # The memory log too: the checkout below would otherwise drop its uncommitted lines.
        saved = self.commit(
            "vaultmem: save the present state before a restore", memory_log_alone=True
        )
        present = set(self.files_at("HEAD", paths))
        for gone in sorted(present - past):
            self.run("rm", "--quiet", "--", *literal([gone]))
        if past:
            self.run("checkout", target.sha, "--", *literal(sorted(past)))
        what = ", ".join(paths) if paths else "the vault"
        day = target.date[:10]
        made = self.commit(f"vaultmem: restore {what} to {target.sha[:10]} ({day})")
        changed = sorted(made.files) if made else []  # [] when it already was as then
        return RestoreResult(made or self.log(limit=1)[0], changed, saved)
