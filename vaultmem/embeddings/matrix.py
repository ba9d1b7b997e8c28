"""The nearest-neighbour matrix, ``.vaultmem/vectors.matrix``: every embedded chunk's vector
in a compact, memory-mapped form, so a search scores them all without SQLite extensions.

Per chunk row (aligned to ``chunks.id`` of ``index.db``): its ``chunk_id`` (a digest of
its content, to drop a row whose id was reused), sign bits of its vector minus the mean
vector (48 bytes at 384 dimensions: a first pass by Hamming distance), and int8 values
with a float32 scale (the rescoring pass). Measured on 266k x 384 (2 cores): float32
``M @ q`` 40 ms (and 400 MB), int8 150 ms (numpy converts it), the sign pass 8 ms; so
large matrices take the sign pass first and rescore a pool of candidates in int8, small
ones are scored whole.

Rows are ranked by their cosine with the query measured from the mean of their own
language's rows (``lang``: CJK or not, from the chunk's text; ``means``, ``norms``), the
query from its language's mean: a model puts every text of one language near every other
(a Chinese question nearer to any Chinese note than to the English note that answers it),
and a vault's texts share a subject, so each raw cosine carries what all of them have in
common. Measured from the means, what is left is what this text says
(docs/embeddings.md, "Ranking"). The raw cosine is kept for the floor (``floor.py``).

The file records the index's and the store's generation tokens; when either changed, the
next search refreshes it, reusing every row whose (id, chunk_id) is unchanged and asking
the store only for the rest. It is written to a temp file and renamed, so a reader never
sees half of it. Deleting it is safe: the next search builds it again.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vaultmem.embeddings.files import VECTORS_FILE, MatrixCache
from vaultmem.embeddings.protocol import member_models
from vaultmem.embeddings.store import EMBEDDABLE, VectorStore, embedded_text, text_hash, with_store
from vaultmem.notes.cjk import mostly_cjk

if TYPE_CHECKING:
    import numpy.typing as npt

    from vaultmem.embeddings.protocol import Matrix

MATRIX_FILE = "vectors.matrix"
_MAGIC = b"VMMATRIX3\n"  # 2: language means and norms; 3: an ensemble's parts
# Below this many rows every row is rescored in int8 (the sign pass only pays off above).
_WHOLE = 20_000
# Candidates the sign pass hands to int8 rescoring. On 266k synthetic rows (mixes of real
# LoCoMo vectors) the exact top 10 was found 0.59 / 0.73 / 0.85 with 2k / 5k / 10k, while
# rescoring 10k rows costs a few ms: so 10k. Centering the bits on the mean vector matters
# (0.54 at 10k without).
_POOL = 10_000
# A larger ``wanted`` widens the pool by this much a row (hybrid search asks for ~500
# rows: 100 a row made a 48k pool, whose rescoring took 60 ms of a 110 ms search).
_POOL_PER_ROW = 20
_KEY = "S24"  # chunk ids: 16 hex digits and a "-N" suffix for repeats within a note


def embeddable_rows(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """``(id, chunk_id)`` of every chunk that is embedded (``store.EMBEDDABLE``)."""
    rows = conn.execute(f"SELECT id, chunk_id FROM chunks WHERE {EMBEDDABLE}")
    return [(int(r[0]), str(r[1])) for r in rows]


@dataclass
class VectorMatrix:
    """The loaded matrix (arrays memory-mapped from the file)."""

    model: str
    dim: int
    generations: tuple[str, str]  # (index, store) tokens it was built from
    total: int  # chunks that can be embedded, embedded or not (for "N of M embedded")
    ids: npt.NDArray[np.int64]
    keys: npt.NDArray[np.bytes_]
    scale: npt.NDArray[np.float32]
    rows: npt.NDArray[np.int8]
    bits: npt.NDArray[np.uint64]
    mean: npt.NDArray[np.float32]
    mean_of: int  # how many rows the mean was taken over
    lang: npt.NDArray[np.uint8]  # 1: the chunk is mostly CJK (``mostly_cjk``), else 0
    means: npt.NDArray[np.float32]  # the mean row of each language
    norms: npt.NDArray[np.float32]  # each row's parts' lengths from their language's mean
    means_of: tuple[int, int]  # rows of each language the means were taken over
    parts: tuple[int, ...]  # the dimensions of the models a row joins (``member_models``)

    def __len__(self) -> int:
        return len(self.ids)

    def nearest(
        self, query: Matrix, wanted: int, language: int = 0
    ) -> tuple[npt.NDArray[np.intp], Matrix]:
        """Positions of the (about) ``wanted`` rows closest to ``query``, a text of
        ``language`` (1: mostly CJK), best first, and their cosine measured from their
        languages' means (see the module docstring)."""
        n = len(self)
        if n == 0:
            return np.zeros(0, np.intp), np.zeros(0, np.float32)
        if n <= max(_WHOLE, wanted * 4):
            pool = np.arange(n)
        else:
            size = min(n, max(wanted * _POOL_PER_ROW, _POOL))
            signs = _sign_bits((query - self.mean)[None, :])[0]
            distance = _hamming(self.bits, signs)
            pool = np.sort(np.argpartition(distance, size - 1)[:size])
        scores = self.centred(pool, query, language)
        best = min(wanted, len(pool))
        top = np.argpartition(-scores, best - 1)[:best]
        top = top[np.argsort(-scores[top], kind="stable")]
        return pool[top], scores[top]

    def centred(self, positions: npt.NDArray[np.intp], query: Matrix, language: int) -> Matrix:
        """The cosine of each row at ``positions`` with ``query``, each measured from the
        mean of its own language's rows: ``(c - m_c) . (q - m_q) / |c - m_c| |q - m_q|``,
        of which only ``c . (q - m_q)`` is computed per row; for an ensemble, the mean of
        that cosine over its members' parts, weighted as its name says."""
        scores = np.zeros(len(positions), np.float32)
        weights = [weight for _, weight in member_models(self.model)]
        for part, at in enumerate(part_slices(self.parts)):
            moved = query[at] - self.means[language, at]
            length = float(np.linalg.norm(moved))
            if length == 0:
                return self.products(positions, query)
            moved /= length
            offsets = (self.means[:, at] @ moved).astype(np.float32)  # m_c . (q - m_q)
            cosines = self.products(positions, moved, at)
            cosines -= offsets[self.lang[positions]]
            scores += cosines * (weights[part] / self.norms[positions, part])
        return scores

    def products(
        self, positions: npt.NDArray[np.intp], vector: Matrix, at: slice = slice(None)
    ) -> Matrix:
        """The dot product of ``vector`` with each row at ``positions`` (their cosine
        similarity, for a query); with ``at``, with those dimensions of each row (an
        ensemble member's part), ``vector`` being as long as they are."""
        # einsum, not ``@``: BLAS runs a matrix-vector product on a pool of threads that
        # then spin, and on a busy machine they took the cores from the rest of the search
        # (a hybrid search's p50 83 ms against 46 ms with one BLAS thread, at load 2.7).
        # einsum's own loop runs on this thread and reads the int8 rows as they are.
        rows = self.rows[positions, at]
        products: Matrix = np.einsum("ij,j->i", rows, vector, dtype=np.float32, casting="unsafe")
        products *= self.scale[positions]
        return products


def part_slices(parts: tuple[int, ...]) -> list[slice]:
    """Where each of ``parts`` lies in a row."""
    ends = np.cumsum((0, *parts)).tolist()
    return [slice(a, b) for a, b in zip(ends, ends[1:], strict=False)]


def _hamming(bits: npt.NDArray[np.uint64], signs: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint16]:
    """Each row's Hamming distance to ``signs``: the words' bit counts added column by
    column (numpy's ``sum(axis=1)`` over 6 columns took 3x as long on 226k rows)."""
    counts = np.bitwise_count(bits ^ signs)
    distance: npt.NDArray[np.uint16] = counts[:, 0].astype(np.uint16)
    for column in range(1, counts.shape[1]):
        distance += counts[:, column]
    return distance


def _sign_bits(rows: Matrix) -> npt.NDArray[np.uint64]:
    packed = np.packbits(rows > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


def load(path: Path, cache: MatrixCache | None = None) -> VectorMatrix | None:
    """The matrix in ``path``, or ``None`` if there is none or it cannot be read; with
    ``cache``, the mapping it holds while the file is unchanged (``MatrixCache``)."""
    return _read(path) if cache is None else cache.get(path, _read)


def _read(path: Path) -> VectorMatrix | None:
    try:
        with path.open("rb") as f:
            if f.read(len(_MAGIC)) != _MAGIC:
                return None
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(size))
            # One mapping for every array: a mapping holds the file open, and
            # ``np.memmap`` per array held six descriptors for each matrix.
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        arrays: dict[str, Any] = {}
        for name, (offset, dtype, shape) in header["arrays"].items():
            count = int(np.prod(shape))
            arrays[name] = (
                np.frombuffer(mapped, dtype=dtype, count=count, offset=offset).reshape(shape)
                if count
                else np.zeros(shape, dtype=dtype)
            )
        return VectorMatrix(
            header["model"],
            header["dim"],
            tuple(header["generations"]),
            header["total"],
            mean_of=header["mean_of"],
            means_of=tuple(header["means_of"]),
            parts=tuple(header["parts"]),
            **arrays,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, matrix: VectorMatrix) -> None:
    names = ("ids", "keys", "scale", "rows", "bits", "mean", "lang", "means", "norms")
    arrays = {name: np.ascontiguousarray(getattr(matrix, name)) for name in names}
    layout: dict[str, tuple[int, str, list[int]]] = {}
    offset = 0
    for name, array in arrays.items():
        layout[name] = (offset, array.dtype.str, list(array.shape))
        offset += (array.nbytes + 63) // 64 * 64
    header = {
        "model": matrix.model,
        "dim": matrix.dim,
        "generations": list(matrix.generations),
        "total": matrix.total,
        "mean_of": matrix.mean_of,
        "means_of": list(matrix.means_of),
        "parts": list(matrix.parts),
        "arrays": layout,
    }
    # Offsets are relative to the data start; fix them once the header's size is known.
    start = len(_MAGIC) + 8 + 4096
    for name, (rel, dtype, shape) in layout.items():
        layout[name] = (start + rel, dtype, shape)
    blob = json.dumps(header).encode().ljust(4096)
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + len(blob).to_bytes(8, "little") + blob)
            for name, array in arrays.items():
                f.seek(layout[name][0])
                f.write(array.tobytes())
            f.truncate(start + offset)
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def current(
    path: Path,
    conn: sqlite3.Connection,
    store: VectorStore,
    model: str,
    cache: MatrixCache | None = None,
) -> VectorMatrix | None:
    """The matrix for ``model``, refreshed first if the index or the store changed since it
    was built; ``None`` when the store holds no vectors of ``model``. ``cache`` keeps the
    mapping for the next call (``load``)."""
    dims = [store.dim(name) for name, _ in member_models(model)]
    if None in dims:
        return None
    parts = tuple(int(d or 0) for d in dims)
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    generations = ("" if row is None else str(row[0]), store.generation())
    old = load(path, cache)
    if old is not None and (old.model, old.parts) != (model, parts):
        old = None  # another model, or this model at another dimension: no row is reusable
    if old is not None and old.generations == generations:
        return old
    fresh = build(conn, store, model, parts, generations, old)
    with contextlib.suppress(OSError):  # a read-only vault still searches
        _write(path, fresh)
    return fresh


def of_vault(
    conn: sqlite3.Connection,
    state_dir: Path,
    model: str,
    notices: list[str],
    cache: MatrixCache | None = None,
) -> VectorMatrix | None:
    """The current matrix of ``model`` for the vault whose state is in ``state_dir``;
    ``None`` when it has no vectors of ``model``. ``cache`` keeps the mapping (``load``)."""
    if not (state_dir / VECTORS_FILE).exists():
        return None
    path = state_dir / MATRIX_FILE
    return with_store(state_dir, lambda store: current(path, conn, store, model, cache), notices)


def build(
    conn: sqlite3.Connection,
    store: VectorStore,
    model: str,
    parts: tuple[int, ...],
    generations: tuple[str, str],
    old: VectorMatrix | None = None,
) -> VectorMatrix:
    """A matrix of every embedded chunk, reusing the rows of ``old`` that still match;
    ``parts``: the dimension of each of ``model``'s members (``member_models``)."""
    dim = sum(parts)
    reuse: dict[tuple[int, bytes], int] = {}
    if old is not None:
        # tolist(): one conversion of each memory-mapped column, where indexing it row by
        # row cost 0.6 s for 226,000 rows.
        pairs = zip(old.ids.tolist(), old.keys.tolist(), strict=True)
        reuse = {pair: position for position, pair in enumerate(pairs)}
    kept: list[tuple[int, str, int]] = []  # (id, chunk_id, position in old)
    missing: list[tuple[int, str]] = []
    rows_now = embeddable_rows(conn)
    for rowid, chunk_id in rows_now:
        position = reuse.get((rowid, chunk_id.encode()))
        if position is None:
            missing.append((rowid, chunk_id))
        else:
            kept.append((rowid, chunk_id, position))
    new_ids, new_keys, fresh, new_lang = _fetch(conn, store, model, parts, missing)
    old_rows = np.array([p for _, _, p in kept], dtype=np.intp)
    ids = np.array([i for i, _, _ in kept] + new_ids, dtype=np.int64)
    keys = np.array([k for _, k, _ in kept] + new_keys, dtype=_KEY)
    old_lang = old.lang[old_rows] if old is not None else np.zeros(0, np.uint8)
    lang = np.concatenate([old_lang, new_lang])
    # The new vectors stay float16, as stored, and are widened a block at a time: at
    # 226,000 of them, float32 copies and their temporaries took 1.7 GB.
    quantised = [_quantise(block) for block in _widened(fresh, dim)]
    q_rows = np.concatenate([q for q, _ in quantised])
    q_scale = np.concatenate([s for _, s in quantised])
    count = len(old_rows) + len(fresh)
    if old is not None and len(old_rows) and old.mean_of / 2 <= count <= old.mean_of * 2:
        mean, mean_of = np.asarray(old.mean), old.mean_of
        rows = np.concatenate([old.rows[old_rows], q_rows])
        scale = np.concatenate([old.scale[old_rows], q_scale])
        bits = np.concatenate([old.bits[old_rows], _bits_about(fresh, mean, dim)])
    elif old is not None and len(old_rows):
        # The vault doubled or halved since the mean was taken: bits centred on a stale
        # mean split the rows less evenly, and the sign pass finds fewer true neighbours.
        rows = np.concatenate([old.rows[old_rows], q_rows])
        scale = np.concatenate([old.scale[old_rows], q_scale])
        mean, bits = _centred_bits(rows, scale, dim)
        mean_of = count
    else:
        total = sum((b.sum(axis=0, dtype=np.float64) for b in _widened(fresh, dim)), np.zeros(dim))
        mean = (total / max(len(fresh), 1)).astype(np.float32)
        rows, scale, bits, mean_of = q_rows, q_scale, _bits_about(fresh, mean, dim), count
    counts = (int((lang == 0).sum()), int((lang == 1).sum()))
    if old is not None and len(old_rows) and _near(old.means_of, counts):
        # As for the mean: the languages' means are kept until a language's rows double
        # or halve (or it gets its first rows), so only the new rows' norms are computed.
        means, means_of = np.asarray(old.means), old.means_of
        norms = np.concatenate(
            [old.norms[old_rows], _norms(q_rows, q_scale, new_lang, means, parts)]
        ).astype(np.float32)
    else:
        means, means_of = _language_means(rows, scale, lang, dim), counts
        norms = _norms(rows, scale, lang, means, parts)
    order = np.argsort(ids, kind="stable")
    return VectorMatrix(
        model,
        dim,
        generations,
        len(rows_now),
        ids[order],
        keys[order],
        scale[order],
        rows[order],
        bits[order],
        mean.astype(np.float32),
        mean_of,
        lang[order],
        means.astype(np.float32),
        norms[order],
        means_of,
        parts,
    )


def _near(before: tuple[int, int], now: tuple[int, int]) -> bool:
    """Whether each language's rows are within half to twice what they were (a language
    that had none, and has some now, is not)."""
    return all(b / 2 <= n <= b * 2 if b else n == 0 for b, n in zip(before, now, strict=True))


# A mean needs this many rows: the mean of one row is the row itself, and measured from it
# the row has no direction left (its cosine with anything is noise); of a few, it is mostly
# each of them.
_FEWEST = 10


def _language_means(
    rows: npt.NDArray[np.int8],
    scale: npt.NDArray[np.float32],
    lang: npt.NDArray[np.uint8],
    dim: int,
) -> Matrix:
    """The mean row of each language (0: not CJK, 1: CJK), in blocks. A language of fewer
    than ``_FEWEST`` rows gets the mean of all rows, and when they are fewer too, zeros:
    the rows of a vault that small are ranked by their plain cosine."""
    totals = np.zeros((2, dim), np.float64)
    for at, part in _dequantised(rows, scale):
        for language in (0, 1):
            totals[language] += part[lang[at] == language].sum(axis=0)
    counts = np.bincount(lang, minlength=2).astype(np.float64)
    overall = totals.sum(axis=0) / len(rows) if len(rows) >= _FEWEST else np.zeros(dim)
    means = np.where(counts[:, None] >= _FEWEST, totals / np.maximum(counts, 1)[:, None], overall)
    return means.astype(np.float32)


def _norms(
    rows: npt.NDArray[np.int8],
    scale: npt.NDArray[np.float32],
    lang: npt.NDArray[np.uint8],
    means: Matrix,
    parts: tuple[int, ...],
) -> npt.NDArray[np.float32]:
    """The length of each row's parts measured from its language's mean, ``(rows, parts)``
    (never 0: it divides)."""
    lengths = []
    for at, block in _dequantised(rows, scale):
        moved = block - means[lang[at]]
        lengths.append(
            np.stack([np.linalg.norm(moved[:, p], axis=1) for p in part_slices(parts)], 1)
        )
    joined = np.concatenate(lengths) if lengths else np.zeros((0, len(parts)), np.float32)
    return np.maximum(joined, 1e-6).astype(np.float32)


_BLOCK = 20_000  # rows widened to float32 at a time


def _widened(halves: npt.NDArray[np.float16], dim: int) -> Iterator[Matrix]:
    """float16 rows as float32, a block at a time (one empty block when there are none)."""
    if not len(halves):
        yield np.zeros((0, dim), np.float32)
    for start in range(0, len(halves), _BLOCK):
        yield halves[start : start + _BLOCK].astype(np.float32)


def _bits_about(halves: npt.NDArray[np.float16], mean: Matrix, dim: int) -> npt.NDArray[np.uint64]:
    """The sign bits of float16 rows about ``mean``, a block at a time."""
    return np.concatenate([_sign_bits(block - mean) for block in _widened(halves, dim)])


def _centred_bits(
    rows: npt.NDArray[np.int8], scale: npt.NDArray[np.float32], dim: int
) -> tuple[Matrix, npt.NDArray[np.uint64]]:
    """The mean of the int8 rows (as floats) and their sign bits about it, in blocks so a
    large matrix is never held in float32 whole."""
    total = np.zeros(dim, np.float64)
    for _, part in _dequantised(rows, scale):
        total += part.sum(axis=0)
    mean = (total / max(len(rows), 1)).astype(np.float32)
    bits = [_sign_bits(part - mean) for _, part in _dequantised(rows, scale)]
    return mean, np.concatenate(bits) if bits else _sign_bits(np.zeros((0, dim), np.float32))


def _dequantised(
    rows: npt.NDArray[np.int8], scale: npt.NDArray[np.float32]
) -> Iterator[tuple[slice, Matrix]]:
    """The int8 rows as float32, ``_BLOCK`` rows at a time, each with its slice."""
    for start in range(0, len(rows), _BLOCK):
        at = slice(start, start + _BLOCK)
        yield at, rows[at].astype(np.float32) * scale[at, None]


def _fetch(
    conn: sqlite3.Connection,
    store: VectorStore,
    model: str,
    parts: tuple[int, ...],
    wanted: list[tuple[int, str]],
) -> tuple[list[int], list[str], npt.NDArray[np.float16], npt.NDArray[np.uint8]]:
    """The ids, chunk ids, vectors (float16 rows, as stored; an ensemble's members' side by
    side, each scaled by 1/sqrt(members): a unit row) and languages (1: mostly CJK) of the
    wanted chunks that have a vector of each of ``model``'s members."""
    names = [name for name, _ in member_models(model)]
    weight = 1 / np.sqrt(len(names))
    ids: list[int] = []
    keys: list[str] = []
    languages: list[int] = []
    vectors = np.empty((len(wanted), sum(parts)), np.float16)
    for start in range(0, len(wanted), 500):
        part = dict(wanted[start : start + 500])
        marks = ",".join("?" * len(part))
        texts = conn.execute(
            f"SELECT id, chunk_id, heading, text FROM chunks WHERE id IN ({marks})", list(part)
        ).fetchall()
        digests = {r[0]: text_hash(embedded_text(r[2], r[3])) for r in texts if part[r[0]] == r[1]}
        cjk = {r[0]: mostly_cjk(r[3]) for r in texts}
        found = [store.get(name, list(set(digests.values()))) for name in names]
        for rowid, digest in digests.items():
            # A vector of another dimension is left over from before the model changed.
            pieces = [f[digest] for f in found if digest in f]
            if [piece.shape for piece in pieces] != [(d,) for d in parts]:
                continue
            vectors[len(ids)] = pieces[0] if len(pieces) == 1 else np.concatenate(pieces) * weight
            ids.append(rowid)
            keys.append(part[rowid])
            languages.append(cjk[rowid])
    return ids, keys, vectors[: len(ids)], np.array(languages, dtype=np.uint8)


def _quantise(rows: Matrix) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """int8 rows and their scale: row ~= int8 x scale, each row using its full range."""
    peak = np.abs(rows).max(axis=1) if len(rows) else np.zeros(0, np.float32)
    scale = np.where(peak == 0, 1.0, peak / 127).astype(np.float32)
    return np.round(rows / scale[:, None]).astype(np.int8), scale
