"""A host's hook settings file, read and written without losing anything of the person's.

What ``hooks.py`` promises about the file (``docs/agents.md``):

* **Refusal, not repair**: a file that is not UTF-8, not JSON (``1e400``, which would come
  back as ``Infinity``, counts as not JSON), not a JSON object, holds a
  key twice, is a symlink (a dotfiles manager's link would be replaced by a file) or has
  more than one hard link (the atomic write would give this name a new file and leave the
  other names with the old one) is an error naming the file, and nothing is written.
* **Safe writes**: the new file is written atomically with the old one's permissions; the
  first version vaultmem changed is kept beside it as ``<name>.vaultmem-bak`` (never
  overwritten, so it stays the version from before vaultmem); if the host rewrites the file
  while we compute, the edit is made again on top of its version.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vaultmem.errors import VaultmemError
from vaultmem.notes.writes import atomic_write

BACKUP_SUFFIX = ".vaultmem-bak"

Settings = dict[str, Any]


class HookConfigError(VaultmemError):
    """A host's settings file cannot be edited safely; nothing was written to it."""


def read_settings(path: Path) -> tuple[Settings, bytes | None]:
    """The settings object in ``path`` and the bytes it came from (``None``: no file yet;
    an empty file reads as ``{}``).

    Raises:
        HookConfigError: a symlink, a file with several hard links, unreadable, not UTF-8,
            not JSON, not an object, or a key given twice (writing it back would silently
            drop one of them).
    """
    if path.is_symlink():
        raise HookConfigError(
            f"{path} is a symlink (to {os.readlink(path)}); vaultmem does not replace it "
            "with a file: add the hooks to the file it points to, or run `vaultmem hooks "
            "show` and paste them in; nothing was written"
        )
    try:
        data = path.read_bytes()
        links = path.stat().st_nlink
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise HookConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if links > 1:
        # A safe write puts a new file in place of the name, which would leave the other
        # names (a dotfiles folder's copy) with the old hooks: the link would split.
        raise HookConfigError(
            f"{path} has {links} hard links; vaultmem does not split them (its safe write "
            "puts a new file in place of this name only): add the hooks to the file by "
            "hand (`vaultmem hooks show` prints them) or make it a single file; "
            "nothing was written"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HookConfigError(f"{path} is not UTF-8 text; nothing was written") from None
    if not text.strip():
        return {}, data
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as exc:
        if text[exc.pos : exc.pos + 2] in ("//", "/*"):  # Gemini CLI reads JSON with comments
            raise HookConfigError(
                f"{path} holds comments (line {exc.lineno}), which writing it back would "
                "drop: add vaultmem's hooks by hand (`vaultmem hooks show` prints them) or "
                "take the comments out; nothing was written"
            ) from None
        raise HookConfigError(
            f"{path} is not valid JSON ({exc}); fix it and run this again; nothing was written"
        ) from None
    except ValueError as exc:  # one of ours
        raise HookConfigError(
            f"{path} is not valid JSON ({exc}); fix it and run this again; nothing was written"
        ) from None
    if not isinstance(value, dict):
        raise HookConfigError(
            f"{path} holds a JSON {type(value).__name__}, not an object; nothing was written"
        )
    return value, data


def _unique_keys(pairs: list[tuple[str, Any]]) -> Settings:
    result: Settings = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(spelling: str) -> float:
    """A JSON number with a fraction or exponent, refused if a float cannot hold it:
    ``1e400`` would read as infinity and be written back as ``Infinity``, which no JSON
    reader (the host's included) accepts."""
    value = float(spelling)
    if not math.isfinite(value):
        raise ValueError(f"{spelling} is not a finite number")
    return value


def render(settings: Settings) -> str:
    """The file's new text: two-space indent (as Claude Code writes it), UTF-8 as is.
    ``allow_nan=False``: never write ``NaN``/``Infinity`` (``read_settings`` refuses them,
    so only a caller's own settings could hold one; better an error than a broken file)."""
    return json.dumps(settings, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def edit_settings(
    path: Path, edit: Callable[[Settings], Settings], *, write: bool = True, attempts: int = 5
) -> tuple[Settings, bool, bool, Path | None]:
    """Apply ``edit`` to the file: (new settings, changed, written, backup made).

    Compare-then-write: the file is read again just before the swap, and if it changed
    meanwhile (the host saved its settings) the edit is computed again on its new text.

    Raises:
        HookConfigError: see ``read_settings``; the file kept changing; or it cannot be
            written back (a read-only folder, a lone surrogate like ``"\\ud800"`` that UTF-8
            cannot encode, nesting too deep to parse): always before anything was written.
    """
    try:
        return _edit_settings(path, edit, write, attempts)
    except RecursionError:
        raise HookConfigError(f"{path} is nested too deeply; nothing was written") from None
    except UnicodeEncodeError:
        raise HookConfigError(
            f"{path} holds text that cannot be written as UTF-8 (a lone surrogate escape "
            "like \\ud800); nothing was written"
        ) from None
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise HookConfigError(
            f"cannot write{where}: {exc.strerror or exc}; nothing was written"
        ) from exc


def _edit_settings(
    path: Path, edit: Callable[[Settings], Settings], write: bool, attempts: int
) -> tuple[Settings, bool, bool, Path | None]:
    for _ in range(attempts):
        before, data = read_settings(path)
        after = edit(before)
        # Rendered even when nothing is written, so that ``show`` refuses what ``install``
        # could not write.
        text = render(after).encode("utf-8")
        changed = after != before
        if not (write and changed):
            return after, changed, False, None
        if _read_bytes(path) != data:
            continue  # someone wrote it meanwhile: edit their version instead
        backup = _keep_backup(path, data) if data is not None else None
        try:
            atomic_write(path, text)
        except BaseException:
            if backup is not None:  # made by this run: it would not be "from before vaultmem"
                backup.unlink(missing_ok=True)
            raise
        return after, True, True, backup
    raise HookConfigError(f"{path} kept changing while vaultmem edited it; try again")


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _keep_backup(path: Path, data: bytes) -> Path | None:
    """Save ``data`` beside ``path`` unless a backup is there already (it then holds an
    older version, from before vaultmem first changed the file). Same permissions: the
    settings may hold tokens."""
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    mode = stat.S_IMODE(path.stat().st_mode)
    try:
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return backup
