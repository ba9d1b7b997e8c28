"""The ``openai`` embedder: any OpenAI-compatible ``POST {url}/embeddings`` (OpenAI, Ollama,
LM Studio, llama.cpp's server, vLLM ...), over the standard library's ``urllib``.

Texts go in batches of ``[embeddings] batch``; a request that fails (connection refused,
timeout, HTTP 429 or 5xx) is tried again ``retries`` times with a short back-off, then
becomes one ``EmbeddingError`` naming the URL. The API key is read from the environment
variable named by ``api_key_env``, never from a settings file; the URL and the variable's
name come from this device's own ``local.toml`` only (``config/device.py``, ``device_only``).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings.protocol import UNCALIBRATED, normalised
from vaultmem.errors import EmbeddingError
from vaultmem.llm.http_post import PostFailed, post_json

if TYPE_CHECKING:
    from vaultmem.embeddings.protocol import Matrix


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint."""

    # Any model a server serves: none measured (docs/embeddings.md).
    floor = UNCALIBRATED

    def __init__(self, config: EmbeddingsConfig) -> None:
        if not config.url or not config.model:
            raise EmbeddingError(
                '[embeddings] backend = "openai" needs url (e.g. http://127.0.0.1:11434/v1)'
                " in .vaultmem/local.toml, this device's own settings, and model"
            )
        self.url = config.url.rstrip("/") + "/embeddings"
        self.model = config.model
        self.name = f"openai/{config.model}"
        self.batch = config.batch
        self.timeout = config.timeout_seconds
        self.retries = config.retries
        self.key = ""
        if config.api_key_env:
            self.key = os.environ.get(config.api_key_env, "")
            if not self.key:
                raise EmbeddingError(
                    f"[embeddings] api_key_env names {config.api_key_env}, which is not set"
                )
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """The model's dimension (asked of the server once)."""
        if self._dim is None:
            self._dim = int(self.embed_query("dimension").shape[-1])
        return self._dim

    def embed_passages(self, texts: list[str]) -> Matrix:
        import numpy as np

        parts = [self._embed(texts[i : i + self.batch]) for i in range(0, len(texts), self.batch)]
        return normalised(np.concatenate(parts) if parts else np.zeros((0, self.dim)))

    def embed_query(self, text: str) -> Matrix:
        return normalised(self._embed([text])[0])

    def _embed(self, texts: list[str]) -> Any:
        body = json.dumps({"model": self.model, "input": texts}).encode()
        answer = self._post(body)
        try:
            data = sorted(answer["data"], key=lambda d: d["index"])
            vectors = [d["embedding"] for d in data]
        except (KeyError, TypeError) as exc:
            raise EmbeddingError(f"{self.url} answered without embeddings: {exc!r}") from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(
                f"{self.url} returned {len(vectors)} embeddings for {len(texts)} texts"
            )
        import numpy as np

        try:
            return np.asarray(vectors, dtype=np.float32)
        except (ValueError, TypeError) as exc:  # not numbers, or rows of uneven length
            raise EmbeddingError(f"{self.url} answered with unreadable embeddings: {exc}") from exc

    def _post(self, body: bytes) -> Any:
        try:
            data = post_json(
                self.url, body, key=self.key, timeout=self.timeout, retries=self.retries
            )
            return json.loads(data)
        except PostFailed as exc:
            problem = str(exc)
        except json.JSONDecodeError as exc:
            problem = f"an answer that is not JSON ({exc})"
        raise EmbeddingError(f"the embeddings server at {self.url} failed: {problem}")
