"""Work done in forked child processes: when forking is safe, a child that ends with its
parent, and a generator run in a child while this process consumes what it yields.

Indexing (``prepare.py``) parses notes in a pool of forked workers; consolidation
(``memory/reading.py``) reads and scores daily-note lines in one forked child while this
process compares the facts. Both fork only where it is safe: on Linux, from a process
with no other thread (a forked copy of a process with threads may hold a lock no thread
of it will ever release). Elsewhere the same work runs in this process, with the same
results.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from vaultmem.errors import VaultmemError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

T = TypeVar("T")

# prctl(2) option: the signal the kernel sends this process when its parent dies.
_PR_SET_PDEATHSIG = 1


def can_fork() -> bool:
    """Whether a child may be forked from this process: Linux, and no other thread."""
    return sys.platform == "linux" and threading.active_count() == 1


def start_child(parent: int) -> None:
    """Set a forked child up: it ends when the process that forked it ends, and it leaves
    Ctrl-C to that process (which reaches the whole process group: the parent stops,
    says so in one line, and ends its children; a child's own traceback would follow it).

    A forked worker inherits the write end of its own task pipe, so it never sees EOF:
    after a ``kill -9`` of ``vaultmem index`` it would wait for work forever (issue 12).
    On Linux the kernel kills it (``PR_SET_PDEATHSIG``); the parent pid is checked after
    asking, in case the parent died before the request took effect. Where ``prctl`` is
    missing, a thread watches the parent pid instead.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        asked = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        asked = False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.getppid() != parent:
        os._exit(1)
    if not asked:
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def forked(produce: Callable[[], Iterator[T]], batch: int, fork: bool = True) -> Iterator[T]:
    """The items ``produce()`` yields, in order, made in a forked child while the caller
    works on the ones before (``fork`` false, or where forking is unsafe: made here).

    The child sends them in lists of ``batch`` through a pipe, whose buffer and the
    child's own (``_Outbox``) hold it back when it runs ahead: at most ``PIPE_BYTES`` and
    ``OUTBOX_BYTES`` wait at a time, whatever the length of the run. An error in the
    child is raised here; a child that dies without a word is a ``VaultmemError``. The
    child ends when the caller stops early or dies.
    """
    if not (fork and can_fork()):
        yield from produce()
        return
    import multiprocessing  # a run too small to fork never needs it

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    _widen(send.fileno())
    # A daemon: a caller that neither finishes nor closes this generator (an error kept
    # with its traceback) must not have the interpreter wait for the child at exit.
    child = context.Process(target=_produce, args=(produce, send, batch, os.getpid()), daemon=True)
    child.start()
    send.close()  # the child's copy is its own: EOF here when the child ends
    finished = False
    try:
        while True:
            try:
                kind, payload = receive.recv()
            except EOFError:
                raise VaultmemError("a worker process stopped before its work was done") from None
            if kind == "error":
                raise payload
            if kind == "done":
                finished = True
                return
            yield from payload
    finally:
        receive.close()
        child.join(1.0 if finished else 0)  # a child done is on its way out: let it go
        if child.is_alive():
            child.kill()
            child.join()


# A pipe holds 64 KiB by default, a batch or two of a consolidation's lines: the two
# processes, each slower than the other for a while in turn, kept waiting on each other
# (a full run spent some 3 s of its 30 s of reading so). A mebibyte lets either run ahead.
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    """Let the pipe hold ``PIPE_BYTES`` (Linux; the system's limit may allow less)."""
    import fcntl

    # Over the limit a user may set, the default buffer is kept: it works, only slower.
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)


# In a child of ``forked``: the pipe it sends through and what the pipe holds (``backlog``).
_sending: Connection | None = None
_capacity = 0


def backlog() -> float | None:
    """In a child of ``forked``: how full its pipe is, 0 to 1, with what it sent that the
    caller has not read yet. That tells which of the two is the slower (nearly empty: the
    caller waits for the child; nearly full: the child waits for the caller). ``None`` in
    a process that is no such child, or where the system cannot tell."""
    if _sending is None or not _capacity:
        return None
    import array
    import fcntl
    import termios

    waiting = array.array("i", [0])
    try:
        fcntl.ioctl(_sending.fileno(), termios.FIONREAD, waiting, True)
    except OSError:
        return None
    return waiting[0] / _capacity


def _pipe_size(fd: int) -> int:
    """What the pipe holds (``PIPE_BYTES`` or less: the system may have allowed less);
    0 where the system cannot tell."""
    import fcntl

    try:
        return int(fcntl.fcntl(fd, getattr(fcntl, "F_GETPIPE_SZ", 1032)))
    except OSError:
        return 0


def _produce(produce: Callable[[], Iterator[T]], send: Connection, batch: int, parent: int) -> None:
    """The child's side of ``forked``: send the items in lists, then ``done`` or the error."""
    global _sending, _capacity
    start_child(parent)
    _sending, _capacity = send, _pipe_size(send.fileno())
    outbox = _Outbox(send.fileno())
    try:
        items: list[T] = []
        for item in produce():
            items.append(item)
            if len(items) >= batch:
                outbox.send(("items", items))
                items = []
        outbox.send(("items", items))
        outbox.send(("done", None))
        outbox.flush()
    except Exception as exc:  # the caller raises it: one error, whatever went wrong here
        for error in (exc, VaultmemError(f"{type(exc).__name__}: {exc}")):
            try:
                outbox.send(("error", error))
                outbox.flush()
                break
            except OSError:  # the caller stopped listening, or is gone: nobody to tell
                break
            except Exception:  # an error that cannot be pickled: its words still can
                continue
    finally:
        send.close()


# What a child may hold that its full pipe could not take yet. A consolidation's caller
# reads the vault's facts before its first comparison (some 3 s of a 10,000-note run),
# while its reader, held back by the pipe alone, sat idle for 1.3 of them.
OUTBOX_BYTES = 16 << 20


class _Outbox:
    """The child's end of the pipe, written without waiting: each message framed as
    ``Connection.recv`` reads it, as much as the pipe takes, the rest held here and
    written with the next message; only past ``OUTBOX_BYTES`` held does the child wait."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.held: collections.deque[memoryview] = collections.deque()
        self.size = 0
        os.set_blocking(fd, False)

    def send(self, message: object) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data)
        # As ``Connection.send`` frames it: a length, or -1 and a long one past 2 GiB.
        header = struct.pack("!i", size) if size <= 0x7FFFFFFF else struct.pack("!iQ", -1, size)
        self.held.append(memoryview(header + data))
        self.size += len(header) + size
        self._write(OUTBOX_BYTES)

    def flush(self) -> None:
        """Write all that is held, waiting for the caller to read as needed."""
        self._write(0)

    def _write(self, keep: int) -> None:
        """Write what the pipe takes; wait while more than ``keep`` bytes are held."""
        while self.held:
            try:
                written = os.write(self.fd, self.held[0])
            except BlockingIOError:
                if self.size <= keep:
                    return
                select.select([], [self.fd], [])
                continue
            self.size -= written
            if written == len(self.held[0]):
                self.held.popleft()
            else:
                self.held[0] = self.held[0][written:]
