"""``vaultmem search``: the command an agent runs most, in a module of its own so that its
process imports the search and nothing of the other commands (docs/cli.md, "Start-up
time"). Its options are declared once, in ``cli/fast.py`` (which reads a plain search
command line without click), and what it does is ``cli/search_run.py``: this module only
dresses them in click."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from vaultmem.cli.common import FreeTextCommand, cli, date, query_text, utf8, vault_option
from vaultmem.cli.fast import Spec, search_specs
from vaultmem.cli.search_run import run_search


def click_option(spec: Spec) -> Callable[[Any], Any]:
    """The click option that ``spec`` declares."""
    if spec.dest == "vault_path":
        return vault_option
    kinds: dict[str, dict[str, Any]] = {
        "flag": {"is_flag": True},
        "int": {"type": click.IntRange(spec.low, spec.high), "default": None},
        "choice": {"type": click.Choice(spec.choices)},
        "text": {"callback": utf8},
        "date": {"callback": date},
    }
    return click.option(
        *spec.names, spec.dest, help=spec.help, metavar=spec.metavar, **kinds[spec.kind]
    )


def _with_options(func: Callable[..., None]) -> Callable[..., None]:
    for spec in reversed(search_specs()):  # decorators apply bottom-up
        func = click_option(spec)(func)
    return func


@cli.command(cls=FreeTextCommand)
@click.argument("query", callback=query_text, required=False, default="")
@_with_options
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
    if not options["query"] and not options["url"]:
        raise click.UsageError("give a QUERY, or --url")
    code = run_search(options, click.echo)
    if code:
        sys.exit(code)
