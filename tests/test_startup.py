"""The CLI starts fast: each command imports only what it needs.

An agent runs ``vaultmem search`` and ``vaultmem context`` as processes, many times a
session, so imports are most of what it waits for (``docs/cli.md``, "Start-up time").
Each test runs a real command as a subprocess, with a driver that records ``sys.modules``
when the process exits, and names the heavy modules that command must not load: the
libraries (PyYAML, watchdog, numpy, the MCP SDK; and gitpython, which only the tests
install), vaultmem's own
slow-to-import parts (an index run, the memory pipeline's rule tables, git, the daemon)
and the standard modules only a write needs.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import vaultmem
from vaultmem import Vault

# Runs the CLI as the console script does (``main``: a plain search without click), and
# writes the names of every module loaded by the time the process ends (an exit code
# included) to argv[1].
DRIVER = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from vaultmem.cli import main
main()
"""

LIBRARIES = {"yaml", "git", "watchdog", "numpy", "mcp", "pydantic"}
INDEX_RUN = {
    "vaultmem.index.runs",
    "vaultmem.index.prepare",
    "multiprocessing",
    "concurrent.futures",
}
MEMORY_RULES = {
    "vaultmem.memory.language.extract",
    "vaultmem.memory.language.dates",
    "vaultmem.memory.language.people",
    "vaultmem.memory.language.slot_words",
    "vaultmem.memory.pipeline.consolidate",
}
WRITES = {
    "vaultmem.memory.pipeline.remember",
    "vaultmem.memory.language.secrets",
    "tempfile",
    "ctypes",
}
OTHER_PARTS = {
    "vaultmem.git.history",
    "vaultmem.daemon.watch",
    "vaultmem.git.sync",
    "vaultmem.search.semantic",
    "vaultmem.memory.pipeline.transcripts",
    "vaultmem.agent.mcp",
    "socket",
}
# What no command that only reads a built index (nor --version) may load.
NOT_FOR_READS = LIBRARIES | INDEX_RUN | MEMORY_RULES | WRITES | OTHER_PARTS
# The modules of the commands a search is not (the group imports a command's module when
# it runs), and what only they import.
OTHER_COMMANDS = {
    "vaultmem.cli.notes",
    "vaultmem.cli.agent",
    "vaultmem.cli.capture",
    "vaultmem.cli.embed",
    "vaultmem.cli.git",
    "vaultmem.cli.hooks",
    "vaultmem.cli.mcp",
    "vaultmem.cli.memory",
    "vaultmem.notes.generated_block",
    "vaultmem.agent.hooks",
    "vaultmem.memory.pipeline.transcript_formats",
}
# What a keyword search of a built index does without: reading and parsing notes, making
# ids (hashlib loads OpenSSL), writing rows, ``vaultmem status``, git.
NOT_FOR_SEARCH = {
    "vaultmem.notes.files",
    "vaultmem.index.chunk",
    "vaultmem.index.writer",
    "vaultmem.status",
    "vaultmem.git.versioning",
    "markdown_it_pyrs",
    "hashlib",
    "fcntl",  # the write lock's
    "threading",  # the write lock's too: which thread holds it
    # A plain search command line is read without click (cli/search_fast.py): ~15 ms of
    # imports.
    "click",
    "vaultmem.cli.common",
    # The records a search defines are NamedTuples or plain classes: dataclasses imports
    # inspect, ~5 ms, and each class compiles its methods from source.
    "dataclasses",
    "inspect",
    "platform",  # the device name is os.uname().nodename
}


def loaded_modules(tmp_path: Path, *args: str, exit_code: int = 0) -> set[str]:
    """Run ``vaultmem ARGS`` as a process; the modules it had loaded when it exited."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(out), *args], capture_output=True, text=True
    )
    assert done.returncode == exit_code, done.stderr
    assert (done.stdout or done.stderr).strip(), "the command said nothing"
    return set(json.loads(out.read_text()))


@pytest.fixture
def indexed(example_vault: Vault) -> str:
    """The example vault (notes with frontmatter, facts, daily notes), indexed."""
    return str(example_vault.root)


def test_version_loads_no_vault_machinery(tmp_path: Path) -> None:
    modules = loaded_modules(tmp_path, "--version")
    assert modules & NOT_FOR_READS == set()
    # Not even the vault or a command: ``import vaultmem`` loads ``Vault`` when asked.
    loaded = {m for m in modules if m.startswith("vaultmem.")}
    command_line = {
        "vaultmem.cli",
        "vaultmem.cli.search_fast",
        "vaultmem.cli.common",
        "vaultmem.cli.plain",
    }
    assert loaded <= {"vaultmem.errors", "vaultmem.agent", *command_line}


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (["search", "peanuts"], 0),
        (["search", "peanuts", "--json"], 0),
        (["search", "咖啡"], 0),
        (["search", "no-such-word-anywhere"], 1),  # "no matches": exit 1
    ],
    ids=["search", "search-json", "search-cjk", "search-nothing-found"],
)
def test_keyword_search_loads_only_what_a_search_needs(
    tmp_path: Path, indexed: str, args: list[str], exit_code: int
) -> None:
    modules = loaded_modules(tmp_path, *args, "--vault", indexed, exit_code=exit_code)
    assert modules & NOT_FOR_READS == set()
    assert modules & OTHER_COMMANDS == set()
    assert modules & NOT_FOR_SEARCH == set()
    assert "vaultmem.search.keyword" in modules  # the driver really searched


def test_a_search_of_a_vault_without_config_file_loads_no_toml_parser(
    tmp_path: Path, indexed: str
) -> None:
    # tomllib (~3 ms) loads only to read a config file; defaults need none.
    assert "tomllib" in loaded_modules(tmp_path, "search", "peanuts", "--vault", indexed)
    (Path(indexed) / ".vaultmem" / "config.toml").unlink()
    modules = loaded_modules(tmp_path, "search", "peanuts", "--vault", indexed)
    assert "tomllib" not in modules
    assert "vaultmem.search.keyword" in modules


def test_each_command_is_defined_by_the_module_the_group_imports_for_it() -> None:
    # The group imports a command's module by the table; a command missing from it, or
    # listed under another module, would not be found.
    import click

    from vaultmem.cli import cli
    from vaultmem.cli.common import COMMAND_MODULES

    defined = {}
    for path in sorted((Path(vaultmem.__file__).parent / "cli").glob("*.py")):
        module = importlib.import_module(f"vaultmem.cli.{path.stem}")
        made_here = [
            command
            for command in vars(module).values()
            if isinstance(command, click.Command)
            and command is not cli
            and getattr(command.callback, "__module__", None) == module.__name__
        ]
        inside = [s for c in made_here if isinstance(c, click.Group) for s in c.commands.values()]
        defined.update({c.name: path.stem for c in made_here if c not in inside})
    assert defined == COMMAND_MODULES
    context = click.Context(cli)
    assert cli.list_commands(context) == sorted(COMMAND_MODULES)
    assert all(cli.get_command(context, name) for name in COMMAND_MODULES)


def test_one_command_imports_only_its_own_module(tmp_path: Path, indexed: str) -> None:
    modules = loaded_modules(tmp_path, "tree", "--vault", indexed)
    assert "vaultmem.cli.memory" in modules
    names = ("notes", "search", "git", "hooks", "mcp", "agent")
    others = {f"vaultmem.cli.{name}" for name in names}
    assert modules & others == set()


def test_status_and_a_no_op_index_load_no_numpy(tmp_path: Path, indexed: str) -> None:
    for command in ("status", "index"):
        modules = loaded_modules(tmp_path, command, "--vault", indexed)
        assert modules & (LIBRARIES | MEMORY_RULES | OTHER_PARTS) == set(), command


# What an index run needs only to read a note that changed (``prepare.py`` and its
# imports: the parser, the chunker, the row writer, hashlib's OpenSSL).
READING_NOTES = {
    "vaultmem.index.prepare",
    "vaultmem.notes.parse",
    "vaultmem.index.chunk",
    "vaultmem.index.writer",
    "markdown_it_pyrs",
    "hashlib",
}


# What only a search needs: the command's module, the query parser, the ranking.
SEARCHING = {
    "vaultmem.cli.search",
    "vaultmem.search.retrieval",
    "vaultmem.search.keyword",
    "vaultmem.search.query",
    "vaultmem.search.ranking",
}


def test_a_no_op_index_reads_no_note_and_loads_nothing_to_read_one(
    tmp_path: Path, example_vault: Vault
) -> None:
    # Stats an hour old are trusted: the run below decides from them alone (a note
    # changed within RACY_NS of being indexed would be read again, and rightly so).
    hour_ago = time.time_ns() - 3600 * 10**9
    for note in example_vault.root.rglob("*.md"):
        os.utime(note, ns=(hour_ago, hour_ago))
    example_vault.index()
    vault = str(example_vault.root)
    modules = loaded_modules(tmp_path, "index", "--vault", vault)
    assert modules & READING_NOTES == set()
    assert modules & SEARCHING == set()
    assert "vaultmem.index.runs" in modules  # the driver really ran an index run
    (example_vault.root / "MEMORY.md").write_text("# Memory\n\nchanged words\n")
    assert READING_NOTES - {"markdown_it_pyrs"} <= loaded_modules(
        tmp_path, "index", "--vault", vault
    )


def test_context_loads_no_memory_rules_nor_libraries(tmp_path: Path, indexed: str) -> None:
    modules = loaded_modules(tmp_path, "context", "peanuts", "--vault", indexed)
    assert modules & (LIBRARIES | INDEX_RUN | MEMORY_RULES | OTHER_PARTS) == set()


def test_remember_loads_no_memory_rules_git_nor_daemon(tmp_path: Path, indexed: str) -> None:
    modules = loaded_modules(tmp_path, "remember", "Alice likes green tea", "--vault", indexed)
    assert modules & (MEMORY_RULES | OTHER_PARTS | {"git", "watchdog", "numpy", "mcp"}) == set()
