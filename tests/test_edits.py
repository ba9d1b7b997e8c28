"""Planned line edits: edits by block id in a row are made in one pass over the note, and
moves into a note in a row read each source once; each gives what making them one at a
time gives, whatever the notes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem.memory.pipeline.edits import _BLOCK_IDS, Edits, _append, _edit

IDS = ["a1", "b-2", "f09a", "x"]
PIECES = st.sampled_from(
    [
        "- fact ^a1",
        "- fact ^b-2",
        "- other ^f09a  ",
        "- two ids ^x ^a1",
        "- not an id^a1",
        "text ^a1\r",
        "^x",
        "plain line",
        "",
        "- crlf ^b-2\r",
    ]
)
CHANGES = st.sampled_from(["strike", "remove", "retag", "lines"])


def change_of(kind: str, block_id: str) -> object:
    if kind == "remove":
        return lambda line: ""
    if kind == "strike":
        return lambda line: f"~~{line}~~ ^{block_id}"  # keeps its id: a later edit finds it
    if kind == "retag":
        return lambda line: f"{line} [by:: run] ^f09a"  # now ends with another id
    return lambda line: f"{line}\nand a line more"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(PIECES, max_size=8),
    st.booleans(),
    st.lists(st.tuples(st.sampled_from(IDS), CHANGES), min_size=1, max_size=6),
)
def test_edits_in_one_pass_make_what_edits_one_at_a_time_make(
    pieces: list[str], ends_with_break: bool, steps: list[tuple[str, str]]
) -> None:
    note = "\n".join(pieces) + ("\n" if ends_with_break else "")
    edits = Edits()
    expected = note
    for block_id, kind in steps:
        change = change_of(kind, block_id)
        edits.edit_line("facts/x.md", block_id, change)  # type: ignore[arg-type]
        expected = _edit(expected, block_id, change)  # type: ignore[arg-type]
    assert edits.new_text("facts/x.md", note) == expected


def test_removing_many_lines_of_a_note_keeps_every_other_line() -> None:
    lines = [f"- fact {n} ^f{n:04x}" for n in range(300)]
    edits = Edits()
    for n in range(0, 300, 2):
        edits.remove_line("facts/x.md", f"f{n:04x}")
    assert edits.new_text("facts/x.md", "\n".join(lines) + "\n") == "\n".join(lines[1::2]) + "\n"


def moved_one_at_a_time(root: Path, target: str, steps: list[tuple[str, str]]) -> str:
    """The target note after each move copied in by itself: the source's first line
    ending with the id, appended unless a line with that id is there already."""
    note = (root / target).read_text()
    for source, block_id in steps:
        for line in (root / source).read_text().splitlines():
            match = _BLOCK_IDS.search(line)
            if match and match.group(1) == block_id:
                note = _append(note, [line.rstrip()], HEADER)
                break
    return note


HEADER = "# Archive\n\n"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(PIECES, max_size=6),
    st.lists(PIECES, max_size=6),
    st.lists(PIECES, max_size=3),
    st.lists(st.tuples(st.sampled_from(["a.md", "b.md"]), st.sampled_from(IDS)), max_size=6),
)
def test_moves_in_a_row_make_what_moves_one_at_a_time_make(
    first: list[str], second: list[str], archive: list[str], steps: list[tuple[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "a.md").write_text("\n".join(first))
        (root / "b.md").write_text("\n".join(second) + "\n")
        (root / "archive.md").write_text("\n".join(archive))
        edits = Edits()
        for source, block_id in steps:
            edits.move_line(root, source, "archive.md", block_id, HEADER)
        expected = moved_one_at_a_time(root, "archive.md", steps)
        assert edits.new_text("archive.md", (root / "archive.md").read_text()) == expected
