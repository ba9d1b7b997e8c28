"""Commands of the memory pipeline: remember, consolidate, forget, tree, validate."""

from __future__ import annotations

import datetime as dt
import sys
from collections import Counter
from pathlib import Path

import click

from vaultmem.cli.common import (
    FreeTextCommand,
    echo_json,
    json_option,
    open_vault,
    progress_bar,
    read_stdin,
    run_date,
    utf8,
    vault_option,
)
from vaultmem.errors import shown_path
from vaultmem.notes.date_range import DateOutOfRangeError, check_day


def date_time(ctx: click.Context, param: click.Parameter, value: str | None) -> dt.datetime | None:
    """``--at``: an ISO date-time (with an offset: converted to local time) or a date
    (its midnight), as the local wall-clock time of the line; its date must be one a note
    can have (``date_range``)."""
    if value is None:
        return None
    try:
        when = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date-time like 2026-11-22T14:03 or a date like 2026-11-22"
        ) from None
    from vaultmem.memory.pipeline.remember import (
        local_time,  # the memory pipeline: only for remember
    )

    local = local_time(when)  # None: beyond the calendar's ends in this time zone
    try:
        check_day((local or when).date(), f"the date of {value!r} in this time zone")
    except DateOutOfRangeError as exc:
        raise click.BadParameter(str(exc)) from None
    assert local is not None  # only the calendar's ends have no local time
    return local


def standard_input() -> str:
    """All of standard input as text (``remember -``)."""
    data = read_stdin()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(
            "standard input is not valid UTF-8 text", param_hint="TEXT"
        ) from None


@click.command(cls=FreeTextCommand)
@click.argument("text", callback=utf8)
@click.option("--role", default="user", show_default=True, help="Who said it: user, agent, ...")
@click.option("--source", help="Where it came from (a chat, a channel, a tool).")
@click.option("--session", help="The conversation it belongs to; part of the line's id.")
@click.option("--tag", "tags", multiple=True, help="A tag for the line (repeatable).")
@click.option(
    "--importance", type=click.FloatRange(0, 1), help="How much it matters, 0 to 1 [scored later]."
)
@click.option(
    "--at",
    "at",
    callback=date_time,
    metavar="DATETIME",
    help="Back-fill: when it was said (2026-11-22T14:03, a UTC offset or Z, or a date); "
    "the line goes into that date's note.",
)
@click.option("--agent", callback=utf8, help="The agent that wrote it: [agent:: NAME] on the line.")
@json_option
@vault_option
def remember(
    text: str,
    role: str,
    source: str | None,
    session: str | None,
    tags: tuple[str, ...],
    importance: float | None,
    at: dt.datetime | None,
    agent: str | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Append TEXT to today's daily note as one line, and index it at once. TEXT `-`
    reads the text from standard input (all of it, as one message).

    The same message (same session and words) is stored once; noise (empty text, [cron:
    and [heartbeat lines, vaultmem's own context) is skipped; secrets are masked.
    Exit code 0: stored (now, or already before); 1: not stored (skipped as noise, or an
    error), so an agent can tell from the code alone.

    Example: vaultmem remember "Alice is allergic to peanuts" --tag health --source chat
    """
    if text == "-":
        text = standard_input()
    with open_vault(vault_path) as vault:
        done = vault.remember(
            text,
            role=role,
            source=source,
            session=session,
            tags=tags,
            importance=importance,
            now=at,
            agent=agent,
        )
    stored = done.block_id is not None  # now, or already before (same session and words)
    if as_json:
        echo_json(
            {
                "path": done.path,
                "line": done.line,
                "block_id": done.block_id,
                "skipped": done.skipped,
                "masked": done.masked,
                "full_text": done.full_text,
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
        if stored and done.full_text:
            from vaultmem.memory.pipeline.remember import MAX_LINE_BYTES

            click.echo(
                f"  the text is over {MAX_LINE_BYTES // 1024} KiB: its line holds its start, "
                f"{done.full_text} all of it"
            )
    if not stored:
        sys.exit(1)


@click.command()
@click.option(
    "--mode",
    type=click.Choice(["quick", "daily", "full"]),
    default="daily",
    show_default=True,
    help="quick: decay and MEMORY.md only; daily: new lines too; full: rescore every line.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the diff it would make; write no note (with --llm, answers are cached).",
)
@click.option("--today", callback=run_date, help="Run as of this YYYY-MM-DD (default: today).")
@click.option(
    "--llm/--no-llm",
    default=None,
    help="Ask the [llm] model about doubtful conflicts and unplaced facts [default: llm.enabled].",
)
@json_option
@vault_option
def consolidate(
    mode: str,
    dry_run: bool,
    today: str | None,
    llm: bool | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Distill daily notes into facts and topics, decay, and rebuild MEMORY.md's block.

    Rules only by default; --llm asks a model about the cases the rules are unsure of
    (docs/llm.md). A second run changes nothing; a run that was killed can simply be run
    again. Ends in one git commit when the vault is a git repository.

    Example: vaultmem consolidate --dry-run
    """
    when = dt.date.fromisoformat(today) if today else None
    # A bar on a terminal once a run reads enough daily notes to take a while.
    with open_vault(vault_path) as vault, progress_bar("consolidating", 100) as progress:
        report = vault.consolidate(mode, dry_run=dry_run, today=when, llm=llm, progress=progress)
    for notice in report.notices:
        click.echo(f"Warning: {notice}", err=True)
    if as_json:
        echo_json(report.as_dict())
        return
    if dry_run:
        click.echo(report.diff, nl=False)
        click.echo(f"(dry run) {report.summary()}", err=True)
        return
    click.echo(report.summary())
    if report.llm:
        stats = report.llm
        click.echo(
            f"llm: {stats['asked']} doubtful cases, {stats['requests']} requests, "
            f"{stats['cached']} cached; {stats['changed']} rule decisions changed"
        )
    click.echo(
        f"{report.collected} lines collected, {report.admitted} admitted; "
        f"{len(report.changed)} files changed"
        + (f"; commit {report.commit[:10]}" if report.commit else "")
    )


@click.command(cls=FreeTextCommand)
@click.argument("ident", metavar="ID", callback=utf8)
@click.option("--reason", callback=utf8, help="Why, kept beside the struck words.")
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
    Forgetting a line forgotten before changes nothing (exit code 0).

    Example: vaultmem forget f3a9c1d2e4 --reason "moved away"
    """
    with open_vault(vault_path) as vault:
        done = vault.forget(ident, reason=reason, hard=hard)
    if as_json:
        echo_json(
            {
                "block_id": done.block_id,
                "lines": done.lines,
                "changed": done.changed,
                "commit": done.commit,
                "already": done.already,
            }
        )
        return
    for notice in done.notices:
        click.echo(f"Warning: {notice}", err=True)
    verb = "removed" if hard else "struck through"
    for line in done.lines:
        click.echo(f"{verb} {line}")
    for line in done.already:
        click.echo(f"already forgotten {line}: left as it is")


@click.command()
@json_option
@vault_option
def tree(as_json: bool, vault_path: Path | None) -> None:
    """Show the fact categories with how many facts each holds, by tier.

    Example: vaultmem tree
    """
    with open_vault(vault_path) as vault:
        counts = vault.tiers()
    if as_json:
        echo_json(counts)
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


@click.command()
@click.option("--all", "show_all", is_flag=True, help="List the info lines too.")
@json_option
@vault_option
def validate(show_all: bool, as_json: bool, vault_path: Path | None) -> None:
    """Check the vault: broken links, facts without a source, malformed inline fields,
    duplicate block ids, secrets, entries missing the URL or command they mention, and
    notes search cannot read whole (over index.max_file_bytes, NUL bytes, binary).
    Links to notes not written yet are info (normal in Obsidian).

    Prints a summary first (counts by kind), then each error; the info lines with --all.
    Exit code 0 when there are no errors (info only), 1 when errors were found.

    Example: vaultmem validate --all
    """
    with open_vault(vault_path) as vault:
        problems = vault.validate()
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        echo_json([vars(p) for p in problems])
    else:
        infos = [p for p in problems if p.severity != "error"]
        click.echo(f"{len(errors)} error(s), {len(infos)} info" if problems else "no problems")
        kinds = Counter((p.kind, p.severity) for p in problems)
        for (kind, severity), count in sorted(kinds.items()):
            click.echo(f"  {kind}: {count} {severity}")
        for problem in errors + (infos if show_all else []):
            click.echo(
                f"{shown_path(problem.path)}:{problem.line}: {problem.kind}: {problem.message}"
            )
        if infos and not show_all:
            click.echo(f"{len(infos)} info line(s) not listed: vaultmem validate --all", err=True)
    if errors:
        sys.exit(1)
