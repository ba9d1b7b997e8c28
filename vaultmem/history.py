"""Git: the vault's history. Every call passes git an argument list, never a shell string.

It owns making a folder a repository (``vaultmem init``), committing the vault's changes
with a message that says what changed, the log of the vault, of one note or of one line,
diffs, and restoring a past snapshot (into the vault as a new commit, or into another
folder). Git commands run in the vault folder, so pathspecs are vault-relative even when
the vault is a subfolder of a larger repository.

vaultmem commits as the user's configured git identity; when none is configured it falls
back to ``vaultmem <vaultmem@localhost>`` so a fresh machine can still commit.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import tarfile
from dataclasses import dataclass, field
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
    ("memory/", "daily note", "daily notes"),
    ("facts/", "fact file", "fact files"),
    ("topics/", "topic", "topics"),
    ("archive/", "archived file", "archived files"),
)


def describe_changes(paths: list[str]) -> str:
    """A commit message saying what changed: ``memory: 3 daily notes, 2 fact files, MEMORY.md``."""
    counts: dict[tuple[str, str], int] = {}
    others: list[str] = []
    for path in paths:
        for prefix, one, many in _CATEGORIES:
            if path.startswith(prefix):
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

    def __init__(self, root: Path) -> None:
        """Open the repository holding ``root``.

        Raises:
            GitError: the vault is not in a git repository, or git is missing.
        """
        self.root = root
        try:
            self.repo = git.Repo(root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise GitError(
                f"{root} is not in a git repository; run `git init` there (or `vaultmem init`)"
            ) from None
        except git.GitCommandNotFound as exc:
            raise GitError("git is not installed") from exc
        self.git = git.Git(str(root))  # runs in the vault folder: vault-relative pathspecs
        # Git names files from the repository's top folder; the vault may be a folder in it.
        self.top = Path(str(self.repo.working_tree_dir)).resolve()
        inside = root.resolve().relative_to(self.top).as_posix()
        self.prefix = "" if inside == "." else inside + "/"

    def run(self, *args: str) -> str:
        """Run one git command in the vault folder.

        Raises:
            GitError: git failed; the message carries git's own words.
        """
        try:
            with self.git.custom_environment(**_identity_env(self.repo)):
                return str(self.git.execute(["git", *args], strip_newline_in_stdout=False))
        except git.GitCommandError as exc:
            stderr = (exc.stderr or "").strip().removeprefix("stderr:").strip().strip("'")
            raise GitError(f"git {args[0]} failed: {stderr or exc}") from exc

    def changed_paths(self) -> list[str]:
        """Vault-relative paths with changes not yet committed (ignored files excluded)."""
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
        paths: list[str] = []
        entries = out.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            if len(entry) > 3:
                paths.append(self._vault_relative(entry[3:]))
                if entry[0] in "RC":  # a rename is followed by its source path
                    i += 1
            i += 1
        return paths

    def _vault_relative(self, top_relative: str) -> str:
        return top_relative.removeprefix(self.prefix)

    def commit(self, message: str | None = None) -> Commit | None:
        """Commit every change in the vault (the index and caches stay out, by .gitignore).

        Returns:
            The new commit, or ``None`` when there was nothing to commit.
        """
        paths = self.changed_paths()
        if not paths:
            return None
        self.run("add", "--all", "--", ".")
        self.run(
            "commit", "--quiet", "--no-verify", "-m", message or describe_changes(paths), "--", "."
        )
        return self.log(limit=1)[0]

    def log(
        self, path: str | None = None, since: str | None = None, limit: int | None = None
    ) -> list[Commit]:
        """Commits that touched the vault (or one note), newest first."""
        args = ["log", "--format=%x1e%H%x1f%cI%x1f%an%x1f%s", "--name-only"]
        if since:
            args.append(f"--since={since}")
        if limit:
            args.append(f"-{limit}")
        out = self.run(*args, "--", path or ".")
        commits = []
        for record in out.split("\x1e")[1:]:
            head, _, names = record.partition("\n")
            sha, date, author, message = head.split("\x1f", 3)
            files = tuple(self._vault_relative(n) for n in names.split("\n") if n.strip())
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
        """The diff of the vault (or one note) against ``rev`` (default: the last commit)."""
        return self.run("diff", rev or "HEAD", "--", path or ".")

    def resolve(self, at: str) -> Commit:
        """The commit named by a revision, or the last commit on or before a date (YYYY-MM-DD:
        the end of that day).

        Raises:
            GitError: no such revision, or no commit that old.
        """
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", at):
            day = dt.date.fromisoformat(at)
            sha = self.run("rev-list", "-1", f"--before={day.isoformat()} 23:59:59", "HEAD").strip()
            if not sha:
                raise GitError(f"the vault has no commit on or before {at}")
        else:
            try:
                sha = self.run("rev-parse", "--verify", "--quiet", f"{at}^{{commit}}").strip()
            except GitError:
                raise GitError(
                    f"{at!r} is neither a date (YYYY-MM-DD) nor a revision of this vault"
                ) from None
        return self.commit_info(sha)

    def commit_info(self, sha: str) -> Commit:
        """One commit by its sha."""
        out = self.run("show", "-s", "--format=%H%x1f%cI%x1f%an%x1f%s", sha).strip()
        full, date, author, message = out.split("\x1f", 3)
        return Commit(full, date, author, message)

    def files_at(self, sha: str, paths: list[str]) -> list[str]:
        """Vault-relative files that existed at a commit, under the given paths (or all)."""
        out = self.run(
            "ls-tree", "-r", "-z", "--name-only", "--full-tree", sha, "--", *self._top_paths(paths)
        )
        return [self._vault_relative(p) for p in out.split("\0") if p]

    def _top_paths(self, paths: list[str]) -> list[str]:
        if paths:
            return [self.prefix + p.strip("/") for p in paths]
        return [self.prefix or "."]

    def export(self, sha: str, paths: list[str], target: Path) -> list[str]:
        """Write the vault's files as they were at ``sha`` into the empty folder ``target``."""
        top_paths = self._top_paths(paths)
        data = self.repo.git.archive("--format=tar", sha, "--", *top_paths, stdout_as_string=False)
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

    def sync(self, remote: str | None = None) -> SyncResult:
        """Commit, fetch, merge, push. See ``docs/git.md``.

        Raises:
            GitError: no remote, an unreachable one, a detached HEAD, a merge or rebase in
                progress, or unresolved conflicts; nothing is changed in those cases.
        """
        return _sync(self, remote)

    def restore(self, at: str, paths: list[str]) -> RestoreResult:
        """Bring the vault's files (or the given paths) back to how they were at ``at``,
        as a new commit, after committing the present state so the restore can be undone."""
        target = self.resolve(at)
        saved = self.commit("vaultmem: save the present state before a restore")
        present = set(self.files_at("HEAD", paths))
        past = set(self.files_at(target.sha, paths))
        for gone in sorted(present - past):
            self.run("rm", "--quiet", "--", gone)
        if past:
            self.run("checkout", target.sha, "--", *sorted(past))
        what = ", ".join(paths) if paths else "the vault"
        day = target.date[:10]
        made = self.commit(f"vaultmem: restore {what} to {target.sha[:10]} ({day})")
        return RestoreResult(made or self.log(limit=1)[0], sorted(present | past), saved)


@dataclass
class SyncResult:
    """What a sync did."""

    remote: str
    branch: str
    committed: Commit | None = None
    pulled: list[str] = field(default_factory=list)  # vault-relative paths changed by the merge
    pushed: bool = False
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (note, conflict copy)


def conflict_copy_name(path: str, remote: str, when: dt.datetime) -> str:
    """Where the other side of a conflicting note is kept: beside it, clearly named, still
    a note (so it is indexed and searchable): ``facts/a.sync-conflict-20261122-2330-origin.md``."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or "/" in suffix:
        stem, suffix = path, "md"
    return f"{stem}.sync-conflict-{when:%Y%m%d-%H%M%S}-{remote}.{suffix}"


def _sync(history: History, remote: str | None) -> SyncResult:
    repo = history.repo
    git_dir = Path(repo.git_dir)
    for marker, what in (
        ("MERGE_HEAD", "a merge"),
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
    ):
        if (git_dir / marker).exists():
            raise GitError(
                f"{what} is in progress in {repo.working_tree_dir}; finish or abort it first"
            )
    if repo.head.is_detached:
        raise GitError(
            "HEAD is detached (not on a branch); check out a branch first, e.g. `git switch main`"
        )
    remotes = [r.name for r in repo.remotes]
    if not remotes:
        raise GitError("this vault has no git remote; add one with `git remote add origin URL`")
    name = remote or ("origin" if "origin" in remotes else remotes[0])
    if name not in remotes:
        raise GitError(f"no remote named {name!r}; this vault has: {', '.join(remotes)}")
    if history.run("diff", "--name-only", "--diff-filter=U"):
        raise GitError("the repository has unresolved conflicts; resolve them and commit first")
    branch = repo.active_branch.name
    result = SyncResult(name, branch)
    _fetch(history, name)  # first: an unreachable remote must leave everything as it was
    result.committed = history.commit()
    for attempt in range(3):  # another device may push between our fetch and our push
        if attempt:
            _fetch(history, name)
        upstream = f"{name}/{branch}"
        if history.run("branch", "-r", "--list", upstream).strip():
            before = repo.head.commit.hexsha
            _merge(history, upstream, name, result)
            changed = history.run("diff", "--name-only", before, "HEAD", "--", ".")
            result.pulled += [history._vault_relative(p) for p in changed.split("\n") if p]
        try:
            history.run("push", "--quiet", name, f"HEAD:refs/heads/{branch}")
        except GitError as exc:
            if any(word in str(exc) for word in ("rejected", "fetch first", "non-fast-forward")):
                continue
            raise
        result.pushed = True
        break
    result.pulled = sorted(set(result.pulled))
    return result


def _fetch(history: History, remote: str) -> None:
    try:
        history.run("fetch", "--quiet", remote)
    except GitError as exc:
        raise GitError(f"cannot reach the remote {remote!r}: {exc}; nothing was changed") from exc


def _merge(history: History, upstream: str, remote: str, result: SyncResult) -> None:
    """Merge ``upstream``; a conflict keeps both sides (ours in place, theirs beside it)."""
    try:
        history.run("merge", "--no-edit", "--no-verify", "--quiet", upstream)
        return
    except GitError:
        conflicted = [
            p for p in history.run("diff", "--name-only", "--diff-filter=U").split("\n") if p
        ]
        if not conflicted:
            history.run("merge", "--abort")
            raise
    when = dt.datetime.now()
    for top_path in conflicted:
        ours = _stage(history, 2, top_path)
        theirs = _stage(history, 3, top_path)
        target = history.top / top_path
        rel = history._vault_relative(top_path)
        keep = ours if ours is not None else theirs
        if keep is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(keep)
        if ours is not None and theirs is not None and theirs != ours:
            copy = conflict_copy_name(rel, remote, when)
            (history.root / copy).write_bytes(theirs)
            result.conflicts.append((rel, copy))
    history.run("add", "--all", "--", ".")
    message = f"vaultmem: merge {upstream}"
    if result.conflicts:
        message += "; conflicts kept side by side: " + ", ".join(c for _, c in result.conflicts)
    history.run("commit", "--quiet", "--no-verify", "-m", message)


def _stage(history: History, stage: int, top_path: str) -> bytes | None:
    """One side of a conflicted file, byte for byte (stage 2: ours, 3: theirs)."""
    try:
        out = history.git.execute(
            ["git", "show", f":{stage}:{top_path}"],
            stdout_as_string=False,
            strip_newline_in_stdout=False,
        )
    except git.GitCommandError:
        return None  # that side deleted the file
    return bytes(out)
