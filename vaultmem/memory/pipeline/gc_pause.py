"""How a long run treats Python's cycle collector.

A full consolidation of a large vault holds a heap that grows the whole run: the
readings of every live fact, kept to compare each new one with. CPython's collector
walks the whole heap each time it has grown by a quarter, and in such a run those walks
find next to nothing to free, and take their time on one core while the other waits
(the figures: docs/benchmarks.md, "Choices in the code").

``young_collections_only`` defers the full walks for the length of a run. Young
collections go on, so a cycle made and dropped along the way is still freed; anything
that lives long enough to reach the oldest generation waits for the first full walk
after the run.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

# Above any count of young collections a run makes: the oldest generation is walked
# only after it.
_DEFERRED = 1 << 30

_lock = threading.Lock()
_runs = 0  # runs under way in this process (the MCP server may run two at once)
_saved: tuple[int, int, int] = gc.get_threshold()


@contextlib.contextmanager
def young_collections_only() -> Iterator[None]:
    """Defer full collections until every run of this process that asked has ended.
    A forked child started meanwhile inherits the setting."""
    global _runs, _saved
    with _lock:
        if _runs == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(_saved[0], _saved[1], _DEFERRED)
        _runs += 1
    try:
        yield
    finally:
        with _lock:
            _runs -= 1
            if _runs == 0:
                gc.set_threshold(*_saved)
