"""What ``vaultmem search`` does once its options are read, without click: open the vault,
search, print. Both ways in run it, the click command (``search.py``) with
``click.echo`` and ``search_fast.py`` with an echo that writes the same bytes, so a search
prints one thing whichever way its command line was read.

``style`` writes the ANSI codes ``click.style`` writes for the few styles used here
(``tests/test_cli_fast.py`` compares them); echo removes them when the output is no
terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultmem.cli.plain import Echo, json_text, opened_vault
from vaultmem.errors import shown_path
from vaultmem.search.query import Query, highlight_spans, parse_query

if TYPE_CHECKING:
    from vaultmem.search.keyword import Hit

MISSING_QUERY = "give a QUERY, or --url"

_COLORS = {"green": 32, "yellow": 33, "magenta": 35, "cyan": 36}


def style(text: str, fg: str | None = None, bold: bool = False, dim: bool = False) -> str:
    """``click.style(text, fg=fg, bold=bold, dim=dim)`` for the colors used here."""
    codes = ([f"\033[{_COLORS[fg]}m"] if fg else []) + ["\033[1m"] * bold + ["\033[2m"] * dim
    return "".join(codes) + text + "\033[0m"


def lacks_query(options: dict[str, Any]) -> bool:
    """Whether the options give neither a QUERY nor ``--url`` (a usage error)."""
    return not options["query"] and not options["url"]


def run_search(options: dict[str, Any], echo: Echo) -> int:
    """Search with the command's options (a QUERY or ``--url`` given); print the hits or
    their JSON with ``echo``; the exit code: 1 when nothing was found and not ``--json``
    (grep's convention; with --json, [] says it: agents read 1 as failure)."""
    query: str = options["query"]
    with opened_vault(options["vault_path"], echo) as vault:
        hits = vault.search(
            query,
            limit=options["limit"],
            path=options["path_glob"],
            tag=options["tag"],
            since=options["since"],
            until=options["until"],
            url=options["url"],
            include_archive=options["include_archive"],
            agent=options["agent"],
            context=options["context"],
            mode=options["mode"],
        )
    if options["as_json"]:
        echo(json_text([hit.as_dict() for hit in hits]))
        return 0
    parsed = parse_query(query)
    for hit in hits:
        _echo_hit(hit, parsed, echo)
    if not hits:
        echo("no matches", err=True)
        return 1
    return 0


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
        out.append(style(flat[s:e], bold=True, fg="yellow"))
        pos = e
    out.append(flat[pos:end])
    out.append("…" if end < len(flat) else "")
    return "".join(out)


def _echo_hit(hit: Hit, parsed: Query, echo: Echo) -> None:
    """A hit as a few lines: where its matched lines are, them (query words marked), the
    context lines around them dimmed behind a ``·``, and the other places of its memory."""
    heading = f"  {style(hit.heading, fg='cyan')}" if hit.heading else ""
    where = f"{shown_path(hit.path)}:{hit.match_start}"
    echo(f"{style(where, fg='green')}{heading}")
    lines = hit.text.split("\n")
    first, last = hit.match_start - hit.line_start, hit.match_end - hit.line_start + 1

    def context(part: list[str]) -> None:
        for line in filter(str.strip, part):
            echo(style(f"  · {_snippet(line, [])}", dim=True))

    context(lines[:first])
    echo(f"    {_snippet(hit.matched, highlight_spans(parsed, hit.matched))}")
    context(lines[last:])
    if hit.also_in:
        places = ", ".join(f"{shown_path(p.path)}:{p.match_start}" for p in hit.also_in)
        echo(style(f"    also in: {places}", fg="magenta"))
