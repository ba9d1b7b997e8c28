"""``--json`` on every command that prints: one document on stdout, with the fields
docs/json-output.md lists, and the same exit codes as the plain output."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from conftest import run_cli, two_devices, wait_for, write

from vaultmem import Vault
from vaultmem.cli import cli

# Commands whose stdout belongs to something else, so it can carry no JSON of ours.
NO_JSON = {
    "mcp": "stdout is the MCP protocol's channel",
}
COMMIT_FIELDS = {"sha", "date", "author", "message", "files"}


def as_json(*args: str) -> Any:
    """Run ``vaultmem ARGS --json`` in-process; its stdout must be one JSON document."""
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def leaf_commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    context = click.Context(group)
    for name in group.list_commands(context):  # the group imports each command's module
        command = group.get_command(context, name)
        assert command is not None
        if isinstance(command, click.Group):
            found.update(leaf_commands(command, f"{prefix}{name} "))
        else:
            found[f"{prefix}{name}"] = command
    return found


def test_every_command_that_prints_has_json() -> None:
    """The guard for the whole class: a new command that prints gets --json too."""
    commands = leaf_commands(cli)
    assert "hooks install" in commands
    missing = [
        name
        for name, command in commands.items()
        if name.split()[0] not in NO_JSON
        and not any("--json" in param.opts for param in command.params)
    ]
    assert missing == []


def test_every_json_command_is_in_the_json_reference() -> None:
    reference = (Path(__file__).resolve().parents[1] / "docs" / "json-output.md").read_text()
    for name in leaf_commands(cli):
        if name.split()[0] not in NO_JSON:
            assert f"vaultmem {name}" in reference, name


def test_init(tmp_path: Path) -> None:
    data = as_json("init", str(tmp_path / "v"))
    assert set(data) == {"root", "created", "kept", "repository", "committed"}
    assert data["root"] == str((tmp_path / "v").resolve())
    assert "MEMORY.md" in data["created"] and data["kept"] == []
    assert data["repository"] == "new" and sorted(data["committed"]) == sorted(data["created"])
    again = as_json("init", str(tmp_path / "v"))
    assert again["created"] == [] and "MEMORY.md" in again["kept"]
    assert again["repository"] == "existing" and again["committed"] == []


@pytest.mark.parametrize("command", ["index", "reindex"])
def test_index_and_reindex(vault_path: Path, command: str) -> None:
    write(vault_path, "n.md", "# Note\n\n- koala\n")
    data = as_json(command, "--vault", str(vault_path))
    assert {
        "files",
        "read",
        "changed",
        "removed",
        "chunks",
        "written",
        "seconds",
        "notices",
    } <= set(data)
    assert data["changed"] >= 1 and isinstance(data["seconds"], float)


def test_commit(vault_path: Path) -> None:
    write(vault_path, "n.md", "- koala\n")
    data = as_json("commit", "-m", "a koala", "--vault", str(vault_path))
    assert data["committed"] is True and set(data["commit"]) == COMMIT_FIELDS
    assert data["commit"]["message"] == "a koala" and data["commit"]["files"] == ["n.md"]
    assert as_json("commit", "--vault", str(vault_path)) == {"committed": False, "commit": None}


def test_diff(vault_path: Path) -> None:
    write(vault_path, "MEMORY.md", (vault_path / "MEMORY.md").read_text() + "- koala\n")
    data = as_json("diff", "--vault", str(vault_path))
    assert set(data) == {"rev", "path", "diff"}
    assert "+- koala" in data["diff"]


def test_restore(vault_path: Path, tmp_path: Path) -> None:
    write(vault_path, "n.md", "- koala\n")
    first = as_json("commit", "--vault", str(vault_path))["commit"]["sha"]
    write(vault_path, "n.md", "- wombat\n")
    as_json("commit", "--vault", str(vault_path))

    snapshot = as_json(
        "restore", "--at", first, "--to", str(tmp_path / "snap"), "--vault", str(vault_path)
    )
    assert set(snapshot) == {"at", "to", "paths", "commit", "saved"}
    assert "n.md" in snapshot["paths"] and snapshot["commit"]["sha"] == first
    assert snapshot["to"] == str(tmp_path / "snap")

    done = as_json("restore", "--at", first, "n.md", "--vault", str(vault_path))
    assert done["paths"] == ["n.md"] and done["to"] is None
    assert set(done["commit"]) == COMMIT_FIELDS and done["commit"]["sha"] != first
    assert (vault_path / "n.md").read_text() == "- koala\n"


def test_sync_lists_conflicts_and_still_exits_one(tmp_path: Path) -> None:
    a, b = two_devices(tmp_path)
    write(a.root, "topics/x.md", "one\n")
    a.sync()
    b.sync()
    (a.root / "topics/x.md").write_text("two\n")
    (b.root / "topics/x.md").write_text("three\n")
    a.sync()

    done = run_cli(b.root, "sync", "--json")

    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"remote", "branch", "committed", "pulled", "pushed", "conflicts"}
    [conflict] = data["conflicts"]
    assert conflict["note"] == "topics/x.md"
    assert conflict["copy"].startswith("topics/x.sync-conflict-")
    clean = run_cli(a.root, "sync", "--json")
    assert clean.returncode == 0 and json.loads(clean.stdout)["conflicts"] == []


def test_log(vault_path: Path) -> None:
    [entry, *_] = as_json("log", "--vault", str(vault_path))
    assert set(entry) == COMMIT_FIELDS


def test_hooks(vault_path: Path) -> None:
    fields = {"host", "scope", "path", "changed", "written", "backup", "commands"}
    shown = as_json("hooks", "show", "codex", "--vault", str(vault_path))
    assert set(shown) == fields | {"settings"} and shown["written"] is False
    installed = as_json("hooks", "install", "codex", "--vault", str(vault_path))
    assert set(installed) == fields and installed["written"] is True
    assert sorted(installed["commands"]) == ["PreCompact", "SessionStart", "Stop"]
    removed = as_json("hooks", "uninstall", "codex")
    assert set(removed) == fields and removed["changed"] is True


def test_watch_prints_one_json_object_per_event(vault_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "watch", "--json", "--vault", str(vault_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    events: list[dict[str, Any]] = []
    reader = threading.Thread(target=lambda: events.extend(map(json.loads, proc.stdout or [])))
    reader.start()
    try:
        wait_for(lambda: any(e["event"] == "started" for e in events))
        write(vault_path, "n.md", "- koala\n")
        wait_for(lambda: any(e["event"] == "batch" for e in events))
    finally:
        proc.send_signal(signal.SIGTERM)
        # Only the reader thread reads stdout (communicate() would race it for the last
        # events); stderr is read once the daemon has exited.
        proc.wait(timeout=30)
        reader.join(timeout=30)
        with proc.stdout or io.StringIO(), proc.stderr or io.StringIO() as stderr:
            err = stderr.read()
    assert proc.returncode == 0, err
    assert err == ""  # the events are on stdout; nothing is said twice
    kinds = [e["event"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "stopped"
    for event in events:
        assert {"event", "at", "message"} <= set(event)
    started = events[0]
    assert started["vault"] == str(vault_path.resolve()) and started["pid"] == proc.pid
    batch = next(e for e in events if e["event"] == "batch")
    assert {"files", "changed", "removed", "chunks", "ms"} <= set(batch)
    assert batch["changed"] == 1
    with Vault(vault_path) as vault:
        assert vault.search("koala")
