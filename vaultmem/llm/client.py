"""An OpenAI-compatible chat endpoint: ``POST {url}/chat/completions`` over ``urllib``.

Each request asks for one JSON object fitting a JSON schema (``response_format`` of type
``json_schema``, ``strict``), at temperature 0 so the same question tends to get the same
answer. A request that fails (connection refused, timeout, HTTP 429 or 5xx) is tried again
``retries`` times with a short back-off, then becomes a ``ServerError``; a reply that is not
a chat completion with text in it is a ``ReplyError``. The API key is read from the
environment variable named by ``api_key_env``, never from a settings file, as the ``openai``
embedder does; the URL and the variable's name come from this device's own ``local.toml``
only (``config/device.py``, ``device_only``).
"""

from __future__ import annotations

import json
import os
from typing import Any

from vaultmem.config import LLMConfig
from vaultmem.errors import LLMError
from vaultmem.llm.http_post import PostFailed, post_json


class ServerError(LLMError):
    """The server could not be reached, timed out or answered with an HTTP error."""


class ReplyError(LLMError):
    """The server answered, but not with a chat completion holding text."""


class ChatClient:
    """One OpenAI-compatible chat completions endpoint."""

    def __init__(self, config: LLMConfig) -> None:
        """Check the settings; no request is made yet.

        Raises:
            LLMError: ``url`` or ``model`` is empty, or ``api_key_env`` names an unset variable.
        """
        if not config.url or not config.model:
            raise LLMError(
                "the LLM pass needs [llm] url (e.g. http://127.0.0.1:11434/v1) in"
                " .vaultmem/local.toml, this device's own settings, and model"
            )
        self.url = config.url.rstrip("/") + "/chat/completions"
        self.model = config.model
        self.timeout = config.timeout
        self.retries = config.retries
        self.key = ""
        if config.api_key_env:
            self.key = os.environ.get(config.api_key_env, "")
            if not self.key:
                raise LLMError(f"[llm] api_key_env names {config.api_key_env}, which is not set")

    def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> str:
        """The text of the model's reply to ``messages``, asked to fit ``schema``.

        Raises:
            ServerError: no answer (down, timed out, an HTTP error).
            ReplyError: an answer that is not a chat completion with text.
        """
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            },
        }
        return _content(self._post(json.dumps(body).encode()), self.url)

    def _post(self, body: bytes) -> bytes:
        try:
            return post_json(
                self.url, body, key=self.key, timeout=self.timeout, retries=self.retries
            )
        except PostFailed as exc:
            raise ServerError(f"the LLM server at {self.url} failed: {exc}") from exc


def _content(data: bytes, url: str) -> str:
    """The message text of a chat completion, or ``ReplyError``."""
    try:
        answer = json.loads(data)
        choice = answer["choices"][0]
        message = choice["message"]
        refusal, content = message.get("refusal"), message.get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ReplyError(f"{url} answered with something other than a chat completion") from exc
    if refusal:
        raise ReplyError(f"{url}: the model refused ({str(refusal)[:80]})")
    if choice.get("finish_reason") == "length":  # cut off: its JSON is incomplete
        raise ReplyError(f"{url}: the reply was cut off at the token limit")
    if not isinstance(content, str):
        raise ReplyError(f"{url} answered without text")
    return content
