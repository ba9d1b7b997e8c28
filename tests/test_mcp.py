"""``vaultmem mcp`` as an agent's host meets it: a real client from the official SDK starts
``python -m vaultmem mcp --vault DIR`` over stdio (and once over streamable HTTP), lists the
tools, remembers, finds, reads, is refused, sends malformed calls, and sees edits made by
other processes without a restart. One server serves the whole module."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession  # the SDK is a test dependency
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from vaultmem import Vault
from vaultmem.cli.mcp import INSTALL_HINT
from vaultmem.notes.generated_block import count_tokens

TOOLS = {"search", "get", "remember", "context", "recent", "forget", "status"}


class Client:
    """A blocking face on an SDK ``ClientSession`` running in a portal's event loop."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        result = self.portal.call(partial(self.session.call_tool, name, arguments or {}))
        assert isinstance(result, CallToolResult)
        return result

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool that must succeed; its structured content."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        assert result.structured_content is not None
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """Call a tool that must fail as an MCP tool error; its message."""
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        return " ".join(getattr(block, "text", "") for block in result.content)

    def search(self, query: str, **options: Any) -> list[dict[str, Any]]:
        hits: list[dict[str, Any]] = self.ok("search", {"query": query, **options})["hits"]
        return hits


def server_env(home: Path) -> dict[str, str]:
    """The server's own HOME and git identity, never the developer's."""
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    return {"HOME": str(home), "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}


@contextmanager
def connect(session_streams: Any, stray: list[Exception]) -> Iterator[Client]:
    """An initialised client session over the given transport (an async context manager)."""

    async def keep_stray(message: object) -> None:
        if isinstance(message, Exception):  # a line on stdout that is not the protocol
            stray.append(message)

    @asynccontextmanager
    async def session() -> AsyncIterator[ClientSession]:
        async with session_streams as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=keep_stray) as opened:
                await opened.initialize()
                yield opened

    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(session()) as opened,
    ):
        yield Client(portal, opened)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path, list[Any]]]:
    """One server over stdio on an example vault: (client, vault root, stray stdout lines)."""
    root = tmp_path_factory.mktemp("mcp") / "vault"
    Vault.init(root, example=True)
    stderr = (root.parent / "stderr.log").open("w")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultmem", "mcp", "--vault", str(root)],
        env=server_env(tmp_path_factory.mktemp("home")),
    )
    stray: list[Any] = []
    with stderr, connect(stdio_client(params, errlog=stderr), stray) as client:
        yield client, root, stray


@pytest.fixture
def client(served: tuple[Client, Path, list[Any]]) -> Client:
    return served[0]


@pytest.fixture
def root(served: tuple[Client, Path, list[Any]]) -> Path:
    return served[1]


def test_lists_the_tools_each_with_a_schema_and_a_one_line_description(client: Client) -> None:
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert set(tools) >= TOOLS
    for tool in tools.values():
        assert tool.description and "\n" not in tool.description
        assert tool.input_schema["type"] == "object"
        if tool.name != "context":  # its reply is the block alone (within its budget)
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    assert tools["context"].output_schema is None
    search = tools["search"].input_schema
    assert search["properties"]["mode"]["enum"] == ["auto", "keyword", "semantic", "hybrid"]
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["minimum"] == 1
    assert search["properties"]["limit"]["maximum"] == 100
    assert "hard" not in tools["forget"].input_schema["properties"]  # soft only over MCP


def test_remembers_a_line_and_finds_it_in_english_and_in_chinese(client: Client) -> None:
    english = client.ok("remember", {"text": "Alice is allergic to peanuts", "tags": ["health"]})
    chinese = client.ok("remember", {"text": "小明下周去杭州出差，住在西湖边"})
    for stored in (english, chinese):
        assert stored["stored"] and stored["skipped"] is None
        assert stored["path"].startswith("memory/") and stored["line"] >= 1
        assert stored["link"] == f"[[{stored['path'][:-3]}#^{stored['block_id']}]]"

    for query, stored in (("Alice allergic to peanuts", english), ("杭州出差", chinese)):
        best = client.search(query)[0]
        assert best["block_id"] == stored["block_id"]
        assert (best["path"], best["match_start"]) == (stored["path"], stored["line"])
        assert best["line_start"] <= stored["line"] <= best["line_end"]  # with its context
        assert best["link"] == stored["link"]
        assert best["tier"] is None and best["superseded"] is False


def test_search_says_the_mode_that_found_its_hits(client: Client) -> None:
    client.ok("remember", {"text": "The boiler was serviced in October"})
    for asked in ("auto", "keyword", "hybrid"):  # no vectors here: words found them
        assert client.ok("search", {"query": "boiler", "mode": asked})["mode"] == "keyword"


def test_remember_records_the_writing_agent(client: Client, root: Path) -> None:
    stored = client.ok("remember", {"text": "Deploys happen on Fridays", "agent": "claude"})
    line = (root / stored["path"]).read_text().splitlines()[stored["line"] - 1]
    assert "Deploys happen on Fridays" in line and "[agent:: claude]" in line


def test_search_with_several_tags_keeps_lines_carrying_all_of_them(client: Client) -> None:
    both = client.ok("remember", {"text": "Quarterly budget review moved", "tags": ["work", "q3"]})
    one = client.ok("remember", {"text": "Quarterly budget draft sent", "tags": ["work"]})
    found = {h["block_id"] for h in client.search("quarterly budget", tags=["work", "q3"])}
    assert both["block_id"] in found and one["block_id"] not in found
    found = {h["block_id"] for h in client.search("quarterly budget", tags=["work"])}
    assert {both["block_id"], one["block_id"]} <= found


def test_get_reads_memory_md_exactly(client: Client, root: Path) -> None:
    excerpt = client.ok("get", {"path": "MEMORY.md"})
    assert excerpt["path"] == "MEMORY.md" and excerpt["line_start"] == 1
    assert excerpt["text"].splitlines() == (root / "MEMORY.md").read_text().splitlines()
    lines = client.ok("get", {"path": "MEMORY.md", "line_start": 2, "line_end": 3})
    assert lines["text"].splitlines() == (root / "MEMORY.md").read_text().splitlines()[1:3]
    assert lines["link"] == "[[MEMORY]]"
    (root / "empty.md").write_text("")
    assert client.ok("get", {"path": "empty.md"})["text"] == ""


def test_get_by_block_id_reads_the_line(client: Client, root: Path) -> None:
    stored = client.ok("remember", {"text": "The boiler code is on the fridge"})
    block, day = stored["block_id"], stored["path"].removeprefix("memory/").removesuffix(".md")
    asked = [{"path": block}, {"path": "^" + block}]  # a path that is an id, as before
    asked += [{"id": spelled} for spelled in (block, "^" + block, f"{day}#{block}")]
    asked += [{"id": f"{stored['path']}#{block}"}]
    for arguments in asked:
        excerpt = client.ok("get", arguments)
        assert (excerpt["path"], excerpt["line_start"]) == (stored["path"], stored["line"])
        assert "The boiler code is on the fridge" in excerpt["text"]
        assert excerpt["block_id"] == block and excerpt["link"] == stored["link"]


def test_every_link_search_context_and_recent_hand_out_opens_with_get(
    client: Client, root: Path
) -> None:
    """A person's own notes carry no block ids, and vaultmem writes none into them: a hit
    there is linked to its section, ``[[notes/Trip#Plans#Day one Lisbon]]`` (what a link may
    not hold, ":" here, made a space, as Obsidian links a heading), and ``get`` reads each
    link, each ``PATH:LINE`` and each ``[[note#^id|alias]]`` back."""
    (root / "notes").mkdir()
    (root / "notes/Trip.md").write_text(
        "# Plans\n\nIntro line.\n\n## Day one: Lisbon\n\nThe tram to Belém leaves at 9.\n\n"
        "## Day two\n\nThe ferry to Cacilhas.\n\n# Budget\n\nHotel paid in advance.\n",
        encoding="utf-8",
    )
    stored = client.ok("remember", {"text": "Belém pastries are the best in Lisbon"})
    [trip] = [h for h in client.search("tram Belém") if h["path"] == "notes/Trip.md"]
    assert trip["block_id"] is None and trip["link"] == "[[notes/Trip#Plans#Day one Lisbon]]"
    section = client.ok("get", {"path": trip["link"]})
    assert section["text"].splitlines()[0] == "## Day one: Lisbon"
    assert "tram to Belém" in section["text"] and "ferry" not in section["text"]
    whole = client.ok("get", {"path": "[[notes/Trip]]"})
    assert "Hotel paid" in whole["text"] and whole["line_start"] == 1
    at_line = client.ok("get", {"path": f"notes/Trip.md:{trip['match_start']}"})
    assert at_line["text"] == "The tram to Belém leaves at 9."
    links = block_links(context_block(client, {"query": "Belém tram pastries"}))
    links |= {item["link"] for item in client.ok("recent", {"days": 1})["daily"]}
    assert "[[notes/Trip]]" in links and stored["link"] in links
    for link in links:
        assert client.ok("get", {"path": link})["text"], link
    day = stored["path"].removeprefix("memory/").removesuffix(".md")
    for spelled in (
        stored["link"],
        stored["link"][:-2] + "|pastries]]",
        f"[[{day}#^{stored['block_id']}]]",
    ):
        excerpt = client.ok("get", {"id": spelled})
        assert excerpt["block_id"] == stored["block_id"] and "pastries" in excerpt["text"]
    assert "no heading" in client.error("get", {"path": "[[notes/Trip#Day three]]"})


def test_get_by_id_never_reads_a_note_named_like_the_id(client: Client, root: Path) -> None:
    stored = client.ok("remember", {"text": "The spare key is under the pot"})
    (root / stored["block_id"]).write_text("not the line\n")  # a file named like the id
    assert "spare key" in client.ok("get", {"id": stored["block_id"]})["text"]


@pytest.mark.parametrize(
    "arguments",
    [{}, {"path": "MEMORY.md", "id": "m1"}, {"line_start": 1}, {"path": None, "id": None}],
)
def test_get_takes_exactly_one_of_path_and_id(client: Client, arguments: dict[str, Any]) -> None:
    assert "exactly one of path and id" in client.error("get", arguments)


def context_block(client: Client, arguments: dict[str, Any]) -> str:
    """``context``'s reply: one text block, the block itself, and nothing else."""
    result = client.call("context", arguments)
    assert not result.is_error, result.content
    assert result.structured_content is None  # no copy of the block, nor of its sections
    [text] = result.content
    return str(getattr(text, "text", ""))


def block_links(block: str) -> set[str]:
    """The links a block cites: each group's ``### [[note]]``, and with a line's ``^id``
    the ``[[note#^id]]`` Obsidian opens at that line."""
    links, note = set(), ""
    for line in block.splitlines():
        if line.startswith("#") and line.rstrip().endswith("]]") and "[[" in line:
            note = line[line.index("[[") + 2 : -2]
            links.add(f"[[{note}]]")
        elif note and (ident := re.search(r" \^([A-Za-z0-9-]+)$", line)):
            links.add(f"[[{note}#^{ident.group(1)}]]")
    return links


def test_context_stays_within_its_budget_and_cites_the_recall(client: Client) -> None:
    stored = client.ok("remember", {"text": "Maria's flight to Lisbon lands at 9:40"})
    for budget in (120, 400, 2000):
        block = context_block(client, {"query": "Lisbon flight", "budget_tokens": budget})
        assert count_tokens(block) <= budget  # the whole reply: the block is all of it
        assert block.startswith("<!-- vaultmem:context -->")
        assert "Lisbon lands at 9:40" in block  # the best hit, even at 120 tokens
        assert stored["link"] in block_links(block)


def test_recent_lists_the_lines_remembered_today(client: Client) -> None:
    stored = client.ok("remember", {"text": "Renewed the passport today"})
    changes = client.ok("recent", {"days": 1})
    assert set(changes) == {"daily", "facts_new", "facts_superseded"}
    daily = {item["block_id"]: item for item in changes["daily"]}
    assert daily[stored["block_id"]]["link"] == stored["link"]


def test_search_for_one_agent_leaves_out_other_agents_lines(client: Client) -> None:
    mine = client.ok("remember", {"text": "Prefers tabs over spaces", "agent": "codex"})
    theirs = client.ok("remember", {"text": "Prefers spaces over tabs", "agent": "claude"})
    shared = client.ok("remember", {"text": "Tabs versus spaces debate settled"})
    found = {h["block_id"] for h in client.search("tabs spaces", agent="codex")}
    assert mine["block_id"] in found and shared["block_id"] in found
    assert theirs["block_id"] not in found
    everyone = {h["block_id"] for h in client.search("tabs spaces")}
    assert {mine["block_id"], theirs["block_id"], shared["block_id"]} <= everyone


def test_a_path_outside_the_vault_is_refused_and_the_server_lives_on(
    client: Client, root: Path
) -> None:
    secret = root.parent / "outside.md"
    secret.write_text("the launch code is 0000\n")
    (root / "link.md").symlink_to(secret)
    for target in ("../outside.md", str(secret), "link.md", "memory/../../outside.md"):
        message = client.error("get", {"path": target})
        assert "outside the vault" in message and "0000" not in message
    assert client.ok("status")["files"] > 0


def test_get_reads_only_notes_never_the_vaults_other_files(client: Client, root: Path) -> None:
    """A token in ``.git/config``, ``.env``, the tool's config, a text file, a note under
    an excluded or a dot-folder, and a note-named symlink to any of them stay unread."""
    token = "ghp_s3cr3tT0ken"
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text(f"[remote]\n\turl = https://{token}@x.test/v\n")
    (root / ".env").write_text(f"TOKEN={token}\n")
    (root / ".vaultmem" / "config.toml").write_text(
        (root / ".vaultmem" / "config.toml").read_text() + f"# {token}\n"
    )
    (root / "notes.txt").write_text(f"{token} ^abc123\n")
    (root / ".obsidian").mkdir(exist_ok=True)
    (root / ".obsidian" / "hidden.md").write_text(f"- {token} ^hid123\n")
    (root / "node_modules").mkdir(exist_ok=True)
    (root / "node_modules" / "pkg.md").write_text(f"{token}\n")
    (root / "alias.md").symlink_to(root / ".env")
    targets = [
        ".git/config",
        ".env",
        ".vaultmem/config.toml",
        "notes.txt",
        ".obsidian/hidden.md",
        "node_modules/pkg.md",
        "memory/../.env",
        str(root / ".env"),
        "alias.md",
        ".obsidian/hidden.md#hid123",
    ]
    for target in targets:
        message = client.error("get", {"path": target})
        assert "is not a note of the vault" in message and token not in message, target
    assert client.ok("get", {"path": "MEMORY.md"})["path"] == "MEMORY.md"


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("search", {"query": 42}, "query"),  # a wrong type
        ("search", {"query": "tea", "limit": "ten"}, "limit"),
        ("search", {"query": "tea", "limit": 0}, "limit"),  # out of bounds
        ("search", {"query": "tea", "limit": 10_000}, "limit"),
        ("search", {}, "query"),  # a required argument missing
        ("search", {"query": "tea", "mode": "fuzzy"}, "mode"),
        ("search", {"query": "tea", "mode": "semantic"}, "run `vaultmem embed` first"),
        ("search", {"query": "tea", "since": "last week"}, "since must be a date"),
        ("search", {"query": "tea", "tags": "work"}, "tags"),
        ("remember", {"text": "x", "importance": 3}, "importance"),
        ("get", {"path": "no/such/note.md"}, "no such file"),
        ("get", {"path": "MEMORY.md", "line_start": 9999}, "9999"),
        ("get", {"path": "mnosuchid"}, "mnosuchid"),
        ("context", {"query": "tea", "budget_tokens": 5}, "budget_tokens"),
        ("recent", {"days": 0}, "days"),
        ("forget", {"id": "mnosuchid"}, "mnosuchid"),
        ("no_such_tool", {}, "no_such_tool"),
    ],
)
def test_a_malformed_call_is_an_mcp_error_and_the_server_lives_on(
    client: Client, name: str, arguments: dict[str, Any], expected: str
) -> None:
    assert expected in client.error(name, arguments)
    assert client.search("Alice")  # the next call is served


@pytest.mark.parametrize(
    ("arguments", "bad"),
    [
        ({"query": 42}, ["query"]),
        ({"query": "tea", "limit": "ten"}, ["limit"]),
        ({"limit": 0}, ["limit", "query"]),  # two bad arguments, two lines
        ({"query": "tea", "tags": ["work", 7]}, ["tags.1"]),
    ],
)
def test_bad_arguments_are_named_one_short_line_each(
    client: Client, arguments: dict[str, Any], bad: list[str]
) -> None:
    lines = client.error("search", arguments).removeprefix("Error executing tool search: ")
    named = [line.split(": ", 1)[0] for line in lines.splitlines()]
    assert sorted(named) == bad
    assert all(len(line) < 120 for line in lines.splitlines()), lines
    assert "pydantic" not in lines and "http" not in lines


def test_an_edit_by_another_process_is_found_by_the_next_search(client: Client, root: Path) -> None:
    def other_process(code: str) -> None:
        subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True, cwd=root)

    other_process(
        """
        from pathlib import Path
        Path("notes").mkdir(exist_ok=True)
        Path("notes/trip.md").write_text("# Trip\\n\\nPack the zorblax adapter.\\n")
        """
    )
    assert [h["path"] for h in client.search("zorblax")] == ["notes/trip.md"]
    # As an editor saves: a new file renamed over the old one.
    other_process(
        """
        import os
        from pathlib import Path
        Path("notes/.trip.md.swp").write_text("# Trip\\n\\nPack the quintalon charger.\\n")
        os.replace("notes/.trip.md.swp", "notes/trip.md")
        """
    )
    assert [h["path"] for h in client.search("quintalon")] == ["notes/trip.md"]
    assert client.search("zorblax") == []
    other_process("import os; os.remove('notes/trip.md')")
    assert client.search("quintalon") == []


def test_forget_over_mcp_is_soft_and_keeps_the_words(client: Client, root: Path) -> None:
    stored = client.ok("remember", {"text": "The spare key is under the blue pot"})
    done = client.ok("forget", {"id": stored["block_id"], "reason": "moved it", "hard": True})
    assert done["block_id"] == stored["block_id"] and stored["path"] in done["changed"]
    note = (root / stored["path"]).read_text()
    assert "~~" in note and "The spare key is under the blue pot" in note  # struck through
    assert stored["block_id"] in note


def test_memory_and_today_are_resources(client: Client, root: Path) -> None:
    listed = client.portal.call(client.session.list_resources).resources
    assert {str(r.uri) for r in listed} >= {"vaultmem://memory", "vaultmem://today"}
    memory = client.portal.call(client.session.read_resource, "vaultmem://memory")
    assert memory.contents[0].text.splitlines() == (root / "MEMORY.md").read_text().splitlines()
    today = client.portal.call(client.session.read_resource, "vaultmem://today").contents[0].text
    assert "Alice is allergic to peanuts" in today  # remembered above, today


def test_stdout_carried_only_the_protocol_and_nothing_crashed(
    served: tuple[Client, Path, list[Any]],
) -> None:
    # Last in the module: every call above went through this server.
    assert served[2] == []
    assert "Traceback" not in (served[1].parent / "stderr.log").read_text()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_http_serves_the_same_tools_on_localhost(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path / "vault"
    Vault.init(root, example=True)
    port = free_port()
    env = os.environ | server_env(tmp_path_factory.mktemp("home"))
    server = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "mcp", "--http", str(port), "--vault", str(root)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_listening(port, server)
        stray: list[Exception] = []
        url = f"http://127.0.0.1:{port}/mcp"
        with connect(streamable_http_client(url), stray) as client:
            stored = client.ok("remember", {"text": "HTTP clients share this memory"})
            assert client.search("HTTP clients")[0]["block_id"] == stored["block_id"]
            assert "outside the vault" in client.error("get", {"path": "/etc/passwd"})
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert out == b""  # nothing but the protocol, and that goes over HTTP


def test_http_on_a_port_in_use_is_one_error_line_and_exit_one(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path / "vault"
    Vault.init(root)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "vaultmem", "mcp", "--http", str(port), "--vault", str(root)],
            env=os.environ | server_env(tmp_path_factory.mktemp("home")),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1, done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "in use" in done.stderr


def wait_until_listening(port: int, server: subprocess.Popen[bytes]) -> None:
    from conftest import wait_for

    def listening() -> bool:
        assert server.poll() is None, server.communicate()[1].decode()
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    wait_for(listening)


def test_without_the_sdk_mcp_says_how_to_install_it(tmp_path: Path) -> None:
    Vault.init(tmp_path / "vault")
    code = (
        "import sys; sys.modules['mcp'] = None  # as if the SDK were not installed\n"
        "from vaultmem.cli import cli; cli(['mcp', '--vault', sys.argv[1]])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "vault")], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stderr.strip() == f"Error: {INSTALL_HINT}"
    assert "pip install 'mcp>=2.3'" in INSTALL_HINT
    assert done.stdout == ""


def test_the_cli_starts_without_importing_the_sdk() -> None:
    code = (
        "import json, sys, vaultmem.cli\n"
        "print(json.dumps([m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []
