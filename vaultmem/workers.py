"""Work done in forked worker processes, on ``concurrent.futures``: when forking is safe,
a pool whose workers end with this process, results taken in order with a bounded number
of calls under way, and a generator run in a worker while this process consumes what it
yields.

Indexing (``index/prepare.py``) parses notes in a pool of workers; consolidation
(``memory/pipeline/reading.py``) reads and scores daily-note lines in one worker while
this process compares the facts. Both fork only where it is safe: on Linux, from a
process with no other thread (a forked copy of a process with threads may hold a lock no
thread of it will ever release). Elsewhere the same work runs in this process, with the
same results.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import pickle
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from vaultmem.errors import VaultmemError

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

A = TypeVar("A")
R = TypeVar("R")
T = TypeVar("T")


def can_fork() -> bool:
    """Whether a child may be forked from this process: Linux, and no other thread."""
    return sys.platform == "linux" and threading.active_count() == 1


@contextlib.contextmanager
def pool(
    processes: int, initializer: Callable[..., None] | None = None, *initargs: Any
) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``processes`` forked workers (call only when ``can_fork()``), each set up
    by ``start_worker`` and then ``initializer(*initargs)``. Forked, the workers inherit
    this process's modules and globals: an ``initializer`` or its arguments need not
    pickle. On leaving, calls not started are cancelled and the workers are waited for.
    """
    import multiprocessing  # imported here: a search or a small update never needs it
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("fork"),
        initializer=start_worker,
        initargs=(initializer, *initargs),
    )
    try:
        yield executor
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def start_worker(initializer: Callable[..., None] | None = None, *initargs: Any) -> None:
    """Set a forked worker up: it ends when the process that forked it ends, and it leaves
    Ctrl-C to that process (which reaches the whole process group: the parent stops, says
    so in one line, and ends its workers; a worker's own traceback would follow it).

    A worker waits for work on a queue whose other end it inherited, so it would never
    see the queue close: after a ``kill -9`` of ``vaultmem index`` it would wait forever
    (issue 12). A thread of its own waits for the parent to end
    (``multiprocessing.parent_process().join()``) and ends the worker then.
    """
    import multiprocessing

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with(parent: BaseProcess) -> None:
    parent.join()
    os._exit(1)


def in_order(
    executor: ProcessPoolExecutor, call: Callable[[A], R], args: Iterable[A], ahead: int
) -> Iterator[R]:
    """``call(arg)`` for each of ``args``, run by ``executor``, the results in order.

    At most ``ahead`` calls are submitted beyond the one whose result the caller is
    given: a caller slower than the workers holds them back instead of piling up their
    results (``Executor.map`` would submit every call at once).
    """
    pending: collections.deque[Future[R]] = collections.deque()
    args = iter(args)
    for arg in itertools.islice(args, ahead):
        pending.append(executor.submit(call, arg))
    while pending:
        result = pending.popleft().result()
        for arg in itertools.islice(args, 1):
            pending.append(executor.submit(call, arg))
        yield result


def forked(
    produce: Callable[[], Iterator[T]], batch: int, ahead: int, fork: bool = True
) -> Iterator[T]:
    """The items ``produce()`` yields, in order, made in one forked worker while the caller
    works on the ones before (``fork`` false, or where forking is unsafe: made here).

    The worker sends them through a pipe in lists of ``batch``, from a thread of its own
    (``_send_all``): it goes on making the next lists while the caller is busy, at most
    ``ahead`` of them waiting to be sent. An error in the worker is raised here, after the
    items made before it; a worker that dies is a ``VaultmemError``. The worker ends when
    the caller stops early or dies.
    """
    if not (fork and can_fork()):
        yield from produce()
        return
    import multiprocessing  # a run too small to fork never needs it

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    # A daemon: a caller that neither finishes nor closes this generator (an error kept
    # with its traceback) must not have the interpreter wait for the worker at exit.
    worker = context.Process(
        target=_produce, args=(produce, receive, send, batch, ahead), daemon=True
    )
    worker.start()
    send.close()  # the worker's copy is its own: EOF here when the worker ends
    finished = False
    try:
        while True:
            try:
                kind, payload = pickle.loads(receive.recv_bytes())
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
        worker.join(1.0 if finished else 0)  # a worker done is on its way out: let it go
        if worker.is_alive():
            worker.kill()
            worker.join()


def _produce(
    produce: Callable[[], Iterator[T]],
    receive: Connection,
    send: Connection,
    batch: int,
    ahead: int,
) -> None:
    """The worker's side of ``forked``: the items in lists, then ``done`` or the error."""
    start_worker()
    receive.close()  # the caller's end: with it closed here, the caller's exit is seen
    outbox: queue.Queue[bytes | None] = queue.Queue(ahead)
    sender = threading.Thread(target=_send_all, args=(outbox, send))
    sender.start()
    items: list[T] = []
    try:
        try:
            for item in produce():
                items.append(item)
                if len(items) >= batch:
                    outbox.put(_message("items", items))
                    items = []
        finally:
            outbox.put(_message("items", items))  # those made before an error go first
        outbox.put(_message("done", None))
    except Exception as exc:  # the caller raises it: one error, whatever went wrong here
        outbox.put(_message("error", _sendable(exc)))
    finally:
        outbox.put(None)
        sender.join()


def _message(kind: str, payload: object) -> bytes:
    """A message pickled here, so that what cannot be pickled is an error of ``produce``."""
    return pickle.dumps((kind, payload), protocol=pickle.HIGHEST_PROTOCOL)


def _send_all(outbox: queue.Queue[bytes | None], send: Connection) -> None:
    """The worker's sending thread: each message in turn, until ``None``. The pipe takes
    a message only as fast as the caller reads; meanwhile the worker makes the next."""
    listening = True
    while (data := outbox.get()) is not None:
        if listening:
            try:
                send.send_bytes(data)
            except OSError:  # the caller stopped listening, or is gone: nobody to tell
                listening = False
    send.close()


def _sendable(error: Exception) -> Exception:
    """``error``, or where it cannot be pickled (a local class), its words in one that can."""
    try:
        pickle.dumps(error)
    except Exception:
        return VaultmemError(f"{type(error).__name__}: {error}")
    return error
