"""Keeping the facts right as a run plans: changing a fact line, striking the facts a
later one supersedes, settling a fact found in both ``facts/`` and ``archive/``, and moving
facts that went cold to the archive (phase 6, decay).

``FactUpkeep`` is the part of ``Consolidation`` (``consolidate.py``) that does this; it
plans edits like the rest of a run (``edits.py``), so a run stopped midway is finished by
the next one: a fact moved is written to the archive before it leaves ``facts/``, and a
superseding fact carries ``[supersedes:: ]`` so that its strike-through is redone.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path

from vaultmem.config import MemoryConfig
from vaultmem.memory.pipeline.edits import Edits
from vaultmem.memory.pipeline.facts import Fact, fact_link, parse_entry, with_fields
from vaultmem.memory.pipeline.factset import FactSet
from vaultmem.memory.pipeline.report import Report
from vaultmem.memory.pipeline.tiers import current_score, tier


class FactUpkeep:
    """What ``Consolidation`` holds that these steps read and change."""

    root: Path
    today: dt.date
    memory: MemoryConfig
    report: Report
    edits: Edits
    events: list[tuple[str, ...]]
    facts: list[Fact]
    by_id: dict[str, Fact]
    factset: FactSet
    pending: defaultdict[str, dict[str, str]]
    changed: set[str]
    id_lines: dict[str, Counter[str]]
    accesses: dict[str, int]

    def _change_fact(self, fact: Fact, change: Callable[[str], str]) -> bool:
        """Change a fact line, whether it is already in a file or planned in this run;
        ``False`` (and a notice) when its id is on several lines of its file, where an
        edit by id could change the wrong one."""
        assert fact.id is not None
        pending = self.pending.get(fact.path, {})
        if fact.id in pending:
            pending[fact.id] = change(pending[fact.id])
        elif self._lines_with_id(fact) > 1:
            self.report.notices.append(
                f"{fact.path}: ^{fact.id} is on several lines; give each its own id "
                "(left unchanged)"
            )
            return False
        else:
            self.edits.edit_line(fact.path, fact.id, change)
        self.changed.add(fact.id)
        updated = parse_entry(change(fact.entry.raw))
        if updated is not None:
            fact.entry = updated
        if not fact.live:
            self.factset.discard(fact.id)
        return True

    def _reconcile(self, completed: set[str]) -> None:
        """Settle facts found in both ``facts/`` and ``archive/``, then strike every fact a
        live fact says it supersedes (redone after a crash)."""
        copies: defaultdict[str, list[Fact]] = defaultdict(list)
        for fact in self.facts:
            if fact.id is not None:
                copies[fact.id].append(fact)
        for ident, found in copies.items():
            live = [f for f in found if not f.archived]
            archived = [f for f in found if f.archived]
            if not live or not archived:
                continue
            if _cut_short(live, archived, ident in completed):
                self._drop_copy(live[0], keep=archived[0])
            else:  # a person revived it (or edited it): their line wins
                for copy in archived:
                    self._drop_copy(copy, keep=live[0])
        for fact in self.facts:
            if not fact.live or fact.archived or not fact.id:
                continue
            for ident in fact.supersedes:
                old = self.by_id.get(ident)
                if old is None or not old.live or old.pinned or old is fact:
                    continue
                marks = [
                    ("superseded_by", fact_link(fact.path, fact.id)),
                    ("superseded", str(fact.day or self.today)),
                ]
                strike = partial(with_fields, fields=marks, strike=True)
                self.report.superseded += self._change_fact(old, strike)

    def _lines_with_id(self, fact: Fact) -> int:
        """How many lines of the fact's note end with its id (an edit by id needs one)."""
        return self.id_lines.get(fact.path, Counter())[fact.id or ""]

    def _drop_copy(self, fact: Fact, keep: Fact) -> None:
        """Remove one of two copies of a fact line (``keep`` stays) unless its id is on
        more than one line of its note, where removing by id could take the wrong one."""
        assert fact.id is not None
        if self._lines_with_id(fact) != 1:
            self.report.notices.append(
                f"{fact.path}: ^{fact.id} is on several lines; its copy in {keep.path} "
                "was left as it is"
            )
            return
        self.edits.remove_line(fact.path, fact.id)
        self.facts.remove(fact)
        self.by_id[fact.id] = keep
        if fact.live and not fact.archived:
            self.factset.discard(fact.id)
        if keep.live and not keep.archived:
            self.factset.add(fact.id, keep.text)

    def _score(self, fact: Fact) -> float:
        return current_score(
            fact.importance,
            fact.kind,
            fact.day,
            self.today,
            accesses=self.accesses.get(fact.id or "", 0),
            pinned=fact.pinned,
            config=self.memory,
        )

    def _decay(self) -> None:
        """Move facts whose score fell below the cold tier to the archive, word for word.
        A fact new in this run that is already that cold (distilled from an old note) is
        written to the archive directly, so that a second run has nothing left to move."""
        for fact in self.facts:
            if fact.archived or fact.id is None or fact.pinned or fact.moved:
                continue
            if tier(self._score(fact), self.memory) != "archive":
                continue
            target = "archive/" + fact.path.removeprefix("facts/")
            pending = self.pending.get(fact.path, {})
            if fact.id in pending:
                self.pending[target][fact.id] = pending.pop(fact.id)
                fact.path = target
            elif fact.id in self.changed:
                continue  # changed in this run: it moves next run, as the file then has it
            else:
                self.edits.move_line(self.root, fact.path, target, fact.id, facts_header(target))
                fact.moved = True
            # Logged once the move is done: a copy found in facts/ later is a revival.
            self.events.append(("archived", fact.id, target))
            self.report.archived += 1


def _cut_short(live: list[Fact], archived: list[Fact], moved_before: bool) -> bool:
    """Whether a fact in both ``facts/`` and ``archive/`` is an archive move cut short
    (finish it: drop the ``facts/`` copy) rather than a person's revival of an archived
    line (keep it: drop the archive copy). A move copies the line word for word to the
    same path under ``archive/`` and only then removes it, so a move cut short leaves two
    equal lines at matching paths, and the memory log has no completed move of that fact
    (it is written after the files). Anything else is a person's doing: an edited line
    (``#pinned`` added, words or fields changed), another file, or a line copied back
    after a completed move."""
    if moved_before or len(live) != 1 or len(archived) != 1:
        return False
    fact, old = live[0], archived[0]
    return (
        old.path == "archive/" + fact.path.removeprefix("facts/")
        and fact.entry.raw.rstrip() == old.entry.raw.rstrip()
    )


def facts_header(path: str) -> str:
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    category = path.split("/", 1)[-1].removesuffix(".md")
    return f"---\ntype: facts\ncategory: {category}\n---\n\n# {name.capitalize()}\n\n"
