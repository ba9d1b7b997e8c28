"""Consolidation: daily-note lines become facts with provenance; repeats, beliefs and
conflicts; topics; decay to the archive; MEMORY.md; idempotent and resumable."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli, soak, write
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vaultmem import Vault
from vaultmem.memory.language.extract import Metadata
from vaultmem.memory.pipeline import edits as edits_module
from vaultmem.memory.pipeline import ledger as ledger_module
from vaultmem.memory.pipeline.facts import Entry, Fact, parse_entries, parse_entry, render_fact
from vaultmem.memory.pipeline.ledger import Ledger
from vaultmem.notes.generated_block import BEGIN, END, block_of, count_tokens

DAY = dt.date(2026, 11, 22)
HEADER = "---\ndate: {day}\ntype: daily\n---\n\n# {day}\n\n"


def daily(vault: Vault, day: str, *lines: str) -> None:
    write(vault.root, f"memory/{day}.md", HEADER.format(day=day) + "\n".join(lines) + "\n")


def facts_text(root: Path) -> dict[str, str]:
    """Every file vaultmem may write, by path (the log and checkpoint left out)."""
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for folder in ("facts", "archive", "topics", "memory")
        for p in sorted((root / folder).rglob("*.md"))
    } | {"MEMORY.md": (root / "MEMORY.md").read_text(encoding="utf-8")}


def fact_lines(root: Path, rel: str) -> list[str]:
    return [e.raw for e in parse_entries((root / rel).read_text(encoding="utf-8"))]


def test_admitted_lines_become_facts_linked_to_their_source(vault: Vault) -> None:
    daily(
        vault,
        "2026-11-22",
        "- 09:00 **user** Alice is allergic to peanuts, remember that ^m1",
        "- 09:01 **user** ok ^m2",
        "- 09:02 **user** 记住：我对花生过敏，必须避免 ^m3",
        "- 09:03 **user** Deploy failed with error: connection refused on port 5432 ^m4",
    )
    report = vault.consolidate(today=DAY)
    assert (report.collected, report.admitted, report.new_facts) == (4, 3, 3)
    # Alice's allergy is hers, not the owner's; the owner's goes to health.
    (alice,) = fact_lines(vault.root, "facts/people.md")
    assert alice.startswith("- Alice is allergic to peanuts [kind:: health]")
    assert "[source:: [[memory/2026-11-22#^m1]]]" in alice
    (mine,) = fact_lines(vault.root, "facts/health.md")
    assert mine.startswith("- 我对花生过敏，必须避免 [kind:: health]")
    assert "[source:: [[memory/2026-11-22#^m3]]]" in mine
    errors = fact_lines(vault.root, "facts/tech/errors.md")
    assert "[source:: [[memory/2026-11-22#^m4]]]" in errors[0]
    assert report.commit is not None
    assert vault.log()[0].message.startswith("consolidate (daily): 3 new facts")
    assert vault.search("peanuts", path="facts/*")[0].path == "facts/people.md"


def test_a_second_run_changes_nothing(example_vault: Vault) -> None:
    first = example_vault.consolidate(today=DAY)
    assert first.new_facts > 5 and first.changed
    before = facts_text(example_vault.root)
    head = example_vault.log()[0].sha
    for mode in ("daily", "full", "quick"):
        again = example_vault.consolidate(mode, today=DAY)
        assert (again.new_facts, again.changed, again.commit) == (0, [], None), mode
    assert facts_text(example_vault.root) == before
    assert example_vault.log()[0].sha == head


def test_dry_run_prints_the_diff_and_writes_nothing(example_vault: Vault) -> None:
    before = facts_text(example_vault.root)
    report = example_vault.consolidate(dry_run=True, today=DAY)
    assert "+++ b/facts/life/changes.md" in report.diff
    assert "+- Budget review with Carol moved to Monday;" in report.diff
    assert facts_text(example_vault.root) == before
    assert not (example_vault.root / ".vaultmem/consolidate.json").exists()
    real = example_vault.consolidate(today=DAY)
    assert real.new_facts == report.new_facts


def test_a_line_typed_without_a_block_id_gets_one(vault: Vault) -> None:
    daily(vault, "2026-11-22", "- I decided we always deploy on Tuesdays, never Fridays")
    vault.consolidate(today=DAY)
    note = (vault.root / "memory/2026-11-22.md").read_text()
    line = note.splitlines()[-1]
    assert line.startswith("- I decided we always deploy on Tuesdays, never Fridays ^m")
    ident = line.rsplit("^", 1)[1]
    fact = fact_lines(vault.root, "facts/work/decisions.md")[0]
    assert f"[source:: [[memory/2026-11-22#^{ident}]]]" in fact


def test_the_lines_of_a_note_typed_without_ids_get_theirs_and_nothing_else_changes(
    vault: Vault,
) -> None:
    """A note's ids are given in one pass: each admitted line gets its own, in a CRLF note
    too; other lines, their order and endings stay byte for byte."""
    said = [
        "I decided we always deploy on Tuesdays, never Fridays",
        "ok",
        "Remember: the staging server runs on port 8443",
        "I decided we always deploy on Tuesdays, never Fridays",  # the same words again
        "Remember that my passport expires in March 2027",
    ]
    text = "# 2026-11-22\r\n\r\n" + "".join(f"- {words}\r\n" for words in said)
    path = vault.root / "memory/2026-11-22.md"
    path.write_bytes(text.encode())
    vault.consolidate(today=DAY)
    lines = path.read_bytes().decode().split("\r\n")
    assert lines[:2] == ["# 2026-11-22", ""] and lines[-1] == ""
    given = lines[2:-1]
    assert [line.split(" ^")[0] for line in given] == [f"- {words}" for words in said]
    ids = [line.rsplit("^", 1)[1] for line in given if " ^" in line]
    assert len(ids) == 3 and len(set(ids)) == 3  # the repeat of the same words: none
    assert given[1] == "- ok" and " ^" not in given[3]
    cited = "".join(
        line
        for note in (vault.root / "facts").rglob("*.md")
        for line in fact_lines(vault.root, note.relative_to(vault.root).as_posix())
    )
    assert all(f"#^{ident}]]" in cited for ident in ids)


def test_a_repeat_is_logged_against_the_fact_it_repeats(vault: Vault) -> None:
    daily(vault, "2026-11-21", "- **user** Remember: the staging server runs on port 8443 ^a1")
    daily(vault, "2026-11-22", "- **user** remember: the staging server runs on port 8443! ^b1")
    report = vault.consolidate(today=DAY)
    assert (report.new_facts, report.repeats) == (1, 1)
    log = next((vault.root / ".vaultmem/log").glob("*.log")).read_text()
    assert "\tdistilled\t2026-11-22#b1\tf" in log
    assert vault.consolidate("full", today=DAY).new_facts == 0


def test_a_contradiction_supersedes_the_older_fact_keeping_its_words(vault: Vault) -> None:
    daily(vault, "2026-11-20", "- **user** I love black coffee in the morning ^a1")
    vault.consolidate(today=DAY)
    daily(vault, "2026-11-22", "- **user** I hate black coffee in the morning now ^b1")
    report = vault.consolidate(today=DAY)
    assert (report.new_facts, report.superseded) == (1, 1)
    old, new = fact_lines(vault.root, "facts/preferences.md")
    new_id = new.rsplit("^", 1)[1]
    assert old.startswith("- ~~I love black coffee in the morning~~ [kind:: preference]")
    assert f"[superseded_by:: [[facts/preferences#^{new_id}]]]" in old
    assert "[superseded:: 2026-11-22]" in old
    assert "[supersedes:: [[facts/preferences#^" in new
    block = block_of((vault.root / "MEMORY.md").read_text())
    assert block is not None and "I hate black coffee" in block
    assert "I love black coffee" not in block


def test_chinese_negation_supersedes(vault: Vault) -> None:
    daily(vault, "2026-11-20", "- **user** 我喜欢喝加糖的咖啡，记住 ^a1")
    daily(vault, "2026-11-22", "- **user** 我现在不喜欢喝加糖的咖啡了，记住 ^b1")
    report = vault.consolidate(today=DAY)
    assert report.superseded == 1
    old = fact_lines(vault.root, "facts/preferences.md")[0]
    assert old.startswith("- ~~我喜欢喝加糖的咖啡~~")  # the request "，记住" is no fact


def test_a_belief_is_kept_with_confidence_and_confirmed_later(vault: Vault) -> None:
    daily(
        vault,
        "2026-11-20",
        "- **user** Remember: the launch is probably moving to March 3 next year ^a1",
    )
    report = vault.consolidate(today=DAY)
    assert report.beliefs == 1
    belief = fact_lines(vault.root, "facts/general.md")[0]
    assert "[kind:: belief]" in belief and "[confidence:: 0.7]" in belief
    daily(
        vault,
        "2026-11-22",
        "- **user** Important: the launch is moving to March 3 next year, the team confirmed ^b1",
    )
    report = vault.consolidate(today=DAY)
    assert (report.confirmed, report.new_facts) == (1, 0)
    confirmed = fact_lines(vault.root, "facts/general.md")[0]
    assert "[confidence::" not in confirmed
    assert "[confirmed_by:: [[memory/2026-11-22#^b1]]]" in confirmed


def test_a_fuller_plain_statement_supersedes_a_belief_and_keeps_its_words(
    vault: Vault,
) -> None:
    # Confirming would keep only the belief's words and lose "and shellfish".
    daily(vault, "2026-11-20", "- **user** Alice might be allergic to peanuts ^a1")
    assert vault.consolidate(today=DAY).beliefs == 1
    daily(vault, "2026-11-22", "- **user** Alice is allergic to peanuts and shellfish ^b1")
    report = vault.consolidate(today=DAY)
    assert (report.confirmed, report.new_facts, report.superseded) == (0, 1, 1)
    lines = [
        line
        for path in sorted((vault.root / "facts").rglob("*.md"))
        for line in fact_lines(vault.root, str(path.relative_to(vault.root)))
    ]
    old, new = sorted(lines, key=lambda line: "shellfish" in line)
    assert old.startswith("- ~~Alice might be allergic to peanuts~~")
    assert "[superseded_by:: " in old
    assert "[confidence::" not in new
    assert "[[memory/2026-11-22#^b1]]" in new and "[[memory/2026-11-20#^a1]]" in new


def test_topics_get_pages_with_hotness_and_a_summary(vault: Vault) -> None:
    daily(
        vault,
        "2026-11-22",
        "- **user** Had a long design review with Alice about the storage layer today ^a1",
        "- **user** Alice said the storage migration must finish before the release ^a2",
        "- **user** Lunch with Alice: she prefers the Thai place near the office ^a3",
    )
    vault.consolidate(today=DAY)
    page = (vault.root / "topics/alice.md").read_text()
    assert page.startswith("---\ntype: topic\nkind: person\n---\n\n# Alice\n")
    assert "[hotness:: 0.15] [status:: warm] [facts:: 3]" in page
    assert "**Summary:** Alice (person) appears in 3 facts since 2026-11-22" in page
    # Hotness cools by x0.95 a day: recomputed from the facts' dates, not accumulated.
    vault.consolidate("quick", today=DAY + dt.timedelta(days=30))
    vault.consolidate("daily", today=DAY + dt.timedelta(days=30))
    page = (vault.root / "topics/alice.md").read_text()
    assert "[hotness:: 0.03] [status:: dormant]" in page


def test_topic_page_text_outside_the_markers_is_the_persons(vault: Vault) -> None:
    mine = "# Alice\n\nMy own notes about Alice.\n"
    write(vault.root, "topics/alice.md", mine)
    daily(
        vault,
        "2026-11-22",
        "- **user** I met Alice about the quarterly budget plan today; it is important ^a1",
        "- **user** Alice said the budget must stay under 5 万元 this quarter ^a2",
    )
    vault.consolidate(today=DAY)
    page = (vault.root / "topics/alice.md").read_text()
    assert page.startswith(mine) and BEGIN in page


def test_cold_facts_move_to_the_archive_word_for_word(vault: Vault) -> None:
    daily(
        vault, "2020-01-06", "- **user** Remember that the old build server was called hal9000 ^a1"
    )
    vault.consolidate(today=dt.date(2020, 1, 6))
    line = fact_lines(vault.root, "facts/general.md")[0]
    report = vault.consolidate("quick", today=DAY)
    assert report.archived == 1
    assert fact_lines(vault.root, "facts/general.md") == []
    assert fact_lines(vault.root, "archive/general.md") == [line]
    assert vault.search("hal9000") == []
    assert vault.search("hal9000", include_archive=True)[0].path == "archive/general.md"
    assert vault.consolidate("full", today=DAY).changed == []


def test_pinned_and_accessed_facts_resist_decay(vault: Vault) -> None:
    write(
        vault.root,
        "facts/general.md",
        "- The wifi password hint is the cat's name #pinned [created:: 2020-01-01] ^p1\n"
        "- The office plant is a ficus [created:: 2025-12-13] [importance:: 0.4] ^p2\n"
        "- The office door code changed in spring [created:: 2025-12-13] "
        "[importance:: 0.4] ^p3\n",
    )
    vault.index()
    for _ in range(30):
        assert [h.block_id for h in vault.search("door")] == ["p3"]
    tiers = vault.tiers(today=DAY)["facts/general.md"]
    assert tiers["warm"] == 1  # pinned, never decays
    report = vault.consolidate("quick", today=DAY)
    assert report.archived == 1  # the ficus; the door code was reinforced by 30 accesses
    assert [line[-2:] for line in fact_lines(vault.root, "facts/general.md")] == ["p1", "p3"]


def test_memory_md_block_stays_within_budget_and_the_rest_is_untouched(vault: Vault) -> None:
    write(vault.root, ".vaultmem/config.toml", "[memory]\nbudget_tokens = 120\n")
    outside = (vault.root / "MEMORY.md").read_text()
    lines = [
        f"- **user** Remember that project Orion{i} must ship feature {i} with the new API ^x{i}"
        for i in range(60)
    ]
    daily(vault, "2026-11-22", *lines)
    with Vault(vault.root) as fresh:
        fresh.consolidate(today=DAY)
    text = (vault.root / "MEMORY.md").read_text()
    block = block_of(text)
    assert block is not None and 0 < count_tokens(block) <= 120
    assert text.replace(block, "") == outside.replace(f"{BEGIN}\n{END}", f"{BEGIN}\n\n{END}")
    assert "## Vault" in block


def test_memory_md_without_markers_gets_the_block_appended(vault: Vault) -> None:
    write(vault.root, "MEMORY.md", "# Mine\n\n- owner likes tea")
    daily(vault, "2026-11-22", "- **user** Remember my name is Dana and I was born in Oslo ^a1")
    vault.consolidate(today=DAY)
    text = (vault.root / "MEMORY.md").read_text()
    assert text.startswith("# Mine\n\n- owner likes tea\n\n" + BEGIN)
    assert "Dana" in (block_of(text) or "")


def test_memory_md_with_broken_markers_is_left_alone(vault: Vault) -> None:
    broken = f"# Mine\n{END}\n{BEGIN}\n"
    write(vault.root, "MEMORY.md", broken)
    daily(vault, "2026-11-22", "- **user** Remember my name is Dana and I was born in Oslo ^a1")
    report = vault.consolidate(today=DAY)
    assert (vault.root / "MEMORY.md").read_text() == broken
    assert any("MEMORY.md" in n and "markers" in n for n in report.notices)


def test_a_fact_edited_by_a_person_is_never_rewritten(vault: Vault) -> None:
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    path = vault.root / "facts/health.md"
    text = path.read_text().replace("allergic to peanuts", "allergic to peanuts and cashews")
    path.write_text(text)
    for mode in ("daily", "full", "quick"):
        vault.consolidate(mode, today=DAY)
    assert path.read_text() == text


def test_a_fact_deleted_by_a_person_does_not_come_back(vault: Vault) -> None:
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    ident = fact_lines(vault.root, "facts/health.md")[0].rsplit("^", 1)[1]
    vault.forget(ident, hard=True, today=DAY)
    assert fact_lines(vault.root, "facts/health.md") == []
    assert "peanuts" not in (vault.root / "memory/2026-11-22.md").read_text()
    assert vault.consolidate("full", today=DAY).new_facts == 0


def test_a_note_saved_by_a_person_during_the_run_is_re_read(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    daily(vault, "2026-11-22", "- **user** My asthma inhaler is in the blue bag, remember ^b1")
    health = vault.root / "facts/health.md"
    real = edits_module.update_text

    def person_saves_first(path: Path, change, attempts: int = 5) -> bool:  # type: ignore[no-untyped-def]
        if path == health:
            text = health.read_text().replace("peanuts", "peanuts (severe)")
            health.write_text(text + "- my own line ^mine\n")
        return real(path, change, attempts)

    monkeypatch.setattr(edits_module, "update_text", person_saves_first)
    vault.consolidate(today=DAY)
    text = health.read_text()
    assert "peanuts (severe)" in text and "- my own line ^mine" in text
    assert "inhaler" in text


def test_secrets_never_reach_facts_or_memory_md(vault: Vault) -> None:
    daily(
        vault,
        "2026-11-22",
        "- **user** Remember the deploy password: hunter2hunter2 is important ^a1",
    )
    vault.consolidate(today=DAY)
    for path in list((vault.root / "facts").rglob("*.md")) + [vault.root / "MEMORY.md"]:
        assert "hunter2" not in path.read_text()
    assert any("[secret masked]" in p.read_text() for p in (vault.root / "facts").rglob("*.md"))


def test_search_by_url_finds_facts(vault: Vault) -> None:
    daily(
        vault,
        "2026-11-22",
        "- **user** Remember the runbook lives at https://wiki.example.com/ops/runbook ^a1",
    )
    vault.consolidate(today=DAY)
    hits = vault.search("", url="wiki.example.com/OPS")
    assert [h.path for h in hits] == ["facts/general.md"]
    assert vault.search("runbook", url="nowhere.example") == []


def test_forget_strikes_and_keeps_the_words(vault: Vault) -> None:
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    ident = fact_lines(vault.root, "facts/health.md")[0].rsplit("^", 1)[1]
    done = vault.forget(ident, reason="wrong person", today=DAY)
    line = fact_lines(vault.root, "facts/health.md")[0]
    assert line.startswith("- ~~I am allergic to peanuts~~")
    assert "[forgotten:: 2026-11-22] [reason:: wrong person]" in line
    assert done.commit is not None
    assert "peanuts" not in (block_of((vault.root / "MEMORY.md").read_text()) or "")


def test_forget_an_unknown_id_is_a_clear_error(vault: Vault) -> None:
    from vaultmem import VaultmemError

    with pytest.raises(VaultmemError, match="no memory line has the block id"):
        vault.forget("fdeadbeef00")


def many_lines(vault: Vault, days: int = 6, per_day: int = 40) -> None:
    """Daily notes to distill (some lines without block ids) and old facts to archive."""
    write(
        vault.root,
        "facts/general.md",
        "".join(f"- An old fact number {i} [created:: 2020-01-01] ^old{i}\n" for i in range(5)),
    )
    for d in range(days):
        day = f"2026-11-{10 + d:02d}"
        daily(
            vault,
            day,
            *[
                f"- **user** Remember that service{d}x{i} must use port {8000 + i} in prod ^l{i}"
                if i % 3
                else f"- wrote the report for Dana{i} about budget {i} 万元"
                for i in range(per_day)
            ],
        )


@pytest.mark.soak
def test_a_run_killed_at_any_write_then_rerun_equals_one_clean_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean_root = tmp_path / "clean"
    Vault.init(clean_root)
    with Vault(clean_root) as clean:
        many_lines(clean)
        clean.consolidate(today=DAY)
    expected = facts_text(clean_root)
    dealt_with = set(Ledger.read(clean_root).distilled)
    assert len(dealt_with) > 100
    writes = 0
    real = edits_module.update_text

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal writes
        writes += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(edits_module, "update_text", counting)
    Vault.init(tmp_path / "count")
    with Vault(tmp_path / "count") as counted:
        many_lines(counted)
        counted.consolidate(today=DAY)
    assert writes > 5
    # Every write in a soak run; a third of them, the first and last among them, otherwise.
    for crash_at in sorted({*range(1, writes + 1, soak(1, 3)), writes}):
        root = tmp_path / f"crash{crash_at}"
        Vault.init(root)
        calls = 0

        def crashing(*args, crash_at=crash_at, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal calls
            calls += 1
            if calls == crash_at:
                raise KeyboardInterrupt("killed")
            return real(*args, **kwargs)

        monkeypatch.setattr(edits_module, "update_text", crashing)
        with Vault(root) as crashed:
            many_lines(crashed)
            with pytest.raises(KeyboardInterrupt):
                crashed.consolidate(today=DAY)
        monkeypatch.setattr(edits_module, "update_text", real)
        with Vault(root) as resumed:
            resumed.consolidate(today=DAY)
        assert facts_text(root) == expected, f"crash at write {crash_at}"
        assert set(Ledger.read(root).distilled) == dealt_with, f"crash at write {crash_at}"


def test_sigkill_during_a_real_run_then_rerun_equals_a_clean_run(tmp_path: Path) -> None:
    clean_root = tmp_path / "clean"
    Vault.init(clean_root)
    with Vault(clean_root) as clean:
        many_lines(clean, days=30)
        clean.consolidate(today=DAY)
    expected = facts_text(clean_root)
    dealt_with = set(Ledger.read(clean_root).distilled)
    root = tmp_path / "killed"
    Vault.init(root)
    with Vault(root) as vault:
        many_lines(vault, days=30)
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "consolidate", "--today", "2026-11-22"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # Kill it once it has written something (or after it finished: the rerun then is a no-op).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if (root / "facts").exists() and any((root / "facts").rglob("*.md")):
            break
        time.sleep(0.005)
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()
    result = run_cli(root, "consolidate", "--today", "2026-11-22")
    assert result.returncode == 0, result.stderr
    assert facts_text(root) == expected
    assert set(Ledger.read(root).distilled) == dealt_with


def test_cli_consolidate_forget_tree_validate(example_vault: Vault) -> None:
    root = example_vault.root
    dry = run_cli(root, "consolidate", "--dry-run", "--today", "2026-11-22")
    assert dry.returncode == 0 and "+++ b/facts/life/changes.md" in dry.stdout
    done = run_cli(root, "consolidate", "--today", "2026-11-22")
    assert done.returncode == 0 and done.stdout.startswith("consolidate (daily): 8 new facts")
    tree = run_cli(root, "tree")
    assert "changes" in tree.stdout and "hot" in tree.stdout.splitlines()[0]
    ident = fact_lines(root, "facts/life/changes.md")[0].rsplit("^", 1)[1]
    gone = run_cli(root, "forget", ident, "--reason", "test")
    assert gone.returncode == 0 and gone.stdout.startswith("struck through facts/life/changes.md:")
    missing = run_cli(root, "forget", "fnothere000")
    assert missing.returncode == 1
    assert missing.stderr.strip() == "Error: no memory line has the block id ^fnothere000"
    checked = run_cli(root, "validate")
    assert checked.returncode == 1 and "broken-link: [[Bob]]: no such note" in checked.stdout
    assert "Traceback" not in checked.stderr + missing.stderr


# -- a person's edits to facts and the archive stay (issue 12, items 4 and 5) -------------

OLD_FACT = "- The old build server was called hal9000 [created:: 2020-01-01] ^old1"


def lines_with_id(root: Path, ident: str) -> list[str]:
    """``path: line`` of every line of facts/ and archive/ ending in ``^ident``."""
    return [
        f"{path}: {line}"
        for path, text in facts_text(root).items()
        if path.startswith(("facts/", "archive/"))
        for line in text.splitlines()
        if line.endswith(f" ^{ident}")
    ]


def archived_old_fact(vault: Vault) -> None:
    write(vault.root, "facts/general.md", OLD_FACT + "\n")
    assert vault.consolidate("quick", today=DAY).archived == 1
    assert lines_with_id(vault.root, "old1") == [f"archive/general.md: {OLD_FACT}"]


@pytest.mark.parametrize(
    "revived",
    [
        "- The old build server was called hal9000 [created:: 2020-01-01] #pinned ^old1",
        "- The old build server was called hal9000 #pinned ^old1",
        "- The old build server is called hal9000 and still runs CI [importance:: 1] #pinned ^old1",
    ],
    ids=["pinned", "pinned-fields-removed", "words-edited"],
)
def test_a_revived_archived_fact_stays_and_its_archive_copy_goes(
    vault: Vault, revived: str
) -> None:
    archived_old_fact(vault)
    write(vault.root, "facts/general.md", revived + "\n")
    vault.commit("revive the build server fact")
    for mode in ("daily", "full", "quick"):
        vault.consolidate(mode, today=DAY)
        assert lines_with_id(vault.root, "old1") == [f"facts/general.md: {revived}"], mode


def test_a_revived_fact_whose_words_decay_again_is_archived_with_the_persons_words(
    vault: Vault,
) -> None:
    archived_old_fact(vault)
    edited = "- The old build server hal9000 was retired in 2021 [created:: 2020-01-01] ^old1"
    write(vault.root, "facts/general.md", edited + "\n")
    vault.consolidate(today=DAY)
    assert lines_with_id(vault.root, "old1") == [f"archive/general.md: {edited}"]


def test_a_fact_copied_back_word_for_word_after_its_move_is_a_revival(vault: Vault) -> None:
    archived_old_fact(vault)
    # The person stops archiving (tier_cold 0) and copies the line back as it was.
    write(vault.root, ".vaultmem/config.toml", "[memory]\ntier_cold = 0\n")
    write(vault.root, "facts/general.md", OLD_FACT + "\n")
    with Vault(vault.root) as reopened:
        reopened.consolidate(today=DAY)
    assert lines_with_id(vault.root, "old1") == [f"facts/general.md: {OLD_FACT}"]


def person_facts(root: Path) -> dict[str, str]:
    return {p: t for p, t in facts_text(root).items() if p.startswith(("facts/", "archive/"))}


def without_fields_or_id(line: str) -> str:
    return line.split(" [", 1)[0]


@pytest.mark.parametrize(
    "edit",
    [
        lambda line: None,
        without_fields_or_id,
        lambda line: line.split(" [", 1)[0] + " ^" + line.rsplit("^", 1)[1],
        lambda line: (
            line.replace("peanuts", "peanuts and cashews").split(" [source::")[0]
            + " ^"
            + line.rsplit("^", 1)[1]
        ),
    ],
    ids=["deleted", "fields-and-id-removed", "fields-removed", "words-edited-source-removed"],
)
def test_a_fact_a_person_deleted_or_edited_never_comes_back(
    vault: Vault, edit: Callable[[str], str | None]
) -> None:
    daily(
        vault,
        "2026-11-22",
        "- **user** I am allergic to peanuts, remember ^a1",
        "- **user** Decided: we always deploy on Tuesdays, never Fridays ^a2",
    )
    vault.consolidate(today=DAY)
    health = vault.root / "facts/health.md"
    fact = fact_lines(vault.root, "facts/health.md")[0]
    changed = edit(fact)
    text = health.read_text().replace(fact + "\n", "" if changed is None else changed + "\n")
    health.write_text(text)
    vault.commit("my edit")
    expected = person_facts(vault.root)
    vault.consolidate("full", today=DAY)
    assert person_facts(vault.root) == expected
    (vault.root / ".vaultmem/consolidate.json").unlink()  # documented as safe to delete
    vault.consolidate(today=DAY)
    assert person_facts(vault.root) == expected


def test_a_fact_and_its_daily_line_both_deleted_stay_deleted(vault: Vault) -> None:
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    daily(vault, "2026-11-22", "- **user** something else entirely")
    (vault.root / "facts/health.md").write_text("")
    for mode in ("full", "daily"):
        vault.consolidate(mode, today=DAY)
        assert "peanuts" not in "".join(person_facts(vault.root).values())


def test_a_run_stopped_between_its_facts_and_its_log_loses_nothing(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facts are written before the log: a crash between the two leaves facts the log
    lacks, and the next run logs them, so a fact deleted afterwards stays deleted."""
    daily(vault, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    real = ledger_module.append

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(ledger_module, "append", killed)
    with pytest.raises(KeyboardInterrupt):
        vault.consolidate(today=DAY)
    assert "peanuts" in (vault.root / "facts/health.md").read_text()  # written first
    assert "2026-11-22#a1" not in Ledger.read(vault.root).distilled
    monkeypatch.setattr(ledger_module, "append", real)
    vault.consolidate(today=DAY)
    assert "2026-11-22#a1" in Ledger.read(vault.root).distilled
    (vault.root / "facts/health.md").write_text("")
    (vault.root / ".vaultmem/consolidate.json").unlink()
    for mode in ("full", "daily"):
        assert vault.consolidate(mode, today=DAY).new_facts == 0
    assert (vault.root / "facts/health.md").read_text() == ""


def test_the_log_survives_torn_junk_and_union_merged_lines(tmp_path: Path) -> None:
    folder = tmp_path / ".vaultmem/log"
    folder.mkdir(parents=True)
    (folder / "laptop.log").write_text(
        "2026-11-20T09:00:00\tdistilled\t2026-11-20#a1\tf1\n"
        "<<<<<<< HEAD\n"  # a merge a person resolved badly
        "not an event\n"
        "\x00\x00\x00\n"
        "2026-11-20T09:00:01\taccess\tf1\n"
        "=======\n"
        "2026-11-20T09:00:02\tdistilled\t2026-11-20#a2\tf2\r\n"  # a CRLF checkout
        "2026-11-20T09:00:03\tdistilled\tnot-a-key\tf3\n"
        "2026-11-20T09:00:04\tdistilled\t2026-11-20#a4\n"  # a field missing
        ">>>>>>> phone\n"
        "2026-11-20T09:00:05\tdistilled\t2026-11-20#a5\tf5\n"
        "2026-11-20T09:00:06\tdistilled\t2026-11-20#a6"  # torn: the device crashed here
    )
    (folder / "phone.log").write_bytes(b"2026-11-21T10:00:00\tforgot\t2026-11-21#b1\tb1\n\xff\n")
    read = Ledger.read(tmp_path)
    assert read.distilled == {
        "2026-11-20#a1": "f1",
        "2026-11-20#a2": "f2",
        "2026-11-20#a5": "f5",
        "2026-11-21#b1": "b1",
    }
    assert read.accesses == {"f1": 1}
    ledger_module.append(tmp_path, "laptop", [("distilled", "2026-11-22#c1", "fc")])
    again = Ledger.read(tmp_path)
    assert again.distilled["2026-11-22#c1"] == "fc"  # not glued to the torn line
    assert "2026-11-20#a6" not in again.distilled


@pytest.mark.parametrize(
    "config, message",
    [
        ("decay_fact = 2", "memory.decay_fact must be between 0 and 0.5, got 2.0"),
        ("decay_belief = -0.1", "memory.decay_belief must be between 0 and 0.5, got -0.1"),
        ("admit_threshold = 1.5", "memory.admit_threshold must be between 0 and 1, got 1.5"),
        ("hotness_daily = 2", "memory.hotness_daily must be between 0 and 1, got 2.0"),
        ("importance_slowdown = 3", "memory.importance_slowdown must be between 0 and 1"),
        ("tier_cold = nan", "memory.tier_cold must be a number, got nan"),
        ("tier_warm = 0.8", "memory.tier_warm (0.8) must be below memory.tier_hot (0.7)"),
        ("tier_cold = 0.3", "memory.tier_cold (0.3) must be below memory.tier_warm (0.3)"),
        ("topic_dormant = 0.6", "memory.topic_dormant (0.6) must be below memory.topic_active"),
        ("lessons = -1", "memory.lessons must be at least 0, got -1"),
    ],
)
def test_memory_settings_out_of_range_are_refused(vault: Vault, config: str, message: str) -> None:
    archived_fact = "- An old fact [created:: 2026-11-01] [importance:: 0.6] ^f1\n"
    write(vault.root, "facts/general.md", archived_fact)
    write(vault.root, ".vaultmem/config.toml", f"[memory]\n{config}\n")
    result = run_cli(vault.root, "consolidate", "--today", "2026-11-22")
    assert result.returncode == 1
    assert result.stderr.startswith(f"Error: .vaultmem/config.toml: {message}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert (vault.root / "facts/general.md").read_text() == archived_fact


def test_a_fact_id_on_two_lines_of_a_file_is_never_struck_by_id(vault: Vault) -> None:
    """Striking by id would reach the first line holding it, whichever fact was meant."""
    mine = (
        "- The office plant is a ficus [created:: 2026-11-20] ^fdup\n"
        "- I like green tea every morning [created:: 2026-11-20] ^fdup\n"
    )
    write(vault.root, "facts/general.md", mine)
    daily(vault, "2026-11-22", "- **user** Remember: I don't like green tea anymore ^a1")
    report = vault.consolidate(today=DAY)
    assert report.superseded == 0
    assert any("^fdup is on several lines" in notice for notice in report.notices)
    assert (vault.root / "facts/general.md").read_text() == mine


FIELD_WORDS = ["kind", "importance", "forgotten", "superseded_by", "source", "created", "x"]


@given(st.lists(st.sampled_from(FIELD_WORDS), max_size=12).map(lambda w: w[: len(w) // 2 * 2]))
def test_a_field_is_read_at_a_key_only_never_at_a_value_that_reads_like_one(
    flat: list[str],
) -> None:
    entry = Entry(1, "- words", "words", None, None, tuple(flat))
    pairs = list(zip(flat[::2], flat[1::2], strict=True))
    for key in FIELD_WORDS:
        assert entry.values(key) == [value for k, value in pairs if k == key]
        assert entry.field(key) == next((value for k, value in pairs if k == key), None)
    assert entry.struck == any(k in ("superseded_by", "forgotten") for k, _ in pairs)


# Words and values with the characters a fact line's parts are told apart by (the words
# are those of one line: no line break); many have none of those that make ``render_fact``
# parse its line again.
PLAIN_TEXT = st.text(st.sampled_from(list("ab X1:2-~^`|\u3000")), max_size=20)
LINE_TEXT = st.text(st.sampled_from(list("ab 1:2#^*[]-~\\`|\u3000\x85")), max_size=20)


@settings(max_examples=400)
@example(text="note:: a field", values=[], folder="memory", supersedes=None)
@example(text="12:30 lunch with Bob", values=[], folder="memory", supersedes=None)
@example(text="see #health", values=[], folder="memory", supersedes=None)
@example(text="[ ] call Bob", values=[], folder="memory", supersedes=None)
@example(text="**Bob** said so", values=[], folder="memory", supersedes=None)
@example(text="plain", values=["git log #1", "[x:: y]"], folder="#log", supersedes=None)
@example(text="plain", values=[], folder="a]b", supersedes="[[facts/a]b#^f1]]")
@given(
    # Any character a note can hold: a fact's words are read from UTF-8 (a lone surrogate
    # such as "\ud800" never is: a bad byte is read as U+FFFD).
    text=PLAIN_TEXT
    | LINE_TEXT
    | st.text(st.characters(exclude_characters="\n\r", exclude_categories=("Cs",)), max_size=9),
    values=st.lists(LINE_TEXT, max_size=3),
    folder=st.sampled_from(["memory", "Daily notes", "a]b", "#log"]),
    supersedes=st.none() | st.sampled_from(["[[facts/x#^f1]]", "[[facts/a]b#^f1]]"]),
)
def test_a_new_fact_line_reads_back_as_its_entry(
    text: str, values: list[str], folder: str, supersedes: str | None
) -> None:
    meta = Metadata(commands=values, people=values[:1])
    new = render_fact(
        text,
        ident="f0123456789",
        kind="general fact",
        importance=0.7,
        sources=["2026-11-22#a1", "2026-11-23#s1-2"],
        meta=meta,
        daily_folder=folder,
        confidence=0.5 if values else None,
        supersedes=supersedes,
    )
    assert new == parse_entry(new.raw)  # rendered without being parsed again, most often


def test_a_fact_is_dated_by_its_first_source_then_its_created_or_date_field() -> None:
    def day(fields: str) -> dt.date | None:
        entry = parse_entries(f"- Alice likes tea {fields} ^f1\n")[0]
        return Fact("facts/people.md", entry).day

    assert day("[source:: [[memory/2026-02-30#^a]], [[memory/2026-03-04#^b]]]") == dt.date(
        2026, 3, 4
    )  # the first source's date is no date: the next one's
    assert day("[created:: 2026-01-02] [source:: [[Daily/2026-03-05#^a]]]") == dt.date(2026, 3, 5)
    assert day("[confirmed_by:: [[2026-04-01#^c]]] [date:: 2025-12-31]") == dt.date(2026, 4, 1)
    assert day("[date:: 2025-12-31] [created:: 2025-11-30]") == dt.date(2025, 11, 30)
    assert day("[source:: [[Alice#^a]]]") is None


def test_a_consolidation_commits_what_it_wrote_and_nothing_of_the_persons(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    Vault.init(root)
    write(root, "memory/2026-11-21.md", "- I moved to Lisbon last month and love it ^a1\n")
    with Vault(root) as vault:
        vault.commit()
        write(root, "Pets/Rex.md", "Rex is a good dog.\n")  # the person's own, pending
        write(root, "Home.md", "# Home\n")
        vault.history.run("add", "--", "Home.md")  # staged by the person, not committed
        report = vault.consolidate(today=DAY)
        assert report.commit is not None
        committed = vault.history.run("show", "--name-only", "--format=", "HEAD").split()
        status = vault.history.run("status", "--porcelain", "--untracked-files=all")
    assert "Pets/Rex.md" not in committed and "Home.md" not in committed
    assert any(path.startswith("facts/") for path in committed) and "MEMORY.md" in committed
    assert "?? Pets/Rex.md" in status and "A  Home.md" in status  # left as they were
