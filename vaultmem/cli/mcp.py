"""``vaultmem mcp``: serve the vault to agents over MCP (``vaultmem/agent/mcp.py``).

The SDK is an optional extra and slow to import, so it is imported only here, when the
command runs: every other command starts without it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vaultmem.cli.common import vault_option
from vaultmem.vault import Vault

INSTALL_HINT = (
    "vaultmem mcp needs the MCP SDK: pip install 'mcp>=2.3' (the mcp extra, docs/install.md)"
)


@click.command()
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.",
)
@vault_option
def mcp(http_port: int | None, vault_path: Path | None) -> None:
    """Serve the vault to agents over MCP: stdio by default (for Claude Desktop, Claude
    Code, Codex...), or streamable HTTP on 127.0.0.1 with --http PORT.

    Tools: search, get, remember, context, recent, forget, status. Stdout carries only the
    protocol; warnings go to stderr. See docs/mcp.md.

    Example: vaultmem mcp --vault ~/memory
    """
    with Vault.find(vault_path) as vault:  # no vault: one clear error before anything starts
        for notice in vault.notices:  # a setting ignored: said once, on stderr, as it starts
            click.echo(f"Warning: {notice}", err=True)
    try:
        from vaultmem.agent.mcp import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types", "pydantic"):
            raise
        click.echo(f"Error: {INSTALL_HINT}", err=True)
        sys.exit(1)
    serve(vault_path, http_port)
