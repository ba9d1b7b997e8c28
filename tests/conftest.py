"""Shared fixtures: an isolated environment and real vaults under ``tmp_path``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultmem import Vault

SHARED = Path(__file__).resolve().parents[2] / "shared"
# The fields of one search hit in --json output, as docs/json-output.md lists them.
HIT_FIELDS = {
    "path",
    "line_start",
    "line_end",
    "heading",
    "score",
    "text",
    "tags",
    "kind",
    "chunk_id",
    "block_id",
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's vault, home folder or git identity."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    monkeypatch.delenv("VAULTMEM_VAULT", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    """A new, empty vault made by ``Vault.init``."""
    path = tmp_path / "vault"
    Vault.init(path)
    return path


@pytest.fixture
def vault(vault_path: Path) -> Iterator[Vault]:
    """The same vault, opened."""
    with Vault(vault_path) as opened:
        yield opened


@pytest.fixture
def example_vault(tmp_path: Path) -> Iterator[Vault]:
    """A vault with the example memory, indexed."""
    path = tmp_path / "example"
    Vault.init(path, example=True)
    with Vault(path) as opened:
        opened.index()
        yield opened


def write(root: Path, rel: str, text: str | bytes) -> Path:
    """Write a note (text as UTF-8, or raw bytes), creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def copy_shared(rel: str, dest: Path) -> Path:
    """Copy a folder of ``../shared`` into ``dest`` (shared/ is read-only input)."""
    source = SHARED / rel
    if not source.is_dir():
        pytest.skip(f"{source} is not available")
    shutil.copytree(source, dest)
    return dest
