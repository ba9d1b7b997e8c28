"""Equality and repr for the records a search process defines, without ``dataclasses``.

A search runs as a process of its own, many times an agent's session (docs/cli.md,
"Start-up time"), and a dataclass costs every such process: importing ``dataclasses``
imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``: ~5 ms on the 2-core machine
here), and each class compiles its methods from source (~0.5-1 ms). So the mutable records
of the modules a search loads (``Hit``, ``Entry``, ``Fact``, ...) and ``Config`` write
their ``__init__`` by hand and take the rest from here: ``__eq__`` and ``__repr__`` over
``_fields``, as a dataclass's are (fields compared as one tuple, the class must match).
Records of the other modules stay dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Self


class Record:
    """A mutable record: equal to a record of the same class with equal fields; unhashable
    (as a dataclass with ``eq`` is)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()  # in the order of __init__'s parameters
    _hidden: tuple[str, ...] = ()  # left out of repr (a dataclass field's ``repr=False``)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]

    def replace(self, **changes: object) -> Self:
        """A copy with ``changes`` (field name -> value), as ``dataclasses.replace``."""
        return type(self)(**{name: getattr(self, name) for name in self._fields} | changes)

    def __repr__(self) -> str:
        shown = (f"{n}={getattr(self, n)!r}" for n in self._fields if n not in self._hidden)
        return f"{type(self).__qualname__}({', '.join(shown)})"


class FrozenRecord(Record):
    """A record whose fields cannot be set after ``__init__`` (which sets them with
    ``object.__setattr__``); hashable, as a frozen dataclass is."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())
