"""The ``vaultmem`` command line: a thin click layer over ``Vault``.

Each command parses its options, makes one ``Vault`` call and prints. Errors the library
raises (``VaultmemError``) become one ``Error: ...`` line on stderr and exit code 1; bad
options exit 2 (click's usage errors). ``--json`` output goes to stdout only; notices and
progress go to stderr. See ``docs/cli.md``.

The commands live by concept: ``notes`` (init, index, show, status, watch), ``search``,
``git`` (commit, log, diff, restore, sync), ``memory`` (remember, consolidate, forget,
tree, validate), ``embed`` (the vectors of semantic search), ``agent`` (context, recent),
``capture`` (agent transcripts), ``hooks`` (hooks install/uninstall/show), ``mcp`` (the
MCP server); ``common`` holds the group and what the commands share, ``plain`` what they
share without click. The group imports a command's module when the command runs
(``common.COMMAND_MODULES``), so each command loads only what it needs.

The console script runs ``main``: a plain ``search`` command line runs without importing
click at all (``search_fast``, reading it by a table derived from the click command); any
other goes to ``cli``, the click group, which this package imports when first asked for it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultmem.cli.common import cli


def main() -> None:
    """The ``vaultmem`` command: a plain search without click, anything else with it."""
    from vaultmem.cli.search_fast import search_without_click

    code = search_without_click(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from vaultmem.cli.common import cli

    cli()


def __getattr__(name: str) -> object:
    if name == "cli":
        from vaultmem.cli.common import cli

        globals()["cli"] = cli
        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["cli", "main"]
