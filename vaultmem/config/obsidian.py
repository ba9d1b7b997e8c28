"""What vaultmem reads of Obsidian's own settings in ``.obsidian/``; it never writes there.

* ``daily-notes.json`` (the Daily notes core plugin): ``folder`` and ``format``. Read only
  when ``[vault] daily_folder = "obsidian"`` asks vaultmem to keep its daily lines in the
  person's own daily notes (``docs/config.md``, "Daily notes").
* ``templates.json`` (the Templates core plugin) ``folder`` and Templater's
  ``plugins/templater-obsidian/data.json`` ``templates_folder``: a template is not a note
  (its ``{{date}}`` or ``<% tp.date.now() %>`` placeholders are not memories), so those
  folders are left out of the index and of ``validate``.

A missing, unreadable or malformed settings file means Obsidian's default: Obsidian itself
starts with defaults then, and vaultmem must open any vault a person can open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SETTINGS = ".obsidian"
DAILY_NOTES = f"{SETTINGS}/daily-notes.json"
TEMPLATES = f"{SETTINGS}/templates.json"
TEMPLATER = f"{SETTINGS}/plugins/templater-obsidian/data.json"
DEFAULT_DAILY_FORMAT = "YYYY-MM-DD"  # Obsidian's, when the setting is empty


def _settings(root: Path, rel: str) -> dict[str, Any]:
    try:
        loaded = json.loads((root / rel).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def vault_folder(value: object) -> str:
    """A folder setting as a vault-relative path (``/Daily/`` -> ``Daily``); ``""`` for the
    vault's root, for anything that is not a string, and for a path leaving the vault."""
    if not isinstance(value, str):
        return ""
    parts = [part for part in value.replace("\\", "/").strip().split("/") if part not in ("", ".")]
    return "" if ".." in parts else "/".join(parts)


def daily_notes(root: Path) -> tuple[str, str]:
    """``(folder, format)`` of Obsidian's Daily notes plugin; the vault's root and
    ``YYYY-MM-DD`` when unset, as Obsidian does."""
    found = _settings(root, DAILY_NOTES)
    fmt = found.get("format")
    return vault_folder(found.get("folder")), (
        fmt.strip() if isinstance(fmt, str) and fmt.strip() else DEFAULT_DAILY_FORMAT
    )


def template_folders(root: Path) -> tuple[str, ...]:
    """The folders Obsidian's Templates plugin and Templater read templates from."""
    found = [
        vault_folder(_settings(root, TEMPLATES).get("folder")),
        vault_folder(_settings(root, TEMPLATER).get("templates_folder")),
    ]
    # The root is never a template folder: skipping it would skip every note.
    return tuple(dict.fromkeys(folder for folder in found if folder))
