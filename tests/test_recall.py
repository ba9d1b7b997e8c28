"""Recall for agents: the context block, recent changes, lines by id, and search's agent
filter, tier and superseded flag."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.errors import AmbiguousIdError, ConfigError, PathOutsideVaultError, VaultmemError
from vaultmem.notes.generated_block import CONTEXT_MARKER as MARKER
from vaultmem.notes.generated_block import count_tokens
from vaultmem.recall.context_block import link_to, memory_share

TODAY = dt.date(2026, 11, 22)
YESTERDAY = "2026-11-21"
HEADER = "---\ntype: daily\n---\n\n# {day}\n\n"


def daily(root: Path, day: str, *lines: str) -> None:
    write(root, f"memory/{day}.md", HEADER.format(day=day) + "\n".join(lines) + "\n")


def memory_md(root: Path, *lines: str) -> None:
    block = "\n".join(lines)
    write(
        root, "MEMORY.md", f"# Memory\n\n<!-- vaultmem:begin -->\n{block}\n<!-- vaultmem:end -->\n"
    )


@pytest.fixture
def consolidated(example_vault: Vault) -> Vault:
    """The example vault after one consolidation: facts, topics and MEMORY.md's block."""
    example_vault.consolidate(today=TODAY)
    return example_vault


def cites(text: str, link: str) -> bool:
    """Whether a block cites ``[[note#^id]]`` as the recall does: the note's link as the
    heading of its group, the id at the end of a line."""
    note, ident = link.removeprefix("[[").removesuffix("]]").split("#^")
    return f"### [[{note}]]" in text and any(
        line.endswith(f" ^{ident}") for line in text.splitlines()
    )


def recall_items(block_dict: dict[str, object]) -> list[dict[str, object]]:
    sections = block_dict["sections"]
    assert isinstance(sections, list)
    return next((s["items"] for s in sections if s["title"] == "Recall"), [])


# -- the context block ---------------------------------------------------------------


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=40, max_value=2500),
    query=st.sampled_from(
        ["release", "飞书插件配置", "预算", "peanut allergy", "Atlas kickoff", "", "zzz-nothing"]
    ),
)
def test_the_block_never_exceeds_its_budget(consolidated: Vault, budget: int, query: str) -> None:
    block = consolidated.context(query or None, budget=budget, today=TODAY)
    assert block.text.startswith(MARKER + "\n") or block.text == MARKER
    assert block.tokens == count_tokens(block.text) <= budget
    assert block.budget == budget


@pytest.mark.parametrize("query", ["release date", "飞书插件", "预算", "PostgreSQL restart"])
def test_the_best_hit_is_inside_a_budget_of_120(consolidated: Vault, query: str) -> None:
    best = consolidated.context(query, budget=2000, today=TODAY).recalled[0]
    tight = consolidated.context(query, budget=120, today=TODAY)
    assert tight.tokens <= 120
    assert tight.recalled[0].path == best.path and tight.recalled[0].line == best.line
    if best.block_id is not None:
        assert cites(tight.text, best.link)
    else:  # a line without a block id: under its note's link
        assert f"### [[{best.path.removesuffix('.md')}]]\n{best.shown}" in tight.text


def test_a_long_best_hit_is_cut_short_but_kept_with_its_link(vault: Vault) -> None:
    words = " ".join(f"word{i}" for i in range(200))
    daily(vault.root, "2026-11-22", f"- 10:00 **user** zebracorn {words} ^long-1")
    memory_md(vault.root, *[f"- filler fact number {i} (f{i})" for i in range(50)])
    vault.index()
    block = vault.context("zebracorn", budget=120, today=TODAY)
    assert block.tokens <= 120
    assert "zebracorn" in block.text and cites(block.text, "[[memory/2026-11-22#^long-1]]")


def test_with_a_query_the_recall_comes_first_and_memory_md_gets_a_share(
    consolidated: Vault,
) -> None:
    block = consolidated.context("release", budget=2000, today=TODAY)
    assert [s.title for s in block.sections][:2] == ["MEMORY.md", "Recall"]
    assert cites(block.text, "[[facts/projects/atlas/decisions#^f-release]]")
    memory, recall = block.sections[0], block.sections[1]
    assert not {k for i in memory.items for k in i.keys} & {k for i in recall.items for k in i.keys}
    # Without a query MEMORY.md's block comes whole, in its order, before the daily notes.
    whole = consolidated.context(budget=2000, today=TODAY)
    memory_text = (consolidated.root / "MEMORY.md").read_text(encoding="utf-8")
    generated = memory_text.split("<!-- vaultmem:begin -->\n")[1].split("<!-- vaultmem:end -->")[0]
    shown = [line for line in whole.text.splitlines() if line.strip()]
    lines = [line.strip().lstrip("#") for line in generated.splitlines() if line.strip()]
    at = [next(n for n, s in enumerate(shown) if line in s) for line in lines]
    assert at == sorted(at)


def test_memory_md_lines_that_bear_on_the_query_come_first(vault: Vault) -> None:
    scene = "the long story of that sighting " * 8
    lines = [f"- 09:{n:02d} **user** quokka quokka sighting {n}: {scene}^q{n}" for n in range(30)]
    daily(vault.root, "2026-11-20", *lines)
    details = "the vet said so " * 12
    fact = f"- The quokka vaccine is due in March: {details}^fq1\n"
    write(vault.root, "facts/health.md", f"# Health\n\n{fact}")
    filler = [f"- filler fact number {n} (f{n})" for n in range(30)]
    # MEMORY.md shows the fact shortened, as consolidation writes it.
    memory_md(vault.root, "## Top facts", *filler, "- The quokka vaccine is due in March … (fq1)")
    vault.index()
    block = vault.context("quokka sighting", budget=1200, today=TODAY)
    memory = next(s for s in block.sections if s.title == "MEMORY.md")
    assert "vaccine" in memory.items[0].text  # found, but the recall had no room for the fact
    assert block.text.count("vaccine") == 1


def test_memory_md_gets_a_share_that_grows_with_the_budget() -> None:
    shares = [memory_share(b) / b for b in (500, 1500, 4000, 20_000)]
    assert shares == sorted(shares) and shares[0] < 0.05 and shares[-1] == 0.25


@pytest.mark.parametrize("source", ["[[2026-11-20#^d1]]", "[[memory/2026-11-20#^d1]]"])
def test_a_daily_line_its_fact_and_memory_md_mention_are_recalled_once(
    vault: Vault, source: str
) -> None:
    daily(vault.root, "2026-11-20", "- 09:00 **user** The quokka vaccine is due in March ^d1")
    write(
        vault.root,
        "facts/health.md",
        "# Health\n\n- The quokka vaccine is due in March [importance:: 0.9]"
        f" [source:: {source}] ^fq1\n"
        "- Another quokka fact: the quokka eats leaves [importance:: 0.5] ^fq2\n",
    )
    memory_md(vault.root, "## Top facts", "- The quokka vaccine is due in March (fq1)")
    vault.index()
    hits = vault.search("quokka vaccine March", track=False)  # one memory, three places
    vaccine = [h for h in hits if "vaccine" in h.matched]
    assert len(vaccine) == 1
    places = {vaccine[0].path} | {p.path for p in vaccine[0].also_in}
    assert places == {"memory/2026-11-20.md", "facts/health.md", "MEMORY.md"}

    for budget in (60, 2000):
        block = vault.context("quokka vaccine March", budget=budget, today=TODAY)
        recalled = recall_items(block.as_dict())
        vaccine = [i for i in recalled if "vaccine" in str(i["text"])]
        assert len(vaccine) == 1
    assert "fq2" in {i["block_id"] for i in recalled}  # another memory is still recalled

    memory_md(vault.root)  # no MEMORY.md mention: the daily line and its fact are still one
    vault.index()
    recalled = recall_items(vault.context("quokka vaccine March", today=TODAY).as_dict())
    assert len([i for i in recalled if "vaccine" in str(i["text"])]) == 1


def test_a_recalled_line_says_who_and_when_and_pages_that_repeat_it_add_nothing(
    vault: Vault,
) -> None:
    daily(vault.root, "2026-11-15", "- 09:00 **Caroline**: I ran a charity race last Saturday ^d1")
    write(
        vault.root,
        "facts/events.md",
        "# Events\n\n- Caroline: I ran a charity race last Saturday [when:: 2026-11-14]"
        " [source:: [[memory/2026-11-15#^d1]]] ^fc1\n",
    )
    write(
        vault.root,
        "topics/caroline.md",
        "# Caroline\n\nMy notes: Caroline trains for a charity race every spring.\n\n"
        "<!-- vaultmem:begin -->\n[kind:: person] [hotness:: 1.00] [facts:: 4]\n\n"
        "**Summary:** Caroline appears in 4 facts; latest: charity race.\n\n"
        "- Caroline: I ran a charity race last Saturday [[facts/events#^fc1]]\n"
        "- … and 3 older facts (`vaultmem search Caroline`)\n<!-- vaultmem:end -->\n",
    )
    vault.index()
    block = vault.context("Caroline charity race", budget=1500, today=TODAY)
    recall = next(s for s in block.sections if s.title == "Recall")
    shown = [item.shown for item in recall.items]
    # One memory: the fact, with its date and its [when::]; its topic-page copy is not
    # recalled, nor the page's fields, summary, count or markers. The person's own words
    # on the page are.
    assert (
        shown.count(
            "- Caroline: I ran a charity race last Saturday (2026-11-15; when 2026-11-14) ^fc1"
        )
        == 1
    )
    assert sum("I ran a charity race" in line for line in shown) == 1
    assert "- My notes: Caroline trains for a charity race every spring." in shown
    for noise in ("[kind::", "Summary", "older facts", "vaultmem:begin", "vaultmem:end"):
        assert noise not in block.text
    assert "### [[facts/events]]" in block.text and "### [[topics/caroline]]" in block.text

    (vault.root / "facts/events.md").unlink()  # the daily line alone: its speaker and day
    vault.index()
    block = vault.context("Caroline charity race", budget=1500, today=TODAY)
    assert (
        "### [[memory/2026-11-15]]\n- Caroline: I ran a charity race last Saturday ^d1"
        in block.text
    )


def test_asked_of_one_speaker_their_own_lines_come_before_what_others_said_to_them(
    vault: Vault,
) -> None:
    # Caroline's lines hold "Melanie" (she speaks to her) and more of the query's words;
    # what Melanie said holds the answer.
    said_to = [
        f"- **Caroline**: Melanie, the pottery class sign-up sheet is up, class {n}! ^c{n}"
        for n in range(8)
    ]
    daily(vault.root, "2026-11-10", *said_to, "- **Melanie**: I joined a pottery class. ^m1")
    daily(
        vault.root, "2026-11-11", "- **user**: When did Melanie sign up for the pottery class? ^u1"
    )
    vault.index()
    query = "When did Melanie sign up for the pottery class?"
    searched = [hit.block_id for hit in vault.search(query, limit=20, track=False)]
    assert searched.index("m1") > 6  # search alone ranks it below most of what was said to her
    recalled = [item.block_id for item in vault.context(query, budget=2000, today=TODAY).recalled]
    assert recalled.index("m1") < recalled.index("c7")
    # A line of a plain role ("user") is nobody's in particular: not put lower.
    assert recalled.index("u1") < recalled.index("c7")
    # A query naming two speakers prefers neither.
    both = vault.context("Did Caroline or Melanie sign up for the pottery class?", today=TODAY)
    assert [item.block_id for item in both.recalled].index("m1") > 6


def test_today_and_yesterday_follow_and_the_newest_lines_win(vault: Vault) -> None:
    daily(vault.root, "2026-11-20", "- 08:00 **user** three days ago ^old")
    daily(vault.root, YESTERDAY, "- 08:00 **user** yesterday's plan ^y1")
    daily(
        vault.root,
        "2026-11-22",
        *[
            f"- 0{i}:00 **user** today's line {i} [session:: s-123456789] ^t{i}"
            for i in range(1, 8)
        ],
    )
    vault.index()
    block = vault.context(budget=1000, today=TODAY)
    titles = [s.title for s in block.sections]
    assert titles == ["memory/2026-11-22.md (today)", "memory/2026-11-21.md (yesterday)"]
    assert "today's line 1" in block.text and "yesterday's plan" in block.text
    assert "three days ago" not in block.text and "session::" not in block.text
    assert block.text.index("today's line 1") < block.text.index("today's line 7")

    small = vault.context(budget=45, today=TODAY)
    assert "today's line 7" in small.text and "today's line 1" not in small.text


def test_openclaw_slug_notes_of_today_and_yesterday_are_daily_notes(vault: Vault) -> None:
    """OpenClaw also keeps a day's notes as ``memory/YYYY-MM-DD-slug.md``."""
    daily(vault.root, "2026-11-22", "- 08:00 **user** today's plain note ^t1")
    write(vault.root, "memory/2026-11-22-standup.md", "# Standup\n\n- ship the parser ^s1\n")
    write(vault.root, "memory/2026-11-21-retro.md", "- the retro went long ^r1\n")
    write(vault.root, "memory/2026-11-20-old.md", "- two days ago ^o1\n")
    write(vault.root, "memory/2026-11-22-draft.txt", "- not a note\n")
    write(vault.root, "topics/secret.md", "- behind a symlink\n")
    (vault.root / "memory" / "2026-11-22-link.md").symlink_to(vault.root / "topics/secret.md")
    vault.index()
    block = vault.context(budget=1000, today=TODAY)
    assert [s.title for s in block.sections] == [
        "memory/2026-11-22.md (today)",
        "memory/2026-11-22-standup.md (today)",
        "memory/2026-11-21-retro.md (yesterday)",
    ]
    assert "ship the parser" in block.text and "the retro went long" in block.text
    assert "two days ago" not in block.text and "not a note" not in block.text
    assert "behind a symlink" not in block.text  # the index does not follow it either
    standup = block.sections[1].items[0]
    assert standup.link == "[[memory/2026-11-22-standup#^s1]]" and standup.line == 3


def test_superseded_memories_come_last_and_marked_and_forgotten_ones_never(vault: Vault) -> None:
    write(
        vault.root,
        "facts/life/changes.md",
        "# Changes\n\n"
        "- ~~The owner lives in Narnia~~ [superseded_by:: [[facts/life/changes#^fnew]]]"
        " [superseded:: 2026-11-21] [source:: [[2026-11-09#^n0]]] ^fold\n"
        "- The owner lives in Gondor, having left Narnia"
        " [supersedes:: [[facts/life/changes#^fold]]]"
        " ^fnew\n",
    )
    daily(vault.root, "2026-11-09", "- 09:00 **user** I moved to Narnia ^n0")  # fold's source
    daily(vault.root, "2026-11-10", "- ~~I live in Narnia now~~ [forgotten:: 2026-11-12] ^n1")
    vault.index()
    found = vault.search("Narnia", track=False)  # fold and its daily line n0: one memory
    hits = {p.block_id: p for h in found for p in (h, *h.also_in)}
    assert hits["fold"].superseded and hits["n1"].superseded and not hits["fnew"].superseded
    assert not hits["n0"].superseded  # the daily line itself is not struck, its fact is
    block = vault.context("Narnia", budget=1500, today=TODAY)
    current, *history = block.recalled  # fold and its line n0 are one memory, now history
    assert current.block_id == "fnew" and len(history) == 1
    assert history[0].block_id in {"fold", "n0"} and history[0].shown.startswith("- (superseded)")
    assert "n1" not in block.text  # forgotten: gone from the recall


def test_context_agent_filter_keeps_its_own_and_shared_lines(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-22",
        "- 09:00 **agent** alpaca note by alice [agent:: alice] ^a1",
        "- 09:01 **agent** alpaca note by bob [agent:: bob] ^b1",
        "- 09:02 **user** alpaca note by a person ^p1",
    )
    vault.index()
    block = vault.context("alpaca", budget=1500, agent="alice", today=TODAY)
    assert "by alice" in block.text and "by a person" in block.text
    assert "by bob" not in block.text
    everything = vault.context("alpaca", budget=1500, today=TODAY)
    assert "by bob" in everything.text


def test_a_memory_md_without_markers_is_shown_whole_below_the_sections(vault: Vault) -> None:
    write(vault.root, "MEMORY.md", "---\ntype: memory\n---\n# MEMORY\n\n- Owner likes tea ^m1\n")
    block = vault.context(today=TODAY)
    assert block.text == f"{MARKER}\n\n## MEMORY.md\n### MEMORY\n- Owner likes tea ^m1"
    assert block.sections[0].items[0].line == 6


def test_the_default_budget_comes_from_config_and_is_range_checked(vault: Vault) -> None:
    write(vault.root, ".vaultmem/config.toml", "[context]\nbudget = 45\n")
    assert Vault(vault.root).context(today=TODAY).budget == 45
    write(vault.root, ".vaultmem/config.toml", "[context]\nbudget = 10\n")
    with pytest.raises(ConfigError, match="context.budget must be at least 40"):
        Vault(vault.root)
    with pytest.raises(VaultmemError, match="at least 40"):
        vault.context(budget=39)


def test_context_cli_json_and_hook(consolidated: Vault) -> None:
    result = CliRunner().invoke(
        cli,
        ["context", "release", "--budget", "300", "--json", "--today", "2026-11-22"]
        + ["--vault", str(consolidated.root)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"text", "tokens", "budget", "sections"}
    assert data["tokens"] <= 300 and data["text"].startswith(MARKER)
    item = recall_items(data)[0]
    assert set(item) == {"text", "path", "line", "block_id", "link"}

    hook = subprocess.run(
        [sys.executable, "-m", "vaultmem", "context", "--hook", "--vault", str(consolidated.root)],
        input='{"session_id": "abc", "hook_event_name": "SessionStart", "source": "startup"}',
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert hook.returncode == 0 and hook.stdout.startswith(MARKER)


def test_context_hook_does_not_wait_on_a_stdin_that_stays_open(consolidated: Vault) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "context", "--hook", "--vault", str(consolidated.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.wait(timeout=60) == 0  # stdin never written to nor closed
        assert process.stdout is not None and process.stdout.read().startswith(MARKER)
    finally:
        process.kill()
        assert process.stdin is not None
        process.stdin.close()
        assert process.stdout is not None
        process.stdout.close()


def session_start(vault: Path, payload: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """``vaultmem context --hook`` as a host's SessionStart hook runs it."""
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", "context", "--hook", "--vault", str(vault)],
        input=json.dumps({"hook_event_name": "SessionStart", "source": "startup", **payload}),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_session_starts_with_recall_for_the_project_it_starts_in(
    vault: Vault, tmp_path: Path
) -> None:
    daily(vault.root, TODAY.isoformat(), "- Quokka deploys need the VPN on ^q1")
    daily(vault.root, "2026-10-01", "- The quokka repo moved to the platform org ^q2")
    (tmp_path / "code/quokka/.git").mkdir(parents=True)
    (tmp_path / "code/quokka/api").mkdir()
    started = session_start(vault.root, {"cwd": str(tmp_path / "code/quokka/api")})
    assert started.returncode == 0, started.stderr
    assert "## Recall" in started.stdout and "moved to the platform org ^q2" in started.stdout
    elsewhere = session_start(vault.root, {"cwd": str(vault.root)})  # the vault: no project
    assert "## Recall" not in elsewhere.stdout


def test_the_start_block_leaves_out_the_assistants_chatter_and_an_empty_vault_prints_nothing(
    vault: Vault,
) -> None:
    day = dt.date.today().isoformat()
    daily(
        vault.root,
        day,
        "- 09:00 **user** Let's keep the API on Litestar ^u1",
        "- 09:01 **assistant** Cloned. Running the test suite now ^a1",
    )
    started = session_start(vault.root, {})
    assert "keep the API on Litestar" in started.stdout
    assert "Running the test suite" not in started.stdout
    asked = run_cli(vault.root, "context", "test suite")  # a query still finds it
    assert "Running the test suite" in asked.stdout
    for note in (vault.root / "memory").glob("*.md"):
        note.unlink()
    empty = session_start(vault.root, {})
    assert empty.returncode == 0 and empty.stdout == ""  # not a bare marker line


# -- search: agent, tier, superseded, --json with no match -------------------------------


def test_search_agent_filter_keeps_that_agent_and_lines_without_one(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-22",
        "- 09:00 **agent** llama by alice [agent:: alice] ^a1",
        "- 09:01 **agent** llama by bob [agent:: bob] ^b1",
        "- 09:02 **user** llama by a person ^p1",
    )
    write(vault.root, "facts/general.md", "# General\n\n- llama facts are shared ^f1\n")
    vault.index()
    assert {h.block_id for h in vault.search("llama", agent="alice")} == {"a1", "p1", "f1"}
    assert {h.block_id for h in vault.search("llama", agent="ALICE")} == {"a1", "p1", "f1"}
    assert {h.block_id for h in vault.search("llama")} == {"a1", "b1", "p1", "f1"}
    result = run_cli(vault.root, "search", "llama", "--agent", "bob", "--json")
    assert {h["block_id"] for h in json.loads(result.stdout)} == {"b1", "p1", "f1"}


def test_hits_carry_their_tier_and_superseded_flag(vault: Vault) -> None:
    write(
        vault.root,
        "facts/general.md",
        "# General\n\n- hot walrus fact [importance:: 1] [created:: 2026-11-22] ^fh\n"
        "- cold walrus fact [importance:: 0.1] [created:: 2026-11-22] ^fc\n",
    )
    write(vault.root, "archive/general.md", "# General\n\n- archived walrus fact ^fa\n")
    daily(vault.root, "2026-11-22", "- 09:00 **user** walrus in a daily note ^w1")
    vault.index()
    hits = {h.block_id: h for h in vault.search("walrus", include_archive=True, today=TODAY)}
    assert (hits["fh"].tier, hits["fc"].tier) == ("hot", "cold")
    assert hits["fa"].tier == "archive" and hits["w1"].tier is None
    assert hits["fh"].as_dict()["tier"] == "hot" and hits["fh"].as_dict()["superseded"] is False


def test_docs_cite_a_daily_line_as_the_code_links_it() -> None:
    """docs/context.md shows the link recall writes for a daily-note line (path-qualified,
    so a same-named note elsewhere in an Obsidian vault is not opened instead)."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "context.md").read_text()
    assert f"`{link_to('memory/2026-11-22.md', 'd22-1')}`" in docs
    assert "named by its date" not in docs


def test_search_marks_tiers_without_the_agent_layer(vault: Vault) -> None:
    """Layering: the core (``Vault.search`` and its tiers) never reaches into
    ``vaultmem.agent``, which is built on top of it."""
    write(vault.root, "facts/general.md", "# General\n\n- hot otter fact [importance:: 1] ^fo\n")
    script = f"""
import sys
from vaultmem import Vault
hits = Vault({str(vault.root)!r}).search("otter")
assert [(h.block_id, h.tier) for h in hits] == [("fo", "hot")], hits
print(sorted(m for m in sys.modules if m.startswith("vaultmem.agent")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_search_json_without_a_match_prints_an_empty_list_and_exits_0(vault: Vault) -> None:
    daily(vault.root, "2026-11-22", "- 09:00 **user** something ^s1")
    as_json = run_cli(vault.root, "search", "nothingmatchesthis", "--json")
    assert (as_json.returncode, json.loads(as_json.stdout)) == (0, [])
    plain = run_cli(vault.root, "search", "nothingmatchesthis")
    assert (plain.returncode, plain.stdout) == (1, "")


# -- recent -------------------------------------------------------------------------


def test_recent_lists_new_lines_new_facts_and_superseded_facts_of_the_window(
    vault: Vault,
) -> None:
    vault.index()  # the facts below are written after the index was built: recent sees them
    daily(vault.root, "2026-11-10", "- 09:00 **user** too old ^o1")
    daily(vault.root, YESTERDAY, "- 09:00 **user** yesterday one ^y1")
    daily(
        vault.root,
        "2026-11-22",
        "- 09:00 **user** today one ^t1",
        "- 09:05 **agent** today by bob [agent:: bob] ^t2",
    )
    write(
        vault.root,
        "facts/general.md",
        "# General\n\n"
        "- a new fact [source:: [[2026-11-21#^y1]]] ^fnew\n"
        "- an old fact [source:: [[2026-11-10#^o1]]] ^fold\n"
        "- ~~a replaced fact~~ [superseded_by:: [[facts/general#^fnew]]]"
        " [superseded:: 2026-11-21] ^fgone\n"
        "- a typed fact [created:: 2026-11-22] ^ftyped\n",
    )
    found = vault.recent(days=2, today=TODAY).as_dict()
    assert [c["block_id"] for c in found["daily"]] == ["t2", "t1", "y1"]
    assert [c["block_id"] for c in found["facts_new"]] == ["ftyped", "fnew"]
    assert [c["block_id"] for c in found["facts_superseded"]] == ["fgone"]
    assert found["facts_superseded"][0] == {
        "path": "facts/general.md",
        "line": 5,
        "block_id": "fgone",
        "text": "a replaced fact",
        "date": "2026-11-21",
    }
    assert [c.block_id for c in vault.recent(days=2, today=TODAY, agent="alice").daily] == [
        "t1",
        "y1",
    ]
    assert len(vault.recent(days=30, limit=1, today=TODAY).daily) == 1
    result = run_cli(vault.root, "recent", "--days", "2", "--today", "2026-11-22", "--json")
    assert json.loads(result.stdout) == found


# -- get -------------------------------------------------------------------------------


def test_get_by_block_id_in_every_form(vault: Vault) -> None:
    daily(vault.root, "2026-11-22", "- 09:00 **user** the line ^g1")
    write(vault.root, "topics/x.md", "# X\n\n- a topic line ^tx\n")
    vault.index()
    for target in ("g1", "^g1", "2026-11-22#g1", "2026-11-22#^g1", "memory/2026-11-22#^g1"):
        excerpt = vault.get(target)
        assert excerpt.as_dict() == {
            "path": "memory/2026-11-22.md",
            "line_start": 7,
            "line_end": 7,
            "text": "- 09:00 **user** the line ^g1",
            "block_id": "g1",
        }, target
    assert vault.get("topics/x.md#tx").lines == ["- a topic line ^tx"]


def test_an_ambiguous_id_names_its_lines(vault: Vault) -> None:
    daily(vault.root, "2026-11-21", "- 09:00 **user** first ^s1-1")
    daily(vault.root, "2026-11-22", "- 09:00 **user** second ^s1-1")
    vault.index()
    with pytest.raises(AmbiguousIdError, match=r"memory/2026-11-21\.md:7.*memory/2026-11-22\.md:7"):
        vault.get("s1-1")
    assert vault.get("2026-11-22#s1-1").lines == ["- 09:00 **user** second ^s1-1"]
    with pytest.raises(VaultmemError, match="no line has the block id"):
        vault.get("nosuchid")


def test_get_by_path_and_line_range_and_outside_the_vault(vault: Vault, tmp_path: Path) -> None:
    daily(vault.root, "2026-11-22", "- a ^1", "- b ^2", "- c ^3")
    excerpt = vault.get("memory/2026-11-22.md", 7, 8)
    assert (excerpt.line_start, excerpt.line_end, excerpt.lines) == (7, 8, ["- a ^1", "- b ^2"])
    assert "block_id" not in excerpt.as_dict()
    assert vault.get("memory/2026-11-22.md").lines[6:9] == ["- a ^1", "- b ^2", "- c ^3"]
    with pytest.raises(VaultmemError, match="lines 8 to 12 are not in it"):
        vault.get("memory/2026-11-22.md", 8, 12)
    (tmp_path / "secret.md").write_text("- secret ^s\n")
    for outside in ("../secret.md", str(tmp_path / "secret.md"), "../secret#s"):
        with pytest.raises(PathOutsideVaultError):
            vault.get(outside)


def test_show_takes_a_block_id_and_keeps_paths(vault: Vault) -> None:
    daily(vault.root, "2026-11-22", "- 09:00 **user** shown by id ^sh1", "- next ^sh2")
    vault.index()
    runner = CliRunner()
    by_id = runner.invoke(cli, ["show", "^sh1", "--json", "--vault", str(vault.root)])
    assert by_id.exit_code == 0, by_id.output
    assert json.loads(by_id.output)["block_id"] == "sh1"
    with_context = runner.invoke(cli, ["show", "sh1", "-C", "1", "--vault", str(vault.root)])
    assert with_context.output.splitlines() == [
        "6 | ",
        "7 | - 09:00 **user** shown by id ^sh1",
        "8 | - next ^sh2",
    ]
    by_path = runner.invoke(cli, ["show", "memory/2026-11-22.md:8", "--vault", str(vault.root)])
    assert by_path.output == "8 | - next ^sh2\n"
    missing = runner.invoke(cli, ["show", "nosuch.md", "--vault", str(vault.root)])
    assert missing.exit_code == 1 and "no such file" in missing.output
