"""Where a fact goes: the category tree under ``facts/``, routed by rules.

The tree vaultmem writes (at most 2 deep, 10 children at the root; people may add their
own files and folders, up to 4 deep, and ``vaultmem tree`` shows them all)::

    facts/identity.md   facts/health.md    facts/safety.md    facts/preferences.md
    facts/people.md     facts/money.md     facts/general.md
    facts/life/{events,changes}.md
    facts/work/{decisions,projects}.md
    facts/tech/{errors,tools}.md

The first rule that matches wins (``docs/facts.md`` has the table).
"""

from __future__ import annotations

from .extract import Metadata
from .scoring import Score

MAX_DEPTH = 4
MAX_CHILDREN = 10


def route(score: Score, meta: Metadata) -> str:
    """The vault-relative file a fact belongs in."""
    kind, signals = score.kind, score.signals
    if kind == "identity":
        return "facts/identity.md"
    if kind == "health":
        return "facts/health.md"
    if kind == "safety":
        return "facts/safety.md"
    if "error" in signals:
        return "facts/tech/errors.md"
    if "decision" in signals:
        return "facts/work/decisions.md"
    if kind == "preference" or "preference" in signals:
        return "facts/preferences.md"
    if "money" in signals or meta.amounts:
        return "facts/money.md"
    if kind == "relationship":
        return "facts/people.md"
    if kind == "status change":
        return "facts/life/changes.md"
    if meta.commands or meta.repositories or meta.paths or "configuration" in signals:
        return "facts/tech/tools.md"
    if meta.projects:
        return "facts/work/projects.md"
    if "event" in signals:
        return "facts/life/events.md"
    if meta.people:
        return "facts/people.md"
    return "facts/general.md"


def is_lesson(path: str) -> bool:
    """Facts that teach how to act next time: errors met and decisions or rules made."""
    return path.endswith(("tech/errors.md", "work/decisions.md"))
