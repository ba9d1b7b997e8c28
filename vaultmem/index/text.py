"""Chunk text in the index: stored compressed, with a dictionary trained on the vault's words.

The chunks' text is the largest part of ``index.db`` (a copy of the notes, kept so that a
contentless FTS row can be deleted and a hit shown without reading the file). A chunk is
one line or paragraph, about 90 bytes: too short for deflate alone (7% smaller), because
deflate finds repeats only within what it compresses. Given a *preset dictionary* of the
vault's own frequent words and word pairs, the same line comes out about half its size
(the 10,000-note generated vault: 24.5 MB of chunk text in 11.8 MB), and reading it back
costs about 2 us.

Storage. A ``chunk_rows.text`` value is either TEXT, stored as written (a short text, an
index with no dictionary yet, or a text deflate would not shrink), or a BLOB: one byte, the
``text_dicts.id`` of the dictionary, then a raw deflate stream. ``chunk_text(value)``, an
SQL function every connection registers (``register``), gives the text back, and the
``chunks`` view calls it: readers see text and never the stored form. A reader outside
vaultmem (the ``sqlite3`` shell) reads ``chunk_rows.text`` instead.

The dictionary. A rebuild trains one on a sample of its notes before it starts
(``runs.py``), so its worker processes pack the texts they chunk; an index that grows
from empty trains one once it holds ``TRAIN_MIN`` chunks, and compresses the rows written
before it at once. The dictionary is the words and word pairs that save the most bytes,
the most valuable last (deflate reaches the end of its window most cheaply). It is never
changed: words the vault gains later compress less, and a ``reindex`` trains a new one.
A dictionary's id is never reused within a file, even by a rebuilt index (``recreate``
carries the last id over), so a connection of another process that read a dictionary
never decodes a new one's rows with it.
"""

from __future__ import annotations

import collections
import re
import sqlite3
import zlib
from collections.abc import Callable, Sequence

# A 16 KiB window: the dictionary's size. 32 KiB compresses 3% better and costs 60% more
# time per chunk (deflate copies its window and hash chains for every chunk).
_WBITS = 14
_LEVEL, _MEM_LEVEL = 6, 7
# Deflate cannot refer further back than the window less its lookahead (262 bytes).
DICT_BYTES = (1 << _WBITS) - 262
# How many chunks an index holds before it trains its dictionary, and how many of them
# the training reads.
TRAIN_MIN = 2000
TRAIN_SAMPLE = 8000
# Shorter texts are stored as they are: the id byte and deflate's end mark would eat most
# of what a dictionary saves.
SHORT = 24
# A word with the space after it: the unit the dictionary is made of.
_WORD = re.compile(rb"\S+\s?")
# Dictionary ids are one byte; after the last one, numbering starts over.
_LAST_ID = 255

Packer = Callable[[str], "str | bytes"]


def train(texts: Sequence[str]) -> bytes:
    """A preset dictionary for these texts: the words and adjacent word pairs seen at least
    three times, by the bytes they would save (count x length), the best last."""
    counts: collections.Counter[bytes] = collections.Counter()
    for text in texts:
        words = _WORD.findall(text.encode())
        counts.update(words)
        counts.update(a + b for a, b in zip(words, words[1:], strict=False))
    ranked = sorted(((n * len(w), w) for w, n in counts.items() if n >= 3), reverse=True)
    chosen: list[bytes] = []
    size = 0
    for _, word in ranked:
        if size + len(word) <= DICT_BYTES:
            chosen.append(word)
            size += len(word)
    return b"".join(reversed(chosen))


def packer(dict_id: int, zdict: bytes) -> Packer:
    """``pack(text)``: the stored form of a chunk text under this dictionary."""
    settings = (_LEVEL, zlib.DEFLATED, -_WBITS, _MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY)
    base = zlib.compressobj(*settings, zdict) if zdict else zlib.compressobj(*settings)
    prefix = bytes([dict_id])

    def pack(text: str) -> str | bytes:
        if len(text) < SHORT:
            return text
        data = text.encode()
        # A copy of a compressor that has read the dictionary: 3x cheaper than a new one.
        compressor = base.copy()
        packed = compressor.compress(data) + compressor.flush()
        return text if len(packed) + 1 >= len(data) else prefix + packed

    return pack


def unpack(value: bytes, zdict: bytes) -> str:
    """The text of a stored BLOB whose dictionary is ``zdict``."""
    inflater = zlib.decompressobj(-_WBITS, zdict) if zdict else zlib.decompressobj(-_WBITS)
    return inflater.decompress(memoryview(value)[1:]).decode()


class TextStore:
    """One connection's dictionaries: reading stored texts back, and packing new ones."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._dicts: dict[int, bytes] = {}
        self._pack: Packer | None = None
        self._plain = -1  # chunks stored before a dictionary (-1: not counted yet)

    @classmethod
    def register(cls, conn: sqlite3.Connection) -> TextStore:
        """Give ``conn`` the ``chunk_text`` SQL function the ``chunks`` view calls."""
        store = cls(conn)
        conn.create_function("chunk_text", 1, store.text, deterministic=True)
        return store

    def text(self, value: str | bytes | None) -> str | None:
        """``chunk_text(value)``: a stored text as written."""
        if not isinstance(value, bytes):
            return value
        zdict = self._dicts.get(value[0])
        if zdict is None:
            self._dicts = dict(self.conn.execute("SELECT id, dict FROM text_dicts"))
            zdict = self._dicts[value[0]]  # a KeyError is a damaged index: it is reported
        return unpack(value, zdict)

    def reset(self) -> None:
        """Forget what was read: called as a write transaction begins or rolls back (a
        dictionary this connection trained may not have been committed)."""
        self._dicts.clear()
        self._pack = None
        self._plain = -1

    def current(self) -> Packer | None:
        """The packer of the index's dictionary, if it has one yet."""
        if self._pack is None:
            row = self.conn.execute(
                "SELECT id, dict FROM text_dicts ORDER BY rowid DESC LIMIT 1"
            ).fetchone()
            if row is not None:
                self._pack = packer(int(row[0]), bytes(row[1]))
        return self._pack

    def pack(self, texts: Sequence[str]) -> list[str | bytes]:
        """The stored forms of new chunk texts (inside a write transaction). Until the index
        has a dictionary they are stored as they are, and the one that brings the index's
        chunks to ``TRAIN_MIN`` trains it (see ``train``)."""
        if not texts:
            return []
        pack = self.current()
        if pack is not None:
            return [pack(text) for text in texts]
        if self._plain < 0:
            self._plain = int(self.conn.execute("SELECT COUNT(*) FROM chunk_rows").fetchone()[0])
        self._plain += len(texts)
        if self._plain >= TRAIN_MIN:
            return list(map(self.train(texts), texts))
        return list(texts)

    def train(self, texts: Sequence[str]) -> Packer:
        """Train the index's dictionary on its chunks so far and ``texts`` (about to be
        written, or a sample of what a rebuild will write), store it, compress the rows
        already written with it, and return its packer (inside a write transaction)."""
        plain = self.conn.execute(
            "SELECT id, text FROM chunk_rows WHERE typeof(text) = 'text' AND length(text) >= ?",
            (SHORT,),
        ).fetchall()
        step = max(1, (len(plain) + len(texts)) // TRAIN_SAMPLE)
        zdict = train([*(text for _, text in plain), *texts][::step])
        dict_id = next_dict_id(self.conn)
        self.conn.execute("INSERT INTO text_dicts (id, dict) VALUES (?, ?)", (dict_id, zdict))
        pack = packer(dict_id, zdict)
        self.conn.executemany(
            "UPDATE chunk_rows SET text = ? WHERE id = ?",
            [(stored, rowid) for rowid, text in plain if (stored := pack(text)) is not text],
        )
        self._dicts[dict_id] = zdict
        self._pack = pack
        return pack


def next_dict_id(conn: sqlite3.Connection) -> int:
    """An id no dictionary of this file had: after the highest one, and after the last one
    of the index this one replaced (``meta.text_dict_last``)."""
    return last_dict_id(conn) % _LAST_ID + 1


def last_dict_id(conn: sqlite3.Connection) -> int:
    """The newest dictionary id this file has had (0: none), to carry over a rebuild."""
    try:
        row = conn.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM text_dicts), 0),"
            " COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'text_dict_last'),"
            " 0))"
        ).fetchone()
    except sqlite3.OperationalError:  # an index of an older schema: no such table
        return 0
    return int(row[0])
