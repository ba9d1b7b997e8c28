"""How each kind of vault file merges when two devices changed it: pure three-way merges.

``vaultmem sync`` lets git merge the branches, then merges again, with the functions here,
every vault file both sides changed since their common commit (``history._merge``). Each
function takes the three texts (the common ancestor, ours, theirs) and returns the merged
text and how many *real* conflicts it met: places where both devices changed the same
words differently. Nothing else is a conflict.

* **Generated-block files** (``MEMORY.md``, ``topics/**.md``): the human text outside the
  ``<!-- vaultmem:begin -->``/``<!-- vaultmem:end -->`` markers merges line by line; the
  block itself is taken from our side and rebuilt from the merged facts right after the
  merge (``Vault.sync``), so two devices' blocks never conflict.
* **Fact files** (``facts/**.md``, ``archive/**.md``): lines ending in a block id (``^f8c2``)
  merge by id. A line added on either side is kept (the same id on both sides is one line);
  a line changed on one side only takes that change; a line deleted on one side and
  unchanged on the other stays deleted; deleted on one side and changed on the other keeps
  the change (nothing is lost); changed differently on both sides is a conflict. Lines
  without an id (headings, a person's prose) merge line by line.
* **Daily notes** (``memory/**.md``, the daily folder's): the same merge by block id, and
  where both sides wrote different lines at one place, both are kept (a union, as the old
  ``merge=union``); lines both added at one place, each opening with its time, interleave
  in time order (``daily_lines``). A line a person typed on one device and that
  consolidation gave an id on another (`` ^m3f9`` appended) is one line, not two.
* Everywhere, lines both sides *added* at the same place are all kept (nobody changed the
  other's words), ours first.

On a conflict the merged text holds our words at that place; ``vaultmem sync`` writes the
other side's whole file beside it as a conflict copy (``is_conflict_copy``), which
consolidation ignores (its facts are not live) and ``vaultmem validate`` reports.
Everything else in the vault (the memory log, config) is left to git.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import TypeVar

from vaultmem.notes.daily_lines import interleave, line_time
from vaultmem.notes.generated_block import BEGIN, END

CONFLICT_MARK = ".sync-conflict-"
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$")
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Merged:
    """A merged text and the number of places where both sides changed the same words."""

    text: str
    conflicts: int = 0


def is_conflict_copy(path: str) -> bool:
    """Whether a vault path is the other side of a sync conflict, kept beside its note."""
    return CONFLICT_MARK in path.rsplit("/", 1)[-1]


def kind_of(path: str, daily_folder: str = "memory") -> str | None:
    """How a vault-relative path merges: ``generated``, ``facts``, ``daily`` (a note of the
    daily folder), or ``None`` (not a vault file vaultmem knows: git's own merge)."""
    if not path.endswith(".md") or is_conflict_copy(path):
        return None
    if path == "MEMORY.md" or path.startswith("topics/"):
        return "generated"
    if path.startswith(("facts/", "archive/")):
        return "facts"
    if daily_folder and path.startswith(daily_folder + "/"):
        return "daily"
    if not daily_folder and "/" not in path and _DATED.match(path):  # daily notes at the root
        return "daily"
    return None


def merge_file(
    path: str, base: str, ours: str, theirs: str, daily_folder: str = "memory"
) -> Merged | None:
    """Merge one vault file by its kind; ``None`` for files git merges itself."""
    kind = kind_of(path, daily_folder)
    if kind == "generated":
        return merge_generated(base, ours, theirs)
    if kind == "facts":
        return merge_by_block_id(base, ours, theirs)
    if kind == "daily":
        return merge_by_block_id(base, ours, theirs, union=True)
    return None


# -- the line merge (diff3) -----------------------------------------------------------


def _sync_points(base: Sequence[T], a: Sequence[T], b: Sequence[T]) -> list[tuple[int, ...]]:
    """Runs of ``base`` left unchanged on both sides: ``(base, end, a, end, b, end)``."""
    am = SequenceMatcher(None, base, a, autojunk=False).get_matching_blocks()
    bm = SequenceMatcher(None, base, b, autojunk=False).get_matching_blocks()
    points: list[tuple[int, ...]] = []
    i = j = 0
    while i < len(am) - 1 and j < len(bm) - 1:
        abase, amatch, alen = am[i]
        bbase, bmatch, blen = bm[j]
        start, end = max(abase, bbase), min(abase + alen, bbase + blen)
        if start < end:
            asub, bsub = amatch + start - abase, bmatch + start - bbase
            points.append((start, end, asub, asub + end - start, bsub, bsub + end - start))
        if abase + alen < bbase + blen:
            i += 1
        else:
            j += 1
    points.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return points


def regions(
    base: Sequence[T], a: Sequence[T], b: Sequence[T]
) -> Iterator[tuple[list[T], list[T], list[T]]]:
    """The three-way merge as regions ``(base, a, b)``; a region where ``a == b``, or one
    side equals ``base``, merges by itself; the others are where both sides changed."""
    iz = ia = ib = 0
    for zmatch, zend, amatch, aend, bmatch, bend in _sync_points(base, a, b):
        if amatch > ia or bmatch > ib or zmatch > iz:
            yield list(base[iz:zmatch]), list(a[ia:amatch]), list(b[ib:bmatch])
        if zend > zmatch:
            same = list(base[zmatch:zend])
            yield same, same, same
        iz, ia, ib = zend, aend, bend


def _union(a: Sequence[T], b: Sequence[T]) -> list[T]:
    """Both sequences interleaved: what they share once, what differs from ``a`` first."""
    out: list[T] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        out += a[i1:i2]
        if op != "equal":
            out += b[j1:j2]
    return out


def _resolve(base: list[T], a: list[T], b: list[T], union_all: bool) -> tuple[list[T], bool]:
    """One region: the merged items and whether it is a real conflict (then ``a`` wins)."""
    if a == b or b == base:
        return a, False
    if a == base:
        return b, False
    if not base or union_all:  # both only added, or a daily note: keep both sides' lines
        return _union(a, b), False
    return a, True


def merge_lines(base: str, ours: str, theirs: str, *, union_all: bool = False) -> Merged:
    """A line-based three-way merge; ``union_all`` keeps both sides where both changed."""
    out: list[str] = []
    conflicts = 0
    for z, a, b in regions(_lines(base), _lines(ours), _lines(theirs)):
        merged, conflict = _resolve(z, a, b, union_all)
        out += merged
        conflicts += conflict
    return Merged("".join(out), conflicts)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


# -- generated blocks -----------------------------------------------------------------


def _blank_block(text: str) -> tuple[str, str] | None:
    """``text`` with its generated block emptied, and the block; ``None`` without markers."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin or text.count(BEGIN) > 1 or text.count(END) > 1:
        return None
    cut = begin + len(BEGIN)
    return text[:cut] + "\n" + text[end:], text[cut:end]


def merge_generated(base: str, ours: str, theirs: str) -> Merged:
    """Merge a file with a generated block: the human text three-way, the block from our
    side (the caller rebuilds it from the merged facts)."""
    mine, other = _blank_block(ours), _blank_block(theirs)
    if mine is None or other is None:  # a person removed the markers: all text is theirs
        return merge_lines(base, ours, theirs)
    old = _blank_block(base)
    merged = merge_lines(old[0] if old else base, mine[0], other[0])
    human, block = merged.text, mine[1]
    place = human.find(BEGIN + "\n" + END)
    if place >= 0:
        cut = place + len(BEGIN)
        human = human[:cut] + block + human[cut + 1 :]
    return Merged(human, merged.conflicts)


# -- lines with block ids -------------------------------------------------------------


def block_id(line: str) -> str | None:
    """The block id ``^id`` a line ends with."""
    match = _BLOCK_ID.search(line)
    return match.group(1) if match else None


def _without_id(line: str) -> str:
    return _BLOCK_ID.sub("", line.rstrip("\r\n")).rstrip()


Token = tuple[str, str]  # ("id", block id) or ("text", the line)


def _tokens(lines: list[str], contents: dict[str, str]) -> list[Token]:
    """Each line as a token; lines with an id (unique in the file) by their id alone, so a
    changed fact is the same token on both sides and only its words are merged."""
    counts: dict[str, int] = {}
    for line in lines:
        if (ident := block_id(line)) is not None:
            counts[ident] = counts.get(ident, 0) + 1
    tokens: list[Token] = []
    for line in lines:
        ident = block_id(line)
        if ident is not None and counts[ident] == 1:
            contents[ident] = line
            tokens.append(("id", ident))
        else:
            tokens.append(("text", line))
    return tokens


def _adopt(tokens: list[Token], contents: dict[str, str], ids: dict[str, str]) -> None:
    """A line without an id that another side gave an id (consolidation appends `` ^id`` to
    a line a person typed) is that line: give it the id's token here too."""
    plain: dict[str, list[int]] = {}
    for number, (kind, value) in enumerate(tokens):
        if kind == "text":
            plain.setdefault(_without_id(value), []).append(number)
    for ident, line in ids.items():
        found = plain.get(_without_id(line))
        if ident not in contents and found and len(found) == 1:
            number = found[0]
            contents[ident] = tokens[number][1]
            tokens[number] = ("id", ident)


def _decide(
    ident: str, base: dict[str, str], ours: dict[str, str], theirs: dict[str, str]
) -> tuple[str | None, bool]:
    """One id's line after the merge (``None``: deleted) and whether it is a conflict."""
    z, a, b = base.get(ident), ours.get(ident), theirs.get(ident)
    if a is not None and b is not None:
        if a == b or b == z:
            return a, False
        if a == z:
            return b, False
        return a, True
    kept = a if a is not None else b
    if z is None or kept != z:  # added on one side, or changed there and deleted on the other
        return kept, False
    return None, False  # deleted on one side, unchanged on the other


def merge_by_block_id(base: str, ours: str, theirs: str, *, union: bool = False) -> Merged:
    """Merge a file of lines with block ids (fact files, daily notes) by id; see the
    module docstring. ``union`` keeps both sides where both changed lines without ids."""
    zc: dict[str, str] = {}
    ac: dict[str, str] = {}
    bc: dict[str, str] = {}
    z, a, b = _tokens(_lines(base), zc), _tokens(_lines(ours), ac), _tokens(_lines(theirs), bc)
    given = {**bc, **ac}
    for tokens, contents in ((z, zc), (a, ac), (b, bc)):
        _adopt(tokens, contents, given)
    skeleton: list[Token] = []
    conflicts = 0
    for rz, ra, rb in regions(z, a, b):
        if ra in (rb, rz) or rb == rz:
            skeleton += _resolve(rz, ra, rb, False)[0]
            continue
        if union and not rz:  # a daily note both added to here: in time order if timed
            added = [t for t in rb if t not in ra]
            timed = interleave(ra, added, lambda t: line_time(given.get(t[1], t[1])))
            if timed is not None:
                skeleton += timed
                continue
        hz, ha, hb = ([t for t in r if t[0] == "text"] for r in (rz, ra, rb))
        if ha == hb or hz in (ha, hb):  # the human lines merge by themselves: only ids moved
            skeleton += _layout(rz, ra, rb)
        elif union or not hz:  # both wrote other lines here (a daily note, or both added)
            skeleton += _union(ra, rb)
        else:  # both changed a person's words here: ours stay, theirs go to the copy
            skeleton += _layout(rz, ra, rb)
            conflicts += 1
    return _render(skeleton, (z, a, b), (zc, ac, bc), conflicts)


def _layout(z: list[Token], a: list[Token], b: list[Token]) -> list[Token]:
    """Where both sides changed one place: the side that kept (or shares) the human lines
    there gives the order, and the other side's new ids follow it."""
    human = [[t for t in r if t[0] == "text"] for r in (z, a, b)]
    first, second = (b, a) if human[1] == human[0] and human[2] != human[0] else (a, b)
    return first + [t for t in second if t[0] == "id" and t not in first]


def _place(side: list[Token], number: int, skeleton: list[Token]) -> int:
    """Where to put back ``side[number]``: after the nearest id line before it that the
    merge kept, else before the nearest one after it, else at the end."""
    placed = [t for t in skeleton if t[0] == "id"]
    for token in reversed(side[:number]):
        if token[0] == "id" and token in placed:
            return skeleton.index(token) + 1
    for token in side[number + 1 :]:
        if token[0] == "id" and token in placed:
            return skeleton.index(token)
    return len(skeleton)


def _render(
    skeleton: list[Token],
    sides: tuple[list[Token], list[Token], list[Token]],
    contents: tuple[dict[str, str], dict[str, str], dict[str, str]],
    conflicts: int,
) -> Merged:
    zc, ac, bc = contents
    decided: dict[str, str | None] = {}
    for ident in {*zc, *ac, *bc}:
        line, conflict = _decide(ident, zc, ac, bc)
        decided[ident] = line
        conflicts += conflict
    placed = {value for kind, value in skeleton if kind == "id"}
    for side in sides[1:]:  # a line kept although the other side's deletion won the order
        for number, token in enumerate(side):
            if token[0] == "id" and token[1] not in placed and decided.get(token[1]):
                skeleton.insert(_place(side, number, skeleton), token)
                placed.add(token[1])
    out: list[str] = []
    written: set[str] = set()
    for kind, value in skeleton:
        if kind == "text":
            out.append(value)
        elif value not in written and (line := decided.get(value)) is not None:
            written.add(value)
            out.append(line)
    return Merged("".join(out), conflicts)
