"""``remember``: one message -> one canonical line in today's daily note.

The line, as people read it in Obsidian (``docs/memory.md``)::

    - 14:03 **user** Alice is allergic to peanuts #health [source:: chat] ^m3f9a1c2e

Its block id is a digest of the session and the text, so the same message captured twice
(an agent retrying, two hooks firing) is stored once. Noise is skipped and reported, not
stored: empty text, scheduler and heartbeat lines, and echoes of vaultmem's own context
block. Secrets (API keys, tokens, passwords, private keys) are masked before anything is
written (``secrets.py`` says what counts), so they never reach a note, a fact or ``MEMORY.md``.

Everything here is pure: the file write, its lock and the indexing are ``Vault.remember``'s.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass

# MASK and mask_secrets are re-exported: callers that imported them from here keep working.
from .secrets import MASK as MASK
from .secrets import mask_secrets as mask_secrets

NOISE_PREFIXES = ("[cron:", "[heartbeat", "[memory context]")
# vaultmem's own blocks: text holding these markers is an echo of what vaultmem wrote.
ECHO_MARKERS = ("<!-- vaultmem:begin -->", "<!-- vaultmem:end -->", "<!-- vaultmem:context -->")


@dataclass(frozen=True)
class Capture:
    """A message made ready to store, or the reason it is not stored."""

    line: str | None
    block_id: str | None
    skipped: str | None = None
    masked: int = 0


def block_id(session: str | None, text: str) -> str:
    """The id of a captured line: the same session and words always give the same id."""
    normal = " ".join(text.split()).casefold()
    return "m" + hashlib.blake2b(f"{session or ''}\0{normal}".encode(), digest_size=5).hexdigest()


def capture(
    text: str,
    *,
    now: dt.datetime,
    role: str = "user",
    source: str | None = None,
    session: str | None = None,
    tags: tuple[str, ...] = (),
    importance: float | None = None,
) -> Capture:
    """Turn a message into its canonical daily-note line (pure: no IO)."""
    stripped = text.strip()
    if not stripped:
        return Capture(None, None, "empty text")
    lowered = stripped.lower()
    for prefix in NOISE_PREFIXES:
        if lowered.startswith(prefix):
            return Capture(None, None, f"noise: starts with {prefix}")
    if any(marker in stripped for marker in ECHO_MARKERS):
        return Capture(None, None, "an echo of vaultmem's own context block")
    masked_text, masked = mask_secrets(stripped)
    one_line = " ".join(masked_text.split())  # a memory is one list item: one line
    ident = block_id(session, stripped)
    parts = [f"- {now:%H:%M} **{_clean(role) or 'user'}** {one_line}"]
    parts += [
        f"#{_clean(tag).lstrip('#').replace(' ', '-')}" for tag in tags if _clean(tag).lstrip("#")
    ]
    if source:
        parts.append(f"[source:: {_clean(source)}]")
    if session:
        parts.append(f"[session:: {_clean(session)}]")
    if importance is not None:
        parts.append(f"[importance:: {importance:g}]")
    parts.append(f"^{ident}")
    return Capture(" ".join(parts), ident, None, masked)


def _clean(value: str) -> str:
    """A field value on one line, without the brackets that would end an inline field."""
    return " ".join(value.replace("[", "(").replace("]", ")").split())


def daily_note_path(day: dt.date) -> str:
    """Where a day's note lives, vault-relative."""
    return f"memory/{day.isoformat()}.md"


def daily_note_header(day: dt.date) -> str:
    """The first lines of a new daily note."""
    return f"---\ndate: {day.isoformat()}\ntype: daily\n---\n\n# {day.isoformat()}\n\n"


def append_line(old: str, line: str, ident: str, day: dt.date) -> str | None:
    """The daily note's new text with ``line`` appended, or ``None`` if the line's block id
    is already there (the same message captured twice)."""
    if re.search(rf"\^{re.escape(ident)}\s*$", old, re.M):
        return None
    if not old.strip():
        old = daily_note_header(day)
    elif not old.endswith("\n"):
        old += "\n"
    return old + line + "\n"
