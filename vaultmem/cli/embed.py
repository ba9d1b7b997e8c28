"""``vaultmem embed``: fill the vector store for semantic and hybrid search."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from .common import cli, echo_json, json_option, open_vault, vault_option


@cli.command()
@json_option
@vault_option
def embed(as_json: bool, vault_path: Path | None) -> None:
    """Embed every chunk that has no vector yet (indexing first), for semantic search.

    Resumable: stop it at any point and the next run continues; a run with nothing new
    does nothing. Needs an embedder: `pip install 'vaultmem[embeddings]'` or the
    [embeddings] section of .vaultmem/config.toml (docs/embeddings.md).

    Example: vaultmem embed --vault ~/memory
    """
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None and sys.stderr.isatty():
            bar = click.progressbar(length=total, label="embedding", file=sys.stderr)
            bar.__enter__()
        if bar is not None:
            bar.update(done - bar.pos)

    with open_vault(vault_path) as vault:
        try:
            report = vault.embed(progress)
        finally:
            if bar is not None:
                bar.__exit__(None, None, None)
    if as_json:
        echo_json({**asdict(report), "seconds": round(report.seconds, 3)})
    else:
        click.echo(report.summary())
