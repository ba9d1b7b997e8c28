"""``vaultmem search``: the command an agent runs most, in a module of its own so that its
process imports the search and nothing of the other commands (docs/cli.md, "Start-up
time")."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import MAX_CONTEXT
from ..errors import shown_path
from ..query import Query, highlight_spans, parse_query
from ..search import MAX_LIMIT, Hit
from .common import (
    FreeTextCommand,
    cli,
    date,
    echo_json,
    json_option,
    open_vault,
    utf8,
    vault_option,
)


def _snippet(text: str, spans: list[tuple[int, int]], width: int = 180) -> str:
    flat = text.replace("\n", " ")
    start = 0
    if len(flat) > width and spans:
        start = max(0, spans[0][0] - width // 3)
        space = flat.find(" ", start, spans[0][0])
        start = space + 1 if start and space != -1 else start  # begin at a word
    end = min(len(flat), start + width)
    out = ["…" if start else ""]
    pos = start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        out.append(flat[pos:s])
        out.append(click.style(flat[s:e], bold=True, fg="yellow"))
        pos = e
    out.append(flat[pos:end])
    out.append("…" if end < len(flat) else "")
    return "".join(out)


@cli.command(cls=FreeTextCommand)
@click.argument("query", callback=utf8, required=False, default="")
@click.option(
    "--limit", "-n", type=click.IntRange(1, MAX_LIMIT), default=None, help="Most hits to show [10]."
)
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
    default=None,
    metavar="N",
    help="Lines shown before and after each hit [search.context_lines: 1].",
)
@click.option(
    "--mode",
    type=click.Choice(["keyword", "semantic", "hybrid"]),
    help="Match words, meaning, or both [hybrid once `vaultmem embed` ran, else keyword].",
)
@json_option
@vault_option
def search(
    query: str,
    limit: int | None,
    path_glob: str | None,
    tag: str | None,
    since: str | None,
    until: str | None,
    url: str | None,
    include_archive: bool,
    agent: str | None,
    context: int | None,
    mode: str | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Search the vault for QUERY, best matches first.

    Words are OR-ed and chunks holding more of them rank first; "quoted phrases" and
    prefix* keep their meaning; Chinese, Japanese and Korean work without spaces.
    Exit code 0 with hits, 1 with none (with --json: 0 and []). With --agent NAME,
    other agents' lines are left out; lines that name no agent are kept. One memory is
    shown once (a daily line, its fact and MEMORY.md's line: "also in"), with the lines
    around it (--context N, like grep -C).

    Example: vaultmem search "budget review" --since 2026-01-01 --json
    """
    if not query and not url:
        raise click.UsageError("give a QUERY, or --url")
    with open_vault(vault_path) as vault:
        hits = vault.search(
            query,
            limit=limit,
            path=path_glob,
            tag=tag,
            since=since,
            until=until,
            url=url,
            include_archive=include_archive,
            agent=agent,
            context=context,
            mode=mode,
        )
    if as_json:
        echo_json([hit.as_dict() for hit in hits])
    else:
        parsed = parse_query(query)
        for hit in hits:
            _echo_hit(hit, parsed)
        if not hits:
            click.echo("no matches", err=True)
            sys.exit(1)  # grep's convention; with --json, [] says it (agents read 1 as failure)


def _echo_hit(hit: Hit, parsed: Query) -> None:
    """A hit as a few lines: where its matched lines are, them (query words marked), the
    context lines around them dimmed behind a ``·``, and the other places of its memory."""
    heading = f"  {click.style(hit.heading, fg='cyan')}" if hit.heading else ""
    where = f"{shown_path(hit.path)}:{hit.match_start}"
    click.echo(f"{click.style(where, fg='green')}{heading}")
    lines = hit.text.split("\n")
    first, last = hit.match_start - hit.line_start, hit.match_end - hit.line_start + 1

    def context(part: list[str]) -> None:
        for line in filter(str.strip, part):
            click.echo(click.style(f"  · {_snippet(line, [])}", dim=True))

    context(lines[:first])
    click.echo(f"    {_snippet(hit.matched, highlight_spans(parsed, hit.matched))}")
    context(lines[last:])
    if hit.also_in:
        places = ", ".join(f"{shown_path(p.path)}:{p.match_start}" for p in hit.also_in)
        click.echo(click.style(f"    also in: {places}", fg="magenta"))
