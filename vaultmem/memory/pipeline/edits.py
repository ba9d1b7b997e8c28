"""Planned changes to notes, kept as functions of a note's current text.

Consolidation and ``forget`` never write a text they computed from an earlier read: each
change is a function from the note's text to its new text, applied with
``files.update_text`` under the vault's write lock. A note a person saves meanwhile is
re-read and the change applied on top of their version. Every change is idempotent (an
appended line is skipped when its block id is already there; a line edit finds its line
by block id), so applying a plan twice, or again after a crash, gives the same files.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from vaultmem.errors import PathOutsideVaultError, VaultmemError
from vaultmem.notes.state import vault_write_lock
from vaultmem.notes.writes import NotUTF8Error, inside_vault, update_text

Change = Callable[[str], str]


class Edits:
    """Changes by vault-relative path, in the order they were planned."""

    def __init__(self) -> None:
        self.changes: dict[str, list[Change]] = {}

    def __bool__(self) -> bool:
        return bool(self.changes)

    def add(self, path: str, change: Change) -> None:
        self.changes.setdefault(path, []).append(change)

    def append_lines(self, path: str, lines: list[str], header: str) -> None:
        """Append lines (each ending in a block id) not already in the note; a new note
        starts with ``header``."""
        self.add(path, lambda old: _append(old, lines, header))

    def edit_line(self, path: str, block_id: str, change: Callable[[str], str]) -> None:
        """Change the line that ends with ``^block_id`` (nothing if a person removed it)."""
        changes = self.changes.setdefault(path, [])
        if not _PLAIN_ID.fullmatch(block_id):
            changes.append(lambda old: _edit(old, block_id, change))
            return
        # Edits by id in a row are made in one pass over the note (a run that moves
        # hundreds of facts out of one note searched the whole note for each).
        if not (changes and isinstance(changes[-1], _LineEdits)):
            changes.append(_LineEdits())
        last = changes[-1]
        assert isinstance(last, _LineEdits)
        last.steps.append((block_id, change))

    def remove_line(self, path: str, block_id: str) -> None:
        self.edit_line(path, block_id, lambda line: "")

    def move_line(self, root: Path, source: str, target: str, block_id: str, header: str) -> None:
        """Move a line to another note: appended to ``target`` as ``source`` holds it when
        the plan is applied, then removed from ``source``. ``apply`` must reach ``target``
        first, so that a crash between the two leaves a copy in both, never in neither."""

        changes = self.changes.setdefault(target, [])
        last = changes[-1] if changes else None
        # Moves into a note in a row are made together (a run that archives thousands of
        # facts read their note again for each).
        if not (isinstance(last, _Moves) and last.header == header):
            last = _Moves(root, header)
            changes.append(last)
        last.steps.append((source, block_id))
        self.remove_line(source, block_id)

    def new_text(self, path: str, old: str) -> str:
        for change in self.changes.get(path, []):
            old = change(old)
        return old

    def preview(self, root: Path) -> str:
        """The unified diff the plan would make."""
        parts: list[str] = []
        for path in self.changes:
            old = _read(root / path)
            new = self.new_text(path, old)
            if new != old:
                parts += difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"a/{path}",
                    f"b/{path}",
                )
        return "".join(part if part.endswith("\n") else part + "\n" for part in parts)

    def apply(self, root: Path, state_dir: Path) -> tuple[list[str], list[str]]:
        """Write every change. Returns the paths written and one notice per note left alone:
        not valid UTF-8 (rewriting it would change the bytes vaultmem cannot read), or a
        generated page (``MEMORY.md``, ``topics/``) that is a symlink (people link
        ``MEMORY.md`` into an agent's folder; vaultmem does not write through the link).

        Raises:
            PathOutsideVaultError: a note of facts to write is a symlink or in a folder that
                links out of the vault; the notes before it in the plan are written.
            VaultmemError: a note could not be written.
        """
        written, notices = [], []
        for path, changes in self.changes.items():

            def change(old: str, changes: list[Change] = changes) -> str | None:
                new = old
                for step in changes:
                    new = step(new)
                return None if new == old else new

            try:
                target = inside_vault(root, path)
                target.parent.mkdir(parents=True, exist_ok=True)
                with vault_write_lock(state_dir):
                    if update_text(target, change):
                        written.append(path)
            except NotUTF8Error:
                notices.append(f"{path}: not valid UTF-8; left unchanged")
            except PathOutsideVaultError as exc:
                if not (path == "MEMORY.md" or path.startswith("topics/")):
                    raise  # a fact has no other place to go: stop before the memory log
                notices.append(f"{exc}; left unchanged")
            except OSError as exc:
                raise VaultmemError(f"cannot write {path}: {exc.strerror or exc}") from exc
        return written, notices


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


# A block id ends its line after white space other than a line break (``_SPACE``). Plain
# ``\s`` would match the line break, so that a line holding only ``^id`` would be taken
# together with the line above it.
_SPACE = r"[^\S\r\n]"
_BLOCK_IDS = re.compile(rf"{_SPACE}\^([A-Za-z0-9-]+){_SPACE}*\r?$", re.M)


def block_ids(text: str) -> Counter[str]:
    """How many lines of a note end with each block id."""
    return Counter(_BLOCK_IDS.findall(text))


def block_id_lines(text: str, block_id: str) -> list[int]:
    """The 1-based numbers of the lines of a note that end with ``^block_id``: the lines an
    edit by that id could reach (any line, not only list items)."""
    pattern = re.compile(rf"{_SPACE}\^{re.escape(block_id)}{_SPACE}*\r?$")
    return [n for n, line in enumerate(text.split("\n"), 1) if pattern.search(line)]


def _append(old: str, lines: list[str], header: str) -> str:
    present = set(_BLOCK_IDS.findall(old))  # one pass, not one search per appended line
    new = [line for line in lines if line.rsplit("^", 1)[-1] not in present]
    if not new:
        return old
    if not old.strip():
        old = header
    elif not old.endswith("\n"):
        old += "\n"
    return old + "\n".join(new) + "\n"


class _Moves:
    """Lines copied into a note from others, in order, each source read once when the
    change is made: the first line of the source that ends with the block id, as it is
    then (none if a person removed it), appended as ``_append`` appends."""

    def __init__(self, root: Path, header: str) -> None:
        self.root, self.header = root, header
        self.steps: list[tuple[str, str]] = []  # (source, block id)

    def __call__(self, old: str) -> str:
        sources: dict[str, dict[str, str]] = {}  # source -> its lines by block id
        lines: dict[str, str] = {}  # block id -> line: a line moved twice is copied once
        for source, block_id in self.steps:
            found = sources.get(source)
            if found is None:
                found = sources[source] = {}
                for line in _read(self.root / source).splitlines():
                    match = _BLOCK_IDS.search(line)
                    if match:
                        found.setdefault(match.group(1), line.rstrip())
            if block_id in found:
                lines.setdefault(block_id, found[block_id])
        return _append(old, list(lines.values()), self.header)


_PLAIN_ID = re.compile(r"[A-Za-z0-9-]+")
_LINE_ID = re.compile(rf"{_SPACE}\^([A-Za-z0-9-]+){_SPACE}*\r?$")


class _LineEdits:
    """Changes of lines by block id, in order, made in one pass over the note: each the
    change ``_edit`` makes, to the first line that ends with its id when its turn comes."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, Callable[[str], str]]] = []

    def __call__(self, old: str) -> str:
        split = old.split("\n")
        last = len(split) - 1
        where: dict[str, list[int]] = {}  # block id -> the lines ending with it, in order
        for number, text in enumerate(split):
            ident = _line_id(text, number == last)
            if ident is not None:
                where.setdefault(ident, []).append(number)
        lines: list[str | None] = list(split)  # None: a line removed
        for step, (block_id, change) in enumerate(self.steps):
            found = where.get(block_id)
            if not found:
                continue
            number = found.pop(0)
            line = lines[number]
            assert line is not None
            bare = line.removesuffix("\r")
            new = change(bare)
            if "\n" in new:  # no longer one line: the rest as ``_edit`` makes them
                lines[number] = new + line[len(bare) :]
                note = "\n".join(kept for kept in lines if kept is not None)
                for block, rest in self.steps[step + 1 :]:
                    note = _edit(note, block, rest)
                return note
            if not new:  # the line goes, with its line break (the last line has none)
                lines[number] = "" if number == last else None
                continue
            lines[number] = changed = new + line[len(bare) :]
            ident = _line_id(changed, number == last)
            if ident is not None:
                bisect.insort(where.setdefault(ident, []), number)
        return "\n".join(kept for kept in lines if kept is not None)


def _line_id(line: str, last: bool) -> str | None:
    """The block id that ends a line of a note (split at line breaks), as ``_edit`` finds
    it: a line carriage return only before a line break, not at the note's end."""
    if last and line.endswith("\r"):
        return None
    match = _LINE_ID.search(line)
    return match.group(1) if match else None


def _edit(old: str, block_id: str, change: Callable[[str], str]) -> str:
    pattern = re.compile(rf"^[^\n]*{_SPACE}\^{re.escape(block_id)}{_SPACE}*(?:\r?\n|\Z)", re.M)
    match = pattern.search(old)
    if match is None:
        return old
    line = match.group(0)
    ending = line[len(line.rstrip("\r\n")) :]
    new = change(line.rstrip("\r\n"))
    return old[: match.start()] + (new + ending if new else "") + old[match.end() :]
