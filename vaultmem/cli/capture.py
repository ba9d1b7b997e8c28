"""``vaultmem capture``: an agent session transcript into the daily notes of its dates."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vaultmem.agent import JSON_HOOK_HOSTS
from vaultmem.cli.common import (
    HOOK_WAIT,
    FreeTextCommand,
    PathParam,
    echo_json,
    host_option,
    json_option,
    open_vault,
    read_stdin,
    utf8,
    vault_option,
)
from vaultmem.memory.pipeline.transcript_formats import FORMATS
from vaultmem.notes.date_range import RANGE


@click.command(cls=FreeTextCommand)
@click.argument("transcript", required=False, type=PathParam(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", *FORMATS]),
    default="auto",
    show_default=True,
    help="The transcript's format; auto tells it from the first lines.",
)
@click.option(
    "--agent", callback=utf8, help="The agent that wrote it: [agent:: NAME] on each line."
)
@click.option(
    "--session", callback=utf8, help="The session id for every line (default: the transcript's)."
)
@click.option(
    "--hook",
    is_flag=True,
    help="Read the host hook's JSON on stdin (transcript_path, session_id) instead of TRANSCRIPT.",
)
@host_option
@json_option
@vault_option
def capture(
    transcript: Path | None,
    fmt: str,
    agent: str | None,
    session: str | None,
    hook: bool,
    host: str | None,
    as_json: bool,
    vault_path: Path | None,
) -> None:
    """Append an agent session TRANSCRIPT to the daily notes of the dates its messages
    were sent, one line per message, and index them at once.

    Only new messages are added: capturing the same file again, or after it grew, adds
    what is new. Tool calls, thinking, system reminders and vaultmem's own context are
    skipped; secrets are masked. Exit code 0: stored (or nothing new); 1: messages could
    not be stored, or the transcript cannot be read.

    Example: vaultmem capture ~/.claude/projects/myproj/SESSION.jsonl --agent claude
    """
    if hook == (transcript is not None):
        raise click.UsageError("give a TRANSCRIPT, or --hook to read the hook's JSON on stdin")
    if hook:
        from vaultmem.memory.pipeline.transcripts import (
            transcript_from_hook,  # loads the memory pipeline
        )

        data = read_stdin(wait=HOOK_WAIT).decode("utf-8", "replace")
        # The hook's session_id is the transcript's own; it is not forced on the lines, so
        # that a later `vaultmem capture FILE` of the same file gives the same block ids.
        transcript, _ = transcript_from_hook(data)
    assert transcript is not None
    with open_vault(vault_path) as vault:
        report = vault.capture(transcript, fmt=fmt, agent=agent, session=session)
    if report.masked:
        click.echo(f"Warning: {report.masked} secret(s) masked before storing", err=True)
    if report.malformed:
        click.echo(f"Warning: {report.malformed} line(s) not JSON, skipped", err=True)
    if report.too_deep:
        click.echo(
            f"Warning: {report.too_deep} line(s) nested too deeply to read, skipped", err=True
        )
    if report.out_of_range:
        click.echo(
            f"Warning: {report.out_of_range} message(s) dated outside {RANGE}, skipped",
            err=True,
        )
    if report.incomplete:
        click.echo(
            "Warning: the last line is incomplete (still being written?); "
            "the next capture reads it",
            err=True,
        )
    if as_json:
        echo_json(report.as_dict())
    elif not (hook and host in JSON_HOOK_HOSTS):
        # A hook's stdout belongs to its host (Codex fails a Stop hook whose stdout is not
        # JSON), so from a hook the summary goes to stderr. A host that shows a hook's stderr
        # to the person when its stdout is empty (Gemini CLI, after every turn) gets no
        # summary: only the warnings above.
        click.echo(
            f"captured {report.added} new message(s) into {len(report.paths)} note(s); "
            f"{report.already} already there, {report.skipped} skipped",
            err=hook,
        )
        for path in report.paths:
            click.echo(f"  {path}", err=hook)
    if report.failed:
        click.echo(f"Error: not stored: {'; '.join(report.failed)}", err=True)
        # A hook that stored part of the session succeeded: the next run stores the rest.
        if not (hook and report.added):
            sys.exit(1)
