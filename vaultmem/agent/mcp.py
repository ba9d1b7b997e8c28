"""The MCP server (``vaultmem mcp``): a thin layer over ``Vault`` for agents, built with the
official ``mcp`` SDK (an optional extra: nothing in the core imports this module).

Owns: the tools (their schemas come from the type hints, their structured output from the
pydantic models in ``mcp_models.py``), the resources, turning ``VaultmemError`` into MCP
tool errors (``isError``, the server lives on), and the server's life: a ``Vault`` for each
call running at once (the SDK runs each tool in a worker thread; ``VaultService``), so no
slow call makes another client wait, plus a ``LiveIndex`` that keeps the index following
edits made outside the server (``live.py``). Every read settles first, so it sees
every edit finished before the call. See ``docs/mcp.md``.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from vaultmem import __version__
from vaultmem.agent.live import LiveIndex
from vaultmem.agent.mcp_models import (
    Excerpt,
    Forgotten,
    RecentResult,
    Remembered,
    SearchHit,
    SearchResult,
    ServerStatus,
)
from vaultmem.agent.mcp_stdio import AnsweringReader
from vaultmem.errors import VaultmemError
from vaultmem.memory.pipeline.remember import daily_note_path
from vaultmem.search.keyword import link_to
from vaultmem.vault import Vault

F = TypeVar("F", bound=Callable[..., Any])
MAX_LIMIT = 100
MAX_BUDGET = 200_000
AgentName = Annotated[
    str | None,
    Field(description="Your agent's name when several share the vault; omit to share all."),
]
INSTRUCTIONS = (
    "vaultmem is this user's long-term memory, kept as Markdown notes they read in Obsidian. "
    "Call `search` before answering about past conversations, people, decisions or "
    "preferences; call `remember` with one self-contained sentence when you learn something "
    "worth keeping; cite what you use by its `link`. `get` reads the exact lines."
)


class Server(MCPServer):
    """The SDK's server, with argument errors an agent can act on: one short line per bad
    argument (``limit: Input should be greater than or equal to 1``) instead of pydantic's
    multi-line report ending in a documentation URL."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            # The cause stays the ValidationError: the SDK logs its field names from it.
            raise ToolError(f"Error executing tool {name}: {bad_arguments(cause)}") from cause

    async def run_stdio_async(self) -> None:
        """Serve over stdio as the SDK does, with every line it cannot read answered
        (``AnsweringReader``) instead of dropped."""
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(
                AnsweringReader(read_stream, write_stream),
                write_stream,
                self._lowlevel_server.create_initialization_options(),
            )


def bad_arguments(error: ValidationError) -> str:
    """Each bad argument on its line: its name (``tags.1`` for a list's item) and what is
    wrong with it, without the value (it is the caller's data) or pydantic's links."""
    lines = []
    for problem in error.errors(include_url=False, include_input=False):
        name = ".".join(str(part) for part in problem["loc"]) or "arguments"
        what = "required" if problem["type"] == "missing" else problem["msg"]
        lines.append(f"{name}: {what}")
    return "\n".join(dict.fromkeys(lines))


class VaultService:
    """The tools' vaults, and the live index's freshness.

    The SDK runs each call of a (synchronous) tool in a worker thread. Each call borrows a
    ``Vault`` no other call is using (a pool: one per call running at once, each with its
    own SQLite connection, kept for the next call), so a slow search on one client's behalf
    holds up no other client's call: the index is in WAL mode, where readers run beside
    each other and beside a writer. Writes (``remember``, ``forget``) also go one at a time
    through ``writing``; vaultmem's write lock orders them with other processes' too.
    """

    def __init__(self, vault: Vault, live: LiveIndex | None) -> None:
        self.vault = vault  # the first of the pool; its root and settings are everyone's
        self.live = live
        self._idle = [vault]
        self._pool_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._all = [vault]

    @contextmanager
    def reading(self) -> Iterator[Vault]:
        """A vault for this call, after every edit made before the call is indexed."""
        if self.live is not None:
            self.live.settle()
        with self._borrowed() as vault:
            yield vault

    @contextmanager
    def writing(self) -> Iterator[Vault]:
        """A vault for this call, one writing call at a time."""
        with self._write_lock, self._borrowed() as vault:
            yield vault

    @contextmanager
    def _borrowed(self) -> Iterator[Vault]:
        """A vault no other call uses meanwhile; its errors as tool errors, and what it
        did on its own (its notices) on stderr."""
        with self._pool_lock:
            vault = self._idle.pop() if self._idle else None
        if vault is None:
            try:
                vault = Vault(self.vault.root)
            except VaultmemError as exc:  # the vault went away: the call fails, not the server
                raise ToolError(str(exc)) from exc
            with self._pool_lock:
                self._all.append(vault)
        first = len(vault.notices)
        try:
            yield vault
        except VaultmemError as exc:
            raise ToolError(str(exc)) from exc
        finally:
            for notice in vault.notices[first:]:
                print(f"vaultmem: warning: {notice}", file=sys.stderr, flush=True)
            del vault.notices[first:]
            with self._pool_lock:
                self._idle.append(vault)

    def close(self) -> None:
        """Close every vault of the pool (their index connections)."""
        with self._pool_lock:
            for vault in self._all:
                vault.close()


def _check_date(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ToolError(f"{name} must be a date like 2026-11-22, got {value!r}") from None


def as_block_id(target: str) -> str:
    """``get``'s ``id`` as ``Vault.get`` reads an id and never a path: a bare ``id``
    becomes ``^id`` (a file of the vault named like the id is not what was asked)."""
    target = target.strip()
    return target if target.startswith("^") or "#" in target else "^" + target


def _has_tags(found: list[str], wanted: list[str]) -> bool:
    """Every wanted tag is on the hit, itself or a nested tag below it (as ``--tag``)."""
    keys = [t.lstrip("#").casefold() for t in found]
    return all(
        any(k == w or k.startswith(w + "/") for k in keys)
        for w in (t.lstrip("#").casefold() for t in wanted)
    )


def _tool(server: MCPServer, annotations: ToolAnnotations) -> Callable[[F], F]:
    """Register a tool; its description is its docstring on one line (hosts show it so)."""

    def register(fn: F) -> F:
        server.add_tool(
            fn, description=" ".join((fn.__doc__ or "").split()), annotations=annotations
        )
        return fn

    return register


def register_tools(server: MCPServer, service: VaultService) -> None:
    """The tools, each a few lines over one ``Vault`` call."""
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @_tool(server, read_only)
    def search(
        query: Annotated[str, Field(description="Words to look for; any language.")],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most hits to return.")] = 10,
        path: Annotated[
            str | None, Field(description="Keep notes whose path matches this glob.")
        ] = None,
        since: Annotated[
            str | None, Field(description="Keep lines dated on or after YYYY-MM-DD.")
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description="Keep lines carrying all of these tags.")
        ] = None,
        mode: Annotated[
            Literal["auto", "keyword", "semantic", "hybrid"],
            Field(
                description="'keyword' (words), 'semantic' (meaning), 'hybrid' (both), or"
                " 'auto': hybrid once the vault is embedded, else keyword."
            ),
        ] = "auto",
        agent: AgentName = None,
    ) -> SearchResult:
        """Search the memory (daily notes, facts, topics, MEMORY.md); hits best first, each
        with a `link` to cite and a `block_id` for `get` or `forget`."""
        since = _check_date("since", since)
        wanted = [t for t in tags or [] if t.strip("# ")]
        with service.reading() as vault:
            # More than asked when several tags must match: the first filters in SQL, the
            # rest here, on the hits' tags.
            asked = limit if len(wanted) < 2 else min(limit * 10, 1000)
            hits = vault.search(
                query,
                limit=asked,
                path=path,
                tag=wanted[0] if wanted else None,
                since=since,
                agent=agent,
                mode=None if mode == "auto" else mode,
            )
        kept = [h for h in hits if _has_tags(h.tags, wanted)][:limit]
        return SearchResult(hits=[SearchHit.of(h) for h in kept], mode=hits.mode)

    @_tool(server, read_only)
    def get(
        path: Annotated[
            str | None,
            Field(description="A note's path (MEMORY.md, memory/X.md), or a block id as in id."),
        ] = None,
        id: Annotated[
            str | None, Field(description="A block id: ^id, id, DATE#id or PATH#id.")
        ] = None,
        line_start: Annotated[int | None, Field(ge=1, description="First line (1-based).")] = None,
        line_end: Annotated[int | None, Field(ge=1, description="Last line, inclusive.")] = None,
    ) -> Excerpt:
        """Read the exact text of a note by path (or its lines line_start..line_end), or the
        line with a block id; give exactly one of path and id."""
        if id is not None and path is None:
            target = as_block_id(id)
        elif path is not None and id is None:
            target = path
        else:
            raise ToolError("give exactly one of path and id (a note's path or a block id)")
        with service.reading() as vault:
            shown = vault.get(target, line_start, line_end)
        return Excerpt(
            path=shown.path,
            line_start=shown.line_start,
            line_end=max(shown.line_end, shown.line_start),
            text="\n".join(shown.lines),
            block_id=shown.block_id,
            link=link_to(shown.path, shown.block_id),
        )

    @_tool(server, read_only)
    def context(
        query: Annotated[str | None, Field(description="What the turn is about.")] = None,
        budget_tokens: Annotated[
            int | None,
            Field(ge=40, le=MAX_BUDGET, description="Most tokens (default: the vault's)."),
        ] = None,
        agent: AgentName = None,
    ) -> CallToolResult:
        """The memory block to put in your prompt: MEMORY.md, the best recall for query, then
        today's and yesterday's notes, never over budget_tokens; each line cites its source."""
        with service.reading() as vault:
            block = vault.context(query, budget=budget_tokens, agent=agent)
        # The reply is the block alone, so the budget bounds all a host may hand the model:
        # no structured copy of it, nor of its sections (each line cites its source in the
        # block itself: its note's [[link]] above it, its ^id at its end).
        return CallToolResult(content=[TextContent(type="text", text=block.text)])

    @_tool(server, read_only)
    def recent(
        days: Annotated[int, Field(ge=1, le=3660, description="How many days back.")] = 7,
        limit: Annotated[int, Field(ge=1, le=1000, description="Most items per list.")] = 50,
        agent: AgentName = None,
    ) -> RecentResult:
        """What changed lately: new daily-note lines, new facts and superseded facts, newest
        first."""
        with service.reading() as vault:
            changes = vault.recent(days=days, limit=limit, agent=agent)
        return RecentResult.model_validate(changes.as_dict())

    @_tool(server, ToolAnnotations(idempotent_hint=True, open_world_hint=False))
    def remember(
        text: Annotated[str, Field(description="One self-contained sentence to keep.")],
        tags: Annotated[list[str] | None, Field(description="Tags, without '#'.")] = None,
        importance: Annotated[
            float | None, Field(ge=0, le=1, description="How much it matters, 0 to 1.")
        ] = None,
        session: Annotated[
            str | None, Field(description="The conversation's id; part of the line's id.")
        ] = None,
        role: Annotated[str, Field(description="Who said it: user, agent, ...")] = "user",
        agent: AgentName = None,
    ) -> Remembered:
        """Store one line in today's daily note (secrets masked, the same words in the same
        session stored once); returns its block id and path:line."""
        with service.writing() as vault:
            done = vault.remember(
                text,
                role=role,
                session=session,
                tags=tags or (),
                importance=importance,
                agent=agent,
            )
        return Remembered.of(done)

    @_tool(
        server,
        ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    )
    def forget(
        id: Annotated[
            str, Field(description="The block id of a fact or a daily line (or DATE#id).")
        ],
        reason: Annotated[str | None, Field(description="Why; kept beside it.")] = None,
    ) -> Forgotten:
        """Take back a memory: strike its line through (soft; the words stay for a person to
        see, and the facts distilled from it go with it)."""
        with service.writing() as vault:
            done = vault.forget(id, reason=reason, hard=False)
        return Forgotten(
            block_id=done.block_id,
            lines=done.lines,
            changed=done.changed,
            commit=done.commit,
            already=done.already,
        )

    @_tool(server, read_only)
    def status() -> ServerStatus:
        """The vault's folder, its note and index counts, and whether the index is current."""
        with service.reading() as vault:
            found = vault.status()
        return ServerStatus.of(found, live=service.live is not None and service.live.running)


def register_resources(server: MCPServer, service: VaultService) -> None:
    """``MEMORY.md`` and today's daily note, for hosts that attach resources."""

    def read(path: str) -> str:
        try:
            with service.reading() as vault:
                return "\n".join(vault.show(path).lines)
        except ToolError as exc:
            raise ResourceError(str(exc)) from exc

    @server.resource(
        "vaultmem://memory",
        name="MEMORY.md",
        mime_type="text/markdown",
        description=("The memory's summary: what matters most, rebuilt by consolidation."),
    )
    def memory() -> str:
        return read("MEMORY.md")

    @server.resource(
        "vaultmem://today",
        name="today",
        mime_type="text/markdown",
        description=("Today's daily note (empty until something is remembered today)."),
    )
    def today() -> str:
        rel = daily_note_path(dt.date.today(), service.vault.config.vault.daily_folder)
        if not (service.vault.root / rel).exists():
            return ""
        return read(rel)


def build_server(service: VaultService) -> MCPServer:
    """The server with its tools and resources (no transport yet)."""
    server = Server("vaultmem", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    register_tools(server, service)
    register_resources(server, service)
    return server


def _stderr(line: str) -> None:
    print(f"vaultmem: {line}", file=sys.stderr, flush=True)


def _vault_gone() -> None:
    """The vault was moved or deleted (the live index said so on stderr): end the server
    with code 1 at once, as the watch daemon does. Its host sees the server stop, instead
    of tools that fail or, worse, write notes at the old path. ``os._exit``: the SDK's
    stdio loop blocks in a read of stdin that nothing else can interrupt; no write of ours
    is left half done (each is atomic)."""
    sys.stderr.flush()
    os._exit(1)


def check_port(port: int, host: str = "127.0.0.1") -> None:
    """Bind ``host:port`` once and let it go, so that a port already taken is one clear
    error before anything starts (uvicorn would log its own and exit 3). Binds as uvicorn
    does (``SO_REUSEADDR``), so a port left in TIME_WAIT by a server just stopped is free.

    Raises:
        VaultmemError: the port cannot be bound (in use, or not allowed).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            why = "is already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
            raise VaultmemError(
                f"cannot serve on {host}:{port}: the port {why}; choose another with --http PORT"
            ) from exc


def serve(vault_path: Path | None, http_port: int | None = None) -> None:
    """Run the server until the client goes away (stdio) or it is interrupted (http).

    Raises:
        VaultmemError: no vault there, or the HTTP port cannot be bound.
    """
    if http_port is not None:
        check_port(http_port)
    vault = Vault.find(vault_path)
    live = LiveIndex(Vault(vault.root), _stderr, on_gone=_vault_gone)
    live.start()
    service = VaultService(vault, live)
    server = build_server(service)
    try:
        if http_port is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host="127.0.0.1", port=http_port)
    finally:
        live.stop()
        service.close()


__all__ = ["VaultService", "build_server", "serve"]
