"""Consolidation: daily-note lines become facts, topics, tiers and ``MEMORY.md``, by rules.

The phases (``docs/memory.md``), each reading the files as they are now:

1. **collect** the daily-note lines not yet distilled: the memory log does not list them
   (every line dealt with is logged, after its fact is written) and no fact cites them;
2. **score** them with the rule table and **admit** those at or above the threshold;
3. **distill** each into a fact line in its category file, with its metadata and a link to
   the exact daily-note line; a statement of likelihood becomes a belief;
4. **dedupe and detect conflicts** against the live facts: a repeat is logged against the
   fact it repeats, a later fact confirms a belief, a contradiction supersedes;
5. **topics**: pages for the people, projects, repositories and concepts facts mention;
6. **decay**: facts whose score fell under the cold tier move to ``archive/``;
7. **MEMORY.md**: the generated block, rebuilt within its token budget.

The plan is a set of ``Edits`` (functions of each note's current text), so a run is
idempotent, and a run killed at any point and run again ends where one clean run would:
fact ids derive from their source line, appends skip ids already written, and a
superseding fact carries ``[supersedes:: ]`` so the strike-through is redone if missed.
The memory log is written after the files: a crash between the two is healed by the next
run, which logs every source a fact cites that the log lacks.

Phases 4 (supersede) and 6 (decay) keep the facts right through ``FactUpkeep``
(``fact_upkeep.py``); topics are gathered in ``topics.py``, ``MEMORY.md``'s block built in
``memory_md.py``; what a run did is its ``Report`` (``report.py``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultmem.config import Config
from vaultmem.memory.language.categories import route
from vaultmem.memory.language.extract import extract
from vaultmem.memory.pipeline.edits import Edits, block_ids
from vaultmem.memory.pipeline.fact_upkeep import FactUpkeep, facts_header
from vaultmem.memory.pipeline.facts import (
    Fact,
    daily_date,
    fact_id,
    fact_link,
    parse_entries,
    render_fact,
    source_link,
    with_block_id,
    with_fields,
    without_fields,
)
from vaultmem.memory.pipeline.factset import FactSet
from vaultmem.memory.pipeline.ledger import Ledger
from vaultmem.memory.pipeline.memory_md import build_block
from vaultmem.memory.pipeline.reading import (
    Admitted,
    Cited,
    LineReader,
    People,
    date_of,
    note_stats,
    read_daily,
    read_notes,
)
from vaultmem.memory.pipeline.report import Report
from vaultmem.memory.pipeline.tiers import TIERS, tier
from vaultmem.memory.pipeline.topics import Topic, gather, page_block, page_header
from vaultmem.notes.decode import REPLACEMENT
from vaultmem.notes.generated_block import BlockError, block_of, count_tokens, replace_block
from vaultmem.notes.writes import atomic_write

if TYPE_CHECKING:
    from vaultmem.memory.pipeline.judge import Judge

MODES = ("quick", "daily", "full")
CHECKPOINT = ".vaultmem/consolidate.json"
MEMORY_FILE = "MEMORY.md"
# Apply order: a fact must never link to a daily-note block id not yet written (daily notes
# go first), and a fact moving to the archive is written there before it leaves ``facts/``.
_ORDER = ("archive/", "facts/", "topics/")
# ``progress(done, total)``: daily notes distilled so far, of those a run reads.
Progress = Callable[[int, int], None]


class Consolidation(FactUpkeep):
    """One run's plan. ``plan()`` reads the vault and returns the edits; nothing is written
    until the caller applies them (``Vault.consolidate``)."""

    def __init__(
        self,
        root: Path,
        config: Config,
        today: dt.date,
        mode: str = "daily",
        llm: Judge | None = None,
        progress: Progress | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        self.root, self.config, self.today, self.mode = root, config, today, mode
        self.llm = llm  # asked about the cases the rules are unsure of (vaultmem/llm/)
        self.progress = progress
        self.memory = config.memory
        self.daily = config.vault.daily_folder
        self.report = Report(mode, False, today.isoformat())
        self.edits = Edits()
        self.events: list[tuple[str, ...]] = []  # for the memory log, once applied
        self.facts: list[Fact] = []
        self.by_id: dict[str, Fact] = {}
        self.factset = FactSet()  # live facts by their words, to find repeats and conflicts
        self.people = People()  # names live facts hold as people (and the reader's)
        self.match_facts = True  # off for a run that only rebuilds blocks: no new facts
        self.pending: defaultdict[str, dict[str, str]] = defaultdict(dict)  # path: id -> line
        self.checkpoint: dict[str, dict[str, Any]] = {}
        self.changed: set[str] = set()  # ids of facts changed in this run
        self.topics: list[Topic] = []
        self.id_lines: dict[str, Counter[str]] = {}  # path: block id -> lines holding it
        self.new_ids: dict[str, list[tuple[str, str]]] = {}  # path: (line, id) to give

    # -- reading ----------------------------------------------------------------------

    def notes(
        self,
        folder: str,
        keep: Callable[[str], bool] | None = None,
    ) -> Iterator[tuple[str, str, str]]:
        """``(path, text, content hash)`` of the readable notes under a folder (those whose
        path ``keep`` accepts), in path order, read one at a time."""
        for note in read_notes(
            self.root, self.config, note_stats(self.root, self.config, folder, keep)
        ):
            if note.notice is not None or note.text is None:
                self.report.notices.append(note.notice or f"{note.path}: unreadable")
            if note.text is not None:
                yield note.path, note.text, note.content_hash

    def load_facts(self) -> None:
        """Read every fact line of ``facts/`` and ``archive/``."""
        for folder in ("facts", "archive"):
            for path, text, _ in self.notes(folder):
                self.id_lines[path] = block_ids(text)
                for entry in parse_entries(text):
                    self._add_fact(Fact(path, entry))

    def _add_fact(self, fact: Fact) -> None:
        self.facts.append(fact)
        if fact.id is None:
            return
        known = self.by_id.get(fact.id)
        if known is None or (known.archived and not fact.archived):
            self.by_id[fact.id] = fact
        if fact.live and not fact.archived and self.match_facts:
            self.factset.add(fact.id, fact.text)
            self.people.add(fact.metadata("person"))

    # -- phases -----------------------------------------------------------------------

    def plan(self, *, memory_only: bool = False, pages: bool = False) -> Edits:
        """Read the vault and plan every phase the mode runs (with ``memory_only``, only the
        ``MEMORY.md`` block, as after ``forget``; add ``pages`` for the topic pages' blocks
        too, as after a sync merged two devices' facts)."""
        self.match_facts = not memory_only
        self.load_facts()
        ledger = Ledger.read(self.root)
        self.accesses = ledger.accesses
        self.cited = {key: fact.id or "" for fact in self.facts for key in fact.sources}
        if not memory_only:
            self._log_cited(ledger)
            if self.mode != "quick":
                self._collect(set(self.cited) | set(ledger.distilled))
            self._reconcile(ledger.archived)
            self._decay()
            for path, lines in self.pending.items():
                self.edits.append_lines(path, list(lines.values()), facts_header(path))
        self._topics(write=pages or (self.mode != "quick" and not memory_only))
        self._memory_md()
        self.edits.changes = dict(
            sorted(self.edits.changes.items(), key=lambda item: _rank(item[0], self.daily))
        )
        return self.edits

    def _log_cited(self, ledger: Ledger) -> None:
        """Log every source a fact cites that the memory log lacks (a run stopped between
        writing its facts and its log, or facts older than the log), so that the line stays
        dealt with after a person deletes the fact or its ``[source:: ]``."""
        for key, ident in sorted(self.cited.items()):
            if key not in ledger.distilled:
                self.events.append(("distilled", key, ident or fact_id(key)))

    def _collect(self, distilled: set[str]) -> None:
        """Phases 1-4 over every daily note, oldest first: the lines read and scored
        (``reading.py``, in a child process for a large run), then each admitted one
        compared with the facts and distilled here."""
        saved = self._read_checkpoint() if self.mode == "daily" else {}
        people = self.people.start_reader()
        facts = [fact.text for fact in self.facts]
        reader = LineReader(self.config, distilled, set(self.cited), facts, saved, people)
        stats = note_stats(self.root, self.config, self.daily)
        for note in read_daily(reader, self.root, stats):
            if note.notice:
                self.report.notices.append(note.notice)
            for line in note.lines:
                if isinstance(line, Cited):
                    self._give_block_id(note.path, line.raw, line.ident)
                else:
                    self._admit(note.path, note.day, line)
                    self.people.add(line.meta.people, reader=True)
            self.report.collected += note.collected
            if note.checkpoint is not None:
                self.checkpoint[note.path] = note.checkpoint
            if self.progress is not None:
                self.progress(note.done, note.total)

    def _admit(self, path: str, day: str, admitted: Admitted) -> None:
        self.report.admitted += 1
        text, key, confidence = admitted.text, admitted.key, admitted.confidence
        if admitted.block_id is None:
            self._give_block_id(path, admitted.raw, admitted.ident)
        said = admitted.text if admitted.reading is None else admitted.reading
        match = self.factset.best(
            said, self.memory.duplicate_similarity, self.memory.conflict_similarity
        )
        supersedes = None
        if match is not None and match.doubtful and self.llm is not None:
            match = self.llm.settle(text, self.by_id[match.key].text, match)
        if match is not None:
            old = self.by_id[match.key]
            # A plain statement like a belief confirms it; a fuller one ("subsumes") says
            # more than the belief's words and supersedes it, as it would a fact.
            confirms = match.verdict in ("duplicate", "similar")
            if old.kind == "belief" and confidence is None and confirms:
                confirmed = self._change_fact(
                    old,
                    lambda line: with_fields(
                        without_fields(line, ("confidence",)),
                        [("confirmed_by", source_link(key, self.daily))],
                    ),
                )
                if confirmed:  # else dealt with on a run after the ids are fixed
                    self.events.append(("distilled", key, old.id or fact_id(key)))
                self.report.confirmed += confirmed
                return
            if match.verdict == "duplicate":
                self.events.append(("distilled", key, match.key))
                self.report.repeats += 1
                return
            if match.verdict in ("conflict", "subsumes") and not old.pinned and old.id:
                supersedes = fact_link(old.path, old.id)
                self.factset.discard(old.id)  # a later line this run compares with the new one
        # A fuller restatement cites the old fact's sources too: the words it took over.
        sources = [key]
        if match is not None and match.verdict == "subsumes" and supersedes:
            sources += [s for s in self.by_id[match.key].sources if s != key]
        meta = admitted.meta
        if not self.people.alike(text):  # the reader's people and ours differ on a name here
            meta = extract(text, date_of(day), self.people.here)
        target = route(admitted.rated, meta, text)
        if self.llm is not None:  # only a fact the rules could not place is asked about
            target = self.llm.place(text, target)
        new_id = fact_id(key)  # one string for the line, the plan and the log
        new = render_fact(
            text,
            ident=new_id,
            kind="belief" if confidence is not None else admitted.rated.kind,
            importance=round(admitted.value, 2),
            sources=sources,
            meta=meta,
            daily_folder=self.daily,
            confidence=confidence,
            supersedes=supersedes,
        )
        self.pending[target][new_id] = new.raw
        self.events.append(("distilled", key, new_id))
        new = new._replace(block_id=new_id)  # one copy of the id for the entry, plan and log
        self._add_fact(Fact(target, new))
        self.report.new_facts += 1
        self.report.beliefs += confidence is not None

    def _give_block_id(self, path: str, raw: str, ident: str) -> None:
        """Append a block id to a daily-note line a person typed, so a fact can link to it.
        A note's ids are given in one pass over it when the plan is applied (a change per
        line went over the note once per id: a day of 500 lines, 500 times)."""
        pairs = self.new_ids.get(path)
        if pairs is None:
            pairs = self.new_ids[path] = []
            self.edits.add(path, lambda old: _with_block_ids(old, pairs))
        pairs.append((raw, ident))

    def _live(self) -> list[Fact]:
        return [f for f in self.facts if f.live and not f.archived and not f.moved]

    def _topics(self, write: bool) -> None:
        self.topics = gather(self._live(), self.memory.topic_min_facts)
        for topic in self.topics if write else []:
            block = page_block(topic, self.today, self.memory)
            if self._set_block(topic.path, block, page_header(topic)):
                self.report.topics += 1

    def _set_block(self, path: str, block: str, header: str) -> bool:
        """Plan a new generated block for a page; ``False`` when it would not change."""
        try:
            current = (self.root / path).read_text(encoding="utf-8")
        except FileNotFoundError:
            current = ""
        except (OSError, UnicodeDecodeError) as exc:
            self.report.notices.append(f"{path}: cannot update ({exc}); left unchanged")
            return False
        if block_of(current) == block:
            return False
        try:
            replace_block(current or header, block)
        except BlockError as exc:
            self.report.notices.append(f"{path}: {exc}; left unchanged")
            return False

        def change(old: str) -> str:
            try:
                return replace_block(old or header, block)
            except BlockError:  # a person broke the markers meanwhile: their text wins
                return old

        self.edits.add(path, change)
        return True

    def _memory_md(self) -> None:
        block = self.memory_block()
        self.report.memory_tokens = count_tokens(block)
        if not self._live() and self._without_block(MEMORY_FILE):
            # A MEMORY.md a person keeps by hand (an OpenClaw workspace's) gets no block
            # that would say only "0 facts": vaultmem adds one once it has a fact to show.
            return
        self._set_block(MEMORY_FILE, block, "# Memory\n\n")

    def _without_block(self, path: str) -> bool:
        """Whether a page exists and holds no generated block of vaultmem's."""
        try:
            return block_of((self.root / path).read_text(encoding="utf-8")) is None
        except (OSError, UnicodeDecodeError):
            return False  # no page yet (it is made with its block), or unreadable

    def memory_block(self) -> str:
        """``MEMORY.md``'s generated block for the facts as planned (``memory_md.py``)."""
        return build_block(
            [f for f in self._live() if f.id or f.text],
            self._score,
            archived=sum(1 for f in self.facts if f.archived or f.moved),
            topics=self.topics,
            open_tasks=self._open_tasks(),
            today=self.today,
            config=self.memory,
        )

    def _open_tasks(self) -> list[tuple[str, str]]:
        """``(words, date)`` of the open tasks (``- [ ]``) of the last two weeks' notes."""
        since = (self.today - dt.timedelta(days=14)).isoformat()

        def recent(path: str) -> bool:
            return (daily_date(path, self.daily) or "") >= since

        return [
            (entry.text, daily_date(path, self.daily) or "")
            for path, text, _ in self.notes(self.daily, recent)
            for entry in parse_entries(text)
            if entry.open_task
        ]

    def tier_counts(self) -> dict[str, dict[str, int]]:
        """Facts per file, by tier (``archive`` for the files of ``archive/``)."""
        self.load_facts()
        self.accesses = Ledger.read(self.root).accesses
        counts: dict[str, dict[str, int]] = {}
        for fact in self.facts:
            if not fact.live and not fact.archived:
                name = "superseded"
            else:
                name = "archive" if fact.archived else tier(self._score(fact), self.memory)
            row = counts.setdefault(fact.path, dict.fromkeys((*TIERS, "superseded"), 0))
            row[name] += 1
        return counts

    # -- checkpoint -------------------------------------------------------------------

    def _read_checkpoint(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads((self.root / CHECKPOINT).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        notes = data.get("notes") if isinstance(data, dict) else None
        return notes if isinstance(notes, dict) else {}

    def save_checkpoint(self) -> None:
        """Remember which daily notes were fully dealt with (a speed-up only: without it,
        a run reads every daily note again and reaches the same result)."""
        if self.mode == "quick":
            return
        data = json.dumps({"version": 1, "notes": self.checkpoint}, ensure_ascii=False)
        atomic_write(self.root / CHECKPOINT, data.encode("utf-8"))


def _with_block_ids(text: str, pairs: list[tuple[str, str]]) -> str:
    """The note with each ``(line, id)``'s id appended to the first line that reads so and
    has not been given one (the same words twice: the first gets the first id)."""
    wanted: defaultdict[str, deque[str]] = defaultdict(deque)
    for raw, ident in pairs:
        wanted[raw].append(ident)
    lines = text.split("\n")
    for number, line in enumerate(lines):
        bare = line.rstrip("\r")
        as_read = bare.replace("\0", REPLACEMENT)  # the line as the run read it (read_note)
        idents = wanted.get(as_read)
        if idents:
            ending = "\r" if line.endswith("\r") else ""
            lines[number] = with_block_id(bare, idents.popleft()) + ending
            if not idents:
                del wanted[as_read]
                if not wanted:
                    break
    return "\n".join(lines)


def _rank(path: str, daily_folder: str) -> tuple[int, str]:
    if daily_date(path, daily_folder):
        return (0, path)
    for number, prefix in enumerate(_ORDER, 1):
        if path.startswith(prefix):
            return (number, path)
    return (len(_ORDER) + 1, path)
