"""The console entry point, and the way past click for the command agents run most.

An agent runs ``vaultmem search QUERY --json --limit 5`` as a process many times a session,
and importing click (with ``inspect``, ``typing`` and its own types) is a fifth of that
process's time. ``main`` reads such a command line itself when its shape is plain: the
word ``search``, one query, and the search's own options, each once, as ``--name VALUE``,
``--name=VALUE`` or ``-n VALUE``, each value one click would take as it stands. It then
runs exactly what the click command runs (``cli/search_run.py``), with an ``echo`` that
writes what ``click.echo`` would. Any other command line goes to click, and so does any
doubt (``--help``, an unknown or repeated option, a value click would refuse, ``--``,
shell completion, a stream click would re-wrap, Windows' console): click then prints the
help or the usage error, so the two ways never differ in what they print or how they exit
(``tests/test_cli_fast.py`` runs both on the same command lines).

The options are declared once, here, as ``Spec`` rows: ``cli/search.py`` builds its click
options from the same rows, so a new option or a new default cannot reach one way only.
Nothing here imports click or ``typing``: the module's own imports are ``os``, ``sys``
and ``contextlib``; the rest loads inside the functions that need it.
"""

from __future__ import annotations

import contextlib
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any, TextIO

    from vaultmem.vault import Vault

    Echo = Callable[..., None]


class Spec:
    """One option of ``vaultmem search``: its names, the keyword it fills, and its kind.

    ``kind`` is ``"flag"``, ``"int"`` (``low``..``high``), ``"choice"``, ``"text"`` (UTF-8
    text), ``"date"`` (YYYY-MM-DD) or ``"dir"`` (a folder path, ``--vault``).
    """

    __slots__ = ("choices", "dest", "help", "high", "kind", "low", "metavar", "names")

    def __init__(
        self,
        names: tuple[str, ...],
        dest: str,
        kind: str,
        help: str,
        *,
        low: int = 0,
        high: int = 0,
        choices: tuple[str, ...] = (),
        metavar: str | None = None,
    ) -> None:
        self.names, self.dest, self.kind, self.help = names, dest, kind, help
        self.low, self.high, self.choices, self.metavar = low, high, choices, metavar


VAULT = Spec(
    ("--vault",),
    "vault_path",
    "dir",
    "The vault folder (default: $VAULTMEM_VAULT, else the nearest folder at or above the "
    "current one that holds .vaultmem/).",
)
JSON = Spec(("--json",), "as_json", "flag", "Print JSON.")
MODES = ("keyword", "semantic", "hybrid")

_search_specs: list[Spec] = []


def search_specs() -> list[Spec]:
    """The options of ``vaultmem search`` in the order ``--help`` lists them (the bounds
    come from the search and config modules, which a search loads anyway)."""
    if not _search_specs:
        from vaultmem.config import MAX_CONTEXT
        from vaultmem.search.keyword import MAX_LIMIT

        _search_specs.extend(
            [
                Spec(
                    ("--limit", "-n"),
                    "limit",
                    "int",
                    "Most hits to show [10].",
                    low=1,
                    high=MAX_LIMIT,
                ),
                Spec(
                    ("--path",),
                    "path_glob",
                    "text",
                    "Only notes whose path matches this glob, e.g. 'memory/*'.",
                ),
                Spec(
                    ("--tag",),
                    "tag",
                    "text",
                    "Only chunks with this tag (inline or frontmatter; nested tags match).",
                ),
                Spec(("--since",), "since", "date", "Only chunks dated on or after YYYY-MM-DD."),
                Spec(("--until",), "until", "date", "Only chunks dated on or before YYYY-MM-DD."),
                Spec(
                    ("--url",),
                    "url",
                    "text",
                    "Only facts whose [url:: ] holds this text (QUERY optional).",
                ),
                Spec(("--all",), "include_archive", "flag", "Search the archive too."),
                Spec(
                    ("--agent",),
                    "agent",
                    "text",
                    "Leave out other agents' lines ([agent:: NAME]).",
                ),
                Spec(
                    ("--context", "-C"),
                    "context",
                    "int",
                    "Lines shown before and after each hit [search.context_lines: 1].",
                    high=MAX_CONTEXT,
                    metavar="N",
                ),
                Spec(
                    ("--mode",),
                    "mode",
                    "choice",
                    "Match words, meaning, or both [hybrid once `vaultmem embed` ran, else "
                    "keyword].",
                    choices=MODES,
                ),
                JSON,
                VAULT,
            ]
        )
    return _search_specs


def iso_date(value: str) -> str:
    """``YYYY-MM-DD`` as a date's ISO form; ``ValueError`` when it is not one."""
    import datetime as dt

    return dt.date.fromisoformat(value).isoformat()


def is_utf8(value: str) -> bool:
    """Whether ``value`` is text UTF-8 can write (an argument may hold undecodable bytes)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _converted(spec: Spec, raw: str) -> object:
    """The value click would give ``spec`` for ``raw``, or ``_REFUSED`` where click would
    refuse it (or might treat it otherwise: an empty value, one that starts with ``-``)."""
    if not raw or raw.startswith("-"):
        return _REFUSED
    if spec.kind == "int":
        try:
            number = int(raw)  # click's INT is int(): "+5", " 5 " and "5_0" included
        except ValueError:
            return _REFUSED
        return number if spec.low <= number <= spec.high else _REFUSED
    if spec.kind == "choice":
        return raw if raw in spec.choices else _REFUSED
    if spec.kind == "date":
        try:
            return iso_date(raw)
        except ValueError:
            return _REFUSED
    if spec.kind == "dir":  # click.Path(file_okay=False): a file or an unreadable folder fails
        import stat

        from vaultmem.errors import path_problem

        if path_problem(raw) is not None:
            return _REFUSED  # click's PathParam says why, as a usage error
        try:
            mode = os.stat(raw).st_mode
        except OSError:
            return _folder(raw)  # need not exist: Vault.find says what is missing
        if stat.S_ISREG(mode) or not os.access(raw, os.R_OK):
            return _REFUSED
        return _folder(raw)
    return raw if is_utf8(raw) else _REFUSED


def _folder(raw: str) -> object:
    from pathlib import Path

    return Path(raw)


_REFUSED = object()


def parse_search(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of the search command for ``args`` (the command line after
    the program's name), when it is a search in a plain shape; ``None`` for anything else,
    which click then reads."""
    if not args or args[0] != "search":
        return None
    specs = search_specs()
    by_name = {name: spec for spec in specs for name in spec.names}
    values: dict[str, object] = {}
    query: str | None = None
    rest = iter(args[1:])
    for token in rest:
        if token.startswith("-") and token != "-":
            long = token.startswith("--")
            name, equals, inline = token.partition("=") if long else (token, "", "")
            spec = by_name.get(name)
            if spec is None or spec.dest in values:
                return None  # an unknown option (a free-text query?), help, "--", a repeat
            if spec.kind == "flag":
                if equals:
                    return None
                values[spec.dest] = True
                continue
            raw = inline if equals else next(rest, None)
            value = _REFUSED if raw is None else _converted(spec, raw)
            if value is _REFUSED:
                return None
            values[spec.dest] = value
        elif query is None and token != "-" and is_utf8(token):
            query = token
        else:
            return None  # a second argument: click's usage error
    if not query and not values.get("url"):
        return None  # "give a QUERY, or --url"
    if query:
        from vaultmem.search.query import query_problem  # the search loads it anyway

        if query_problem(query) is not None:
            return None  # click's usage error says which bound

    defaults: dict[str, object] = {s.dest: (False if s.kind == "flag" else None) for s in specs}
    return {**defaults, **values, "query": query or ""}


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


def json_text(data: Any) -> str:
    """``--json`` output: one JSON document, UTF-8 as it stands, indented."""
    import json

    return json.dumps(data, ensure_ascii=False, indent=2)


@contextlib.contextmanager
def opened_vault(vault_path: Path | None, echo: Echo) -> Iterator[Vault]:
    """Find and open the vault; print what it did on its own, as warnings: what opening
    it said (a setting ignored) at once, so a daemon says it when it starts, the rest
    afterwards."""
    from vaultmem.vault import Vault  # not for --version, --help or a usage error

    with Vault.find(vault_path) as vault:
        for notice in vault.notices:
            echo(f"Warning: {notice}", err=True)
        del vault.notices[:]
        try:
            yield vault
        finally:
            for notice in vault.notices:
                echo(f"Warning: {notice}", err=True)


def run_fast(options: dict[str, object]) -> int:
    """Run a search read by ``parse_search``; its exit code. What click's standalone mode
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


def main() -> None:
    """The ``vaultmem`` command: a plain search without click, anything else with it."""
    if _plain_streams() and not _completing():
        options = parse_search(sys.argv[1:])
        if options is not None:
            sys.exit(run_fast(options))
    from vaultmem.cli.common import cli

    cli()
