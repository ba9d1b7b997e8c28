"""What the MCP tools return: pydantic models, so the SDK publishes an output schema for
each tool and sends structured content beside the text. Each model is built from the
``Vault`` result it mirrors; ``recall.link_to`` is how every answer cites its source."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from vaultmem.search.keyword import link_to

if TYPE_CHECKING:
    from vaultmem.search.keyword import Hit
    from vaultmem.vault import Remembered as VaultRemembered
    from vaultmem.vault import Status

SNIPPET_WIDTH = 300
STALE_SHOWN = 20


class SearchHit(BaseModel):
    """One search hit."""

    path: str = Field(description="The note, relative to the vault.")
    line_start: int = Field(description="First line shown: the match and its context.")
    line_end: int
    match_start: int = Field(description="First line that matched.")
    match_end: int
    heading: str = Field(description="The heading path above the lines.")
    snippet: str = Field(description="The lines' text on one line, shortened.")
    block_id: str | None = Field(description="The line's ^id, for get and forget.")
    score: float = Field(description="Higher is better; comparable within one answer.")
    tier: str | None = Field(description="hot, warm or cold for facts; archive; else null.")
    superseded: bool = Field(description="A fact replaced or taken back: do not rely on it.")
    tags: list[str]
    link: str = Field(description="Cite it: [[note#^id]] or path:line.")
    also_in: list[str] = Field(description="Other places holding the same memory, as links.")

    @classmethod
    def of(cls, hit: Hit) -> SearchHit:
        return cls(
            path=hit.path,
            line_start=hit.line_start,
            line_end=hit.line_end,
            match_start=hit.match_start,
            match_end=hit.match_end,
            heading=hit.heading,
            snippet=hit.snippet(SNIPPET_WIDTH),
            block_id=hit.block_id,
            score=round(hit.score, 4),
            tier=hit.tier,
            superseded=hit.superseded,
            tags=hit.tags,
            link=link_to(hit.path, hit.block_id, hit.heading),
            also_in=[link_to(p.path, p.block_id, p.heading) for p in hit.also_in],
        )


class SearchResult(BaseModel):
    """The hits of one search, best first."""

    hits: list[SearchHit]
    mode: str = Field(description="The mode that found them: keyword, semantic or hybrid.")


class Excerpt(BaseModel):
    """Exact lines of one note."""

    path: str
    line_start: int
    line_end: int
    text: str
    block_id: str | None
    link: str


class Remembered(BaseModel):
    """Where a remembered line went, or why it was not stored."""

    stored: bool = Field(description="True when the line is in the vault (now or before).")
    path: str | None
    line: int | None = Field(description="Its line number; null when it was there before.")
    block_id: str | None
    link: str | None
    skipped: str | None = Field(description="Why it was not written now, if it was not.")
    masked: int = Field(description="Secrets masked before storing.")
    full_text: str | None = Field(
        default=None,
        description="The note holding the whole text when it is over 64 KiB (the line "
        "holds its start).",
    )

    @classmethod
    def of(cls, done: VaultRemembered) -> Remembered:
        link = None
        if done.path is not None and done.block_id is not None:
            link = link_to(done.path, done.block_id)
        return cls(
            stored=done.block_id is not None,
            path=done.path,
            line=done.line,
            block_id=done.block_id,
            link=link,
            skipped=done.skipped,
            masked=done.masked,
            full_text=done.full_text,
        )


class Forgotten(BaseModel):
    """What a (soft) forget changed."""

    block_id: str
    lines: list[str] = Field(description="The lines struck through.")
    changed: list[str] = Field(description="The notes written.")
    commit: str | None
    already: list[str] = Field(
        default_factory=list,
        description="Lines forgotten before, left as they were (forgetting is idempotent).",
    )


class ServerStatus(BaseModel):
    """The vault and its index."""

    vault: str
    files: int
    chunks: int
    index_bytes: int
    stale: int = Field(description="Notes changed since they were indexed.")
    stale_paths: list[str] = Field(description=f"The first {STALE_SHOWN} of them.")
    warnings: int = Field(description="Notes with parse warnings.")
    not_in_full: list[str] = Field(
        default_factory=list,
        description="Notes a search cannot find all of: over index.max_file_bytes "
        "(indexed in part) or binary (not indexed).",
    )
    daemon_pid: int | None = Field(description="A `vaultmem watch` daemon's pid, if one runs.")
    live: bool = Field(description="This server follows edits made outside it.")

    @classmethod
    def of(cls, status: Status, *, live: bool) -> ServerStatus:
        return cls(
            vault=status.vault,
            files=status.files,
            chunks=status.chunks,
            index_bytes=status.index_bytes,
            stale=len(status.stale),
            stale_paths=status.stale[:STALE_SHOWN],
            warnings=len(status.warnings),
            not_in_full=[path for path, _ in status.not_in_full],
            daemon_pid=status.daemon_pid,
            live=live,
        )


class RecentItem(BaseModel):
    """One line that changed lately."""

    path: str
    line: int
    block_id: str | None
    text: str
    date: str
    link: str = ""

    def model_post_init(self, context: object, /) -> None:
        self.link = link_to(self.path, self.block_id)


class RecentResult(BaseModel):
    """What changed lately, newest first."""

    daily: list[RecentItem] = Field(description="New lines in the daily notes.")
    facts_new: list[RecentItem]
    facts_superseded: list[RecentItem]
