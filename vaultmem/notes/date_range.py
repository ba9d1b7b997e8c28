"""The dates a memory can have: one rule for every date a line is filed under or a run is
made as of (``remember --at``, a transcript's timestamps, ``--today``).

A daily note is named by its date and everything downstream does arithmetic on it (a
window of days, decay, yesterday and tomorrow), which overflows at the ends of Python's
calendar (years 1 and 9999), and no conversation took place in either. So a date must lie
in **1900-01-01 .. 2100-12-31**: old enough for a journal imported from a grandparent's
letters, far enough ahead for any clock that is wrong by years, and far from the
calendar's ends. A date outside is refused in one line, never filed elsewhere.

A Unix timestamp is seconds or milliseconds, told apart by its size alone: from 10^12 on
it is milliseconds (10^12 ms is 2001-09-09, before any agent host wrote a transcript; as
seconds it would be the year 33658), below it seconds. Either way the date must be in the
range, so a number that fits neither reading is refused: 253402300800 is the first second
of the year 10000, not 11 January 1978 in milliseconds.

Imported by the command line for its ``--today`` options: standard library only.
"""

from __future__ import annotations

import datetime as dt
import math

from vaultmem.errors import VaultmemError

EARLIEST = dt.date(1900, 1, 1)
LATEST = dt.date(2100, 12, 31)
RANGE = f"{EARLIEST.isoformat()} to {LATEST.isoformat()}"
MILLISECONDS_FROM = 10**12  # a timestamp this large or larger counts milliseconds

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_FIRST = dt.datetime.combine(EARLIEST, dt.time(), dt.UTC)
_AFTER_LAST = dt.datetime.combine(LATEST + dt.timedelta(days=1), dt.time(), dt.UTC)


class DateOutOfRangeError(VaultmemError):
    """A date outside ``EARLIEST`` .. ``LATEST``: no note is filed under it."""


def in_range(day: dt.date) -> bool:
    """Whether a note may have the date ``day`` (a ``datetime``'s date counts)."""
    if isinstance(day, dt.datetime):
        day = day.date()
    return EARLIEST <= day <= LATEST


def check_day(day: dt.date, what: str) -> dt.date:
    """``day``, when a note may have it.

    Raises:
        DateOutOfRangeError: it is outside the range; the message names ``what`` it is.
    """
    if not in_range(day):
        raise DateOutOfRangeError(f"{what} ({day.isoformat()}) is outside the dates {RANGE}")
    return day


def from_unix(number: float) -> dt.datetime:
    """A Unix timestamp (seconds, or milliseconds from 10^12 on) as an aware UTC time.

    Raises:
        DateOutOfRangeError: not a finite number (JSON's integers have no bound: 10**400
            is no float either), or its date is outside the range.
    """
    try:
        value = float(number)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise DateOutOfRangeError("the timestamp is not a finite number: not a time")
    seconds = value / 1000 if abs(value) >= MILLISECONDS_FROM else value
    first, after = (_FIRST - _EPOCH).total_seconds(), (_AFTER_LAST - _EPOCH).total_seconds()
    if not first <= seconds < after:
        raise DateOutOfRangeError(
            f"the timestamp {value:.15g} is outside the dates {RANGE} "
            "(read as seconds, or as milliseconds from 10^12 on)"
        )
    return _EPOCH + dt.timedelta(seconds=seconds)
