"""Search results an agent can use (``vaultmem/results.py``): a hit's neighbouring lines,
one memory once with the other places in ``also_in``, superseded facts below their
replacement, the archive only with ``--all``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import run_cli, write

from vaultmem import Vault
from vaultmem.cli import cli

DIALOGUE = """---
date: 2023-05-08
---

# 2023-05-08

## Session 1 (1:56 pm)

- **Caroline**: Hey Mel! Good to see you! ^d1-1
- **Melanie**: How long have you been doing pottery and painting? ^d1-2
- **Caroline**: Seven years now, since the move to Oslo. ^d1-3
- **Melanie**: That is quite something. ^d1-4

## Session 2 (3:10 pm)

- **Caroline**: Which kiln do you use for pottery? ^d2-1
"""


def lines_of(root: Path, rel: str, first: int, last: int) -> str:
    return "\n".join((root / rel).read_text(encoding="utf-8").split("\n")[first - 1 : last])


def search_json(root: Path, *args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["search", *args, "--json", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert isinstance(hits, list)
    return hits


# -- neighbouring lines -----------------------------------------------------------------


def test_a_dialogue_turn_comes_with_the_question_before_and_the_reply_after(
    vault: Vault,
) -> None:
    write(vault.root, "memory/2023-05-08.md", DIALOGUE)
    vault.index()
    best = vault.search("how long painting")[0]
    # The question matched (line 10); the answer is the next turn (line 11).
    assert (best.match_start, best.match_end) == (10, 10)
    assert (best.line_start, best.line_end) == (9, 11)
    assert best.text == lines_of(vault.root, best.path, 9, 11)
    assert "Seven years" in best.text and "Seven years" not in best.matched

    hit = search_json(vault.root, "how long painting")[0]
    assert (hit["line_start"], hit["line_end"], hit["match_start"], hit["match_end"]) == (
        9,
        11,
        10,
        10,
    )
    alone = search_json(vault.root, "how long painting", "--context", "0")[0]
    assert (alone["line_start"], alone["line_end"]) == (10, 10)
    wider = search_json(vault.root, "how long painting", "-C", "2")[0]
    assert (wider["line_start"], wider["line_end"]) == (9, 12)  # the section starts at 9


def test_the_default_context_comes_from_the_config(vault: Vault) -> None:
    write(vault.root, "memory/2023-05-08.md", DIALOGUE)
    config = vault.root / ".vaultmem" / "config.toml"
    config.write_text(config.read_text().replace("[search]\n", "[search]\ncontext_lines = 0\n"))
    with Vault(vault.root) as fresh:
        fresh.index()
        best = fresh.search("how long painting")[0]
    assert (best.line_start, best.line_end) == (10, 10)


def test_a_bad_context_is_one_clear_error(vault: Vault) -> None:
    write(vault.root, "memory/2023-05-08.md", DIALOGUE)
    asked = run_cli(vault.root, "search", "pottery", "--context", "-1")
    assert asked.returncode == 2 and "Traceback" not in asked.stderr
    config = vault.root / ".vaultmem" / "config.toml"
    config.write_text(config.read_text().replace("[search]\n", "[search]\ncontext_lines = -3\n"))
    configured = run_cli(vault.root, "search", "pottery")
    assert configured.returncode == 1
    assert configured.stderr.startswith("Error: ") and "search.context_lines" in configured.stderr
    assert "Traceback" not in configured.stderr


def test_context_stays_in_the_section_and_leaves_out_struck_and_other_agents_lines(
    vault: Vault,
) -> None:
    write(
        vault.root,
        "memory/2026-11-20.md",
        "# 2026-11-20\n\n"
        "- 09:00 **user** The boiler code is 4711 [agent:: claude] ^a1\n"
        "- 09:01 **user** The boiler is in the cellar ^a2\n"
        "- 09:02 **user** ~~The boiler is red~~ [forgotten:: 2026-11-21] ^a3\n"
        "\n## Later\n\n- 10:00 **user** Boiler service on Monday ^a4\n",
    )
    vault.index()
    hit = next(h for h in vault.search("cellar", agent="codex") if h.block_id == "a2")
    assert "4711" not in hit.text  # another agent's line is never shown to this one
    assert "red" not in hit.text  # a forgotten line is not context
    assert (hit.line_start, hit.line_end) == (4, 4)
    shared = next(h for h in vault.search("cellar") if h.block_id == "a2")
    assert (shared.line_start, shared.line_end) == (3, 4)  # no agent asked: shown
    monday = next(h for h in vault.search("service Monday") if h.block_id == "a4")
    assert (monday.line_start, monday.line_end) == (9, 9)  # not across its heading


def test_a_long_context_never_pushes_the_match_out_of_an_agents_snippet(vault: Vault) -> None:
    question = "- **Melanie**: " + "so tell me everything about it " * 12 + "^q1"
    write(
        vault.root,
        "memory/2023-05-09.md",
        f"# Talk\n\n{question}\n- **Caroline**: kumquat jam ^a1\n",
    )
    vault.index()
    hit = vault.search("kumquat")[0]
    assert hit.line_start < hit.match_start  # the question before is context
    assert "kumquat jam" in hit.snippet(120)


def test_fact_and_memory_md_lines_stand_alone(vault: Vault) -> None:
    write(
        vault.root,
        "facts/home.md",
        "# Home\n\n- The heron visits the pond [importance:: 0.6] ^fh1\n"
        "- The garden gate sticks [importance:: 0.5] ^fh2\n",
    )
    vault.index()
    hit = vault.search("heron pond")[0]
    assert (hit.line_start, hit.line_end) == (3, 3) and "gate" not in hit.text


def test_hits_never_show_a_line_twice(vault: Vault) -> None:
    write(
        vault.root,
        "memory/2026-11-20.md",
        "# 2026-11-20\n\n"
        + "".join(f"- 09:0{n} **user** walrus note number {n} ^w{n}\n" for n in range(8)),
    )
    vault.index()
    hits = vault.search("walrus", limit=20)
    shown = [line for h in hits for line in range(h.line_start, h.line_end + 1)]
    assert len(shown) == len(set(shown))
    matched = {line for h in hits for line in range(h.match_start, h.match_end + 1)}
    assert matched == set(range(3, 11))  # every matching line is still found
    for hit in hits:
        assert hit.text == lines_of(vault.root, hit.path, hit.line_start, hit.line_end)


# -- one memory once --------------------------------------------------------------------


def one_memory_in_three_places(root: Path) -> None:
    write(
        root, "memory/2026-11-20.md", "# 2026-11-20\n\n- 09:00 **user** The okapi eats figs ^d1\n"
    )
    write(
        root,
        "facts/animals.md",
        "# Animals\n\n- The okapi eats figs [importance:: 0.9]"
        " [source:: [[2026-11-20#^d1]]] ^fo1\n",
    )
    write(
        root,
        "MEMORY.md",
        "# Memory\n\n<!-- vaultmem:begin -->\n- The okapi eats figs (fo1)\n<!-- vaultmem:end -->\n",
    )


def test_a_daily_line_its_fact_and_memory_md_line_are_one_hit(vault: Vault) -> None:
    one_memory_in_three_places(vault.root)
    vault.index()
    hits = search_json(vault.root, "okapi figs")
    assert len(hits) == 1
    also = hits[0]["also_in"]
    assert isinstance(also, list)
    places = {hits[0]["path"]} | {p["path"] for p in also}
    assert places == {"memory/2026-11-20.md", "facts/animals.md", "MEMORY.md"}
    links = {p["link"] for p in also}
    assert links & {"[[facts/animals#^fo1]]", "[[memory/2026-11-20#^d1]]"}

    shown = CliRunner().invoke(cli, ["search", "okapi figs", "--vault", str(vault.root)])
    assert shown.exit_code == 0 and "also in:" in shown.output


def test_a_note_line_cited_by_a_fact_is_one_memory_with_it(vault: Vault) -> None:
    write(vault.root, "projects/atlas.md", "# Plans\n\n- Atlas ships on the ninth of June ^r1\n")
    write(
        vault.root,
        "facts/atlas.md",
        "# Dates\n\n- Atlas ships on the ninth of June [source:: [[projects/atlas#^r1]]] ^fa1\n",
    )
    vault.index()
    hits = vault.search("Atlas ships June")
    assert len(hits) == 1 and len(hits[0].also_in) == 1


def test_collapsing_still_fills_the_limit(vault: Vault) -> None:
    for n in range(6):
        day = f"2026-11-0{n + 1}"
        write(vault.root, f"memory/{day}.md", f"# {day}\n\n- zebu fact {n} ^z{n}\n")
        write(
            vault.root,
            f"facts/zebu{n}.md",
            f"# Z\n\n- zebu fact {n} [source:: [[{day}#^z{n}]]] ^fz{n}\n",
        )
    vault.index()
    hits = vault.search("zebu fact", limit=4)
    assert len(hits) == 4
    assert all(len(h.also_in) == 1 for h in hits)


# -- superseded, archived ---------------------------------------------------------------


def test_a_superseded_fact_ranks_below_the_fact_that_replaced_it(vault: Vault) -> None:
    write(
        vault.root,
        "memory/2026-11-01.md",
        "# 2026-11-01\n\n- we picked Postgres for the Atlas database ^d1\n",
    )
    write(
        vault.root,
        "facts/atlas.md",
        "# Decisions\n\n"
        # The old fact holds more of the query's words, so it ranks first by itself.
        "- ~~Atlas database is Postgres, the Atlas database of record~~"
        " [source:: [[2026-11-01#^d1]]] [superseded_by:: [[facts/atlas#^fnew]]] ^fold\n"
        "- Atlas moved to MySQL 8 [supersedes:: [[facts/atlas#^fold]]] ^fnew\n",
    )
    vault.index()
    hits = vault.search("Atlas database", context=0)
    assert hits[0].block_id == "fnew" and not hits[0].superseded
    # Right below it: the old fact and the daily line it came from, one memory.
    assert {hits[1].block_id, *(p.block_id for p in hits[1].also_in)} == {"fold", "d1"}
    assert len(hits) == 2


def test_archived_facts_only_with_all(vault: Vault) -> None:
    write(vault.root, "archive/facts/old.md", "# Old\n\n- The capybara bathes at dawn ^fc1\n")
    write(vault.root, "MEMORY.md", "# Memory\n\n- The capybara bathes at dawn (fc1)\n")
    vault.index()
    plain = search_json(vault.root, "capybara dawn")
    assert all(not str(h["path"]).startswith("archive/") for h in plain)
    assert all(not str(p["path"]).startswith("archive/") for h in plain for p in h["also_in"])  # type: ignore[union-attr]
    everything = search_json(vault.root, "capybara dawn", "--all")
    places = {h["path"] for h in everything} | {
        p["path"]
        for h in everything
        for p in h["also_in"]  # type: ignore[union-attr]
    }
    assert "archive/facts/old.md" in places
