"""Topic pages: one ``topics/<slug>.md`` per person, project, repository or concept.

A topic's hotness is recomputed from its facts' dates on every run, never accumulated,
so a rerun (or a run after a crash) gives the same number: each mention adds 0.05,
cooled by x0.95 a day since. Active at 0.5 and above, dormant under 0.1, warm between.
Once a topic has 3 or more facts, its page gets a rule-based summary.

vaultmem owns the block between the markers of a topic page; the rest of the page (and
the frontmatter, written once when the page is made) is the person's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from vaultmem.config import MemoryConfig
from vaultmem.memory.language.people import speaker, speakers
from vaultmem.memory.pipeline.facts import Fact, daily_date, fact_link
from vaultmem.notes.parse import find_links

_SLUG = re.compile(r"[^\w]+")
# What follows a name that opens a sentence as its subject.
_SUBJECT_AFTER = re.compile(
    r"'s\b|\s+(?:is|was|has|had|and|said|says|told|tells|wants|likes|loves|lives|works|"
    r"will|would|can|did|does|went|moved|joined|left)\b"
)
_KIND_RANK = {"person": 0, "project": 1, "repository": 2, "concept": 3}


def slug(name: str) -> str:
    """A file name for a topic: lower case, words joined by ``-`` (CJK kept)."""
    return _SLUG.sub("-", name.casefold()).strip("-")[:80] or "topic"


@dataclass
class Topic:
    """Everything the consolidation knows about one topic."""

    name: str
    kind: str  # person | project | repository | concept
    facts: list[Fact] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"topics/{slug(self.name)}.md"

    def hotness(self, today: dt.date, config: MemoryConfig) -> float:
        total = 0.0
        for fact in self.facts:
            day = fact.day or today
            total += config.hotness_mention * config.hotness_daily ** max(0, (today - day).days)
        return min(1.0, total)

    def status(self, today: dt.date, config: MemoryConfig) -> str:
        hot = self.hotness(today, config)
        if hot >= config.topic_active:
            return "active"
        if hot < config.topic_dormant:
            return "dormant"
        return "warm"

    def last_mentioned(self) -> dt.date | None:
        days = [f.day for f in self.facts if f.day]
        return max(days) if days else None


def page_header(topic: Topic) -> str:
    """A new topic page's frontmatter and title."""
    return f"---\ntype: topic\nkind: {topic.kind}\n---\n\n# {topic.name}\n\n"


def page_block(topic: Topic, today: dt.date, config: MemoryConfig, shown: int = 30) -> str:
    """The generated part of a topic page."""
    hot = topic.hotness(today, config)
    last = topic.last_mentioned()
    lines = [
        f"[kind:: {topic.kind}] [hotness:: {hot:.2f}] [status:: {topic.status(today, config)}]"
        f" [facts:: {len(topic.facts)}]" + (f" [last_mentioned:: {last}]" if last else ""),
    ]
    if len(topic.facts) >= config.summary_min_facts:
        lines += ["", summary(topic)]
    newest = sorted(topic.facts, key=lambda f: (f.day or dt.date.min, f.id or ""), reverse=True)
    lines += ["", "## Facts"]
    lines += [
        f"- {fact.text} {fact_link(fact.path, fact.id)}" for fact in newest[:shown] if fact.id
    ]
    if len(newest) > shown:
        lines.append(f"- … and {len(newest) - shown} older facts (`vaultmem search {topic.name}`)")
    return "\n".join(lines)


def summary(topic: Topic) -> str:
    """One rule-made paragraph: how much, since when, about what, and the latest word."""
    days = sorted(f.day for f in topic.facts if f.day)
    areas = Counter(f.path.removeprefix("facts/").removesuffix(".md") for f in topic.facts)
    about = ", ".join(f"{area} ({count})" for area, count in areas.most_common(3))
    latest = max(topic.facts, key=lambda f: (f.day or dt.date.min, f.id or ""))
    since = f" since {days[0]}" if days else ""
    return (
        f"**Summary:** {topic.name} ({topic.kind}) appears in {len(topic.facts)} facts{since},"
        f" mostly about {about}. Latest: “{latest.text}”."
    )


def gather(facts: Iterable[Fact], min_facts: int) -> list[Topic]:
    """The topics the facts name that have at least ``min_facts`` of them, each holding its
    facts in path and id order (the same page whichever order the facts were read in).
    A person is a conversation's speaker or a name written as one (``_written_as_name``):
    a capitalised word seen only where any word may be ("Thankfully, ...") names no one.
    A short name that begins exactly one longer person's name is that person ("Mel" and
    "Melanie", "Deb" and "Deborah": one page)."""
    topics: dict[str, Topic] = {}
    written_as_name: set[str] = set()
    named = [fact for fact in facts if fact.id is not None]
    conversation = speakers(fact.text for fact in named)
    for fact in named:
        for name, kind in _mentions(fact, conversation):
            topic = topics.setdefault(name.casefold(), Topic(name, kind))
            topic.facts.append(fact)
            if _KIND_RANK[kind] < _KIND_RANK[topic.kind]:
                topic.kind = kind
            if kind != "person" or speaker(fact.text) == name or _written_as_name(fact, name):
                written_as_name.add(name.casefold())
    for key in [k for k, t in topics.items() if t.kind == "person" and k not in written_as_name]:
        del topics[key]
    _merge_short_names(topics)
    for topic in topics.values():
        topic.facts.sort(key=lambda f: (f.path, f.id or ""))
    return [t for t in topics.values() if len(t.facts) >= min_facts]


def _written_as_name(fact: Fact, name: str) -> bool:
    """Whether ``name`` stands in the fact's words as a name does: inside a sentence, or
    opening one as its subject ("Alice is ...", "Alice's ...", "Bob and I ..."), not as
    an opening word any sentence may have ("Thankfully, ...", "Just got back")."""
    words = fact.text
    start = words.find(name)
    while start >= 0:
        before = words[:start].rstrip()
        inside = before and before[-1] not in ".!?:;\"'([-—–…\n" and not before.endswith("**")
        if inside or _SUBJECT_AFTER.match(words, start + len(name)):
            return True
        start = words.find(name, start + 1)
    return False


def _merge_short_names(topics: dict[str, Topic]) -> None:
    """Fold each one-word person whose name begins exactly one longer person's one-word
    name into that person."""
    people = [k for k, t in topics.items() if t.kind == "person" and " " not in k]
    for short in people:
        longer = [k for k in people if k != short and k.startswith(short) and k in topics]
        if len(short) < 3 or len(longer) != 1 or short not in topics:
            continue
        whole = topics[longer[0]]
        held = {id(f) for f in whole.facts}
        whole.facts += [f for f in topics.pop(short).facts if id(f) not in held]


def _mentions(fact: Fact, conversation: set[str]) -> list[tuple[str, str]]:
    """The topics a fact names, each once: ``(name, kind)``, the first kind found winning;
    a line one of the ``conversation``'s speakers said names them."""
    said_by = speaker(fact.text)
    found = [(said_by, "person")] if said_by in conversation else []
    found += [(name, "person") for name in fact.metadata("person")]
    found += [(name, "project") for name in fact.metadata("project")]
    found += [(name, "repository") for name in fact.metadata("repo")]
    for target, _embed in find_links(fact.text):
        # A link to a day (``[[2026-11-20]]``) names no topic, whatever folder holds it.
        if target and "/" not in target and not daily_date(f"{target}.md", ""):
            found.append((target, "concept"))
    unique: dict[str, tuple[str, str]] = {}
    for name, kind in found:
        unique.setdefault(name.casefold(), (name, kind))
    return list(unique.values())
