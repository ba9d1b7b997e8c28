"""Commands over notes and the index: init, index, reindex, show, status, watch (``search``,
the one an agent runs most, has its own module: it imports only what a search needs)."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vaultmem.cli.common import (
    FreeTextCommand,
    PathParam,
    echo_json,
    json_option,
    open_vault,
    progress_bar,
    vault_option,
)
from vaultmem.errors import shown_path
from vaultmem.notes.files import split_line
from vaultmem.vault import Vault

if TYPE_CHECKING:
    from vaultmem.index.runs import IndexReport
    from vaultmem.template import InitReport


@click.command(cls=FreeTextCommand)
@click.argument("path", type=PathParam(path_type=Path), default=".")
@click.option("--example", is_flag=True, help="Add a small example memory (English and Chinese).")
@click.option(
    "--git/--no-git",
    default=True,
    help="Make the folder a git repository if it is not in one, and commit (default); "
    "--no-git: neither.",
)
@json_option
def init(path: Path, example: bool, git: bool, as_json: bool) -> None:
    """Create a vault at PATH, or adopt the notes folder already there.

    Adds only missing files and never changes an existing one. In a folder in no git
    repository it makes one and commits the whole folder, your notes included (history,
    sync and restore cover them); in an existing repository it commits only the files it
    added. It says which. --no-git makes no repository and commits nothing.

    Example: vaultmem init ~/memory --example
    """
    report = Vault.init(path, example=example, git=git)
    if as_json:
        echo_json(
            {
                "root": str(report.root),
                "created": report.created,
                "kept": report.kept,
                "repository": report.repository,
                "committed": report.committed,
            }
        )
        return
    kept = f"; {len(report.kept)} of its files were there already and kept" if report.kept else ""
    click.echo(f"vault ready at {report.root}: {len(report.created)} files added{kept}")
    click.echo(_said_of_git(report))


def _said_of_git(report: InitReport) -> str:
    """What ``init`` did with git, plainly: the person's own files committed or not."""
    count = len(report.committed)
    if report.repository == "new":
        yours = count - len(report.created)
        held = f", {yours} of them yours" if yours > 0 else ""
        return (
            f"git: made a repository here and committed {count} files{held} "
            "(history, sync and restore cover them; `vaultmem init --no-git` makes none)"
        )
    if report.repository == "existing":
        if not count:
            return "git: in an existing repository; nothing to commit"
        return (
            f"git: committed the {count} files vaultmem added to the existing repository; "
            "your own changes are left for you to commit"
        )
    return "git: no repository made, nothing committed (history, sync and restore need one)"


def _run_index(vault: Vault, rebuild: bool) -> IndexReport:
    with progress_bar("indexing", minimum=500) as progress:
        return vault.reindex(progress) if rebuild else vault.index(progress)


def _echo_report(report: IndexReport, as_json: bool) -> None:
    if as_json:
        echo_json({**asdict(report), "seconds": round(report.seconds, 3)})
    else:
        click.echo(report.summary())


@click.command()
@json_option
@vault_option
def index(as_json: bool, vault_path: Path | None) -> None:
    """Update the index: read only the notes that changed since the last run.

    Example: vaultmem index --vault ~/memory
    """
    with open_vault(vault_path) as vault:
        _echo_report(_run_index(vault, rebuild=False), as_json)


@click.command()
@json_option
@vault_option
def reindex(as_json: bool, vault_path: Path | None) -> None:
    """Delete the index and rebuild it from the files.

    Example: vaultmem reindex
    """
    with open_vault(vault_path) as vault:
        _echo_report(_run_index(vault, rebuild=True), as_json)


@click.command()
@click.option("--quiet", "-q", is_flag=True, help="Log only errors and warnings, not every batch.")
@click.option(
    "--autocommit",
    type=click.FloatRange(min=0.1),
    metavar="SECONDS",
    help="Commit to git after this many seconds without changes [off].",
)
@click.option(
    "--sync",
    "sync_every",
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="Sync with the git remote on this interval [off].",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print each event as a JSON object, one per line."
)
@vault_option
def watch(
    quiet: bool,
    autocommit: float | None,
    sync_every: float | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Keep the index following the notes: every edit is searchable within a second.

    Reconciles the index on start, then re-indexes what changes, from any editor or from
    git. One daemon per vault; stop it with Ctrl-C or SIGTERM. See docs/daemon.md.

    Example: vaultmem watch --vault ~/memory
    """
    import signal  # only the daemon handles signals: a search does without the module

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def log(line: str) -> None:
        if as_json or (quiet and line.startswith("batch:")):
            return
        click.echo(f"{time.strftime('%H:%M:%S')} {line}", err=True)

    def event(data: dict[str, Any]) -> None:
        if not (quiet and data["event"] == "batch"):
            # One line per event, flushed at once: a reader of the pipe sees it now.
            click.echo(json.dumps(data, ensure_ascii=False))
            sys.stdout.flush()

    with open_vault(vault_path) as vault:
        vault.watch(
            stop,
            log,
            autocommit=autocommit,
            sync_every=sync_every,
            events=event if as_json else None,
        )


@click.command()
@json_option
@vault_option
def status(as_json: bool, vault_path: Path | None) -> None:
    """Show what the index holds, which notes changed since it was updated, and warnings.

    Example: vaultmem status --json
    """
    with open_vault(vault_path) as vault:
        st = vault.status()
    if as_json:
        echo_json(
            {
                "vault": st.vault,
                "files": st.files,
                "chunks": st.chunks,
                "index_bytes": st.index_bytes,
                "stale": st.stale,
                "warnings": [{"path": p, "warnings": w} for p, w in st.warnings],
                "not_in_full": [{"path": p, "warning": w} for p, w in st.not_in_full],
                "daemon_pid": st.daemon_pid,
                "daemon_warnings": st.daemon_warnings,
                "embedded": (
                    None
                    if st.embedded is None
                    else dict(zip(("model", "chunks", "of"), st.embedded, strict=True))
                ),
            }
        )
        return
    click.echo(f"vault:    {st.vault}")
    daemon = f"running (pid {st.daemon_pid})" if st.daemon_pid else "not running"
    click.echo(f"daemon:   {daemon}")
    for warning in st.daemon_warnings:
        click.echo(f"  warning: {warning}")
    click.echo(
        f"indexed:  {st.files} files, {st.chunks} chunks, index {st.index_bytes / 1e6:.1f} MB"
    )
    if st.embedded is not None:
        model, done, total = st.embedded
        click.echo(f"embedded: {done} of {total} chunks ({model})")
    click.echo(
        f"stale:    {len(st.stale)} files changed since the last index run"
        + (" (run `vaultmem index`)" if st.stale else "")
    )
    for path in st.stale[:20]:
        click.echo(f"  {shown_path(path)}")
    click.echo(f"warnings: {len(st.warnings)} files")
    for path, warnings in st.warnings:
        for warning in warnings:
            click.echo(f"  {shown_path(path)}: {warning}")
    for path, warning in st.not_in_full:  # words a search cannot find: said loudly
        click.echo(f"Warning: {shown_path(path)} is not searchable in full: {warning}", err=True)


@click.command(cls=FreeTextCommand)
@click.argument("target", metavar="PATH[:LINE]|ID")
@click.option(
    "--context",
    "-C",
    type=click.IntRange(min=0),
    default=0,
    help="Lines of context around the block.",
)
@json_option
@vault_option
def show(target: str, context: int, as_json: bool, vault_path: Path | None) -> None:
    """Print a note, or with PATH:LINE the block holding that line, with line numbers.
    A block id (^ID, ID, DATE#ID or PATH#ID) shows the block of the line that has it; a
    link as search hands it out ([[note#^id]], [[note#Heading]], [[note]]) what it names.

    Example: vaultmem show memory/2026-11-20.md:14
    """
    path, line = split_line(target)
    with open_vault(vault_path) as vault:
        if line is None:
            excerpt = vault.get(target)  # a path, a block id or a link
            if excerpt.block_id is not None:  # its block, with the context asked for
                excerpt = replace(
                    vault.show(excerpt.path, excerpt.line_start, context), block_id=excerpt.block_id
                )
        else:
            excerpt = vault.show(path, line, context)
    end = excerpt.line_end
    if as_json:
        echo_json(excerpt.as_dict())
        return
    width = len(str(end))
    for number, text in enumerate(excerpt.lines, excerpt.line_start):
        click.echo(f"{number:>{width}} | {text}")
