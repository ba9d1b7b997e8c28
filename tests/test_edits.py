"""Planned line edits: edits by block id in a row are made in one pass over the note, and
that pass gives what making them one at a time gives, whatever the note."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem.memory.edits import Edits, _edit

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
