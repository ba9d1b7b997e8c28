"""POST a JSON body to an OpenAI-compatible server, with retries: the one HTTP call the
optional embeddings backend (``embeddings/openai_api.py``) and the LLM pass
(``client.py``) make, over the standard library so neither needs an SDK."""

from __future__ import annotations

import time
import urllib.error
import urllib.request


class PostFailed(Exception):
    """No answer: the server is down, timed out, or answered with an HTTP error; the
    message says which."""


def post_json(url: str, body: bytes, *, key: str, timeout: float, retries: int) -> bytes:
    """The server's answer to ``body``, after up to ``retries`` more tries with backoff (a
    rate limit or a server error only: a bad request or key will not get better).

    Raises:
        PostFailed: no answer after the tries.
    """
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    problem = ""
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(min(0.5 * 2**attempt, 8.0))
        request = urllib.request.Request(url, body, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                data: bytes = response.read()
                return data
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code} {exc.reason}"
            if exc.code != 429 and exc.code < 500:
                break
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            problem = str(getattr(exc, "reason", exc))
    raise PostFailed(problem)
