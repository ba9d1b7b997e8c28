"""The ``vaultmem`` command line: a thin click layer over ``Vault``.

Each command parses its options, makes one ``Vault`` call and prints. Errors the library
raises (``VaultmemError``) become one ``Error: ...`` line on stderr and exit code 1; bad
options exit 2 (click's usage errors). ``--json`` output goes to stdout only; notices and
progress go to stderr. See ``docs/cli.md``.

The commands live by concept: ``notes`` (init, index, show, status, watch), ``search``,
``git`` (commit, log, diff, restore, sync), ``memory`` (remember, consolidate, forget,
tree, validate), ``embed`` (the vectors of semantic search), ``agent`` (context, recent),
``capture`` (agent transcripts), ``hooks`` (hooks install/uninstall/show), ``mcp`` (the
MCP server); ``common`` holds what they share. A command's module is imported when the
command runs (``common.COMMAND_MODULES``), so each command loads only what it needs.

The console script runs ``main`` (``fast.py``): a plain ``search`` command line runs
without importing click at all; any other goes to ``cli``, the click group, which this
package imports when first asked for it.
"""

from __future__ import annotations

from vaultmem.cli.fast import main

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from vaultmem.cli.common import cli


def __getattr__(name: str) -> object:
    if name == "cli":
        from vaultmem.cli.common import cli

        globals()["cli"] = cli
        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["cli", "main"]
