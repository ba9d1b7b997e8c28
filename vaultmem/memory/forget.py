"""``forget``: a memory taken back by hand, by its block id.

Soft (the default) strikes the line through in place with ``[forgotten:: date]`` and the
reason, keeping its words, like a superseded fact. ``hard`` removes the words from the
working files: the fact line and the daily-note lines it came from (forgetting a daily-note
line takes the facts distilled from it too). Git history still holds them; ``docs/memory.md``
says how to purge history for real. Either way the memory log records the source line as
dealt with (by id only, no words), so consolidation does not distill it again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from .edits import Edits
from .facts import Entry, Fact, daily_date, source_key, with_fields


@dataclass
class Target:
    """A line found by its block id."""

    path: str
    entry: Entry


@dataclass
class ForgetPlan:
    edits: Edits = field(default_factory=Edits)
    lines: list[str] = field(default_factory=list)  # "path:line" of each line touched
    events: list[tuple[str, ...]] = field(default_factory=list)


def plan_forget(
    found: list[Target],
    facts: list[Fact],
    *,
    reason: str | None,
    hard: bool,
    today: dt.date,
) -> ForgetPlan:
    """The edits that forget the lines ``found`` (facts, or daily-note lines with the facts
    distilled from them)."""
    plan = ForgetPlan()
    targets = list(found)
    for target in found:
        day: str | None = daily_date(target.path)
        if day is not None and target.entry.block_id:
            key = source_key(day, target.entry.block_id)
            targets += [Target(f.path, f.entry) for f in facts if key in f.sources]
            plan.events.append(("forgot", key, target.entry.block_id))
        elif target.entry.block_id:
            fact = Fact(target.path, target.entry)
            plan.events += [("forgot", key, target.entry.block_id) for key in fact.sources]
            if hard:
                for key in fact.sources:
                    note, ident = key.split("#", 1)
                    targets.append(Target(f"memory/{note}.md", Entry(0, "", "", None, ident)))
    fields = [("forgotten", today.isoformat())]
    if reason:
        fields.append(("reason", " ".join(reason.replace("[", "(").replace("]", ")").split())))
    seen = set()
    for target in targets:
        block = target.entry.block_id
        if block is None or (target.path, block) in seen:
            continue
        seen.add((target.path, block))
        if hard:
            plan.edits.remove_line(target.path, block)
        else:
            plan.edits.edit_line(
                target.path, block, lambda line: with_fields(line, fields, strike=True)
            )
        plan.lines.append(
            f"{target.path}:{target.entry.number}" if target.entry.number else target.path
        )
    return plan
