"""The package's layers (docs/architecture.md): a module imports only from its own layer or
below, and no modules import each other in a circle.

Every import counts: at the top of a module, inside a function (a lazy import is still a
dependency) and under ``TYPE_CHECKING`` (a type a lower layer names is a dependency on the
layer that defines it). The check reads the source with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import vaultmem

PACKAGE = Path(vaultmem.__file__).parent

#: Top to bottom. A name is a module or a package (with everything under it that no
#: longer name in the list places elsewhere).
LAYERS: list[tuple[str, ...]] = [
    ("vaultmem.__main__", "vaultmem.cli"),
    ("vaultmem.agent",),
    ("vaultmem.vault", "vaultmem.status", "vaultmem.template"),
    ("vaultmem.daemon",),
    ("vaultmem.recall",),
    ("vaultmem.vault_view",),
    ("vaultmem.git",),
    ("vaultmem.search",),
    ("vaultmem.memory.pipeline",),
    ("vaultmem.memory.language", "vaultmem.memory"),
    ("vaultmem.embeddings",),
    ("vaultmem.llm",),
    ("vaultmem.index",),
    ("vaultmem.notes",),
    ("vaultmem.config",),
    # The one way git is run: below config, which asks git whether a file is tracked.
    ("vaultmem.git.runner",),
    ("vaultmem.workers",),
    ("vaultmem.errors",),
]


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module under ``root`` (the folder of ``package``) by its dotted name."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports, wherever the import is. The
    package's ``__version__`` is no dependency: every module's package is loaded first."""
    package = name.partition(".")[0]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, *([base] if base else [])])
            names = [a.name for a in node.names if (base, a.name) != (package, "__version__")]
            targets = [f"{base}.{name}" for name in names] + ([base] if names else [])
        for target in targets:
            while target and target not in modules:  # a name imported from a module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def layer_of(name: str, layers: list[tuple[str, ...]]) -> int | None:
    """The layer of the longest name in ``layers`` that is ``name`` or holds it."""
    found = [
        (len(member), number)
        for number, members in enumerate(layers)
        for member in members
        if name == member or name.startswith(member + ".")
    ]
    return max(found)[1] if found else None


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    modules = module_names(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def wrong_imports(graph: dict[str, set[str]], layers: list[tuple[str, ...]]) -> list[str]:
    """``a -> b`` for each import of a higher layer, and each module in no layer."""
    wrong = []
    for name, targets in sorted(graph.items()):
        if "." not in name:  # the package itself: its names load lazily
            continue
        mine = layer_of(name, layers)
        if mine is None:
            wrong.append(f"{name} is in no layer")
            continue
        for target in sorted(targets):
            theirs = layer_of(target, layers)
            if "." not in target:
                wrong.append(f"{name} -> {target} (import the module that defines the name)")
            elif theirs is not None and theirs < mine:
                wrong.append(f"{name} -> {target}")
    return wrong


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_every_import_goes_down_the_layers() -> None:
    assert wrong_imports(import_graph(PACKAGE, "vaultmem"), LAYERS) == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert circles(import_graph(PACKAGE, "vaultmem")) == []


def test_every_folder_is_a_layer_or_inside_one() -> None:
    folders = {
        ".".join(("vaultmem", *p.parent.relative_to(PACKAGE).parts))
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    }
    assert [f for f in sorted(folders) if layer_of(f, LAYERS) is None] == []


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """A package laid out in three layers, each import going down."""
    root = tmp_path / "toy"
    for folder, text in {
        "": "",
        "top": "from toy.low.base import ground\n",
        "mid": "from toy.low import base\n",
        "low": "",
    }.items():
        (root / folder).mkdir(exist_ok=True)
        (root / folder / "__init__.py").write_text(text)
    (root / "low" / "base.py").write_text("ground = 1\n")
    (root / "mid" / "work.py").write_text("def run():\n    from toy.low.base import ground\n")
    return root


TOY_LAYERS = [("toy.top",), ("toy.mid",), ("toy.low",)]


def test_the_check_passes_a_package_whose_imports_go_down(toy: Path) -> None:
    graph = import_graph(toy, "toy")
    assert graph["toy.mid.work"] == {"toy.low.base"}
    assert wrong_imports(graph, TOY_LAYERS) == []
    assert circles(graph) == []


def test_the_check_fails_on_a_lazy_import_of_a_higher_layer(toy: Path) -> None:
    (toy / "low" / "base.py").write_text("def up():\n    from ..mid import work\n")
    graph = import_graph(toy, "toy")
    assert wrong_imports(graph, TOY_LAYERS) == [
        "toy.low.base -> toy.mid",
        "toy.low.base -> toy.mid.work",
    ]
    assert circles(graph) == [["toy.low.base", "toy.mid", "toy.mid.work"]]


def test_the_check_fails_on_a_type_only_import_of_a_higher_layer(toy: Path) -> None:
    (toy / "low" / "types.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy.top import ground\n"
    )
    assert wrong_imports(import_graph(toy, "toy"), TOY_LAYERS) == ["toy.low.types -> toy.top"]


def test_the_check_fails_on_a_module_outside_every_layer(toy: Path) -> None:
    (toy / "stray.py").write_text("")
    (toy / "side").mkdir()
    (toy / "side" / "__init__.py").write_text("")
    assert wrong_imports(import_graph(toy, "toy"), TOY_LAYERS) == [
        "toy.side is in no layer",
        "toy.stray is in no layer",
    ]


def test_the_architecture_page_names_every_module() -> None:
    """docs/architecture.md's list of modules is the package as it is: each module once."""
    page = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = page.split("<!-- modules:begin -->")[1].split("<!-- modules:end -->")[0]
    named = re.findall(r"^\| `([\w/]+\.py)` \|", listed, flags=re.MULTILINE)
    modules = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))
    assert sorted(named) == modules
