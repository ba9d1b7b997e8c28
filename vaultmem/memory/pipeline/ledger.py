"""The memory log: what cannot be recomputed from the notes, kept in files.

Each device appends to its own ``.vaultmem/log/<device>.log`` (tracked by git; one writer
per file, so a sync never conflicts). One event a line, tab-separated::

    2026-11-22T14:03:05	access	f8c21d0a9b4
    2026-11-22T14:10:00	distilled	2026-11-22#m3f9a1c2e	f8c21d0a9b4
    2026-11-22T14:11:00	archived	f8c21d0a9b4	archive/health.md
    2026-11-22T14:12:00	forgot	2026-11-22#m3f9a1c2e	f8c21d0a9b4

``access``: a search or context hit on a fact (reinforces it). ``distilled``: a daily-note
line consolidation has dealt with (made a new fact of it, merged it into one as a repeat,
or confirmed a belief with it), so that a fact a person deletes or edits by hand never
comes back: a person's edit can remove the ``[source:: ]`` link a fact holds, so the log,
not the fact, is what says a line was dealt with. ``archived``: a fact whose move to the
archive was completed (a copy later found in ``facts/`` is a person's revival, not a move
cut short). ``forgot``: ``vaultmem forget``.

Lines are short and written with one ``O_APPEND`` write, so concurrent processes on one
device never interleave them. Reading is forgiving: a line cut short by a crash (the last
one, without its newline), junk, or the lines of two devices' logs merged by git's union
driver are read for the complete events they hold and never stop the rest; a writer that
finds the file not ending in a newline starts on a new line, so a torn line never swallows
the next event.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

LOG_DIR = ".vaultmem/log"


def device_name(configured: str = "") -> str:
    """This device's log name: the ``memory.device`` setting, ``$VAULTMEM_DEVICE``, or the
    host name, reduced to characters safe in a file name."""
    name = configured or os.environ.get("VAULTMEM_DEVICE") or _host_name() or "device"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-") or "device"


def _host_name() -> str:
    """The host name, without socket's import (which builds enums of every address family:
    longer than a search takes) nor platform's (~1 ms): ``platform.node()`` is
    ``os.uname().nodename`` where ``os.uname`` exists."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import platform  # Windows

    return platform.node()


_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_ID = re.compile(r"[A-Za-z0-9-]+")
_KEY = re.compile(r"\d{4}-\d{2}-\d{2}#[A-Za-z0-9-]+")


class Ledger:
    """All devices' events, read together."""

    __slots__ = ("accesses", "distilled", "archived")

    def __init__(
        self,
        accesses: Counter[str] | None = None,
        distilled: dict[str, str] | None = None,
        archived: set[str] | None = None,
    ) -> None:
        self.accesses: Counter[str] = Counter() if accesses is None else accesses
        # source key -> fact id
        self.distilled: dict[str, str] = {} if distilled is None else distilled
        self.archived: set[str] = set() if archived is None else archived  # moved to archive

    @classmethod
    def read(cls, root: Path) -> Ledger:
        ledger = cls()
        folder = root / LOG_DIR
        if not folder.is_dir():
            return ledger
        for log in sorted(folder.glob("*.log")):
            try:
                text = log.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            lines = text.split("\n")
            # Every event ends in a newline: what follows the last one was cut short.
            for line in lines[:-1]:
                ledger._read_line(line.rstrip("\r"))
        return ledger

    def _read_line(self, line: str) -> None:
        """One event; anything that is not a well-formed event is skipped."""
        parts = line.split("\t")
        if len(parts) < 3 or not _TIME.fullmatch(parts[0]):
            return
        kind, fields = parts[1], parts[2:]
        if kind == "access" and _ID.fullmatch(fields[0]):
            self.accesses[fields[0]] += 1
        elif kind in ("distilled", "forgot") and len(fields) >= 2:
            if _KEY.fullmatch(fields[0]) and _ID.fullmatch(fields[1]):
                self.distilled[fields[0]] = fields[1]
        elif kind == "archived" and _ID.fullmatch(fields[0]):
            self.archived.add(fields[0])


def append(root: Path, device: str, events: Iterable[tuple[str, ...]]) -> None:
    """Append events (each a tuple of fields after the time) to this device's log."""
    stamp = dt.datetime.now().replace(microsecond=0).isoformat()
    lines = "".join(
        "\t".join((stamp, *(" ".join(part.split()) for part in event))) + "\n" for event in events
    )
    if not lines:
        return
    folder = root / LOG_DIR
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{device}.log", os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            lines = "\n" + lines  # the last write was cut short: keep its torn line apart
        data = lines.encode("utf-8")
        while data:  # a regular file takes it in one write; loop in case it does not
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


def log_access(
    root: Path, device: str, places: Iterable[tuple[str, str | None]], notices: list[str]
) -> None:
    """Log an ``access`` event for each hit on a fact, given as ``(path, block_id)``: lines
    of ``facts/`` and ``archive/`` with a block id (they are reinforced at the next
    consolidation). A vault that cannot be written can still be searched: a failure to
    write the log is a notice, not an error."""
    events = [
        ("access", block)
        for path, block in places
        if block and path.startswith(("facts/", "archive/"))
    ]
    try:
        append(root, device, events)
    except OSError as exc:
        notices.append(f"access log not written: {exc.strerror or exc}")
