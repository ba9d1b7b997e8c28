"""Installing vaultmem's hooks into an agent host's own settings file, and taking them out.

A host (Claude Code, Codex, Gemini CLI) runs a shell command on its lifecycle events and
keeps the list in a JSON file of the person's: Claude Code's and Gemini CLI's
``settings.json``, Codex's ``hooks.json``. All share one shape::

    {"hooks": {"SessionStart": [{"matcher": "...", "hooks": [{"type": "command",
                                                               "command": "..."}]}]}}

This module owns the edit of that file, and promises (``docs/agents.md``):

* **Nothing of anyone else's changes**: every other key, every other event, every other
  matcher group and every other hook of the same group is kept as it was. Only our own
  hooks are added, replaced or removed.
* **Ours** is any command hook whose command runs vaultmem's ``context --hook`` or
  ``capture --hook`` (``is_ours``); so a second install changes nothing, an install with
  another vault rewrites only our commands, in place, and ``uninstall`` finds them even if
  the person moved them into a matcher group of their own or added a ``timeout``.
* **Clean removal**: a matcher group, an event list or the ``hooks`` object that only our
  hooks filled is removed with them; one that was empty before stays.
* **Refusal, not repair** and **safe writes**: ``settings_file.py``.

The merge itself (``with_ours``, ``without_ours``) is pure: dicts in, a dict out.
"""

from __future__ import annotations

import copy
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultmem.agent import HOOK_FLAG, HOOK_HOSTS, HOST_FLAG
from vaultmem.agent.settings_file import HookConfigError, Settings, edit_settings

SCOPES = ("user", "project")
_ROLES = ("context", "capture")
_EXECUTABLES = ("vaultmem", "vaultmem.exe")


@dataclass(frozen=True)
class Host:
    """An agent host whose hook file vaultmem can edit."""

    name: str
    label: str
    #: event name -> what vaultmem runs on it ("context" prints the block, "capture" stores
    #: the session's transcript).
    events: dict[str, str]
    home_env: str  # the variable that moves the host's user folder
    home_dir: str  # the user folder's name under $HOME
    project_dir: str  # the project folder's name under the project's root
    file_name: str
    #: ``home_env`` stands for $HOME (the user folder is ``home_dir`` inside it), not for
    #: the user folder itself.
    env_is_home: bool = False

    def settings_path(self, scope: str, cwd: Path | None = None) -> Path:
        """The file this host reads its hooks from, for the ``user`` or ``project`` scope."""
        if scope == "user":
            moved = os.environ.get(self.home_env)
            if not moved:
                base = Path.home() / self.home_dir
            elif self.env_is_home:
                base = Path(moved).expanduser() / self.home_dir
            else:
                base = Path(moved).expanduser()
        else:
            base = (cwd or Path.cwd()) / self.project_dir
        return base / self.file_name


HOSTS: dict[str, Host] = {
    "claude-code": Host(
        name="claude-code",
        label="Claude Code",
        events={
            "SessionStart": "context",
            "Stop": "capture",
            "PreCompact": "capture",
            "SessionEnd": "capture",
        },
        home_env="CLAUDE_CONFIG_DIR",
        home_dir=".claude",
        project_dir=".claude",
        file_name="settings.json",
    ),
    # Codex reads the same JSON shape from hooks.json beside config.toml; it has no
    # SessionEnd event (Stop fires after every turn, so the transcript is captured anyway).
    "codex": Host(
        name="codex",
        label="Codex",
        events={"SessionStart": "context", "Stop": "capture", "PreCompact": "capture"},
        home_env="CODEX_HOME",
        home_dir=".codex",
        project_dir=".codex",
        file_name="hooks.json",
    ),
    # Gemini CLI: Claude Code's shape in settings.json under other event names. AfterAgent
    # fires after every turn; SessionEnd is not waited for, so the turns are captured as
    # they go. GEMINI_CLI_HOME stands for the home folder, not for ~/.gemini.
    "gemini": Host(
        name="gemini",
        label="Gemini CLI",
        events={
            "SessionStart": "context",
            "AfterAgent": "capture",
            "PreCompress": "capture",
            "SessionEnd": "capture",
        },
        home_env="GEMINI_CLI_HOME",
        home_dir=".gemini",
        project_dir=".gemini",
        file_name="settings.json",
        env_is_home=True,
    ),
}
assert tuple(HOSTS) == HOOK_HOSTS  # the names the CLI's --host accepts


@dataclass
class HookChange:
    """What an install or uninstall did (or, for ``show``, would do) to one settings file."""

    host: str
    scope: str
    path: Path
    settings: Settings  # the file's content afterwards
    changed: bool  # the content differs from what the file held
    written: bool = False
    backup: Path | None = None  # the backup made by this run, if any
    commands: dict[str, str] = field(default_factory=dict)  # event -> our command

    def as_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "scope": self.scope,
            "path": str(self.path),
            "changed": self.changed,
            "written": self.written,
            "backup": str(self.backup) if self.backup else None,
            "commands": self.commands,
        }


# -- our commands ------------------------------------------------------------------------


def vaultmem_argv() -> list[str]:
    """How a hook runs this vaultmem from anywhere: the absolute path of the ``vaultmem``
    script that is running, else this Python with ``-m vaultmem`` (a host runs hooks
    outside any virtualenv, so a bare ``vaultmem`` might not be found)."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script).lower() in _EXECUTABLES and os.path.isfile(script):
        return [os.path.abspath(script)]  # not resolved: a pipx link survives upgrades
    return [sys.executable, "-m", "vaultmem"]


def hook_commands(
    host: Host, vault: Path, *, agent: str | None = None, argv: list[str] | None = None
) -> dict[str, str]:
    """The shell command vaultmem installs on each of ``host``'s events, quoted for sh: it
    names the host, whose hooks may want their answer in a form of their own."""
    base = argv if argv is not None else vaultmem_argv()
    tail = [HOST_FLAG, host.name, "--vault", str(vault), *(["--agent", agent] if agent else [])]
    return {
        event: shlex.join([*base, role, HOOK_FLAG, *tail]) for event, role in host.events.items()
    }


def is_ours(handler: object) -> bool:
    """Whether a hook entry runs vaultmem's ``context --hook`` or ``capture --hook``: by the
    words of its command (``.../vaultmem context --hook``, ``python -I -m vaultmem capture
    --hook``), whatever the path, the quoting or the other keys of the entry. vaultmem must
    be the program run, not an argument of another one (``echo vaultmem ...``)."""
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: not a command we wrote
        return False
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value before the program
    rest = _vaultmem_arguments(words)
    return rest is not None and rest[:1] in (["context"], ["capture"]) and HOOK_FLAG in rest


def _vaultmem_arguments(words: list[str]) -> list[str] | None:
    """The arguments given to vaultmem, if ``words`` run it (as a script, or as an
    interpreter's ``-m vaultmem`` after only options); else ``None``."""
    if not words:
        return None
    if os.path.basename(words[0]).lower() in _EXECUTABLES:
        return words[1:]
    for i, word in enumerate(words[1:], 1):
        if word == "-m":
            return words[i + 2 :] if words[i + 1 : i + 2] == ["vaultmem"] else None
        if not word.startswith("-"):
            return None
    return None


# -- the merge (pure) --------------------------------------------------------------------


def with_ours(settings: Settings, commands: dict[str, str]) -> Settings:
    """``settings`` with our hook on each event of ``commands``: an existing one of ours is
    rewritten in place (keeping its group, matcher and other keys), else a new group is
    appended; ours on any other event are removed. The input is not changed."""
    result = copy.deepcopy(settings)
    hooks = _hooks_object(result)
    for event in list(hooks):
        if event not in commands and isinstance(hooks[event], list):
            kept, removed = _drop_ours(hooks[event])
            _store(hooks, event, kept, removed)
    for event, command in commands.items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise HookConfigError(f'"hooks"."{event}" is not a list; fix it by hand first')
        hooks[event] = _put_ours(groups, command)
    result["hooks"] = hooks
    return result


def without_ours(settings: Settings) -> Settings:
    """``settings`` without any hook of ours; what only ours filled goes with them."""
    result = copy.deepcopy(settings)
    if "hooks" not in result:
        return result
    hooks = _hooks_object(result)
    total = 0
    for event in list(hooks):
        if isinstance(hooks[event], list):
            kept, removed = _drop_ours(hooks[event])
            _store(hooks, event, kept, removed)
            total += removed
    if total and not hooks:
        del result["hooks"]
    return result


def _hooks_object(settings: Settings) -> Settings:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookConfigError('"hooks" is not a JSON object; fix it by hand first')
    return hooks


def _drop_ours(groups: list[Any]) -> tuple[list[Any], int]:
    """The groups without our entries, and how many were removed; a group that held only
    ours is dropped with them."""
    kept: list[Any] = []
    removed = 0
    for group in groups:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(group, dict) and isinstance(entries, list):
            others = [entry for entry in entries if not is_ours(entry)]
            if len(others) < len(entries):
                removed += len(entries) - len(others)
                if not others:
                    continue
                group = {**group, "hooks": others}
        kept.append(group)
    return kept, removed


def _store(hooks: Settings, event: str, kept: list[Any], removed: int) -> None:
    if removed and not kept:
        del hooks[event]  # only ours filled it
    else:
        hooks[event] = kept


def _put_ours(groups: list[Any], command: str) -> list[Any]:
    """The first entry of ours gets ``command``; any further one is a duplicate and goes."""
    found = False
    result: list[Any] = []
    for group in groups:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if not (isinstance(group, dict) and isinstance(entries, list)):
            result.append(group)
            continue
        new_entries: list[Any] = []
        for entry in entries:
            if not is_ours(entry):
                new_entries.append(entry)
            elif not found:
                found = True
                new_entries.append({**entry, "type": "command", "command": command})
        if new_entries or len(new_entries) == len(entries):
            result.append({**group, "hooks": new_entries})
    if not found:
        result.append({"hooks": [{"type": "command", "command": command}]})
    return result


# -- the operations ----------------------------------------------------------------------


def host_named(name: str) -> Host:
    try:
        return HOSTS[name]
    except KeyError:
        known = ", ".join(HOSTS)
        raise HookConfigError(f"no hooks for {name!r}; vaultmem knows {known}") from None


def install(
    host: Host,
    vault: Path,
    *,
    scope: str = "user",
    agent: str | None = None,
    cwd: Path | None = None,
    argv: list[str] | None = None,
    write: bool = True,
) -> HookChange:
    """Put our hooks for ``vault`` into ``host``'s settings (with ``write=False``: only
    compute the result, for ``hooks show``)."""
    path = host.settings_path(scope, cwd)
    commands = hook_commands(host, vault, agent=agent, argv=argv)
    settings, changed, written, backup = edit_settings(
        path, lambda s: with_ours(s, commands), write=write
    )
    return HookChange(host.name, scope, path, settings, changed, written, backup, commands)


def uninstall(host: Host, *, scope: str = "user", cwd: Path | None = None) -> HookChange:
    """Take our hooks out of ``host``'s settings; a missing file stays missing."""
    path = host.settings_path(scope, cwd)
    settings, changed, written, backup = edit_settings(path, without_ours)
    return HookChange(host.name, scope, path, settings, changed, written, backup)
