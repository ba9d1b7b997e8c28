"""The time order of a daily note's lines.

vaultmem writes each message it remembers or captures as a list item that opens with the
time it was said: ``- 09:14 **user** ...``. A day's note reads in time order, so a line
said before the note's last one goes before the first line said after it
(``remember.store_lines``: a session captured late, a message given its own time), and the
lines two devices added at one place interleave by time when their notes merge
(``merge.py``). A line without a time (a person's own) is never moved, and nothing already
in a note is reordered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_TIMED = re.compile(r"- ((?:[01]\d|2[0-3]):[0-5]\d)(?![\d:])")


def line_time(line: str) -> str | None:
    """The ``HH:MM`` a daily note's line opens with (``- 09:14 ...``), else ``None``."""
    match = _TIMED.match(line)
    return match.group(1) if match else None


def interleave(
    a: Sequence[T], b: Sequence[T], time_of: Callable[[T], str | None]
) -> list[T] | None:
    """Two runs of lines added at one place, merged by time with each run's own order kept
    (``a`` first at the same minute); ``None`` when a line of either run has no time, as
    then there is no order to keep but the runs' own."""
    times_a, times_b = [time_of(x) for x in a], [time_of(x) for x in b]
    if None in times_a or None in times_b:
        return None
    out: list[T] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if str(times_b[j]) < str(times_a[i]):
            out.append(b[j])
            j += 1
        else:
            out.append(a[i])
            i += 1
    return [*out, *a[i:], *b[j:]]
