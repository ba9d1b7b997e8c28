"""What a host's session-start hook tells about the session: the project it starts in.

A host sends its hook a JSON object with the session's working folder (``cwd``: Claude
Code, Codex). The first block of a session should be about the work at hand, so with no
query the block recalls for the project's name: the top folder of the git repository the
session starts in (``~/code/atlas`` for a session in ``~/code/atlas/api``), else the
folder's own name. A session in the home folder, at the root, or in the vault itself is
about no project in particular: no query, as before. Nothing is run: the repository's top
folder is found by looking for ``.git`` in the folder and those above it.
"""

from __future__ import annotations

from pathlib import Path


def project_of(hook_input: dict[str, object], vault_root: Path) -> str | None:
    """The name of the project a session starts in, from its hook's JSON; ``None`` when
    the JSON names no folder, or one that is no project's (see the module's docstring)."""
    cwd = hook_input.get("cwd")
    if not isinstance(cwd, str) or not cwd.strip() or "\0" in cwd:
        return None
    try:
        folder = Path(cwd).expanduser().resolve()
        home = Path.home().resolve()
        vault = vault_root.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if folder in (home, Path(folder.anchor)) or folder.is_relative_to(vault):
        return None
    top = next((p for p in (folder, *folder.parents) if _has_git(p)), folder)
    if top in (home, Path(top.anchor)):
        top = folder  # dotfiles kept in git at home: the folder is the project
    return top.name or None


def _has_git(folder: Path) -> bool:
    try:
        return (folder / ".git").exists()
    except OSError:
        return False
