"""The daemon (and the MCP server's live index) never miss edits silently and never outlive
their vault.

Watch limit: inotify needs a watch per folder, and watchdog skips a sub-folder it cannot
watch without a word. Linux (5.11 and later) keeps inotify limits per user namespace, so
the real ``vaultmem watch`` (and ``vaultmem mcp``) runs here in a user namespace of its own
(``unshare --user --map-root-user``) whose ``user.max_inotify_watches`` is 40, on vaults of
120 folders and more: a real limit, without touching the machine's. Every edit must become
searchable, in folders the kernel watches and in those it does not, and the limit must be
said once (stderr, and ``vaultmem status`` from the daemon's ``watch.json``).

A vault moved or deleted under a running daemon or server: it stops at once with one line
and exit code 1, and nothing (no ``.vaultmem``, no ``index.db``) appears at the old path.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import wait_for, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.daemon.watch import daemon_pid

LIMIT = 40  # inotify watches the daemon's user may hold, in its own user namespace
DEADLINE = 30.0  # a hang guard only: nothing here asserts a speed
LIMIT_WARNING = "inotify watch limit reached"
GONE = "vault folder moved or deleted: stopping"


def limited(command: list[str]) -> list[str]:
    """``command`` run in a new user namespace where its user may hold ``LIMIT`` inotify
    watches (the machine's own limit is left alone)."""
    script = f'echo {LIMIT} > /proc/sys/user/max_inotify_watches && exec "$@"'
    return ["unshare", "--user", "--map-root-user", "sh", "-c", script, "sh", *command]


def limit_unavailable() -> str | None:
    """Why a per-namespace watch limit cannot be set here, or ``None`` when it can."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return "needs Linux and unshare(1)"
    done = subprocess.run(limited(["true"]), capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        return (
            "cannot limit inotify watches in a user namespace (Linux 5.11 and later, user "
            f"namespaces allowed): {done.stderr.strip()}"
        )
    return None


NO_LIMIT = limit_unavailable()
needs_limit = pytest.mark.skipif(NO_LIMIT is not None, reason=NO_LIMIT or "")


# -- the daemon as a process --------------------------------------------------------------


class Daemon:
    """``vaultmem watch`` as a subprocess (in a watch-limited namespace if asked), its
    stderr in a file that can be read while it runs."""

    def __init__(self, root: Path, log: Path, *, limit: bool = False) -> None:
        command = [sys.executable, "-m", "vaultmem", "watch", "--vault", str(root)]
        self.root = root
        self.log = log
        with log.open("w") as err:
            self.proc = subprocess.Popen(
                limited(command) if limit else command,
                stdout=subprocess.DEVNULL,
                stderr=err,
                text=True,
            )
        # unshare and sh exec the daemon in their own process: the pid is the daemon's.
        wait_for(
            lambda: (
                self.proc.poll() is not None
                or (daemon_pid(root) == self.proc.pid and (root / ".vaultmem/watch.json").exists())
            ),
            DEADLINE,
        )
        assert self.proc.poll() is None, self.log.read_text()

    def lines(self) -> list[str]:
        """The lines of its stderr, without the time stamps."""
        return [line[9:] if line[:2].isdigit() else line for line in self.text().splitlines()]

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=DEADLINE)


@contextmanager
def daemon(root: Path, log: Path, *, limit: bool = False) -> Iterator[Daemon]:
    running = Daemon(root, log, limit=limit)
    try:
        yield running
    finally:
        running.stop()


def found(root: Path, word: str) -> bool:
    with Vault(root) as vault:
        return bool(vault.search(word, limit=5))


# -- item 6: folders the kernel does not watch ---------------------------------------------


def flat(root: Path) -> list[str]:
    """121 folders beside each other."""
    return [f"f{i:03d}" for i in range(121)]


def nested(root: Path) -> list[str]:
    """25 folders of 4 sub-folders each, some 3 deep (150 folders)."""
    folders = []
    for i in range(25):
        folders.append(f"t{i:02d}")
        folders += [f"t{i:02d}/s{j}" for j in range(3)]
        folders += [f"t{i:02d}/s0/deep", f"t{i:02d}/s1/deep"]
    return folders


def daily_heavy(root: Path) -> list[str]:
    """Folders of an Obsidian vault: a few large ones, then many project folders under
    ``facts`` (the vault template's own folders come first in the walk)."""
    return ["memory", "topics", *(f"facts/projects/p{i:03d}" for i in range(130))]


SHAPES = {"flat": flat, "nested": nested, "projects": daily_heavy}


def spread(items: list[str], count: int) -> list[str]:
    """``count`` items spread over the whole list (first, last and between)."""
    step = (len(items) - 1) / (count - 1)
    return [items[round(n * step)] for n in range(count)]


def edit_in(root: Path, folder: str, n: int) -> str:
    """One edit of the kind ``n`` picks in ``folder``; the word it makes searchable."""
    word = f"quokka{n}edit"
    note = root / folder / "note.md"
    kind = n % 4
    if kind == 0:  # an append, in place
        with note.open("a", encoding="utf-8") as handle:
            handle.write(f"- appended {word}\n")
    elif kind == 1:  # a new note
        write(root, f"{folder}/new-{n}.md", f"- created {word}\n")
    elif kind == 2:  # an editor's atomic save
        temp = root / folder / f".note.md.tmp{n}"
        temp.write_text(note.read_text() + f"- saved {word}\n")
        os.replace(temp, note)
    else:  # a rename of a note, edited on the way
        moved = root / folder / f"renamed-{n}.md"
        note.rename(moved)
        with moved.open("a", encoding="utf-8") as handle:
            handle.write(f"- renamed {word}\n")
    return word


def make_folders(root: Path, folders: list[str]) -> None:
    for i, folder in enumerate(folders):
        write(root, f"{folder}/note.md", f"# Note {i}\n\n- wombat{i}base line\n")


@needs_limit
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_edit_is_found_when_inotify_runs_out_of_watches(
    vault_path: Path, tmp_path: Path, shape: str
) -> None:
    folders = SHAPES[shape](vault_path)
    assert len(folders) >= 120
    make_folders(vault_path, folders)
    with daemon(vault_path, tmp_path / "daemon.err", limit=True) as running:
        edited = spread(folders, 12)
        words = [edit_in(vault_path, folder, n) for n, folder in enumerate(edited)]
        deleted = folders.index(edited[-1]) - 1  # a note deleted in a folder beside them
        (vault_path / folders[deleted] / "note.md").unlink()
        wait_for(
            lambda: (
                all(found(vault_path, word) for word in words)
                and not found(vault_path, f"wombat{deleted}base")
            ),
            DEADLINE,
        )
        wait_for(lambda: LIMIT_WARNING in running.text(), DEADLINE)
        said = [line for line in running.lines() if LIMIT_WARNING in line]
        assert len(said) == 1, running.text()
        assert f"fs.inotify.max_user_watches = {LIMIT})" in said[0]
        assert "folders are rescanned every" in said[0]
        status = CliRunner().invoke(cli, ["status", "--vault", str(vault_path)])
        assert status.exit_code == 0, status.output
        assert LIMIT_WARNING in status.output
        as_json = CliRunner().invoke(cli, ["status", "--json", "--vault", str(vault_path)])
        assert [LIMIT_WARNING in w for w in json.loads(as_json.stdout)["daemon_warnings"]] == [True]
        assert running.stop() == 0
    assert "Traceback" not in running.text()


@needs_limit
def test_folders_made_while_the_daemon_runs_are_covered_and_said_once(
    vault_path: Path, tmp_path: Path
) -> None:
    """Folders appear after the start (a sync, a copied project): those the kernel cannot
    watch any more are found after their batch, and the warning is not said again."""
    make_folders(vault_path, [f"early{i}" for i in range(10)])
    with daemon(vault_path, tmp_path / "daemon.err", limit=True) as running:
        words: list[str] = []
        for wave in range(3):  # three batches of new folders, all beyond the limit at last
            later = [f"wave{wave}/g{i:02d}" for i in range(45)]
            make_folders(vault_path, later)
            edited = spread(later, 6)
            words.extend(edit_in(vault_path, f, 10 * wave + n) for n, f in enumerate(edited))
            wait_for(lambda: all(found(vault_path, word) for word in words), DEADLINE)
        wait_for(lambda: LIMIT_WARNING in running.text(), DEADLINE)
        assert sum(LIMIT_WARNING in line for line in running.lines()) == 1, running.text()
        assert running.stop() == 0


def test_no_warning_while_every_folder_is_watched(vault_path: Path, tmp_path: Path) -> None:
    """Without a limit in the way, folders made while the daemon runs (watched a moment
    after they appear) are never taken for unwatched ones."""
    make_folders(vault_path, flat(vault_path))
    with daemon(vault_path, tmp_path / "daemon.err") as running:
        for wave in range(5):
            later = [f"new{wave}/a/b{i}" for i in range(20)]
            make_folders(vault_path, later)
        wait_for(lambda: found(vault_path, "wombat19base"), DEADLINE)
        with Vault(vault_path) as vault:
            wait_for(lambda: not vault.status().stale, DEADLINE)
        time.sleep(2.5)  # longer than a confirming second look takes (not an assertion)
        assert running.stop() == 0
    assert LIMIT_WARNING not in running.text()


# -- item 7: the vault moved or deleted under the daemon ----------------------------------


def move_away(root: Path) -> None:
    subprocess.run(["mv", str(root), str(root.with_name("moved"))], check=True)


def delete(root: Path) -> None:
    # rm fails if anything is made in a folder it is emptying: it must succeed.
    subprocess.run(["rm", "-rf", str(root)], check=True, capture_output=True)


def delete_and_make_again(root: Path) -> None:
    delete(root)
    root.mkdir()


def delete_state_only(root: Path) -> None:
    subprocess.run(["rm", "-rf", str(root / ".vaultmem")], check=True, capture_output=True)


ACTIONS: dict[str, Callable[[Path], None]] = {
    "mv": move_away,
    "rm -rf": delete,
    "rm -rf, mkdir": delete_and_make_again,
    "rm -rf .vaultmem": delete_state_only,
}


def nothing_at_the_old_path(root: Path, action: str) -> None:
    if action in ("mv", "rm -rf"):
        assert not root.exists(), sorted(p.name for p in root.rglob("*"))
    else:
        assert not (root / ".vaultmem").exists(), sorted(root.rglob("*"))
    if action == "mv":  # the moved vault lost nothing
        moved = root.with_name("moved")
        assert (moved / "f05/note.md").read_text().endswith("- wombat5base line\n")


def busy_vault(root: Path) -> None:
    """Notes in 20 folders, and a burst of edits the daemon is still indexing."""
    make_folders(root, [f"f{i:02d}" for i in range(20)])


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_the_daemon_stops_when_its_vault_is_moved_or_deleted(
    vault_path: Path, tmp_path: Path, action: str
) -> None:
    busy_vault(vault_path)
    running = Daemon(vault_path, tmp_path / "daemon.err")
    try:
        for i in range(200):  # still being indexed when the vault goes
            write(vault_path, f"burst/b{i % 10}/n{i}.md", f"- numbat {i}\n")
        ACTIONS[action](vault_path)
        code = running.proc.wait(timeout=DEADLINE)
    finally:
        running.stop()
    assert code == 1, running.text()
    lines = running.lines()
    assert lines[-1] == f"Error: {GONE} ({vault_path.resolve()})", running.text()
    after_start = lines[[n for n, line in enumerate(lines) if line.startswith("watching")][0] + 1 :]
    assert [line for line in after_start if not line.startswith("batch:")] == [lines[-1]]
    assert "Traceback" not in running.text()
    nothing_at_the_old_path(vault_path, action)


@pytest.mark.parametrize("action", ["mv", "rm -rf"])
def test_the_embedding_thread_does_not_make_the_vault_again(
    vault_path: Path, tmp_path: Path, action: str
) -> None:
    from embed_server import embed_server
    from test_embeddings import use_server

    busy_vault(vault_path)
    with embed_server() as server:
        use_server(vault_path, server)
        with Vault(vault_path) as vault:
            vault.embed()
        running = Daemon(vault_path, tmp_path / "daemon.err")
        try:
            for i in range(100):  # new chunks: the daemon's thread embeds them
                write(vault_path, f"burst/n{i}.md", f"- numbat {i} embedded\n")
            wait_for(lambda: "embedded:" in running.text(), DEADLINE)
            for i in range(100, 200):
                write(vault_path, f"burst/n{i}.md", f"- numbat {i} embedded\n")
            ACTIONS[action](vault_path)
            code = running.proc.wait(timeout=DEADLINE)
        finally:
            running.stop()
    assert code == 1, running.text()
    assert running.lines()[-1] == f"Error: {GONE} ({vault_path.resolve()})"
    nothing_at_the_old_path(vault_path, action)


def test_an_index_is_never_made_where_the_vault_was(vault_path: Path) -> None:
    """A process holding a ``Vault`` whose folder is deleted never makes ``.vaultmem`` (or
    the vault's folder) again when it next opens the index (``Index.open``)."""
    from vaultmem.errors import VaultNotFoundError

    vault = Vault(vault_path)
    shutil.rmtree(vault_path)
    with pytest.raises(VaultNotFoundError, match="moved or deleted"):
        vault.index()
    assert not vault_path.exists()


RUNS: dict[str, Callable[[Vault], object]] = {
    "full run": lambda vault: vault.index(),
    "folders": lambda vault: vault.index_paths([], ["f00", "f01"]),
    "paths": lambda vault: vault.index_paths(["f02/note.md", "f03/note.md"]),
}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_run_over_a_moved_vault_does_not_empty_its_index(vault_path: Path, run: str) -> None:
    """An index run that finds no notes because the vault's folder is gone (moved under a
    running process, which still writes the moved index file) removes nothing from it."""
    from vaultmem.errors import VaultNotFoundError

    busy_vault(vault_path)
    with Vault(vault_path) as vault:
        vault.index()
        move_away(vault_path)
        with pytest.raises(VaultNotFoundError, match="moved or deleted"):
            RUNS[run](vault)
    with Vault(vault_path.with_name("moved")) as moved:
        assert moved.status().stale == []  # every note still in the index, none changed
        assert moved.search("wombat3base")
    assert not vault_path.exists()


# -- the MCP server's live index ------------------------------------------------------------

# Runs the server with stdin and stdout passed through, and writes down its exit code and
# stderr: the SDK's client starts this, so the client is real and the exit code is seen.
RECORDER = """
import subprocess, sys
with open(sys.argv[1] + ".err", "w") as err:
    code = subprocess.run(sys.argv[2:], stderr=err).returncode
with open(sys.argv[1] + ".rc", "w") as rc:
    rc.write(str(code))
sys.exit(code)
"""


@contextmanager
def mcp_client(root: Path, tmp: Path, *, limit: bool = False) -> Iterator[tuple[Any, Path]]:
    """A real SDK client of ``vaultmem mcp`` over stdio; yields it and the path whose
    ``.rc`` and ``.err`` the server's exit code and stderr go to."""
    pytest.importorskip("mcp")
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from test_mcp import connect, server_env

    record = tmp / "server"
    server = [sys.executable, "-m", "vaultmem", "mcp", "--vault", str(root)]
    command = [sys.executable, "-c", RECORDER, str(record), *(limited(server) if limit else server)]
    home = tmp / "home"
    home.mkdir()
    env = server_env(home)
    if "PYTHONPATH" in os.environ:  # the SDK passes on only a few variables: this one too
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    stray: list[Any] = []
    body_done = False
    with (tmp / "client.err").open("w") as errlog:
        try:
            with connect(stdio_client(params, errlog=errlog), stray) as client:
                yield client, record
                body_done = True
        except Exception:
            # Closing the session may fail when the server ended first: that is the point.
            if not body_done or not record.with_suffix(".rc").exists():
                raise


@pytest.mark.parametrize("action", ["mv", "rm -rf"])
def test_the_mcp_server_stops_when_its_vault_is_moved_or_deleted(
    vault_path: Path, tmp_path: Path, action: str
) -> None:
    busy_vault(vault_path)
    rc = tmp_path / "server.rc"
    with mcp_client(vault_path, tmp_path) as (client, record):
        assert client.search("wombat5base")  # it serves, with its live index
        for i in range(100):
            write(vault_path, f"burst/n{i}.md", f"- numbat {i}\n")
        ACTIONS[action](vault_path)
        wait_for(rc.exists, DEADLINE)
    assert rc.read_text() == "1"
    err = record.with_suffix(".err").read_text()
    assert [line for line in err.splitlines() if GONE in line] == [
        f"vaultmem: error: {GONE} ({vault_path.resolve()})"
    ], err
    assert "Traceback" not in err
    nothing_at_the_old_path(vault_path, action)


@needs_limit
def test_the_mcp_server_reads_every_edit_when_inotify_runs_out_of_watches(
    vault_path: Path, tmp_path: Path
) -> None:
    folders = flat(vault_path)
    make_folders(vault_path, folders)
    with mcp_client(vault_path, tmp_path, limit=True) as (client, record):
        assert client.search("wombat120base")
        for n, folder in enumerate(spread(folders, 12)):
            word = edit_in(vault_path, folder, n)
            # No waiting: a read sees every edit finished before it, watched or not.
            assert client.search(word), (folder, word)
        err = record.with_suffix(".err")
        wait_for(lambda: LIMIT_WARNING in err.read_text(), DEADLINE)
        client.search("wombat3base")
        said = [line for line in err.read_text().splitlines() if LIMIT_WARNING in line]
        assert len(said) == 1 and "rescanned before each read" in said[0], said
