"""What a consolidation run did (or, with ``--dry-run``, would do): ``Report``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Report:
    """What a run did (or, with ``--dry-run``, would do)."""

    mode: str
    dry_run: bool
    today: str
    collected: int = 0
    admitted: int = 0
    new_facts: int = 0
    repeats: int = 0
    beliefs: int = 0
    confirmed: int = 0
    superseded: int = 0
    archived: int = 0
    topics: int = 0
    memory_tokens: int = 0
    changed: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    llm: dict[str, int] = field(default_factory=dict)  # the LLM pass's Stats, when on
    commit: str | None = None
    diff: str = ""

    def summary(self) -> str:
        parts = [
            f"{self.new_facts} new facts",
            f"{self.repeats} repeats",
            f"{self.confirmed} beliefs confirmed",
            f"{self.superseded} superseded",
            f"{self.archived} archived",
            f"{self.topics} topics",
        ]
        return f"consolidate ({self.mode}): " + ", ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
