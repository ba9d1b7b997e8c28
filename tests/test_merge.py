"""Three-way merges of vault files (``vaultmem/merge.py``): what two devices wrote is kept,
and only two changes to the same words are a conflict."""

from __future__ import annotations

from vaultmem.notes.merge import (
    is_conflict_copy,
    kind_of,
    merge_by_block_id,
    merge_file,
    merge_generated,
    merge_lines,
)

HEADER = "---\ntype: facts\n---\n\n# Decisions\n\n"
OLD = "- Use SQLite for the index [kind:: decision] ^f0000000001\n"


def test_facts_added_on_both_devices_are_all_kept_once() -> None:
    base = HEADER + OLD
    ours = base + "- Billing uses PostgreSQL ^faaaaaaaaaa\n"
    theirs = base + "- Standup moves to 9am ^fbbbbbbbbbb\n- Billing uses PostgreSQL ^faaaaaaaaaa\n"
    merged = merge_by_block_id(base, ours, theirs)
    assert merged.conflicts == 0
    assert merged.text == (
        base + "- Billing uses PostgreSQL ^faaaaaaaaaa\n- Standup moves to 9am ^fbbbbbbbbbb\n"
    )


def test_a_fact_file_made_on_both_devices_merges_without_a_common_ancestor() -> None:
    ours = HEADER + "- A ^fa\n"
    theirs = HEADER + "- B ^fb\n"
    assert merge_by_block_id("", ours, theirs).text == HEADER + "- A ^fa\n- B ^fb\n"


def test_a_change_on_one_side_wins_next_to_an_addition_on_the_other() -> None:
    base = HEADER + OLD
    struck = "- ~~Use SQLite for the index~~ [superseded_by:: x] ^f0000000001\n"
    ours = HEADER + struck
    theirs = base + "- New ^fb\n"
    merged = merge_by_block_id(base, ours, theirs)
    assert (merged.text, merged.conflicts) == (HEADER + struck + "- New ^fb\n", 0)
    assert merge_by_block_id(base, theirs, ours).text == HEADER + struck + "- New ^fb\n"


def test_deleted_on_one_side_stays_deleted_unless_the_other_changed_it() -> None:
    base = HEADER + OLD + "- Keep ^fk\n"
    deleted = HEADER + "- Keep ^fk\n"
    assert merge_by_block_id(base, deleted, base + "- New ^fn\n").text == deleted + "- New ^fn\n"
    changed = HEADER + OLD.replace("SQLite", "SQLite 3.45") + "- Keep ^fk\n"
    merged = merge_by_block_id(base, deleted, changed)
    assert (merged.text, merged.conflicts) == (changed, 0)  # the changed words are not lost


def test_one_fact_changed_differently_on_both_sides_is_a_conflict_ours_in_place() -> None:
    base = HEADER + OLD
    ours = HEADER + OLD.replace("SQLite", "DuckDB")
    theirs = HEADER + OLD.replace("SQLite", "Postgres") + "- New ^fn\n"
    merged = merge_by_block_id(base, ours, theirs)
    assert merged.conflicts == 1
    assert merged.text == ours + "- New ^fn\n"


def test_a_persons_prose_in_a_fact_file_merges_line_by_line() -> None:
    base = HEADER + "Some notes.\n\n" + OLD
    ours = base.replace("# Decisions", "# Decisions we made") + "- A ^fa\n"
    theirs = base + "- B ^fb\n"
    merged = merge_by_block_id(base, ours, theirs)
    assert merged.conflicts == 0
    assert merged.text == ours + "- B ^fb\n"
    both = merge_by_block_id(base, base.replace("Some", "Many"), base.replace("Some", "Few"))
    assert both.conflicts == 1


def test_a_daily_line_given_a_block_id_on_one_device_stays_one_line() -> None:
    base = "# 2026-11-22\n\n- 09:00 I typed this myself\n"
    given = "# 2026-11-22\n\n- 09:00 I typed this myself ^m1234abcd\n"
    appended = base + "- 10:00 [role:: user] more from the other device ^m5678ef01\n"
    for ours, theirs in ((given, appended), (appended, given)):
        merged = merge_file("memory/2026-11-22.md", base, ours, theirs)
        assert merged is not None and merged.conflicts == 0
        assert (
            merged.text == given + "- 10:00 [role:: user] more from the other device ^m5678ef01\n"
        )


def test_daily_lines_both_devices_typed_are_all_kept() -> None:
    base = "# 2026-11-22\n\n- first\n"
    merged = merge_file("memory/2026-11-22.md", base, base + "- from A\n", base + "- from B\n")
    assert merged is not None
    assert (merged.text, merged.conflicts) == (base + "- from A\n- from B\n", 0)
    edited = merge_file("memory/2026-11-22.md", base, "- first, A\n", "- first, B\n")
    assert edited is not None and edited.conflicts == 0  # a union, as merge=union was
    assert edited.text == "- first, A\n- first, B\n"


def test_lines_both_devices_captured_interleave_in_time_order() -> None:
    """Device A captured a session at 11:00, device B one at 10:00 and 11:30: the merged
    note reads in time order, either way round, each device's lines in their own order."""
    base = "# 2026-11-22\n\n- 08:00 **user** Standup moved to 8:30 ^m00\n"
    a = "- 11:00 **user** Lunch with Dana at noon ^ma1\n- 11:00 **assistant** Noted ^ma2\n"
    b = "- 10:00 **user** The release is Thursday ^mb1\n- 11:30 **user** Ship it ^mb2\n"
    expected = (
        base
        + "- 10:00 **user** The release is Thursday ^mb1\n"
        + "- 11:00 **user** Lunch with Dana at noon ^ma1\n- 11:00 **assistant** Noted ^ma2\n"
        + "- 11:30 **user** Ship it ^mb2\n"
    )
    for ours, theirs in ((base + a, base + b), (base + b, base + a)):
        merged = merge_file("memory/2026-11-22.md", base, ours, theirs)
        assert merged is not None and (merged.text, merged.conflicts) == (expected, 0)
    # A line without a time (a person's own) leaves both runs as they are: ours first.
    typed = "- call the bank\n"
    merged = merge_file("memory/2026-11-22.md", base, base + typed, base + b)
    assert merged is not None and merged.text == base + typed + b


MEMORY = (
    "# Memory\n\nYour own notes.\n\n<!-- vaultmem:begin -->\n{block}\n<!-- vaultmem:end -->\n"
    "\nAfter the block.\n"
)


def test_generated_blocks_never_conflict_and_the_human_text_merges() -> None:
    base = MEMORY.format(block="- old fact")
    ours = MEMORY.format(block="- old fact\n- A's fact").replace("Your own", "My own")
    theirs = MEMORY.format(block="- B's fact\n- old fact").replace("After", "Below")
    merged = merge_generated(base, ours, theirs)
    assert merged.conflicts == 0
    # The block is ours for now: Vault.sync rebuilds it from the merged facts.
    assert merged.text == MEMORY.format(block="- old fact\n- A's fact").replace(
        "Your own", "My own"
    ).replace("After", "Below")


def test_the_same_human_words_changed_on_both_sides_is_a_real_conflict() -> None:
    base = MEMORY.format(block="- x")
    ours = MEMORY.format(block="- a").replace("Your own notes", "Mine")
    theirs = MEMORY.format(block="- b").replace("Your own notes", "Theirs")
    merged = merge_file("MEMORY.md", base, ours, theirs)
    assert merged is not None and merged.conflicts == 1
    assert merged.text == ours


def test_line_merge_keeps_lines_both_sides_added_at_one_place() -> None:
    merged = merge_lines("a\nb\n", "a\nx\nb\n", "a\ny\nb\n")
    assert (merged.text, merged.conflicts) == ("a\nx\ny\nb\n", 0)


def test_which_files_merge_how() -> None:
    assert kind_of("MEMORY.md") == "generated"
    assert kind_of("topics/alice.md") == "generated"
    assert kind_of("facts/work/decisions.md") == "facts"
    assert kind_of("archive/work/decisions.md") == "facts"
    assert kind_of("memory/2026-11-22.md") == "daily"
    assert kind_of(".vaultmem/log/laptop.log") is None  # git's union (.gitattributes)
    assert kind_of("notes/idea.md") is None
    copy = "facts/work/decisions.sync-conflict-20261122-233012-origin.md"
    assert is_conflict_copy(copy) and kind_of(copy) is None
    assert not is_conflict_copy("facts/sync-conflict-notes/a.md")
