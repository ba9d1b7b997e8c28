"""A generator run in a forked worker (``workers.forked``): the items in order, the worker's
errors raised here, a worker that dies or is left behind never hangs the caller."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import write

from vaultmem import Vault
from vaultmem.errors import VaultmemError
from vaultmem.memory.pipeline.reading import FORK_MIN_NOTES
from vaultmem.workers import can_fork, forked

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only on Linux, with one thread")


def numbered(count: int) -> Iterator[tuple[int, int]]:
    """``(n, pid of the process that made it)`` for n below ``count``."""
    for n in range(count):
        yield n, os.getpid()


def test_the_items_come_in_order_from_another_process() -> None:
    items = list(forked(lambda: numbered(25), batch=4, ahead=2))
    assert [n for n, _ in items] == list(range(25))
    assert {pid for _, pid in items} != {os.getpid()}
    assert len({pid for _, pid in items}) == 1


@pytest.mark.parametrize("count", [0, 1, 3, 4, 12])
def test_every_item_comes_whatever_the_count_against_the_batch(count: int) -> None:
    assert [n for n, _ in forked(lambda: numbered(count), batch=4, ahead=2)] == list(range(count))


def test_the_worker_runs_ahead_of_a_slow_caller_only_so_far(tmp_path: Path) -> None:
    """While the caller holds its first item, the worker makes the lists it may hold
    waiting (``ahead``) and the few under way (one in the pipe, one being made), and no
    more: its lead is bounded whatever the length of the run."""
    made = tmp_path / "made"

    def large() -> Iterator[str]:
        for n in range(200):
            with made.open("a") as out:
                out.write(f"{n}\n")
            yield "x" * 200_000  # more than a pipe holds: one list at a time goes in

    items = forked(large, batch=1, ahead=5)
    next(items)
    count, quiet_since = -1, time.monotonic()
    while time.monotonic() - quiet_since < 1.0:  # until the worker stops making more
        now = len(made.read_text().split())
        if now != count:
            count, quiet_since = now, time.monotonic()
        time.sleep(0.05)
    assert 1 + 5 <= count <= 1 + 5 + 3
    assert sum(1 for _ in items) == 199


def test_a_process_that_leaves_the_worker_unread_still_exits() -> None:
    """The caller keeps the generator (as a kept traceback would) and never reads on: the
    interpreter must not wait for the worker at exit for longer than its lead."""
    script = (
        "from vaultmem.workers import forked\n"
        "items = forked(lambda: iter(['x' * 100_000] * 100), batch=1, ahead=4)\n"
        "next(items)\n"
        "print('leaving')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout == "leaving\n"


def test_without_fork_the_same_items_are_made_here() -> None:
    items = list(forked(lambda: numbered(5), batch=2, ahead=2, fork=False))
    assert items == [(n, os.getpid()) for n in range(5)]


def test_an_error_in_the_child_is_raised_here_after_the_items_before_it() -> None:
    def failing() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("note 3 is odd")

    for batch in (1, 4):  # the items before it in its own batch too
        got: list[int] = []
        with pytest.raises(ValueError, match="note 3 is odd"):
            for item in forked(failing, batch=batch, ahead=2):
                got.append(item)
        assert got == [1, 2]


def test_an_error_that_cannot_be_pickled_still_says_what_it_was() -> None:
    class Local(Exception):  # a class pickle cannot find by name
        pass

    def failing() -> Iterator[int]:
        raise Local("cannot go through a pipe")
        yield 0

    with pytest.raises(VaultmemError, match="Local: cannot go through a pipe"):
        list(forked(failing, batch=1, ahead=2))


def test_a_child_that_dies_without_a_word_is_an_error_not_a_hang() -> None:
    def dying() -> Iterator[int]:
        yield 1
        os._exit(3)

    with pytest.raises(VaultmemError, match="stopped before its work was done"):
        list(forked(dying, batch=1, ahead=2))


def test_a_caller_that_stops_early_leaves_no_child_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    items = forked(lambda: numbered(10_000_000), batch=10, ahead=2)
    first = next(items)
    child = first[1]
    items.close()  # what a loop that breaks, or raises, does to the generator
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
    assert capfd.readouterr().err == ""  # the child said nothing on its way out


def _is_forked(pid: int) -> bool:
    try:
        return b"vaultmem" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def busy_run(root: Path) -> tuple[subprocess.Popen[str], int, dict[Path, bytes]]:
    """A consolidation of enough daily notes to read them in a child, started as its own
    process group (as a terminal's foreground job is): the process, its child once seen,
    and the daily notes' bytes before."""
    Vault.init(root)
    start = dt.date(2025, 1, 1)
    # Twice the notes that make a run fork, each long: its child reads long enough to be
    # seen and signalled before it ends, even on a busy machine.
    for n in range(2 * FORK_MIN_NOTES):
        day = (start + dt.timedelta(days=n)).isoformat()
        lines = "".join(f"- Remember that project P{n}x{i} ships on day {i}\n" for i in range(150))
        write(root, f"memory/{day}.md", f"# {day}\n\n{lines}")
    before = {p: p.read_bytes() for p in (root / "memory").iterdir()}
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "consolidate", "--mode", "full", "--vault", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # Ctrl-C as a terminal delivers it: a test run started in the background (an
        # asynchronous job of a script) would pass SIGINT on ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child = None
    deadline = time.monotonic() + 60
    while child is None and process.poll() is None and time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True)
        # The forked reader runs the run's own command line; a git the run started does not.
        child = next((int(pid) for pid in found.stdout.split() if _is_forked(int(pid))), None)
        time.sleep(0.05)
    assert child is not None, "the run ended before its child was seen"
    return process, child, before


def test_a_killed_consolidation_leaves_no_child_reading_its_notes(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    process, child, before = busy_run(root)
    process.kill()  # kill -9: no finally runs in the run
    process.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        status = Path(f"/proc/{child}/status").read_text(errors="replace")
        if "zombie" in status:  # ended; only its parent's reaper is missing
            break
        time.sleep(0.05)
    gone = not Path(f"/proc/{child}").exists()
    assert gone or "zombie" in Path(f"/proc/{child}/status").read_text(errors="replace")
    assert {p: p.read_bytes() for p in (root / "memory").iterdir()} == before


def test_ctrl_c_stops_a_forked_consolidation_with_one_line_and_no_child_left(
    tmp_path: Path,
) -> None:
    """Ctrl-C reaches the whole process group: the run says it stopped, in one line, and
    the child reading its notes is gone; nothing was written."""
    root = tmp_path / "vault"
    process, child, before = busy_run(root)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not Path(f"/proc/{child}").exists()  # ended, and reaped by the run
    assert {p: p.read_bytes() for p in (root / "memory").iterdir()} == before
    assert not any("P0x" in p.read_text() for p in root.rglob("facts/**/*.md"))
