"""The ``vaultmem`` command line: a thin click layer over ``Vault``.

Each command parses its options, makes one ``Vault`` call and prints. Errors the library
raises (``VaultmemError``) become one ``Error: ...`` line on stderr and exit code 1; bad
options exit 2 (click's usage errors). ``--json`` output goes to stdout only; notices and
progress go to stderr. See ``docs/cli.md``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from . import __version__
from .errors import VaultmemError
from .files import shown_path
from .indexing import IndexReport
from .search import MAX_LIMIT, highlight_spans, parse_query
from .vault import Vault

F = TypeVar("F", bound=Callable[..., Any])


class VaultmemGroup(click.Group):
    """A click group that turns library errors into one clear line, in one place."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except VaultmemError as exc:
            raise click.ClickException(str(exc)) from exc


class FreeTextCommand(click.Command):
    """A command whose arguments are free text or paths: a word that starts with ``-`` but
    is no option of the command (``-----BEGIN``, ``-foo``, ``--not-an-option``) is taken
    as the argument, not refused. ``--`` still ends the options."""

    ignore_unknown_options = True


def vault_option(func: F) -> F:
    """``--vault PATH``, shared by every command that works on a vault."""
    return click.option(
        "--vault",
        "vault_path",
        type=click.Path(file_okay=False, path_type=Path),
        help="The vault folder (default: $VAULTMEM_VAULT, else the nearest folder at or "
        "above the current one that holds .vaultmem/).",
    )(func)


def json_option(func: F) -> F:
    """``--json``: machine-readable output on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@contextlib.contextmanager
def open_vault(vault_path: Path | None) -> Iterator[Vault]:
    """Find and open the vault; afterwards print what it did on its own, as warnings."""
    with Vault.find(vault_path) as vault:
        try:
            yield vault
        finally:
            for notice in vault.notices:
                click.echo(f"Warning: {notice}", err=True)


@click.group(cls=VaultmemGroup)
@click.version_option(__version__, prog_name="vaultmem")
def cli() -> None:
    """Long-term memory for AI agents, in plain Markdown files.

    A vault is a folder of Markdown notes with a disposable SQLite search index in
    .vaultmem/. Start with `vaultmem init PATH --example`, then `vaultmem search QUERY`.
    """


@cli.command(cls=FreeTextCommand)
@click.argument("path", type=click.Path(path_type=Path), default=".")
@click.option("--example", is_flag=True, help="Add a small example memory (English and Chinese).")
def init(path: Path, example: bool) -> None:
    """Create a vault at PATH, or adopt the notes folder already there.

    Adds only missing files, never changes an existing one, makes the folder a git
    repository (if it is not in one) and commits.

    Example: vaultmem init ~/memory --example
    """
    report = Vault.init(path, example=example)
    click.echo(
        f"vault ready at {report.root}: {len(report.created)} files added, "
        f"{len(report.kept)} existing files kept"
        + ("" if report.committed else " (nothing to commit)")
    )


def _run_index(vault: Vault, rebuild: bool) -> IndexReport:
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None and total >= 500 and sys.stderr.isatty():
            bar = click.progressbar(length=total, label="indexing", file=sys.stderr)
            bar.__enter__()
        if bar is not None:
            bar.update(1)

    try:
        report = vault.reindex(progress) if rebuild else vault.index(progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    return report


@cli.command()
@vault_option
def index(vault_path: Path | None) -> None:
    """Update the index: read only the notes that changed since the last run.

    Example: vaultmem index --vault ~/memory
    """
    with open_vault(vault_path) as vault:
        click.echo(_run_index(vault, rebuild=False).summary())


@cli.command()
@vault_option
def reindex(vault_path: Path | None) -> None:
    """Delete the index and rebuild it from the files.

    Example: vaultmem reindex
    """
    with open_vault(vault_path) as vault:
        click.echo(_run_index(vault, rebuild=True).summary())


def _utf8(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Reject arguments holding bytes that are not UTF-8 (shells can pass any bytes)."""
    if value is not None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise click.BadParameter("is not valid UTF-8 text") from None
    return value


def _date(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date like 2026-11-22") from None


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
@click.argument("query", callback=_utf8, required=False, default="")
@click.option(
    "--limit", "-n", type=click.IntRange(1, MAX_LIMIT), default=None, help="Most hits to show [10]."
)
@click.option(
    "--path",
    "path_glob",
    callback=_utf8,
    help="Only notes whose path matches this glob, e.g. 'memory/*'.",
)
@click.option(
    "--tag",
    callback=_utf8,
    help="Only chunks with this tag (inline or frontmatter; nested tags match).",
)
@click.option("--since", callback=_date, help="Only chunks dated on or after YYYY-MM-DD.")
@click.option("--until", callback=_date, help="Only chunks dated on or before YYYY-MM-DD.")
@click.option(
    "--url", callback=_utf8, help="Only facts whose [url:: ] holds this text (QUERY optional)."
)
@click.option("--all", "include_archive", is_flag=True, help="Search the archive too.")
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
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Search the vault for QUERY, best matches first.

    Words are OR-ed and chunks holding more of them rank first; "quoted phrases" and
    prefix* keep their meaning; Chinese, Japanese and Korean work without spaces.
    Exit code 0 with hits, 1 with none.

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
        )
    if as_json:
        _echo_json([hit.as_dict() for hit in hits])
    else:
        parsed = parse_query(query)
        for hit in hits:
            heading = f"  {click.style(hit.heading, fg='cyan')}" if hit.heading else ""
            where = f"{shown_path(hit.path)}:{hit.line_start}"
            click.echo(f"{click.style(where, fg='green')}{heading}")
            click.echo(f"    {_snippet(hit.text, highlight_spans(parsed, hit.text))}")
        if not hits:
            click.echo("no matches", err=True)
    if not hits:
        sys.exit(1)


def _split_line(target: str) -> tuple[str, int | None]:
    """``PATH:LINE`` -> (PATH, LINE); a suffix that is not 1-9 ASCII digits is part of PATH."""
    head, sep, tail = target.rpartition(":")
    if sep and re.fullmatch(r"[0-9]{1,9}", tail):
        return head, int(tail)
    return target, None


@cli.command()
@click.option("--message", "-m", help="The commit message [default: what changed, by kind].")
@vault_option
def commit(message: str | None, vault_path: Path | None) -> None:
    """Commit the vault's changes to git (the index and caches stay out).

    Example: vaultmem commit -m "corrected Alice's allergy"
    """
    with open_vault(vault_path) as vault:
        made = vault.commit(message)
    click.echo(f"{made.sha[:10]} {made.message}" if made else "nothing to commit")


@cli.command(cls=FreeTextCommand)
@click.argument("target", required=False, metavar="[PATH[:LINE]]")
@click.option("--since", callback=_date, help="Only commits on or after YYYY-MM-DD.")
@json_option
@vault_option
def log(target: str | None, since: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Show the history of the vault, of one note, or of one line (PATH:LINE).

    Example: vaultmem log facts/owner/profile.md:9
    """
    path, line = _split_line(target) if target else (None, None)
    with open_vault(vault_path) as vault:
        if path is not None and line is not None:
            versions = vault.line_history(path, line)
            if as_json:
                _echo_json(
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
        _echo_json(
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


@cli.command(cls=FreeTextCommand)
@click.argument("rev", required=False)
@click.argument("path", required=False)
@vault_option
def diff(rev: str | None, path: str | None, vault_path: Path | None) -> None:
    """Show what changed since a revision (default: since the last commit).

    Example: vaultmem diff HEAD~3 MEMORY.md
    """
    with open_vault(vault_path) as vault:
        click.echo(vault.diff(rev, path), nl=False)


@cli.command(cls=FreeTextCommand)
@click.option(
    "--at", "at", required=True, help="A revision (sha, HEAD~2, a tag) or a date YYYY-MM-DD."
)
@click.argument("paths", nargs=-1)
@click.option(
    "--to",
    "to",
    type=click.Path(path_type=Path),
    help="Write the snapshot into this new folder instead.",
)
@vault_option
def restore(at: str, paths: tuple[str, ...], to: Path | None, vault_path: Path | None) -> None:
    """Bring back the vault (or PATHS) as it was at a revision or date.

    Without --to, the present state is committed first and the restore is a new commit,
    so it can be undone. With --to, the snapshot goes to a new folder, indexed, to search
    with `vaultmem search --vault DIR`; the vault is not touched.

    Example: vaultmem restore --at 2026-11-01 --to /tmp/memory-nov1
    """
    with open_vault(vault_path) as vault:
        result = vault.restore(at, paths, to)
    if not to and not result.paths:
        click.echo(f"nothing to restore: already as at {at}")
        return
    where = f"into {to}" if to else f"as commit {result.commit.sha[:10]}"
    click.echo(f"restored {len(result.paths)} files {where}")


@cli.command(cls=FreeTextCommand)
@click.argument("text", callback=_utf8)
@click.option("--role", default="user", show_default=True, help="Who said it: user, agent, ...")
@click.option("--source", help="Where it came from (a chat, a channel, a tool).")
@click.option("--session", help="The conversation it belongs to; part of the line's id.")
@click.option("--tag", "tags", multiple=True, help="A tag for the line (repeatable).")
@click.option(
    "--importance", type=click.FloatRange(0, 1), help="How much it matters, 0 to 1 [scored later]."
)
@json_option
@vault_option
def remember(
    text: str,
    role: str,
    source: str | None,
    session: str | None,
    tags: tuple[str, ...],
    importance: float | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Append TEXT to today's daily note as one line, and index it at once.

    The same message (same session and words) is stored once; noise (empty text, [cron:
    and [heartbeat lines, vaultmem's own context) is skipped; secrets are masked.
    Exit code 0: stored (now, or already before); 1: not stored (skipped as noise, or an
    error), so an agent can tell from the code alone.

    Example: vaultmem remember "Alice is allergic to peanuts" --tag health --source chat
    """
    with open_vault(vault_path) as vault:
        done = vault.remember(
            text, role=role, source=source, session=session, tags=tags, importance=importance
        )
    stored = done.block_id is not None  # now, or already before (same session and words)
    if as_json:
        _echo_json(
            {
                "path": done.path,
                "line": done.line,
                "block_id": done.block_id,
                "skipped": done.skipped,
                "masked": done.masked,
            }
        )
    else:
        if done.masked:
            click.echo(f"Warning: {done.masked} secret(s) masked before storing", err=True)
        if not stored:
            click.echo(f"not stored: {done.skipped}", err=True)
        elif done.skipped:
            click.echo(f"already remembered ^{done.block_id} (stored before, not again)")
        else:
            click.echo(f"remembered {done.path}:{done.line} ^{done.block_id}")
    if not stored:
        sys.exit(1)


@cli.command()
@click.option("--remote", help="The git remote to sync with [default: origin].")
@vault_option
def sync(remote: str | None, vault_path: Path | None) -> None:
    """Commit, fetch, merge and push, then index what changed. Never force-pushes.

    Each device's facts and daily lines are all kept (merged by block id) and MEMORY.md and
    topic blocks are rebuilt; only where both devices changed the same words is the other
    side kept beside the note as a .sync-conflict- copy, and sync exits 1. See docs/git.md.

    Example: vaultmem sync --remote origin
    """
    with open_vault(vault_path) as vault:
        result = vault.sync(remote)
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


@cli.command()
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
@vault_option
def watch(
    quiet: bool, autocommit: float | None, sync_every: float | None, vault_path: Path | None
) -> None:
    """Keep the index following the notes: every edit is searchable within a second.

    Reconciles the index on start, then re-indexes what changes, from any editor or from
    git. One daemon per vault; stop it with Ctrl-C or SIGTERM. See docs/daemon.md.

    Example: vaultmem watch --vault ~/memory
    """
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def log(line: str) -> None:
        if quiet and line.startswith("batch:"):
            return
        click.echo(f"{time.strftime('%H:%M:%S')} {line}", err=True)

    with open_vault(vault_path) as vault:
        vault.watch(stop, log, autocommit=autocommit, sync_every=sync_every)


@cli.command()
@json_option
@vault_option
def status(as_json: bool, vault_path: Path | None) -> None:
    """Show what the index holds, which notes changed since it was updated, and warnings.

    Example: vaultmem status --json
    """
    with open_vault(vault_path) as vault:
        st = vault.status()
    if as_json:
        _echo_json(
            {
                "vault": st.vault,
                "files": st.files,
                "chunks": st.chunks,
                "index_bytes": st.index_bytes,
                "stale": st.stale,
                "warnings": [{"path": p, "warnings": w} for p, w in st.warnings],
                "daemon_pid": st.daemon_pid,
            }
        )
        return
    click.echo(f"vault:    {st.vault}")
    daemon = f"running (pid {st.daemon_pid})" if st.daemon_pid else "not running"
    click.echo(f"daemon:   {daemon}")
    click.echo(
        f"indexed:  {st.files} files, {st.chunks} chunks, index {st.index_bytes / 1e6:.1f} MB"
    )
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


@cli.command(cls=FreeTextCommand)
@click.argument("target", metavar="PATH[:LINE]")
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

    Example: vaultmem show memory/2026-11-20.md:14
    """
    path, line = _split_line(target)
    with open_vault(vault_path) as vault:
        excerpt = vault.show(path, line, context)
    end = excerpt.line_start + len(excerpt.lines) - 1
    if as_json:
        _echo_json(
            {
                "path": excerpt.path,
                "line_start": excerpt.line_start,
                "line_end": end,
                "text": "\n".join(excerpt.lines),
            }
        )
        return
    width = len(str(end))
    for number, text in enumerate(excerpt.lines, excerpt.line_start):
        click.echo(f"{number:>{width}} | {text}")


@cli.command()
@click.option(
    "--mode",
    type=click.Choice(["quick", "daily", "full"]),
    default="daily",
    show_default=True,
    help="quick: decay and MEMORY.md only; daily: new lines too; full: rescore every line.",
)
@click.option("--dry-run", is_flag=True, help="Print the diff it would make; write nothing.")
@click.option("--today", callback=_date, help="Run as of this YYYY-MM-DD (default: today).")
@json_option
@vault_option
def consolidate(
    mode: str, dry_run: bool, today: str | None, as_json: bool, vault_path: Path | None
) -> None:
    """Distill daily notes into facts and topics, decay, and rebuild MEMORY.md's block.

    Rules only, no model. A second run changes nothing; a run that was killed can simply be
    run again. Ends in one git commit when the vault is a git repository.

    Example: vaultmem consolidate --dry-run
    """
    when = dt.date.fromisoformat(today) if today else None
    with open_vault(vault_path) as vault:
        report = vault.consolidate(mode, dry_run=dry_run, today=when)
    for notice in report.notices:
        click.echo(f"Warning: {notice}", err=True)
    if as_json:
        _echo_json(report.as_dict())
        return
    if dry_run:
        click.echo(report.diff, nl=False)
        click.echo(f"(dry run) {report.summary()}", err=True)
        return
    click.echo(report.summary())
    click.echo(
        f"{report.collected} lines collected, {report.admitted} admitted; "
        f"{len(report.changed)} files changed"
        + (f"; commit {report.commit[:10]}" if report.commit else "")
    )


@cli.command(cls=FreeTextCommand)
@click.argument("ident", metavar="ID", callback=_utf8)
@click.option("--reason", callback=_utf8, help="Why, kept beside the struck words.")
@click.option(
    "--hard", is_flag=True, help="Remove the words from the files (git history keeps them)."
)
@json_option
@vault_option
def forget(
    ident: str, reason: str | None, hard: bool, as_json: bool, vault_path: Path | None
) -> None:
    """Take back a memory by its block id: a fact (f...) or a daily-note line.

    The words are struck through and kept, with the date and reason; --hard removes them
    from the working files. Either way consolidation will not distill them again.

    Example: vaultmem forget f3a9c1d2e4 --reason "moved away"
    """
    with open_vault(vault_path) as vault:
        done = vault.forget(ident, reason=reason, hard=hard)
    if as_json:
        _echo_json(
            {
                "block_id": done.block_id,
                "lines": done.lines,
                "changed": done.changed,
                "commit": done.commit,
            }
        )
        return
    for notice in done.notices:
        click.echo(f"Warning: {notice}", err=True)
    verb = "removed" if hard else "struck through"
    for line in done.lines:
        click.echo(f"{verb} {line}")


@cli.command()
@json_option
@vault_option
def tree(as_json: bool, vault_path: Path | None) -> None:
    """Show the fact categories with how many facts each holds, by tier.

    Example: vaultmem tree
    """
    with open_vault(vault_path) as vault:
        counts = vault.tiers()
    if as_json:
        _echo_json(counts)
        return
    columns = ("hot", "warm", "cold", "superseded", "archive")
    totals: dict[str, dict[str, int]] = {}
    for path, row in counts.items():
        parts = path.removesuffix(".md").split("/")
        for depth in range(1, len(parts) + 1):
            key = "/".join(parts[:depth]) + ("" if depth == len(parts) else "/")
            into = totals.setdefault(key, dict.fromkeys(columns, 0))
            for column in columns:
                into[column] += row.get(column, 0)
    click.echo(f"{'':44}" + "".join(f"{c:>11}" for c in columns))
    for key in sorted(totals):
        depth = key.rstrip("/").count("/")
        name = (
            "  " * depth + key.rstrip("/").rsplit("/", 1)[-1] + ("/" if key.endswith("/") else "")
        )
        click.echo(f"{name[:44]:44}" + "".join(f"{totals[key][c]:>11}" for c in columns))


@cli.command()
@json_option
@vault_option
def validate(as_json: bool, vault_path: Path | None) -> None:
    """Check the vault: broken links, facts without a source, malformed inline fields,
    duplicate block ids, secrets, entries missing the URL or command they mention.

    Exit code 0 when clean, 1 when problems were found.

    Example: vaultmem validate
    """
    with open_vault(vault_path) as vault:
        problems = vault.validate()
    if as_json:
        _echo_json([vars(p) for p in problems])
    else:
        for problem in problems:
            click.echo(
                f"{shown_path(problem.path)}:{problem.line}: {problem.kind}: {problem.message}"
            )
        click.echo(f"{len(problems)} problem(s)" if problems else "no problems", err=True)
    if problems:
        sys.exit(1)
