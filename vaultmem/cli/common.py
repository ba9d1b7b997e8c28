"""What every command shares: the group, error handling, ``--vault``, ``--json``, and
argument checks. The command modules declare their commands with click's decorators; the
group (``cli``) lists them by name in ``COMMAND_MODULES``.

The group imports a command's module only when that command runs (click's lazy-group
recipe), and all of them only to list them (``--help``, a misspelt command): a search does
not pay for the imports of git, hooks, capture or the MCP server (docs/cli.md, "Start-up
time").
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vaultmem import __version__
from vaultmem.agent import HOOK_FLAG, HOOK_HOSTS, HOST_FLAG
from vaultmem.cli.plain import iso_date, json_text, opened_vault, query_words, utf8_text
from vaultmem.errors import VaultmemError, path_problem

if TYPE_CHECKING:
    from vaultmem.vault import Vault

F = TypeVar("F", bound=Callable[..., Any])

# Each command's name -> the module of ``vaultmem.cli`` that defines it, as a function of
# that name (tests/test_startup.py checks this table against what the modules define).
COMMAND_MODULES = {
    **dict.fromkeys(["init", "index", "reindex", "show", "status", "watch"], "notes"),
    "search": "search",
    **dict.fromkeys(["remember", "consolidate", "forget", "tree", "validate"], "memory"),
    **dict.fromkeys(["commit", "log", "diff", "restore", "sync"], "git"),
    **dict.fromkeys(["context", "recent"], "agent"),
    "capture": "capture",
    "embed": "embed",
    "hooks": "hooks",
    "mcp": "mcp",
}


_HOOK_META = "vaultmem.hook"
HOOK_WAIT = 2.0  # seconds a hook's JSON may take to arrive on a stdin left open


class VaultmemGroup(click.Group):
    """The ``vaultmem`` group: it imports a command's module when the command is asked for
    (``COMMAND_MODULES``), and turns library errors into one clear line, in one place.

    Run as a host's hook (``--hook`` among the arguments), a usage error exits 1 with one
    ``Error:`` line instead of click's 2 and usage text: Claude Code reads a Stop hook's
    exit 2 as "do not stop" and feeds its stderr to the model.
    """

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            command = getattr(importlib.import_module(f"{__package__}.{module}"), cmd_name)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES.keys() | self.commands.keys())

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMAND_MODULES:  # click's error suggests the nearest name
            for name in COMMAND_MODULES:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        hook = HOOK_FLAG in args
        with _plain_usage_errors(hook):
            ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta[_HOOK_META] = hook
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        with _plain_usage_errors(bool(ctx.meta.get(_HOOK_META))):
            try:
                return super().invoke(ctx)
            except VaultmemError as exc:
                raise click.ClickException(str(exc)) from exc


@contextlib.contextmanager
def _plain_usage_errors(hook: bool) -> Iterator[None]:
    """For a hook, a usage error (exit 2) becomes a plain error (exit 1), one line."""
    try:
        yield
    except click.UsageError as exc:
        if not hook:
            raise
        raise click.ClickException(exc.format_message()) from exc


class FreeTextCommand(click.Command):
    """A command whose arguments are free text or paths: a word that starts with ``-`` but
    is no option of the command (``-----BEGIN``, ``-foo``, ``--not-an-option``) is taken
    as the argument, not refused. ``--`` still ends the options."""

    ignore_unknown_options = True


class PathParam(click.Path):
    """``click.Path`` for every path argument and option of the CLI: a path no file can
    have (a NUL byte, a name over 255 bytes: ``errors.path_problem``) is a usage error in
    one line, where ``click.Path`` would stat it and fail with a traceback."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | os.PathLike) and (problem := path_problem(value)):
            self.fail(problem, param, ctx)
        return super().convert(value, param, ctx)


def vault_option(func: F) -> F:
    """``--vault PATH``, shared by every command that works on a vault."""
    return click.option(
        "--vault",
        "vault_path",
        type=PathParam(file_okay=False, path_type=Path),
        help="The vault folder (default: $VAULTMEM_VAULT, else the nearest folder at or above "
        "the current one that holds .vaultmem/).",
    )(func)


def host_option(func: F) -> F:
    """``--host NAME``: the agent host running this hook, which may want its answer in a
    form of its own (``vaultmem hooks install`` writes it into the hook's command)."""
    return click.option(
        HOST_FLAG,
        "host",
        type=click.Choice(HOOK_HOSTS),
        help="With --hook: the agent host running it (how to answer it).",
    )(func)


def json_option(func: F) -> F:
    """``--json``: machine-readable output on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def echo_json(data: Any) -> None:
    click.echo(json_text(data))


@contextlib.contextmanager
def open_vault(vault_path: Path | None) -> Iterator[Vault]:
    """Find and open the vault; afterwards print what it did on its own, as warnings."""
    with opened_vault(vault_path, click.echo) as vault:
        yield vault


@contextlib.contextmanager
def progress_bar(label: str, minimum: int = 0) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback that draws a bar on stderr when stderr is a
    terminal and the work counts at least ``minimum`` items; otherwise it prints nothing,
    and the command's summary line says what was done (a log or a pipe gets no bar)."""
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None and total >= minimum and sys.stderr.isatty():
            bar = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        if bar is not None:
            bar.update(done - bar.pos)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


@click.group(cls=VaultmemGroup)
@click.version_option(__version__, prog_name="vaultmem")
def cli() -> None:
    """Long-term memory for AI agents, in plain Markdown files.

    A vault is a folder of Markdown notes with a disposable SQLite search index in
    .vaultmem/. Start with `vaultmem init PATH --example`, then `vaultmem search QUERY`.
    """


def _check(
    check: Callable[[str], str],
) -> Callable[[click.Context, click.Parameter, str | None], str | None]:
    """A click callback that runs ``check`` (``plain.py``) on a given value: its
    ``ValueError`` is a usage error, before any work."""

    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


# Reject arguments holding bytes that are not UTF-8 (shells can pass any bytes).
utf8 = _check(utf8_text)
# A QUERY argument (``search``, ``context``): UTF-8 text within a search's bounds.
query_text = _check(query_words)
# A ``YYYY-MM-DD`` date, as its ISO form.
date = _check(iso_date)


def run_date(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--today``: a date, as ``date`` reads it, that a note can have (``date_range``): a
    run as of the year 1 or 9999 would overflow its arithmetic of days."""
    day = date(ctx, param, value)
    if day is None:
        return None
    import datetime as dt  # with date_range: not for --version or a search

    from vaultmem.notes.date_range import DateOutOfRangeError, check_day

    try:
        check_day(dt.date.fromisoformat(day), "the date")
    except DateOutOfRangeError as exc:
        raise click.BadParameter(str(exc)) from None
    return day


def read_stdin(*, wait: float | None = None) -> bytes:
    """Standard input's bytes, the one way every command reads it.

    ``wait=None`` (``remember -``): all of it, up to end of file; a terminal is refused
    (a usage error), since nothing may ever arrive there and an agent's shell would hang.
    ``wait=SECONDS`` (a host's hook): never waits on a terminal (``b""``), and stops at end
    of file, as soon as what arrived is one whole JSON value (a host may leave the pipe
    open after writing it), or after ``wait`` seconds.
    """
    stream = sys.stdin
    if stream is None or stream.closed:
        return b""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # a replaced stdin (CliRunner's input) is in memory
        return stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
    if os.isatty(fd):
        if wait is not None:
            return b""
        raise click.UsageError(
            "standard input is a terminal; pipe the text in (echo TEXT | vaultmem remember -)"
        )
    if wait is None:
        return stream.buffer.read()
    return _read_bounded(fd, wait)


def _read_bounded(fd: int, wait: float) -> bytes:
    data = b""
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        if _whole_json(data):
            break
    return data


def _whole_json(data: bytes) -> bool:
    """Whether ``data`` is one whole JSON value; one nested too deeply to read counts as
    whole (waiting for more would not help: its reader refuses it in one line)."""
    try:
        json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return False
    except RecursionError:
        return True
    return True
