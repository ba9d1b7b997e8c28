"""The memory log: what cannot be recomputed from the notes, kept in files.

Each device appends to its own ``.vaultmem/log/<device>.log`` (tracked by git; one writer
per file, so a sync never conflicts). One event a line, tab-separated::

    2026-11-22T14:03:05	access	f8c21d0a9b4
    2026-11-22T14:10:00	distilled	2026-11-22#m3f9a1c2e	f8c21d0a9b4
    2026-11-22T14:12:00	forgot	2026-11-22#m3f9a1c2e	f8c21d0a9b4

``access``: a search or context hit on a fact (reinforces it). ``distilled``: a daily-note
line consolidation has dealt with (made a fact, or merged into one as a repeat), so that a
fact a person deletes by hand does not come back. ``forgot``: ``vaultmem forget``.
Lines are short and written with one ``O_APPEND`` write, so concurrent processes on one
device never interleave them.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import socket
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

LOG_DIR = ".vaultmem/log"


def device_name(configured: str = "") -> str:
    """This device's log name: the ``memory.device`` setting, ``$VAULTMEM_DEVICE``, or the
    host name, reduced to characters safe in a file name."""
    name = configured or os.environ.get("VAULTMEM_DEVICE") or socket.gethostname() or "device"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-") or "device"


@dataclass
class Ledger:
    """All devices' events, read together."""

    accesses: Counter[str] = field(default_factory=Counter)
    distilled: dict[str, str] = field(default_factory=dict)  # source key -> fact id

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
            for line in text.splitlines():
                parts = line.split("\t")
                if len(parts) >= 3 and parts[1] == "access":
                    ledger.accesses[parts[2]] += 1
                elif len(parts) >= 4 and parts[1] in ("distilled", "forgot"):
                    ledger.distilled[parts[2]] = parts[3]
        return ledger


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
    fd = os.open(folder / f"{device}.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)
