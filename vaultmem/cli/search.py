"""``vaultmem search``: the command an agent runs most, in a module of its own so that its
process imports the search and nothing of the other commands (docs/cli.md, "Start-up
time"). What it does once its options are read is ``search_run.py``; a plain search command
line is read without click by ``search_fast.py``, from a table derived from the options
declared here."""

from __future__ import annotations

import sys
from typing import Any

import click

from vaultmem.cli.common import (
    FreeTextCommand,
    date,
    json_option,
    query_text,
    utf8,
    vault_option,
)
from vaultmem.cli.search_run import MISSING_QUERY, lacks_query, run_search
from vaultmem.config import MAX_CONTEXT
from vaultmem.search.keyword import MAX_LIMIT


@click.command(cls=FreeTextCommand)
@click.argument("query", callback=query_text, required=False, default="")
@click.option("--limit", "-n", type=click.IntRange(1, MAX_LIMIT), help="Most hits to show [10].")
@click.option(
    "--path",
    "path_glob",
    callback=utf8,
    help="Only notes whose path matches this glob, e.g. 'memory/*'.",
)
@click.option(
    "--tag",
    callback=utf8,
    help="Only chunks with this tag (inline or frontmatter; nested tags match).",
)
@click.option("--since", callback=date, help="Only chunks dated on or after YYYY-MM-DD.")
@click.option("--until", callback=date, help="Only chunks dated on or before YYYY-MM-DD.")
@click.option(
    "--url", callback=utf8, help="Only facts whose [url:: ] holds this text (QUERY optional)."
)
@click.option("--all", "include_archive", is_flag=True, help="Search the archive too.")
@click.option("--agent", callback=utf8, help="Leave out other agents' lines ([agent:: NAME]).")
@click.option(
    "--context",
    "-C",
    type=click.IntRange(0, MAX_CONTEXT),
    metavar="N",
    help="Lines shown before and after each hit [search.context_lines: 1].",
)
@click.option(
    "--mode",
    type=click.Choice(("keyword", "semantic", "hybrid")),
    help="Match words, meaning, or both [hybrid once `vaultmem embed` ran, else keyword].",
)
@json_option
@vault_option
def search(**options: Any) -> None:
    """Search the vault for QUERY, best matches first.

    Words are OR-ed and chunks holding more of them rank first; "quoted phrases" and
    prefix* keep their meaning; Chinese, Japanese and Korean work without spaces.
    Exit code 0 with hits, 1 with none (with --json: 0 and []). With --agent NAME,
    other agents' lines are left out; lines that name no agent are kept. One memory is
    shown once (a daily line, its fact and MEMORY.md's line: "also in"), with the lines
    around it (--context N, like grep -C).

    Example: vaultmem search "budget review" --since 2026-01-01 --json
    """
    if lacks_query(options):
        raise click.UsageError(MISSING_QUERY)
    code = run_search(options, click.echo)
    if code:
        sys.exit(code)
