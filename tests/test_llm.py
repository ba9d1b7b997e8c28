"""The optional LLM pass of consolidation (``consolidate --llm``): asked only about doubtful
cases, its verdict applied, answers cached, a budget per run, and the rule decision whenever
the server is down or answers something that does not fit the schema. The model is a
scripted OpenAI-compatible server on 127.0.0.1 (``llm_server.py``)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_cli, write
from llm_server import LLMServer, base_url, llm_server, pair_answers, place_answers

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.config import LLMConfig, MemoryConfig
from vaultmem.memory.language.conflicts import Match
from vaultmem.memory.pipeline.facts import parse_entries
from vaultmem.memory.pipeline.factset import FactSet
from vaultmem.memory.pipeline.judge import open_judge

DAY = dt.date(2026, 11, 24)
HEADER = "---\ndate: {day}\ntype: daily\n---\n\n# {day}\n\n"
# A pair the rules cannot settle: the same team and room, another weekday. A second
# meeting, or the meeting moved? The words alone do not say.
OLD = "Alice's team reviews the budget spreadsheet every Monday morning"
# "now also": an addition or a change? The rules cannot tell (similar, doubtful).
NEW = "Alice's team now also reviews the budget spreadsheet every Monday evening"
# A fact no rule places: it lands in facts/general.md unless the model files it.
UNPLACED = "The spare key for the cottage is under the blue flowerpot by the back door"
UNPLACED_LINE = f"Remember: {UNPLACED[0].lower()}{UNPLACED[1:]}"  # the fact drops the request


def daily(root: Path, day: str, *texts: str) -> None:
    lines = [f"- 09:0{n} **user** {text} ^m{n}" for n, text in enumerate(texts)]
    write(root, f"memory/{day}.md", HEADER.format(day=day) + "\n".join(lines) + "\n")


def configure(root: Path, url: str, **keys: object) -> None:
    """Append an ``[llm]`` table to this device's own settings, local.toml (an endpoint is
    never read from the shared config.toml); the model is named ``scripted``."""
    table = {"url": url, "model": "scripted", "retries": 0} | keys
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())
    with (root / ".vaultmem/local.toml").open("a", encoding="utf-8") as config:
        config.write("\n[llm]\n" + lines)


def facts_in(root: Path, rel: str) -> list[str]:
    path = root / rel
    return [e.raw for e in parse_entries(path.read_text(encoding="utf-8"))] if path.exists() else []


def all_facts(root: Path) -> list[str]:
    """Every fact line under facts/, wherever the rules filed it, in file order."""
    return [
        line
        for path in sorted((root / "facts").rglob("*.md"))
        for line in facts_in(root, str(path.relative_to(root)))
    ]


def vault_files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for folder in ("facts", "archive", "topics", "memory")
        for p in sorted((root / folder).rglob("*.md"))
    } | {"MEMORY.md": (root / "MEMORY.md").read_text(encoding="utf-8")}


def doubtful_match() -> Match:
    """What the rules say of the pair: similar, not sure (asserted, so that a change of the
    rules that settles this pair shows up here rather than as a puzzling failure below)."""
    facts = FactSet()
    facts.add("old", OLD)
    memory = MemoryConfig()
    match = facts.best(NEW, memory.duplicate_similarity, memory.conflict_similarity)
    assert match is not None and match.doubtful, "the rules settle this pair now: pick another"
    return match


@pytest.fixture
def two_days(vault_path: Path) -> Path:
    """A vault whose second day may contradict its first."""
    daily(vault_path, "2026-11-22", OLD)
    daily(vault_path, "2026-11-23", NEW)
    return vault_path


def closed_port() -> str:
    """The URL of a port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- the verdict and the placement are applied ------------------------------------------------


def test_the_models_verdict_on_a_doubtful_pair_supersedes_the_old_fact(two_days: Path) -> None:
    doubtful_match()
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        configure(two_days, base_url(server))
        with Vault(two_days) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    old, new = all_facts(two_days)
    assert old.startswith(f"- ~~{OLD}~~") and "[superseded_by:: [[facts/" in old
    assert new.startswith(f"- {NEW}") and "[supersedes:: [[facts/" in new
    assert report.superseded == 1
    assert report.llm["requests"] == len(server.requests) >= 1
    assert report.llm["changed"] >= 1 and report.notices == []
    pair = server.facts(0)
    assert pair == {"earlier fact": OLD, "new fact": NEW}
    body = server.requests[0]
    assert body["model"] == "scripted" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True


def test_without_llm_the_same_pair_keeps_both_facts(two_days: Path) -> None:
    with Vault(two_days) as vault:
        report = vault.consolidate(today=DAY)
    assert report.superseded == 0 and report.llm == {}
    facts = all_facts(two_days)
    assert len(facts) == 2 and all("~~" not in line for line in facts)


@pytest.mark.parametrize(
    "verdict, expected",
    [("conflict", "conflict"), ("compatible", "similar"), ("duplicate", "duplicate")]
    + [("subsumes", "subsumes")],
)
def test_each_verdict_becomes_the_matching_rule_verdict(
    tmp_path: Path, verdict: str, expected: str
) -> None:
    with llm_server(pair_answers({(OLD, NEW): verdict})) as server:
        judge = open_judge(tmp_path, LLMConfig(url=base_url(server), model="m"))
        settled = judge.settle(NEW, OLD, doubtful_match())
        judge.close()
    assert (settled.verdict, settled.doubtful, settled.signal) == (expected, False, "llm")


def test_a_repeat_the_model_recognises_is_not_written_twice(vault_path: Path) -> None:
    daily(vault_path, "2026-11-22", OLD)
    daily(vault_path, "2026-11-23", NEW)
    with llm_server(pair_answers({(OLD, NEW): "duplicate"})) as server:
        configure(vault_path, base_url(server))
        with Vault(vault_path) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert (report.new_facts, report.repeats) == (1, 1)
    assert len(all_facts(vault_path)) == 1


def test_a_fact_the_rules_cannot_place_is_filed_where_the_model_says(vault_path: Path) -> None:
    daily(vault_path, "2026-11-23", UNPLACED_LINE)
    with Vault(vault_path) as vault:
        rules_only = vault.consolidate(today=DAY, dry_run=True)
    assert "facts/general.md" in rules_only.diff  # the rules' place for it
    with llm_server(place_answers({UNPLACED: "facts/safety.md"})) as server:
        configure(vault_path, base_url(server))
        result = CliRunner().invoke(
            cli, ["consolidate", "--llm", "--vault", str(vault_path)], catch_exceptions=False
        )
    assert result.exit_code == 0, result.output
    assert "llm: 1 doubtful cases, 1 requests, 0 cached; 1 rule decisions changed" in result.output
    assert facts_in(vault_path, "facts/safety.md")[0].startswith(f"- {UNPLACED}")
    assert facts_in(vault_path, "facts/general.md") == []
    assert server.facts() == {"fact": UNPLACED}


def test_facts_the_rules_place_are_never_asked_about(vault_path: Path) -> None:
    daily(vault_path, "2026-11-23", "Alice is allergic to peanuts, remember that")
    with llm_server(place_answers({})) as server:
        configure(vault_path, base_url(server))
        with Vault(vault_path) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert report.new_facts == 1 and server.requests == []
    assert report.llm["asked"] == 0


# -- cache and budget --------------------------------------------------------------------------


def test_a_cached_answer_costs_no_second_request(two_days: Path) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        configure(two_days, base_url(server))
        with Vault(two_days) as vault:
            preview = vault.consolidate(today=DAY, llm=True, dry_run=True)
            asked = len(server.requests)
            report = vault.consolidate(today=DAY, llm=True)
    assert asked == preview.llm["requests"] >= 1
    assert len(server.requests) == asked  # the real run found every answer in the cache
    assert report.llm["requests"] == 0 and report.llm["cached"] == asked
    assert report.superseded == 1  # the same decision as the dry run showed
    assert "~~" in preview.diff


def test_deleting_the_cache_loses_nothing_but_requests(tmp_path: Path) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        config = LLMConfig(url=base_url(server), model="m")
        verdicts = []
        for _ in range(3):
            judge = open_judge(tmp_path, config)
            verdicts.append(judge.settle(NEW, OLD, doubtful_match()).verdict)
            judge.close()
            if len(verdicts) == 2:
                (tmp_path / "llm-cache.db").unlink()
    assert verdicts == ["conflict"] * 3
    assert len(server.requests) == 2  # the first run, and the run after the deletion


def test_another_model_is_another_cache_key(tmp_path: Path) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        for model in ("small", "large", "small"):
            judge = open_judge(tmp_path, LLMConfig(url=base_url(server), model=model))
            judge.settle(NEW, OLD, doubtful_match())
            judge.close()
    assert [body["model"] for body in server.requests] == ["small", "large"]


def test_the_budget_caps_the_requests_of_a_run(vault_path: Path) -> None:
    others = [f"Remember: the spare key for shed {n} is under the red flowerpot" for n in (1, 2)]
    daily(vault_path, "2026-11-22", OLD)
    daily(vault_path, "2026-11-23", NEW, UNPLACED_LINE, *others)
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        configure(vault_path, base_url(server), budget=1)
        done = run_cli(vault_path, "consolidate", "--llm", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(server.requests) == report["llm"]["requests"] == 1
    assert report["llm"]["over_budget"] == report["llm"]["asked"] - 1 >= 1
    warnings = [line for line in done.stderr.splitlines() if "budget" in line]
    assert warnings == [
        f"Warning: the LLM budget of 1 request(s) was spent; "
        f"{report['llm']['over_budget']} doubtful case(s) left to the rules"
    ]


def test_a_budget_of_zero_uses_the_cache_only(tmp_path: Path) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        url = base_url(server)
        judge = open_judge(tmp_path, LLMConfig(url=url, model="m", budget=0))
        assert judge.settle(NEW, OLD, doubtful_match()).verdict == "similar"  # the rules'
        judge.close()
        judge = open_judge(tmp_path, LLMConfig(url=url, model="m", budget=1))
        judge.settle(NEW, OLD, doubtful_match())
        judge.close()
        judge = open_judge(tmp_path, LLMConfig(url=url, model="m", budget=0))
        assert judge.settle(NEW, OLD, doubtful_match()).verdict == "conflict"  # cached
        judge.close()
    assert len(server.requests) == 1


# -- the rules stand in ------------------------------------------------------------------------


def rules_only_result(vault: Path, tmp_path: Path) -> dict[str, str]:
    """The files after a run without the LLM pass, on a copy of the vault."""
    copy = tmp_path / "rules-only"
    shutil.copytree(vault, copy)
    assert run_cli(copy, "consolidate", "--today", DAY.isoformat()).returncode == 0
    return vault_files(copy)


def test_a_server_that_is_down_leaves_every_decision_to_the_rules(
    two_days: Path, tmp_path: Path
) -> None:
    daily(two_days, "2026-11-24", UNPLACED_LINE)
    expected = rules_only_result(two_days, tmp_path)
    configure(two_days, closed_port())
    done = run_cli(two_days, "consolidate", "--llm", "--today", DAY.isoformat())
    assert done.returncode == 0, done.stderr
    assert vault_files(two_days) == expected
    warnings = [line for line in done.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 1, done.stderr  # one notice, however many cases were doubtful
    assert "the LLM server at http://127.0.0.1:" in warnings[0]
    assert "2 doubtful case(s) left to the rules" in warnings[0]


@pytest.mark.parametrize("status", [500, 429, 400, 404])
def test_an_http_error_stops_the_requests_of_the_run(
    two_days: Path, tmp_path: Path, status: int
) -> None:
    daily(two_days, "2026-11-24", UNPLACED_LINE)
    expected = rules_only_result(two_days, tmp_path)
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        server.status = status
        configure(two_days, base_url(server))
        with Vault(two_days) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert len(server.requests) == 1  # retries = 0; then no more requests this run
    assert report.llm["unavailable"] == 2
    assert [n for n in report.notices if "LLM" in n] == [
        f"the LLM server at {base_url(server)}/chat/completions failed: HTTP {status} "
        + {500: "Internal Server Error", 429: "Too Many Requests", 400: "Bad Request"}.get(
            status, "Not Found"
        )
        + "; 2 doubtful case(s) left to the rules"
    ]
    assert vault_files(two_days) == expected


MALFORMED = [
    "not json at all",
    '```json\n{"same_slot": true, "verdict": "conflict"}\n```',
    '"conflict"',
    '{"verdict": "conflict"}',
    '{"same_slot": true, "verdict": "conflict", "confidence": 0.9}',
    '{"same_slot": true, "verdict": "contradiction"}',
    '{"same_slot": "yes", "verdict": "conflict"}',
    '{"same_slot": false, "verdict": "conflict"}',
    '[{"same_slot": true, "verdict": "conflict"}]',
    "",
]


@pytest.mark.parametrize("reply", MALFORMED)
def test_a_reply_that_does_not_fit_the_schema_leaves_the_rule_decision(
    tmp_path: Path, reply: str
) -> None:
    with llm_server(lambda facts: reply) as server:
        config = LLMConfig(url=base_url(server), model="m")
        for _ in range(2):
            judge = open_judge(tmp_path, config)
            settled = judge.settle(NEW, OLD, doubtful_match())
            assert settled == doubtful_match()
            assert judge.stats.malformed == 1
            assert judge.notices() == [
                "1 LLM repl(ies) did not fit the schema; the rules decided those"
            ]
            judge.close()
    assert len(server.requests) == 2  # never cached: the next run asks again


def test_a_malformed_placement_keeps_the_fact_where_the_rules_put_it(vault_path: Path) -> None:
    daily(vault_path, "2026-11-23", UNPLACED_LINE)
    with llm_server(lambda facts: '{"category": "facts/../../etc/passwd"}') as server:
        configure(vault_path, base_url(server))
        with Vault(vault_path) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert facts_in(vault_path, "facts/general.md")[0].startswith(f"- {UNPLACED}")
    assert report.llm["malformed"] == 1 and len(server.requests) == 1


def test_a_corrupt_cache_is_set_aside_with_a_notice(tmp_path: Path) -> None:
    (tmp_path / "llm-cache.db").write_bytes(b"this is not a database" * 100)
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        judge = open_judge(tmp_path, LLMConfig(url=base_url(server), model="m"))
        assert judge.settle(NEW, OLD, doubtful_match()).verdict == "conflict"
        notices = judge.notices()
        judge.close()
    assert len(notices) == 1 and "the LLM cache is not in use (llm-cache.db:" in notices[0]
    assert (tmp_path / "llm-cache.db").read_bytes() == b"this is not a database" * 100


# -- settings ----------------------------------------------------------------------------------


def test_llm_without_a_url_is_a_one_line_error_and_writes_nothing(two_days: Path) -> None:
    before = vault_files(two_days)
    done = run_cli(two_days, "consolidate", "--llm")
    assert done.returncode == 1
    assert done.stderr == (
        "Error: the LLM pass needs [llm] url (e.g. http://127.0.0.1:11434/v1) in"
        " .vaultmem/local.toml, this device's own settings, and model\n"
    )
    assert vault_files(two_days) == before


def test_enabled_in_the_config_turns_the_pass_on_and_no_llm_off(two_days: Path) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        configure(two_days, base_url(server), enabled=True)
        off = CliRunner().invoke(
            cli, ["consolidate", "--no-llm", "--dry-run", "--vault", str(two_days)]
        )
        assert off.exit_code == 0 and server.requests == []
        on = CliRunner().invoke(cli, ["consolidate", "--json", "--vault", str(two_days)])
    assert on.exit_code == 0, on.output
    assert json.loads(on.stdout)["superseded"] == 1 and server.requests


def test_the_api_key_comes_from_the_named_environment_variable(
    two_days: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with llm_server(pair_answers({(OLD, NEW): "conflict"}), key="s3cret") as server:
        configure(two_days, base_url(server), api_key_env="VAULTMEM_TEST_LLM_KEY")
        unset = run_cli(two_days, "consolidate", "--llm")
        assert unset.returncode == 1
        assert unset.stderr == (
            "Error: [llm] api_key_env names VAULTMEM_TEST_LLM_KEY, which is not set\n"
        )
        monkeypatch.setenv("VAULTMEM_TEST_LLM_KEY", "s3cret")
        with Vault(two_days) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert report.superseded == 1 and report.notices == []
    assert "s3cret" not in (two_days / ".vaultmem/config.toml").read_text()


@pytest.mark.parametrize(
    "table, message",
    [
        ("budget = -1", "llm.budget must be at least 0, got -1"),
        ("timeout = 0", "llm.timeout must be at least 0.1, got 0.0"),
        ('enabled = "yes"', "llm.enabled must be bool, got 'yes'"),
        ("retries = 99", "llm.retries must be between 0 and 20, got 99"),
        ("temperature = 1", "unknown key llm.temperature"),
    ],
)
def test_llm_settings_are_checked(vault_path: Path, table: str, message: str) -> None:
    (vault_path / ".vaultmem/config.toml").write_text(f"[llm]\n{table}\n")
    done = run_cli(vault_path, "consolidate")
    assert done.returncode == 1 and message in done.stderr


@pytest.mark.parametrize("ignore_file", ["as made by init", "of an older vault"])
def test_the_cache_is_never_committed(two_days: Path, ignore_file: str) -> None:
    ignore = two_days / ".vaultmem/.gitignore"
    if ignore_file == "of an older vault":  # made before the cache existed: no rule for it
        ignore.write_text(ignore.read_text().replace("llm-cache.*\n", ""))
    with llm_server(pair_answers({(OLD, NEW): "conflict"})) as server:
        configure(two_days, base_url(server))
        with Vault(two_days) as vault:
            report = vault.consolidate(today=DAY, llm=True)
    assert report.commit is not None and (two_days / ".vaultmem/llm-cache.db").exists()
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=two_days, capture_output=True, text=True, check=True
    ).stdout
    assert ".vaultmem/config.toml" in tracked and "llm-cache" not in tracked


def test_a_server_fixture_sanity_check(tmp_path: Path) -> None:
    """The scripted server speaks the protocol the client expects (a real round trip)."""
    with llm_server(place_answers({"x": "facts/money.md"})) as server:
        assert isinstance(server, LLMServer)
        judge = open_judge(tmp_path, LLMConfig(url=base_url(server), model="m"))
        assert judge.place("x", "facts/general.md") == "facts/money.md"
        assert judge.place("x", "facts/health.md") == "facts/health.md"  # placed: not asked
        judge.close()
    assert len(server.requests) == 1
