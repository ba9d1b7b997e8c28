"""Commands over git history: commit, log, diff, restore, sync."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vaultmem.cli.common import (
    FreeTextCommand,
    PathParam,
    date,
    echo_json,
    json_option,
    open_vault,
    vault_option,
)
from vaultmem.notes.files import split_line

if TYPE_CHECKING:
    from vaultmem.git.history import Commit


def commit_dict(made: Commit | None) -> dict[str, Any] | None:
    """A commit for --json output (``null`` for none)."""
    if made is None:
        return None
    return {
        "sha": made.sha,
        "date": made.date,
        "author": made.author,
        "message": made.message,
        "files": list(made.files),
    }


@click.command()
@click.option("--message", "-m", help="The commit message [default: what changed, by kind].")
@json_option
@vault_option
def commit(message: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Commit the vault's changes to git (the index and caches stay out).

    Example: vaultmem commit -m "corrected Alice's allergy"
    """
    with open_vault(vault_path) as vault:
        made = vault.commit(message)
    if as_json:
        echo_json({"committed": made is not None, "commit": commit_dict(made)})
        return
    click.echo(f"{made.sha[:10]} {made.message}" if made else "nothing to commit")


@click.command(cls=FreeTextCommand)
@click.argument("target", required=False, metavar="[PATH[:LINE]]")
@click.option("--since", callback=date, help="Only commits on or after YYYY-MM-DD.")
@json_option
@vault_option
def log(target: str | None, since: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Show the history of the vault, of one note, or of one line (PATH:LINE).

    Example: vaultmem log facts/owner/profile.md:9
    """
    path, line = split_line(target) if target else (None, None)
    with open_vault(vault_path) as vault:
        if path is not None and line is not None:
            versions = vault.line_history(path, line)
            if as_json:
                echo_json(
                    [
                        {
                            "sha": v.commit.sha,
                            "date": v.commit.date,
                            "author": v.commit.author,
                            "message": v.commit.message,
                            "line": v.line,
                            "text": v.text,
                        }
                        for v in versions
                    ]
                )
                return
            for v in versions:
                click.echo(f"{v.commit.sha[:10]} {v.commit.date[:16]} {v.commit.message}")
                click.echo(f"    {v.line}: {v.text}" if v.text else "    (line removed)")
            return
        commits = vault.log(path, since)
    if as_json:
        echo_json(
            [
                {
                    "sha": c.sha,
                    "date": c.date,
                    "author": c.author,
                    "message": c.message,
                    "files": list(c.files),
                }
                for c in commits
            ]
        )
        return
    for c in commits:
        click.echo(f"{c.sha[:10]} {c.date[:16]} {c.message} ({len(c.files)} files)")


@click.command(cls=FreeTextCommand)
@click.argument("rev", required=False)
@click.argument("path", required=False)
@json_option
@vault_option
def diff(rev: str | None, path: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Show what changed since a revision (default: since the last commit), or between
    two (OLD..NEW). A REV is a sha, HEAD~3, a tag or a branch, never an option of git's.

    Example: vaultmem diff HEAD~3 MEMORY.md
    """
    with open_vault(vault_path) as vault:
        text = vault.diff(rev, path)
    if as_json:
        echo_json({"rev": rev, "path": path, "diff": text})
        return
    click.echo(text, nl=False)


@click.command(cls=FreeTextCommand)
@click.option(
    "--at", "at", required=True, help="A revision (sha, HEAD~2, a tag) or a date YYYY-MM-DD."
)
@click.argument("paths", nargs=-1)
@click.option(
    "--to",
    "to",
    type=PathParam(path_type=Path),
    help="Write the snapshot into this new folder instead.",
)
@json_option
@vault_option
def restore(
    at: str, paths: tuple[str, ...], to: Path | None, as_json: bool, vault_path: Path | None
) -> None:
    """Bring back the vault (or PATHS) as it was at a revision or date.

    Without --to, the present state is committed first and the restore is a new commit,
    so it can be undone. With --to, the snapshot goes to a new folder, indexed, to search
    with `vaultmem search --vault DIR`; the vault is not touched.

    Example: vaultmem restore --at 2026-11-01 --to /tmp/memory-nov1
    """
    with open_vault(vault_path) as vault:
        result = vault.restore(at, paths, to)
    if as_json:
        echo_json(
            {
                "at": at,
                "to": str(to) if to else None,
                "paths": result.paths,
                "commit": commit_dict(result.commit),
                "saved": commit_dict(result.saved),
            }
        )
        return
    if not to and not result.paths:
        click.echo(f"nothing to restore: already as at {at}")
        return
    where = f"into {to}" if to else f"as commit {result.commit.sha[:10]}"
    click.echo(f"restored {len(result.paths)} files {where}")


@click.command()
@click.option("--remote", help="The git remote to sync with [default: origin].")
@json_option
@vault_option
def sync(remote: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Commit, fetch, merge and push, then index what changed. Never force-pushes.

    Each device's facts and daily lines are all kept (merged by block id) and MEMORY.md and
    topic blocks are rebuilt; only where both devices changed the same words is the other
    side kept beside the note as a .sync-conflict- copy, and sync exits 1. See docs/git.md.

    Example: vaultmem sync --remote origin
    """
    with open_vault(vault_path) as vault:
        result = vault.sync(remote)
    if as_json:
        echo_json(
            {
                "remote": result.remote,
                "branch": result.branch,
                "committed": commit_dict(result.committed),
                "pulled": result.pulled,
                "pushed": result.pushed,
                "conflicts": [{"note": note, "copy": copy} for note, copy in result.conflicts],
            }
        )
        sys.exit(1 if result.conflicts else 0)
    done = "pushed" if result.pushed else "not pushed"
    committed = f"committed {result.committed.sha[:10]}, " if result.committed else ""
    click.echo(
        f"synced with {result.remote}/{result.branch}: {committed}{len(result.pulled)} files "
        f"changed by the merge, {done}"
    )
    if result.conflicts:
        for note, copy in result.conflicts:
            click.echo(f"conflict: {note} kept as yours; theirs is in {copy}", err=True)
        click.echo(
            "merge what you want to keep into each note, delete the copy, and sync again", err=True
        )
        sys.exit(1)
