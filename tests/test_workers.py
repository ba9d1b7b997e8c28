"""A generator run in a forked child (``workers.forked``): the items in order, the child's
errors raised here, a child that dies or is left behind never hangs the caller."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from vaultmem.errors import VaultmemError
from vaultmem.workers import can_fork, forked

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only on Linux, with one thread")


def numbered(count: int) -> Iterator[tuple[int, int]]:
    """``(n, pid of the process that made it)`` for n below ``count``."""
    for n in range(count):
        yield n, os.getpid()


def test_the_items_come_in_order_from_another_process() -> None:
    items = list(forked(lambda: numbered(25), batch=4))
    assert [n for n, _ in items] == list(range(25))
    assert {pid for _, pid in items} != {os.getpid()}
    assert len({pid for _, pid in items}) == 1


def test_without_fork_the_same_items_are_made_here() -> None:
    items = list(forked(lambda: numbered(5), batch=2, fork=False))
    assert items == [(n, os.getpid()) for n in range(5)]


def test_an_error_in_the_child_is_raised_here_after_the_items_before_it() -> None:
    def failing() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("note 3 is odd")

    got: list[int] = []
    with pytest.raises(ValueError, match="note 3 is odd"):
        for item in forked(failing, batch=1):
            got.append(item)
    assert got == [1, 2]


def test_an_error_that_cannot_be_pickled_still_says_what_it_was() -> None:
    class Local(Exception):  # a class pickle cannot find by name
        pass

    def failing() -> Iterator[int]:
        raise Local("cannot go through a pipe")
        yield 0

    with pytest.raises(VaultmemError, match="Local: cannot go through a pipe"):
        list(forked(failing, batch=1))


def test_a_child_that_dies_without_a_word_is_an_error_not_a_hang() -> None:
    def dying() -> Iterator[int]:
        yield 1
        os._exit(3)

    with pytest.raises(VaultmemError, match="stopped before its work was done"):
        list(forked(dying, batch=1))


def test_a_caller_that_stops_early_leaves_no_child_behind() -> None:
    items = forked(lambda: numbered(10_000_000), batch=10)
    first = next(items)
    child = first[1]
    items.close()  # what a loop that breaks, or raises, does to the generator
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
