"""Every exception a vaultmem user may see.

Each error's text is written for a person: what happened, where, and what to try next.
The CLI prints it as one line (``Error: ...``) and exits with code 1; anything that is not
a ``VaultmemError`` is a bug and keeps its traceback. A vault path in such a text (and
in the CLI's output) is written by ``shown_path``, so that it stays one line.
"""

from __future__ import annotations

import os
import re


class VaultmemError(Exception):
    """Base class of all errors vaultmem reports to a user."""


class VaultNotFoundError(VaultmemError):
    """No vault at the given path, or none found walking up from the current folder."""


class NotStoredError(VaultmemError):
    """A memory could not be written (``remember``); nothing of it was stored, so an agent
    may retry it."""


class PathOutsideVaultError(VaultmemError):
    """A path names something outside the vault (directly, with ``..`` or via a symlink)."""


class BadPathError(VaultmemError):
    """A path no file can have (``path_problem``): the file system would refuse it with an
    exception that is no ``OSError`` (a NUL byte) or with one that says nothing of which
    argument was wrong."""


# What the file systems vaultmem runs on allow: a name of at most 255 bytes (Linux,
# macOS, Windows alike) and a whole path of at most 4,095 (Linux's PATH_MAX less its NUL).
NAME_MAX_BYTES = 255
PATH_MAX_BYTES = 4095


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why no file can have ``path``, or ``None``: a NUL byte (``open`` raises
    ``ValueError``), a name over 255 bytes or a path over 4,095 (``ENAMETOOLONG``), or text
    the file system cannot encode (a lone surrogate such as ``\\ud800`` from JSON). Pure:
    nothing is looked up, so a path that passes may still not exist."""
    text = os.fspath(path)
    if "\0" in text:
        return "holds a NUL byte, which no file name can"
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError:
        return "holds text that is not valid in a file name (a lone surrogate)"
    longest = max((len(name) for name in encoded.split(b"/")), default=0)
    if longest > NAME_MAX_BYTES:
        return f"has a name of {longest} bytes; a file name has at most {NAME_MAX_BYTES}"
    if len(encoded) > PATH_MAX_BYTES:
        return f"is {len(encoded):,} bytes long; a path has at most {PATH_MAX_BYTES:,}"
    return None


def check_path(path: str | os.PathLike[str], what: str) -> None:
    """Refuse a path a person or an agent gave that no file can have, before it meets the
    file system (``path_problem``), in one line that names ``what`` it was.

    Raises:
        BadPathError: ``path`` has such a problem.
    """
    problem = path_problem(path)
    if problem is not None:
        raise BadPathError(f"{what} {_shown(os.fspath(path))} {problem}")


def _shown(text: str, keep: int = 60) -> str:
    """A path as an error line shows it: surrogates escaped (they cannot be printed), a
    long one shortened to its start and its end, control characters quoted."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown_path(text if len(text) <= 2 * keep else f"{text[:keep]}…{text[-keep:]}")


class NotANoteError(VaultmemError):
    """A path inside the vault names something that is not one of its notes (a dot-folder
    such as ``.git``, a file the index leaves out, an attachment); only notes are read."""


class ConfigError(VaultmemError):
    """``.vaultmem/config.toml`` cannot be read or holds an invalid value."""


class IndexLockedError(VaultmemError):
    """Another process held the index database for longer than the busy timeout."""


class GitError(VaultmemError):
    """A git operation failed; the message carries git's own reason."""


class QueryTooLongError(VaultmemError):
    """A query over the bounds of a search (``query.MAX_QUERY_CHARS`` characters or
    ``query.MAX_QUERY_TERMS`` terms): its cost would grow with every term, for one caller
    and, on a shared server, in the time of everyone else's."""


class DaemonRunningError(VaultmemError):
    """A ``vaultmem watch`` daemon already holds this vault."""


class Interrupted(VaultmemError):
    """An index run was asked to stop midway; nothing of it was written."""


class AmbiguousIdError(VaultmemError):
    """A block id names more than one line; the message lists them and how to pick one."""


class EmbeddingError(VaultmemError):
    """An embedder cannot be loaded (its package is missing) or failed to embed (an
    embeddings server is down or answered nonsense)."""


class LLMError(VaultmemError):
    """The LLM pass of ``consolidate --llm`` cannot start (``[llm]`` lacks its url or
    model, or its API key variable is unset). A server that is down or answers nonsense
    is not an error: the rules decide, and the run says so in one notice."""


def shown_path(rel: str) -> str:
    """A path as one unambiguous line of plain output: a name holding a newline, a tab or
    another control character is quoted, with C-style escapes (as git's ``core.quotePath``
    does), so ``path:line`` output cannot be split or faked by a file name."""
    if rel.startswith('"') or not rel.isprintable():  # control characters are not printable
        return _quoted(rel)
    return rel


def _quoted(rel: str) -> str:
    control = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # compiled here: seldom needed
    if not control.search(rel) and not rel.startswith('"'):
        return rel
    escapes = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"'}

    def escape(char: str) -> str:
        if char in escapes:
            return escapes[char]
        if control.match(char):
            return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
        return char

    return '"' + "".join(escape(char) for char in rel) + '"'
