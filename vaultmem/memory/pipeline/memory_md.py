"""``MEMORY.md``'s generated block: what an agent reads first, within a token budget.

Sections, in the order they are shown, each filled while the budget lasts, by priority
(``context.fit``): the vault's size (always), the owner's identity, health and safety and
pinned facts, the active context (hot topics and open tasks of the last two weeks), the
lessons, the facts of the last days, then the top facts by today's score. A fact is shown
once, in the first section that takes it, citing it by a link to its line (``cite``).
Everything here is pure: consolidation gathers the facts, topics and tasks and writes the
block between the markers.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable

from vaultmem.config import MemoryConfig
from vaultmem.memory.language.categories import is_lesson
from vaultmem.memory.language.people import about
from vaultmem.memory.pipeline.facts import Fact
from vaultmem.memory.pipeline.tiers import TIERS, tier
from vaultmem.memory.pipeline.topics import Topic
from vaultmem.notes.generated_block import Section, fit

# The owner's section: what the owner is (a fact about someone else, "Alice is allergic
# to peanuts", is not the owner's identity, even in a file a person put it in).
_OWNER_KINDS = ("identity", "health", "safety")


def build_block(
    live: list[Fact],
    score: Callable[[Fact], float],
    *,
    archived: int,
    topics: list[Topic],
    open_tasks: list[tuple[str, str]],
    today: dt.date,
    config: MemoryConfig,
) -> str:
    """The block for the live facts (``score`` rates a fact today), ``archived`` facts in
    the archive, the vault's topics and ``(words, date)`` of open tasks."""
    scores = {id(f): score(f) for f in live}  # once: sorting and counting need it
    scored = sorted(live, key=lambda f: (-scores[id(f)], f.id or ""))
    shown: set[int] = set()

    def lines(facts: list[Fact], limit: int | None = None) -> list[str]:
        out = []
        for fact in facts:
            if id(fact) in shown:
                continue
            shown.add(id(fact))
            text = fact.text if len(fact.text) <= 200 else fact.text[:199] + "…"
            out.append(f"- {text}" + (f" ({cite(fact.path, fact.id)})" if fact.id else ""))
            if limit is not None and len(out) >= limit:
                break
        return out

    owner = [f for f in scored if f.pinned or (f.kind in _OWNER_KINDS and not about(f.text))]
    identity = Section("Owner and identity", lines(owner), 1)
    context = Section("Active context", _active_context(topics, open_tasks, today, config), 2)
    lessons = Section(
        "Lessons", lines([f for f in scored if is_lesson(f.path, f.text)], config.lessons), 3
    )
    recent = Section("Last days", _highlights(live, today, config), 4)
    top = Section("Top facts", lines(scored), 5)
    counts = dict.fromkeys(TIERS, 0)
    for fact in live:
        counts[tier(scores[id(fact)], config)] += 1
    index = Section(
        "Vault",
        [
            f"{len(live)} facts ({counts['hot']} hot, {counts['warm']} warm, "
            f"{counts['cold']} cold), {archived} archived, {len(topics)}"
            " topics; find more with `vaultmem search`."
        ],
        0,
    )
    return fit([identity, context, lessons, top, recent, index], config.budget_tokens)


def cite(path: str, ident: str) -> str:
    """A fact cited by its id as a link Obsidian follows to the fact's line, shown as the
    id alone: ``[[facts/health#^f09a4e5a171|f09a4e5a171]]``."""
    return f"[[{path.removesuffix('.md')}#^{ident}|{ident}]]"


def _active_context(
    topics: list[Topic], open_tasks: list[tuple[str, str]], today: dt.date, config: MemoryConfig
) -> list[str]:
    hot = sorted(
        (t for t in topics if t.status(today, config) == "active"),
        key=lambda t: -t.hotness(today, config),
    )
    out = [
        f"- [[{t.path.removesuffix('.md')}|{t.name}]] ({t.kind}, hotness "
        f"{t.hotness(today, config):.2f})"
        for t in hot[:10]
    ]
    return out + [f"- [ ] {words} ({day})" for words, day in open_tasks]


def _highlights(live: list[Fact], today: dt.date, config: MemoryConfig) -> list[str]:
    first = today - dt.timedelta(days=config.highlight_days - 1)
    by_day: defaultdict[dt.date, list[Fact]] = defaultdict(list)
    for fact in live:
        if fact.day and first <= fact.day <= today:
            by_day[fact.day].append(fact)
    out = []
    for day in sorted(by_day, reverse=True):
        best = sorted(by_day[day], key=lambda f: (-f.importance, f.id or ""))[:3]
        out.append(f"- {day}: " + "; ".join(f.text[:120] for f in best))
    return out
