"""Commands agents call: context (the prompt block) and recent (what changed lately).
``show`` (notes.py) takes a block id too, for what MCP calls ``get``."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import click

from vaultmem.agent import JSON_HOOK_HOSTS
from vaultmem.cli.common import (
    HOOK_WAIT,
    FreeTextCommand,
    echo_json,
    host_option,
    json_option,
    open_vault,
    query_text,
    read_stdin,
    run_date,
    utf8,
    vault_option,
)
from vaultmem.notes.generated_block import MIN_BUDGET


def read_hook_input() -> dict[str, object]:
    """The JSON object a host's hook sends on stdin, or ``{}`` (``read_stdin`` bounds the
    wait)."""
    data = read_stdin(wait=HOOK_WAIT)
    try:
        parsed = json.loads(data.decode("utf-8", "replace") or "{}")
    except (ValueError, RecursionError):  # nothing in it changes the block
        return {}
    return parsed if isinstance(parsed, dict) else {}


@click.command(cls=FreeTextCommand)
@click.argument("query", callback=query_text, required=False)
@click.option(
    "--budget",
    type=click.IntRange(min=MIN_BUDGET),
    help="Most tokens of the block [config: context.budget, 1500].",
)
@click.option("--agent", callback=utf8, help="Leave out other agents' lines.")
@click.option("--today", callback=run_date, help="Run as of this YYYY-MM-DD (default: today).")
@click.option(
    "--hook", is_flag=True, help="For a session-start hook: read its JSON on stdin, print text."
)
@host_option
@json_option
@vault_option
def context(
    query: str | None,
    budget: int | None,
    agent: str | None,
    today: str | None,
    hook: bool,
    host: str | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Print the block an agent puts in its prompt: MEMORY.md's block, the recall for
    QUERY, then today's and yesterday's notes, within the token budget. See docs/context.md.

    Example: vaultmem context "release date" --budget 800
    """
    if hook and as_json:
        raise click.UsageError("use just one of --hook and --json")
    started = read_hook_input() if hook else {}  # a SessionStart hook sends its JSON
    day = dt.date.fromisoformat(today) if today else None
    with open_vault(vault_path) as vault:
        if query is None and hook:  # the first block is about the project at hand
            from vaultmem.agent.session_start import project_of

            query = project_of(started, vault.root)
        block = vault.context(query, budget=budget, agent=agent, today=day)
    if as_json:
        echo_json(block.as_dict())
    elif hook and host in JSON_HOOK_HOSTS:
        if block.sections:  # a hook adds nothing to a session from an empty vault
            answer = {"hookEventName": "SessionStart", "additionalContext": block.text}
            echo_json({"hookSpecificOutput": answer})
    elif block.sections or not hook:
        click.echo(block.text)


@click.command()
@click.option("--days", type=click.IntRange(min=1), default=7, show_default=True)
@click.option("--limit", "-n", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--agent", callback=utf8, help="Leave out other agents' lines.")
@click.option("--today", callback=run_date, help="Run as of this YYYY-MM-DD (default: today).")
@json_option
@vault_option
def recent(
    days: int,
    limit: int,
    agent: str | None,
    today: str | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Show what changed in the last days: new daily-note lines, new facts, and facts
    superseded or forgotten, newest first.

    Example: vaultmem recent --days 2 --json
    """
    day = dt.date.fromisoformat(today) if today else None
    with open_vault(vault_path) as vault:
        found = vault.recent(days=days, limit=limit, today=day, agent=agent)
    if as_json:
        echo_json(found.as_dict())
        return
    for title, changes in (
        ("daily notes", found.daily),
        ("new facts", found.facts_new),
        ("superseded facts", found.facts_superseded),
    ):
        click.echo(f"{title}: {len(changes)}")
        for change in changes:
            click.echo(f"  {change.date} {change.path}:{change.line}  {change.text}")
