"""Settings from ``.vaultmem/config.toml`` and ``.vaultmem/local.toml``, read into a frozen
record (``load_config``).

A missing file or a missing key means the default. An unknown key or a value of the wrong
type is an error that names the key and its file, so a typo never silently does nothing.
The keys are documented in ``docs/config.md``.

The package is four modules: this one (reading the files, layering ``local.toml`` over
``config.toml``, applying Obsidian's settings), ``sections.py`` (each section's fields and
defaults, and ``Config``), ``checks.py`` (the type and range of each value) and
``device.py`` (which keys only this device's own ``local.toml`` may set: a shared file
could otherwise send a person's words to anyone's server). ``obsidian.py`` reads Obsidian's
own settings. Every public name of them is importable from here.
"""

from __future__ import annotations

from pathlib import Path

from vaultmem.config import obsidian
from vaultmem.config.checks import check_order, section_values
from vaultmem.config.device import (
    CONFIG_PATH,
    DEVICE_KEYS,
    DOWNLOADING_BACKENDS,
    LOCAL_CONFIG_PATH,
    Layer,
    Values,
    backend_in_effect,
    device_keys,
    ignored_notice,
    set_in,
)
from vaultmem.config.sections import (
    MAX_CONTEXT,
    SECTIONS,
    Config,
    ContextConfig,
    EmbeddingsConfig,
    GitConfig,
    IndexConfig,
    LLMConfig,
    MemoryConfig,
    ScoringConfig,
    SearchConfig,
    VaultConfig,
)
from vaultmem.errors import ConfigError

__all__ = [
    "CONFIG_PATH",
    "DEVICE_KEYS",
    "DOWNLOADING_BACKENDS",
    "LOCAL_CONFIG_PATH",
    "MAX_CONTEXT",
    "Config",
    "ContextConfig",
    "EmbeddingsConfig",
    "GitConfig",
    "IndexConfig",
    "LLMConfig",
    "MemoryConfig",
    "ScoringConfig",
    "SearchConfig",
    "VaultConfig",
    "load_config",
    "obsidian",
]


def load_config(vault_root: Path, notices: list[str] | None = None) -> Config:
    """Read the vault's settings: ``config.toml``, then ``local.toml`` over it key by key;
    defaults for anything neither sets. A key only this device may set (``device.device_only``)
    is ignored when it comes from a file git shares, with a notice in ``notices`` saying
    where it belongs.

    Raises:
        ConfigError: a file is not valid TOML or holds an unknown key or a bad value.
    """
    shared = _read(vault_root, CONFIG_PATH)
    local = _read(vault_root, LOCAL_CONFIG_PATH)
    if shared is None and local is None:
        return _with_obsidian(Config(), vault_root)
    layers = [Layer(CONFIG_PATH, shared or {}, "is shared by git")]
    if local is not None:
        layer = Layer(LOCAL_CONFIG_PATH, local)
        if device_keys(layer, backend_in_effect([*layers, layer])):  # only then ask git
            layer = layer._replace(shared=_tracked_by_git(vault_root, LOCAL_CONFIG_PATH))
        layers.append(layer)
    backend = backend_in_effect(layers)
    merged: Values = {}
    for layer in layers:
        ignored = device_keys(layer, backend) if layer.shared else []
        if ignored and notices is not None:
            notices.append(ignored_notice(layer, ignored))
        for section, values in layer.values.items():
            merged.setdefault(section, {}).update(
                (key, value) for key, value in values.items() if f"{section}.{key}" not in ignored
            )
    config = Config(**{name: cls(**merged.get(name, {})) for name, cls in SECTIONS.items()})
    check_order(config.memory, lambda key: set_in(layers, "memory", key))
    return _with_obsidian(config, vault_root)


def _read(vault_root: Path, rel: str) -> Values | None:
    """One settings file's values, checked (``None``: there is no such file)."""
    try:
        text = (vault_root / rel).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{rel} is not valid TOML: {exc}") from exc
    except OSError as exc:  # a folder of that name, no permission
        raise ConfigError(f"{rel} cannot be read: {exc.strerror or exc}") from exc
    import tomllib  # ~3 ms: only for a vault that has a settings file

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{rel} is not valid TOML: {exc}") from exc
    unknown = sorted(set(raw) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"{rel}: unknown section [{unknown[0]}]")
    return {name: section_values(SECTIONS[name], name, raw[name], rel) for name in raw}


def _tracked_by_git(vault_root: Path, rel: str) -> str:
    """Why the file may have come from another device ("" when it cannot have): git
    tracks it, so a merge or a clone may have written it.

    One ``git ls-files`` process through git's one runner (``git/runner.py``, which config
    may import: it needs nothing above ``errors``), not ``History``: this runs whenever a
    vault whose ``local.toml`` names an endpoint opens, searches included, and the bare
    process costs a few milliseconds.
    """
    import subprocess

    from vaultmem.git.runner import git_process, git_words, literal

    try:
        done = git_process(["ls-files", "-z", "--", *literal([rel])], vault_root, timeout=30)
    except FileNotFoundError:
        return ""  # no git on this device: no commit of git's wrote the file
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not be checked with git ({exc})"
    if done.returncode == 0:
        return "is tracked by git" if done.stdout else ""
    if "not a git repository" in git_words(done):
        return ""  # the vault is in no repository: no commit wrote the file
    return f"could not be checked with git ({git_words(done)})"


# Folders vaultmem writes itself: daily notes there would be read as facts or topics.
_NOT_DAILY = ("facts", "topics", "archive")


def _with_obsidian(config: Config, root: Path) -> Config:
    """The config with what Obsidian's settings decide (``obsidian.py``): the daily folder
    when it is ``"obsidian"``, and the template folders left out of the index (anchored
    at the vault's root by a leading ``/``, as in ``.gitignore``)."""
    folder = config.vault.daily_folder
    if folder == "obsidian":
        folder, fmt = obsidian.daily_notes(root)
        if fmt != obsidian.DEFAULT_DAILY_FORMAT:
            raise ConfigError(
                f'{CONFIG_PATH}: vault.daily_folder = "obsidian", but Obsidian names daily '
                f"notes {fmt!r} ({obsidian.DAILY_NOTES}); vaultmem's daily notes are named "
                f"{obsidian.DEFAULT_DAILY_FORMAT}: use that format in Obsidian, or set "
                "vault.daily_folder to a folder of vaultmem's own"
            )
    elif folder[:1] in ("", "/") or obsidian.vault_folder(folder) != folder.rstrip("/"):
        raise ConfigError(
            f"{CONFIG_PATH}: vault.daily_folder must be a folder inside the vault, "
            f'such as "memory" or "Journal/agent", got {folder!r}'
        )
    folder = obsidian.vault_folder(folder)
    if folder.split("/")[0] in _NOT_DAILY or folder.startswith(".") or "/." in folder:
        raise ConfigError(
            f"{CONFIG_PATH}: vault.daily_folder cannot be {folder!r}: vaultmem keeps facts, "
            "topics and the archive there, and never reads hidden folders"
        )
    templates = tuple(f"/{path}" for path in obsidian.template_folders(root))
    return config._replace(
        vault=config.vault._replace(daily_folder=folder),
        index=config.index._replace(exclude=tuple(dict.fromkeys(config.index.exclude + templates))),
    )
