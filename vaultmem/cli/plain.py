"""What the commands share that needs no click: the checks of argument text, ``--json``
output, and opening a vault with its warnings.

The click commands use these through ``common.py`` (a check's ``ValueError`` becomes a
usage error there), and so does ``search_fast.py``, which reads a plain ``search`` command
line without importing click: one check, one message, whichever way a command line is read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from vaultmem.vault import Vault

Echo = Callable[..., None]  # click.echo, or search_fast.echo: (message="", err=False)


def utf8_text(value: str) -> str:
    """``value`` when UTF-8 can write it (a shell can pass any bytes as an argument).

    Raises:
        ValueError: it holds bytes that are not UTF-8.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid UTF-8 text") from None
    return value


def iso_date(value: str) -> str:
    """``YYYY-MM-DD`` as a date's ISO form.

    Raises:
        ValueError: ``value`` is no such date.
    """
    import datetime as dt  # not for --version or a search without --since

    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ValueError(f"{value!r} is not a date like 2026-11-22") from None


def query_words(value: str) -> str:
    """A QUERY (``search``, ``context``): UTF-8 text within a search's bounds
    (``query.query_problem``). The library refuses a query over them too, for callers that
    are not the CLI; here it is refused before the vault is opened.

    Raises:
        ValueError: what is wrong with it.
    """
    value = utf8_text(value)
    if value:
        from vaultmem.search.query import query_problem  # not for --version or --help

        problem = query_problem(value)
        if problem is not None:
            raise ValueError(problem)
    return value


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
