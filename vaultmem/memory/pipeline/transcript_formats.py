"""The transcript formats of agent hosts: one parsed JSONL entry in, its messages out.

Pure functions, no IO (``transcripts.py`` reads the file). What each host writes, as
studied in public parsers and docs of these formats (``docs/capture.md``):

* ``claude-code``: entries ``{"type": "user"|"assistant", "message": {"role", "content"},
  "timestamp", "sessionId", "uuid", "isMeta"?, "isSidechain"?, ...}``; ``content`` is a
  string or a list of blocks (``text``, ``tool_use``, ``tool_result``, ``thinking``,
  ``image``...). Other entry types (``summary``, ``system``, ``file-history-snapshot``...)
  carry no conversation.
* ``codex`` (Codex CLI rollout): ``{"timestamp", "type", "payload"}`` lines; ``session_meta``
  names the session, ``response_item`` with ``payload.type == "message"`` is a message
  (``content`` blocks ``input_text``/``output_text``). ``event_msg`` repeats the same words
  as events (``user_message``, ``agent_message``), so it is not read: each message once.
* ``openclaw``: a ``{"type": "session", "id"}`` header, then ``{"type": "message", "id",
  "timestamp", "message": {"role": "user"|"assistant"|"toolResult", "content"}}``;
  content blocks ``text``, ``thinking``, ``toolCall``, ``image``.
* ``gemini`` (Gemini CLI, ``~/.gemini/tmp/<project>/chats/session-*.jsonl``): a
  ``{"sessionId", "projectHash", ...}`` header, then message records ``{"id", "timestamp",
  "type": "user"|"gemini"|"info"|"error"|"warning", "content", "displayContent"?}`` whose
  content is a string, a part ``{"text", "thought"?}`` or a list of them. A record is
  written again whenever its message changes (its tokens, its tool calls), and
  ``{"$set": {...}}`` lines update the header, sometimes with the whole ``messages`` list;
  ``{"$rewindTo": id}`` marks a rewind, but what was said before it is kept.
* ``jsonl``: one object a line with ``role`` and ``content`` or ``text``, optional
  ``timestamp``/``time`` (ISO 8601 or Unix seconds/milliseconds) and ``session``/``id``.

Only words people and agents said are kept: tool calls and results, thinking, images,
system reminders and the hosts' own bookkeeping (slash-command echoes, local command output,
Codex's environment and AGENTS.md preambles, interruptions) are dropped.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from vaultmem.notes.date_range import DateOutOfRangeError, check_day, from_unix

FORMATS = ("claude-code", "codex", "openclaw", "gemini", "jsonl")


@dataclass(frozen=True)
class Message:
    """One message of a transcript, cleaned of host noise (the text may still be empty)."""

    role: str
    text: str
    time: dt.datetime | None  # as the host wrote it: aware (UTC...) or naive (local)
    session: str | None
    key: str | None  # the host's id of the message, else its timestamp as written
    out_of_range: bool = False  # its timestamp is a time no note can have: not stored


@dataclass
class Context:
    """What a transcript says once for the lines that follow (the session header)."""

    session: str | None = None


# Parts of a message's text that the host wrote, not the speaker: cut out with their
# content. ``system-reminder`` is Claude Code's injected context; the ``command-*`` and
# ``local-command-*`` tags echo slash commands and their output; ``bash-*`` the ``!``
# shell mode; Codex wraps its environment, the AGENTS.md text and aborted turns in tags.
_HOST_TAGS = (
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "user-prompt-submit-hook",
    "environment_context",
    "user_instructions",
    "INSTRUCTIONS",
    "turn_aborted",
)
_HOST_OPENING = re.compile(r"<(" + "|".join(map(re.escape, _HOST_TAGS)) + r")>", re.IGNORECASE)
_HOST_CLOSING = re.compile(r"</(" + "|".join(map(re.escape, _HOST_TAGS)) + r")>", re.IGNORECASE)
# Whole messages that are host bookkeeping, not words of the conversation.
_HOST_MESSAGES = re.compile(
    r"\[Request interrupted by user[^\]]*\]"  # Claude Code, after Esc
    r"|# AGENTS\.md instructions for [^\n]*"  # Codex, before its <INSTRUCTIONS> block
    r"|HEARTBEAT_OK|NO_REPLY"  # OpenClaw's silent replies
    r"|Read HEARTBEAT\.md if it exists\b.*",  # OpenClaw's heartbeat prompt
    re.DOTALL,
)
_TEXT_BLOCKS = ("text", "input_text", "output_text")


def clean(text: str) -> str:
    """The words of a message without what the host injected into it ("" if none are
    left)."""
    kept = _without_host_parts(text).strip()
    return "" if _HOST_MESSAGES.fullmatch(kept) else kept


def _without_host_parts(text: str) -> str:
    """``text`` without each host tag's part: from an opening tag to the first closing of
    the same tag after it (any case), leftmost first, as ``<(tag)>.*?</\\1>`` takes them.
    The closings are looked up, not searched for from each opening: that pattern read to
    the end of the text from every opening that had no closing after it (quadratic)."""
    closings: dict[str, list[tuple[int, int]]] = {}
    for closing in _HOST_CLOSING.finditer(text):
        closings.setdefault(closing[1].lower(), []).append(closing.span())
    kept: list[str] = []
    done = searched = 0
    while (opening := _HOST_OPENING.search(text, searched)) is not None:
        spans = closings.get(opening[1].lower(), [])
        after = bisect.bisect_left(spans, (opening.end(), 0))
        if after == len(spans):
            searched = opening.end()  # no closing after it: not a part, read on
            continue
        kept.append(text[done : opening.start()])
        done = searched = spans[after][1]
    kept.append(text[done:])
    return "".join(kept)


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a list (tool
    calls and results, thinking, images and unknown blocks are left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") in _TEXT_BLOCKS:
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


def parse_time(value: Any) -> dt.datetime | None:
    """A timestamp as hosts write them: ISO 8601 (``Z`` or an offset, or none: local
    time), or Unix seconds or milliseconds (``date_range.from_unix`` tells which).
    ``None`` for anything else: no time given.

    Raises:
        DateOutOfRangeError: a time, but on a date no note can have (``date_range``): the
            year 10000 in seconds is refused, not read as 1978 in milliseconds.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return from_unix(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d{9,}(\.\d+)?", value.strip()):
        return from_unix(float(value))
    if isinstance(value, str) and value.strip():
        try:
            time = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        check_day(time.date(), "the timestamp's date")
        return time
    return None


def _text(value: Any) -> str | None:
    """A non-empty string or number as text (ids are either), else ``None``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value else None


def _message(role: Any, content: Any, when: Any, session: str | None, key: Any) -> Message:
    try:
        time, out_of_range = parse_time(when), False
    except DateOutOfRangeError:
        time, out_of_range = None, True
    return Message(
        role=role if isinstance(role, str) and role else "user",
        text=clean(content_text(content)),
        time=time,
        session=session,
        key=_text(key) or (str(when) if time is not None else None),
        out_of_range=out_of_range,
    )


def claude_code(entry: Mapping[str, Any], ctx: Context) -> Iterator[Message]:
    """Claude Code: user and assistant entries of the main conversation. Meta entries
    (command caveats), sidechains (a subagent's own conversation), compaction summaries and
    API error notices are not the conversation."""
    if entry.get("type") not in ("user", "assistant"):
        return
    if entry.get("isMeta") or entry.get("isSidechain") or entry.get("isCompactSummary"):
        return
    if entry.get("isApiErrorMessage"):
        return
    message = entry.get("message")
    if not isinstance(message, Mapping):
        return
    session = _text(entry.get("sessionId")) or ctx.session
    role = message.get("role") or entry.get("type")
    yield _message(role, message.get("content"), entry.get("timestamp"), session, entry.get("uuid"))


def codex(entry: Mapping[str, Any], ctx: Context) -> Iterator[Message]:
    """Codex CLI rollout: ``response_item`` messages of the user and the assistant
    (developer and system messages are instructions, not conversation). Rollouts written
    before Codex 0.40 or so have no envelope: a ``{"id", "timestamp", "instructions"}``
    header, then the items themselves, without timestamps."""
    if _legacy_codex_header(entry):
        ctx.session = _text(entry.get("id")) or ctx.session
        return
    if entry.get("type") == "message" and "payload" not in entry:
        entry = {"type": "response_item", "payload": entry}
    payload = entry.get("payload")
    if not isinstance(payload, Mapping):
        return
    if entry.get("type") == "session_meta":
        ctx.session = _text(payload.get("id")) or ctx.session
        return
    if entry.get("type") != "response_item" or payload.get("type") != "message":
        return
    role = payload.get("role")
    if role not in ("user", "assistant"):
        return
    when = entry.get("timestamp")
    yield _message(role, payload.get("content"), when, ctx.session, payload.get("id"))


def _legacy_codex_header(entry: Mapping[str, Any]) -> bool:
    return "instructions" in entry and "id" in entry and "type" not in entry


def openclaw(entry: Mapping[str, Any], ctx: Context) -> Iterator[Message]:
    """OpenClaw session: messages of the user and the assistant (``toolResult`` messages
    are tool output)."""
    if entry.get("type") == "session":
        ctx.session = _text(entry.get("id")) or ctx.session
        return
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, Mapping):
        return
    role = message.get("role")
    if role not in ("user", "assistant"):
        return
    when = entry.get("timestamp") or message.get("timestamp")
    yield _message(role, message.get("content"), when, ctx.session, entry.get("id"))


_GEMINI_ROLES = {"user": "user", "gemini": "assistant"}  # info, error, warning: the CLI's


def gemini(entry: Mapping[str, Any], ctx: Context) -> Iterator[Message]:
    """Gemini CLI session: the user's and the model's messages (the CLI's own info, error
    and warning records are not the conversation). What the person typed is the
    ``displayContent`` when there is one (the content adds the files an ``@path`` read)."""
    update = entry.get("$set")
    if isinstance(update, Mapping):
        entry = update
    if isinstance(entry.get("projectHash"), str) or update is not None:  # the header
        ctx.session = _text(entry.get("sessionId")) or ctx.session
        records = entry.get("messages")
        for record in records if isinstance(records, list) else []:
            yield from _gemini_message(record, ctx)
    else:
        yield from _gemini_message(entry, ctx)


def _gemini_message(record: Any, ctx: Context) -> Iterator[Message]:
    role = _GEMINI_ROLES.get(str(record.get("type"))) if isinstance(record, Mapping) else None
    if role is None or not isinstance(record.get("id"), str):
        return
    said = record.get("displayContent") if role == "user" else None
    content = _gemini_text(said or record.get("content"))
    yield _message(role, content, record.get("timestamp"), ctx.session, record.get("id"))


def _gemini_text(content: Any) -> str:
    """The text of a Gemini content (a string, a part, or a list of either); thought parts,
    function calls and their responses are left out."""
    texts: list[str] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and not part.get("thought"):
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "\n".join(texts)


def jsonl(entry: Mapping[str, Any], ctx: Context) -> Iterator[Message]:
    """Any JSONL of messages: ``role`` plus ``content`` or ``text``; tool and system
    roles are left out."""
    role = entry.get("role")
    if not isinstance(role, str) or role.lower() in ("tool", "system", "developer", "function"):
        return
    content = entry.get("content", entry.get("text"))
    when = entry.get("timestamp", entry.get("time"))
    session = _text(entry.get("session")) or _text(entry.get("session_id")) or ctx.session
    yield _message(role, content, when, session, entry.get("id"))


PARSERS: dict[str, Callable[[Mapping[str, Any], Context], Iterator[Message]]] = {
    "claude-code": claude_code,
    "codex": codex,
    "openclaw": openclaw,
    "gemini": gemini,
    "jsonl": jsonl,
}


def detect(entries: list[Mapping[str, Any]]) -> str | None:
    """The format of a transcript from its first entries, or ``None`` if none tells."""
    for entry in entries:
        kind = entry.get("type")
        if _legacy_codex_header(entry):
            return "codex"
        if "payload" in entry and kind in ("session_meta", "response_item", "event_msg"):
            return "codex"
        if kind == "session" or (kind == "message" and isinstance(entry.get("message"), Mapping)):
            return "openclaw"
        if "projectHash" in entry or "$set" in entry or "$rewindTo" in entry or kind == "gemini":
            return "gemini"
        if kind in ("user", "assistant") and isinstance(entry.get("message"), Mapping):
            return "claude-code"
        if "sessionId" in entry or kind in ("summary", "file-history-snapshot"):
            return "claude-code"
        if isinstance(entry.get("role"), str) and ("content" in entry or "text" in entry):
            return "jsonl"
    return None
