"""``vaultmem sync``: commit, fetch, merge, push, so that two devices converge on their own.

Order matters: the fetch comes first, so an unreachable remote (or one that does not answer
within ``[git] timeout_seconds``) leaves everything as it was, and so does a remote branch
whose ``.gitattributes`` would make git rewrite the vault's notes (another encoding, a
filter driver: ``_refuse_rewriting_attributes``). Then local changes are
committed (the memory log alone makes no commit: ``History.commit``), the remote branch is
merged, and the result pushed; if another device pushed meanwhile, fetch and merge again.

The merge: git merges the branches, then every vault file both sides changed since their
common commit is merged again by its kind (``notes/merge.py``), whatever git made of it
(so an old vault's ``merge=union`` for daily notes does no harm). Before the merge is
committed, ``after_merge`` runs: the vault rebuilds ``MEMORY.md``'s and the topic pages'
generated blocks from the merged facts there. Only a real conflict (both devices changed the
same words) keeps the other side's whole file beside ours as a conflict copy; ``sync`` then
reports it (the CLI exits 1). A fast-forward takes the other device's files as they are.

Uncommitted memory-log lines (a search's access counts) are set aside during the merge and
appended back afterwards; a merge commit carries them, otherwise they wait for the next
commit. An empty remote gets our branch; a remote with the branch under our name is merged,
even without common history (a vault made on each device, then joined).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vaultmem.errors import GitError
from vaultmem.git.history import EMPTY_TREE, MEMORY_LOG, NEVER_COMMITTED, Commit, History
from vaultmem.git.runner import literal, operand
from vaultmem.notes.merge import merge_file
from vaultmem.notes.state import STATE_DIR, TEMP_DIR, vault_write_lock
from vaultmem.notes.writes import NotUTF8Error, append_bytes, atomic_write, update_text


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


def sync(
    history: History, remote: str | None, after_merge: Callable[[], object] | None = None
) -> SyncResult:
    """Commit, fetch, merge, push (see the module docstring); ``after_merge`` runs before a
    merge is committed (the vault rebuilds its generated blocks there).

    Raises:
        GitError: no remote, an unreachable one, a detached HEAD, a merge or rebase in
            progress, or unresolved conflicts; nothing is changed in those cases.
    """
    branch = _check_state(history)
    remotes = _remotes(history)
    if not remotes:
        raise GitError("this vault has no git remote; add one with `git remote add origin URL`")
    name = operand(remote or ("origin" if "origin" in remotes else remotes[0]), "remote name")
    if name not in remotes:
        raise GitError(f"no remote named {name!r}; this vault has: {', '.join(remotes)}")
    result = SyncResult(name, branch)
    _fetch(history, name)  # first: an unreachable remote must leave everything as it was
    upstream = f"{name}/{branch}"
    _refuse_rewriting_attributes(history, upstream)  # and so must one that re-encodes notes
    result.committed = history.commit()
    for attempt in range(3):  # another device may push between our fetch and our push
        if attempt:
            _fetch(history, name)
            _refuse_rewriting_attributes(history, upstream)
        if history.run("branch", "-r", "--list", upstream).strip():
            before = _head(history)
            _merge(history, before, upstream, name, result, after_merge)
            changed = history.run("diff", "--name-only", before or EMPTY_TREE, "HEAD", "--", ".")
            result.pulled += [history.vault_relative(p) for p in changed.split("\n") if p]
        if _head(history) is None:
            break  # nothing committed on either side yet: nothing to push
        try:
            history.run_network("push", name, f"HEAD:refs/heads/{branch}")
        except GitError as exc:
            if any(word in str(exc) for word in ("rejected", "fetch first", "non-fast-forward")):
                continue
            raise
        result.pushed = True
        _track(history, name, branch)
        break
    result.pulled = sorted(set(result.pulled))
    return result


def _check_state(history: History) -> str:
    """The branch checked out, when the repository is in a state to sync.

    Raises:
        GitError: a merge (rebase, cherry-pick, revert) in progress, a detached HEAD, or
            unresolved conflicts.
    """
    for marker, what in (
        ("MERGE_HEAD", "a merge"),
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
    ):
        if (history.git_dir / marker).exists():
            raise GitError(f"{what} is in progress in {history.top}; finish or abort it first")
    try:
        branch = history.run("symbolic-ref", "--quiet", "HEAD").strip()
    except GitError:
        raise GitError(
            "HEAD is detached (not on a branch); check out a branch first, e.g. `git switch main`"
        ) from None
    if history.run("diff", "--name-only", "--diff-filter=U"):
        raise GitError("the repository has unresolved conflicts; resolve them and commit first")
    return branch.removeprefix("refs/heads/")


def _remotes(history: History) -> list[str]:
    """The remotes the repository's own config names (``[remote "NAME"]``), in its order,
    whatever their names: ``operand`` refuses one git would read as an option."""
    try:
        out = history.run(
            "config", "--local", "--includes", "-z", "--name-only", "--get-regexp", r"^remote\."
        )
    except GitError:
        return []  # exit code 1: no remote
    keys = (key.removeprefix("remote.").rpartition(".")[0] for key in out.split("\0"))
    return list(dict.fromkeys(name for name in keys if name))


def _head(history: History) -> str | None:
    try:
        return history.run("rev-parse", "--verify", "--quiet", "HEAD").strip() or None
    except GitError:
        return None  # a new clone of an empty remote: no commit yet


def _track(history: History, remote: str, branch: str) -> None:
    """Make the remote branch the upstream of ours, so plain git commands know it too."""
    if not history.config(f"branch.{branch}.remote"):
        # Without a remote-tracking ref for it, plain git commands just need the remote named.
        with contextlib.suppress(GitError):
            history.run("branch", "--quiet", f"--set-upstream-to={remote}/{branch}")


def _fetch(history: History, remote: str) -> None:
    try:
        history.run_network("fetch", remote)
    except GitError as exc:
        raise GitError(f"cannot reach the remote {remote!r}: {exc}; nothing was changed") from exc


# Attributes with which git rewrites a file's bytes between the repository and the folder
# (docs/git.md, "Attributes sync refuses"). Set by another device's .gitattributes, they
# would turn this device's notes into UTF-16, say, or pass them through whatever filter
# driver it has installed (git-lfs would commit them as pointer files), or expand $Id$ in
# a person's words. Line endings (text, eol) are not among them: vaultmem reads LF and
# CRLF alike and keeps each note's own; nor are diff, merge or encoding (display only).
REWRITING_ATTRIBUTES = ("working-tree-encoding", "filter", "ident")
_NO_VALUE = ("unspecified", "unset", "set")


def _refuse_rewriting_attributes(history: History, upstream: str) -> None:
    """Refuse, before anything changes, a remote branch whose ``.gitattributes`` files give
    one of the vault's text files a ``REWRITING_ATTRIBUTES`` setting ours does not.

    Raises:
        GitError: naming a file, the attribute and where it is set; nothing was changed.
    """
    ours: str | None = "HEAD"
    try:  # one git command on every sync; the rest only when attributes differ
        attribute_files = _attribute_files(history, "HEAD", upstream)
    except GitError:  # no commit here yet, or no such branch there
        if not history.run("branch", "-r", "--list", upstream).strip():
            return
        ours = None
        attribute_files = _attribute_files(history, EMPTY_TREE, upstream)
    if not attribute_files:
        return  # the same attributes on both sides: nothing new to check
    paths = _text_files(history, upstream) | (_text_files(history, ours) if ours else set())
    before = _rewriting(history, ours or EMPTY_TREE, paths)  # with this device's own
    found = {
        path: sorted(new)
        for path, now in _rewriting(history, upstream, paths).items()
        if (new := now - before.get(path, set()))
    }
    if found:
        path = min(found, key=lambda p: (p.startswith(STATE_DIR + "/"), p))  # a note first
        settings = found[path]
        more = f" and {len(found) - 1} more of the vault's files" if len(found) > 1 else ""
        raise GitError(
            f"{upstream} sets {', '.join(settings)} for {path}{more} "
            f"({', '.join(attribute_files)}): git would rewrite those files' bytes on this "
            "device (another encoding, a filter), where vaultmem keeps notes as the UTF-8 "
            "text they are; remove that line on the device that added it, then sync again; "
            "nothing was changed"
        )


def _attribute_files(history: History, ours: str, theirs: str) -> list[str]:
    """The ``.gitattributes`` files (anywhere in the repository) that differ between two
    revisions."""
    changed = history.run(
        "diff", "--name-only", "--no-renames", ours, theirs, "--", ":(top,glob)**/.gitattributes"
    )
    return changed.split("\n")[:-1] if changed else []


def _text_files(history: History, rev: str) -> set[str]:
    """The vault's files at ``rev`` that vaultmem reads as text: its notes, and its own
    settings and logs in ``.vaultmem/`` (vault-relative: git runs in the vault folder)."""
    from vaultmem.notes.files import NOTE_SUFFIXES

    listed = history.run("ls-tree", "-r", "-z", "--name-only", rev).split("\0")
    return {p for p in listed if p.lower().endswith(NOTE_SUFFIXES) or p.startswith(STATE_DIR + "/")}


def _rewriting(history: History, rev: str, paths: set[str]) -> dict[str, set[str]]:
    """Each of ``paths`` that the ``.gitattributes`` files of ``rev`` (with this device's
    own ``.git/info/attributes`` and global attributes) give a rewriting attribute, with
    those settings (``working-tree-encoding=UTF-16``). Git reads them from a throwaway
    index holding ``rev``'s tree: the vault's own index and files are not touched."""
    import tempfile

    from vaultmem.notes.state import TEMP_PREFIX, temp_dir_for

    listing = "\0".join(sorted(paths)).encode("utf-8", "surrogateescape")
    with tempfile.TemporaryDirectory(
        prefix=TEMP_PREFIX, dir=temp_dir_for(str(history.root))
    ) as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        history.output("read-tree", rev, env=env)
        out = history.output(
            "check-attr", "--cached", "--stdin", "-z", *REWRITING_ATTRIBUTES, env=env, stdin=listing
        )
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, set[str]] = {}
    for path, name, value in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        if _rewrites(name, value):
            found.setdefault(path, set()).add(name if value == "set" else f"{name}={value}")
    return found


def _rewrites(attribute: str, value: str) -> bool:
    """Whether git rewrites a file's bytes for this attribute's value: ``ident`` when set, a
    ``filter`` naming a driver, a ``working-tree-encoding`` other than UTF-8 (git's no-op)."""
    if attribute == "ident":
        return value == "set"
    if value in _NO_VALUE:
        return False
    return attribute == "filter" or value.replace("-", "").lower() != "utf8"


def _merge(
    history: History,
    ours: str | None,
    upstream: str,
    remote: str,
    result: SyncResult,
    after_merge: Callable[[], object] | None,
) -> None:
    """Merge ``upstream`` into the branch at ``ours`` (see the module docstring)."""
    theirs = history.run("rev-parse", upstream).strip()
    if ours is not None and _is_ancestor(history, theirs, ours):
        return  # nothing new there
    # vaultmem's own writers (remember, consolidate) wait until the merge is committed;
    # anyone else's write meanwhile is kept by the compare-and-swap writes below.
    with vault_write_lock(history.root / STATE_DIR):
        held = _hold_memory_log(history)
        try:
            if ours is None or _is_ancestor(history, ours, theirs):
                history.run("merge", "--ff-only", "--quiet", upstream)
                return
            base = _merge_base(history, ours, theirs)
            _start_merge(history, upstream)
            _merge_files(history, base or EMPTY_TREE, theirs, remote, result)
        finally:
            _release_memory_log(history, held)
        if after_merge is not None:
            after_merge()
        history.add_all()
        message = f"vaultmem: merge {upstream}"
        if result.conflicts:
            message += "; conflicts kept side by side: " + ", ".join(c for _, c in result.conflicts)
        history.run("commit", "--quiet", "--no-verify", "-m", message)


def _is_ancestor(history: History, older: str, newer: str) -> bool:
    try:
        history.run("merge-base", "--is-ancestor", older, newer)
    except GitError:
        return False
    return True


def _merge_base(history: History, ours: str, theirs: str) -> str:
    try:
        return history.run("merge-base", ours, theirs).strip()
    except GitError:
        return ""  # no common history: two vaults made apart, joined now


def _start_merge(history: History, upstream: str) -> None:
    """``git merge --no-commit``; conflicts are left for ``_merge_files``."""
    try:
        history.run(
            "merge", "--no-commit", "--no-ff", "--allow-unrelated-histories", "--quiet", upstream
        )
    except GitError:
        if not (history.git_dir / "MERGE_HEAD").exists():
            raise  # git refused to start (e.g. a file in the way): nothing was changed


def _merge_files(history: History, base: str, theirs: str, remote: str, result: SyncResult) -> None:
    """Merge each file changed on both sides by its kind, then keep both sides of what is
    left conflicted (ours in place, theirs beside it)."""
    when = dt.datetime.now()
    both = set(_changed(history, base, "HEAD")) & set(_changed(history, base, theirs))
    resolved: set[str] = set()
    for top_path in sorted(both):
        rel = history.vault_relative(top_path)
        on_disk = _read(history.top / top_path)  # what git's merge left: ours to replace
        texts = [_text(history, rev, top_path) for rev in (base, "HEAD", theirs)]
        a, b = texts[1], texts[2]
        if a is None or b is None:
            continue  # deleted on one side, or not text: git's merge and the rule below
        merged = merge_file(rel, texts[0] or "", a, b, history.daily_folder)
        if merged is None:
            continue
        _put(history, top_path, on_disk, merged.text, remote, when, result)
        history.run("add", "--", *literal([top_path], top=True))
        resolved.add(top_path)
        if merged.conflicts:
            _keep_theirs(history, rel, b.encode("utf-8", "surrogateescape"), remote, when, result)
    conflicted = history.run("diff", "--name-only", "--diff-filter=U").split("\n")
    for top_path in (p for p in conflicted if p and p not in resolved):
        mine, other = _stage(history, 2, top_path), _stage(history, 3, top_path)
        keep = mine if mine is not None else other
        if keep is not None:
            atomic_write(history.top / top_path, keep)
        if mine is not None and other is not None and mine != other:
            _keep_theirs(history, history.vault_relative(top_path), other, remote, when, result)


def _keep_theirs(
    history: History, rel: str, theirs: bytes, remote: str, when: dt.datetime, result: SyncResult
) -> None:
    copy = conflict_copy_name(rel, remote, when)
    atomic_write(history.root / copy, theirs)
    result.conflicts.append((rel, copy))


def _put(
    history: History,
    top_path: str,
    on_disk: bytes | None,
    text: str,
    remote: str,
    when: dt.datetime,
    result: SyncResult,
) -> None:
    """Write a merged text over the file git's merge left (``on_disk``), keeping whatever
    anyone wrote to it since: lines appended are kept after the merged text; a file
    rewritten meanwhile is left as it is, and the merged text goes beside it as a copy."""
    path = history.top / top_path
    before = (on_disk or b"").decode("utf-8", "surrogateescape")
    rewritten: list[bool] = []

    def change(current: str) -> str | None:
        rewritten[:] = []
        if current == before:
            return text
        if current.startswith(before) and before.endswith("\n"):
            return text + ("" if text.endswith("\n") else "\n") + current[len(before) :]
        rewritten.append(True)
        return None

    try:
        update_text(path, change, raw=True)
    except NotUTF8Error:  # git's merge left bytes that are not text: ours replaces them
        rewritten.append(True)
    if rewritten:
        _keep_theirs(history, history.vault_relative(top_path), text.encode(), remote, when, result)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _changed(history: History, old: str, new: str) -> list[str]:
    out = history.run("diff", "--name-only", "--no-renames", old, new, "--", ".", *NEVER_COMMITTED)
    return [p for p in out.split("\n") if p]


def _text(history: History, rev: str, top_path: str) -> str | None:
    """A file at a revision as text (``None``: absent there, or not UTF-8 text)."""
    if rev == EMPTY_TREE:
        return None
    data = _show(history, f"{rev}:{top_path}")
    if data is None or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _stage(history: History, stage: int, top_path: str) -> bytes | None:
    """One side of a conflicted file, byte for byte (stage 2: ours, 3: theirs)."""
    return _show(history, f":{stage}:{top_path}")


def _show(history: History, spec: str) -> bytes | None:
    try:
        return history.output("show", spec)
    except GitError:
        return None  # not there


def _held_path(history: History, rel: str) -> Path:
    """Where lines set aside during a merge wait, so a sync killed meanwhile loses none."""
    return history.root / STATE_DIR / TEMP_DIR / ("held-" + rel.rsplit("/", 1)[-1])


def _hold_memory_log(history: History) -> dict[str, bytes]:
    """Set aside the memory log's uncommitted lines (git would refuse to merge over them):
    each changed log file goes back to its committed bytes; returns ``path: lines set
    aside``. A line another process appends meanwhile is set aside with them. The lines wait
    in a file too, which the next sync appends back if this one is killed."""
    for left in (history.root / STATE_DIR / TEMP_DIR).glob("held-*"):
        rel = MEMORY_LOG + left.name.removeprefix("held-")  # the log folder is flat
        _release_memory_log(history, {rel: left.read_bytes()})  # a killed sync's lines
    held: dict[str, bytes] = {}
    for rel in history.changed_paths():
        path = history.root / rel
        if not rel.startswith(MEMORY_LOG) or not path.is_file():
            continue
        committed = _show(history, f"HEAD:{history.prefix}{rel}") or b""
        aside: list[bytes] = []

        waiting = _held_path(history, rel)

        def back(
            current: str,
            committed: bytes = committed,
            aside: list[bytes] = aside,
            to: Path = waiting,
        ) -> str:
            now = current.encode("utf-8", "surrogateescape")
            aside[:] = [now[len(committed) :] if now.startswith(committed) else now]
            atomic_write(to, aside[0])
            return committed.decode("utf-8", "surrogateescape")

        update_text(path, back, raw=True)
        held[rel] = aside[0] if aside else b""
    return held


def _release_memory_log(history: History, held: dict[str, bytes]) -> None:
    """Append the lines set aside back to each log file, as it is after the merge."""
    for rel, tail in held.items():
        path = history.root / rel
        now = _read(path) or b""
        lead = b"\n" if now and not now.endswith(b"\n") else b""
        append_bytes(path, lead + tail)
        _held_path(history, rel).unlink(missing_ok=True)
