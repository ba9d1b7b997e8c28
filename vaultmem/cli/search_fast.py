"""``vaultmem search`` read without click, for the command line an agent runs most.

An agent runs ``vaultmem search QUERY --json --limit 5`` as a process many times a
session, and importing click (with ``inspect``, ``typing`` and ``uuid``) costs about as much
again as Python's own start-up (docs/benchmarks.md, ``bench/cli_bench.py``). So the console
script (``main``) offers each command line here first.

Nothing is declared here. The click command (``search.py``) is the one declaration of
the search's options; ``OPTIONS``, ``ARGUMENT`` and ``DEFAULTS`` below are derived from it
by ``derive`` (each option's names, keyword, kind and bounds, and what click gives an option
left out), ``tests/test_cli_fast.py`` fails when they no longer are, and
``python -m vaultmem.cli.search_fast`` prints them anew. A value is checked by the function
the click option's callback runs (``plain.py``); a bound or a choice is the click type's.

A command line is read here only when it is plain: the word ``search``, one QUERY and the
options of the table, each once, as ``--name VALUE``, ``--name=VALUE`` or ``-n VALUE``,
each value one click would take as it stands. Anything else returns ``None`` and click
reads it: ``--help``, an unknown or repeated option, a value click would refuse, ``--``,
shell completion, a stream click would re-wrap, Windows' console. click then prints the help
or the usage error, so the two ways never differ in what they print or how they exit
(``tests/test_cli_fast.py`` runs both on the same command lines). Nothing here imports
click; what a search needs loads when a search runs.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TextIO

    import click

# Derived from the click command by ``derive`` (``python -m vaultmem.cli.search_fast``):
# option name -> (keyword, kind, the kind's bounds or choices).
OPTIONS: dict[str, tuple[str, str, tuple[Any, ...]]] = {
    "--limit": ("limit", "int", (1, 1000000)),
    "-n": ("limit", "int", (1, 1000000)),
    "--path": ("path_glob", "text", ()),
    "--tag": ("tag", "text", ()),
    "--since": ("since", "date", ()),
    "--until": ("until", "date", ()),
    "--url": ("url", "text", ()),
    "--all": ("include_archive", "flag", ()),
    "--agent": ("agent", "text", ()),
    "--context": ("context", "int", (0, 50)),
    "-C": ("context", "int", (0, 50)),
    "--mode": ("mode", "choice", ("keyword", "semantic", "hybrid")),
    "--json": ("as_json", "flag", ()),
    "--vault": ("vault_path", "folder", ()),
}
ARGUMENT: tuple[str, str] | None = ("query", "query")
DEFAULTS: dict[str, Any] = {
    "query": "",
    "limit": None,
    "path_glob": None,
    "tag": None,
    "since": None,
    "until": None,
    "url": None,
    "include_archive": False,
    "agent": None,
    "context": None,
    "mode": None,
    "as_json": False,
    "vault_path": None,
}


def search_without_click(args: list[str]) -> int | None:
    """Run ``args`` (the command line after the program's name) when it is a plain search;
    its exit code, or ``None`` for a command line click should read."""
    options = read_search(args)
    if options is None or not _plain_streams() or _completing():
        return None
    return _run(options)


def read_search(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of the search command for ``args`` when it is a search in a
    plain shape (as click would give them); ``None`` for anything else."""
    if not args or args[0] != "search":
        return None
    values: dict[str, Any] = {}
    rest = iter(args[1:])
    try:
        for token in rest:
            if token[:1] != "-" or token == "-":  # click reads "-" as an argument too
                if ARGUMENT is None or ARGUMENT[0] in values:
                    return None  # a second argument: click's usage error
                values[ARGUMENT[0]] = _value(ARGUMENT[1], (), token)
                continue
            name, equals, inline = token.partition("=") if token[:2] == "--" else (token, "", "")
            option = OPTIONS.get(name)
            if option is None or option[0] in values:
                return None  # --help, --, an option click takes as free text, a repeat
            keyword, kind, details = option
            if kind == "flag":
                if equals:
                    return None
                values[keyword] = True
                continue
            raw = inline if equals else next(rest, "")
            if not raw or raw[:1] == "-":
                return None  # missing, empty, or a value click might read otherwise
            values[keyword] = _value(kind, details, raw)
    except ValueError:
        return None  # click says why, as a usage error
    options = {**DEFAULTS, **values}

    from vaultmem.cli.search_run import lacks_query

    return None if lacks_query(options) else options


def _value(kind: str, details: tuple[Any, ...], raw: str) -> Any:
    """The value click gives an option of ``kind`` for ``raw``.

    Raises:
        ValueError: click would refuse it (or the kind is one only click reads).
    """
    from vaultmem.cli.plain import iso_date, query_words, utf8_text

    if kind == "query":
        return query_words(raw)
    if kind == "text":
        return utf8_text(raw)
    if kind == "date":
        return iso_date(raw)
    if kind == "int":  # click.IntRange: int(), so "+5" and " 5 " too; both bounds included
        number, (low, high) = int(raw), details
        if (low is not None and number < low) or (high is not None and number > high):
            raise ValueError(raw)
        return number
    if kind == "choice" and raw in details:
        return raw
    if kind == "folder":
        return _folder(raw)
    raise ValueError(raw)


def _folder(raw: str) -> Any:
    """``--vault``: ``PathParam(file_okay=False, path_type=Path)``, which need not exist,
    but when it does must be a readable folder (click.Path's own rule)."""
    import stat
    from pathlib import Path

    from vaultmem.errors import path_problem

    if path_problem(raw) is not None:
        raise ValueError(raw)  # PathParam says why
    try:
        mode = os.stat(raw).st_mode
    except OSError:
        return Path(raw)  # need not exist: Vault.find says what is missing
    if stat.S_ISREG(mode) or not os.access(raw, os.R_OK):
        raise ValueError(raw)
    return Path(raw)


def derive(
    command: click.Command,
) -> tuple[dict[str, Any], tuple[str, str] | None, dict[str, Any]]:
    """``OPTIONS``, ``ARGUMENT`` and ``DEFAULTS`` for a click command: each option (and the
    one argument) of a kind ``_value`` reads, by name; an option of another kind is left
    out, so a command line that gives it goes to click."""
    import click

    options: dict[str, Any] = {}
    argument: tuple[str, str] | None = None
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    for param in command.params:
        found = _kind(param)
        if found is None or param.name is None:
            continue
        kind, details = found
        if isinstance(param, click.Argument):
            if kind == "query" and len(arguments) == 1:
                argument = (param.name, kind)
        elif isinstance(param, click.Option) and not param.prompt:
            options.update(dict.fromkeys(param.opts, (param.name, kind, details)))
    context = command.make_context(command.name, [], resilient_parsing=True)
    return options, argument, dict(context.params)


def _kind(param: click.Parameter) -> tuple[str, tuple[Any, ...]] | None:
    """The kind of a click parameter, as ``_value`` reads it, with its bounds or choices;
    ``None`` for one it does not read."""
    import click

    from vaultmem.cli.common import PathParam, date, query_text, utf8

    kind = param.type
    if param.multiple or param.nargs != 1 or param.envvar:
        return None
    if param.callback is not None:  # a check of plain.py's, on text
        checks = {utf8: "text", date: "date", query_text: "query"}
        found = checks.get(param.callback) if kind is click.STRING else None
        return None if found is None else (found, ())
    if isinstance(param, click.Option) and param.is_flag:
        simple = param.is_bool_flag and not param.secondary_opts and not param.count
        return ("flag", ()) if simple else None
    if isinstance(kind, click.IntRange):
        closed = not (kind.min_open or kind.max_open or kind.clamp)
        return ("int", (kind.min, kind.max)) if closed else None
    if isinstance(kind, click.Choice):
        words = kind.case_sensitive and all(isinstance(c, str) for c in kind.choices)
        return ("choice", tuple(kind.choices)) if words else None
    if isinstance(kind, PathParam) and _folder_like(kind):
        return ("folder", ())
    return None


def _folder_like(path: click.Path) -> bool:
    """Whether a click.Path takes what ``_folder`` takes."""
    from pathlib import Path

    return (
        not (path.file_okay or path.exists or path.writable or path.executable)
        and path.dir_okay
        and path.readable
        and not path.resolve_path
        and not path.allow_dash
        and path.type is Path
    )


def _plain_streams() -> bool:
    """Whether ``click.echo`` would write to ``sys.stdout`` and ``sys.stderr`` as they
    are: not on Windows (its console streams), not ASCII-encoded ones (click re-wraps those
    to replace what they cannot encode), not missing."""
    if sys.platform == "win32":
        return False
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or getattr(stream, "errors", None) is None:
            return False
        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def _completing() -> bool:
    """Whether a shell is asking for completions (click's ``_PROG_COMPLETE`` variable)."""
    return any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ)


def echo(message: str = "", err: bool = False) -> None:
    """Write ``message`` and a newline as ``click.echo`` does on a plain stream: ANSI
    styles removed unless the stream is a terminal, flushed at once (so that stdout and
    stderr keep their order in one pipe)."""
    stream: TextIO = sys.stderr if err else sys.stdout
    out = message + "\n"
    try:
        terminal = stream.isatty()
    except Exception:  # click's isatty(): a stream that cannot tell is no terminal
        terminal = False
    if not terminal:
        import re

        out = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", out)  # click's _ansi_re
    stream.write(out)
    stream.flush()


def _run(options: dict[str, Any]) -> int:
    """Run a search read by ``read_search``; its exit code. What click's standalone mode
    does around a command, done the same way: a library error is one ``Error:`` line and
    exit 1, Ctrl-C is ``Aborted!`` and exit 1, a closed pipe exits 1 quietly."""
    from vaultmem.cli.search_run import run_search
    from vaultmem.errors import VaultmemError

    try:
        try:
            return run_search(options, echo)
        except (EOFError, KeyboardInterrupt):
            echo(err=True)
            echo("Aborted!", err=True)
            return 1
        except VaultmemError as exc:
            echo(f"Error: {exc}", err=True)
            return 1
    except OSError as exc:
        import errno

        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        return 1


class _Pacified:
    """A stream whose ``flush`` ignores a closed pipe: the interpreter flushes stdout and
    stderr as it exits, after the reader left (click's ``_PacifyFlushWrapper``)."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def _table_source() -> str:
    """``OPTIONS``, ``ARGUMENT`` and ``DEFAULTS`` as this module writes them, derived from
    the click command now."""
    from vaultmem.cli.search import search

    options, argument, defaults = derive(search)
    lines = ["OPTIONS: dict[str, tuple[str, str, tuple[Any, ...]]] = {"]
    lines += [f"    {name!r}: {row!r}," for name, row in options.items()]
    lines += ["}", f"ARGUMENT: tuple[str, str] | None = {argument!r}"]
    lines += ["DEFAULTS: dict[str, Any] = {"]
    lines += [f"    {name!r}: {value!r}," for name, value in defaults.items()]
    return "\n".join([*lines, "}"]).replace("'", '"')


if __name__ == "__main__":
    print(_table_source())
