"""``Vault``'s memory methods: remember, capture, consolidate, forget, tiers and validate.

Each hands its work to the memory pipeline (``memory/``; ``memory/runs.py`` for
consolidate and forget) or to ``agent/transcripts.py``, which load only when a method
needs them, then indexes the notes it changed and commits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.errors import VaultmemError
from vaultmem.vault_base import VaultBase

if TYPE_CHECKING:
    from vaultmem.memory.pipeline.consolidate import Progress
    from vaultmem.memory.pipeline.remember import Remembered
    from vaultmem.memory.pipeline.report import Report as ConsolidationReport
    from vaultmem.memory.pipeline.runner import Forgotten
    from vaultmem.memory.pipeline.transcripts import CaptureReport
    from vaultmem.memory.pipeline.validate import Problem


class MemoryMethods(VaultBase):
    """The memory pipeline's part of ``Vault``."""

    def remember(
        self,
        text: str,
        *,
        role: str = "user",
        source: str | None = None,
        session: str | None = None,
        tags: Iterable[str] = (),
        importance: float | None = None,
        now: dt.datetime | None = None,
        agent: str | None = None,
    ) -> Remembered:
        """Append one message to today's daily note and index it at once.

        The line is appended in place (one ``O_APPEND`` write under the vault's write lock),
        so lines written meanwhile by a person, an editor or another agent are all kept. The
        same message (same session and words) is stored once. When the line is stored but
        indexing fails, the result is still a success and ``notices`` says so: an agent must
        not retry it. ``now`` back-fills: the line goes into the note of ``now``'s date, with
        its time. ``agent`` names the writing agent (``[agent:: NAME]``). See
        ``memory/remember.py``.

        Raises:
            NotStoredError: the line could not be written (nothing was stored); the message
                says why: a note that is a folder, not UTF-8 or a symlink, a full disk...
            VaultmemError: ``importance`` is outside 0..1.
        """
        from vaultmem.memory.pipeline.remember import remember

        stored = remember(
            self.root,
            text,
            now=now or dt.datetime.now(),
            role=role,
            source=source,
            session=session,
            tags=tags,
            importance=importance,
            agent=agent,
            daily_folder=self.config.vault.daily_folder,
        )
        if stored.line is not None and stored.path is not None:
            self._index_stored([stored.path, *([stored.full_text] if stored.full_text else [])])
        return stored

    def capture(
        self,
        transcript: Path,
        *,
        fmt: str = "auto",
        agent: str | None = None,
        session: str | None = None,
    ) -> CaptureReport:
        """Append an agent session transcript's new messages to the daily notes of the
        dates they were sent, and index those notes (see ``agent/transcripts.py``).

        Notes that could not be written are listed in ``failed`` (their messages were not
        stored; capturing again stores them); the others are stored and indexed.

        Raises:
            TranscriptError: unreadable transcript, or unknown format.
        """
        from vaultmem.memory.pipeline.transcripts import capture_transcript

        report = capture_transcript(
            self.root,
            Path(transcript),
            fmt=fmt,
            agent=agent,
            session=session,
            daily_folder=self.config.vault.daily_folder,
        )
        if report.paths:
            self._index_stored(report.paths)
        return report

    def _index_stored(self, paths: list[str]) -> None:
        """Index notes whose new lines are already stored: a failure here is a notice, not
        an error, so an agent does not store its words twice."""
        try:
            self.index_paths(paths, wait=False)
        except (VaultmemError, OSError) as exc:
            self.notices.append(f"stored, but not indexed yet ({exc}); `vaultmem index` will")

    def consolidate(
        self,
        mode: str = "daily",
        *,
        dry_run: bool = False,
        today: dt.date | None = None,
        llm: bool | None = None,
        progress: Progress | None = None,
    ) -> ConsolidationReport:
        """Distill daily notes into facts and topics, decay, and rebuild ``MEMORY.md``'s
        block (see ``memory/consolidate.py``). Ends in one git commit when the vault is in
        a repository; with ``dry_run``, only ``report.diff`` says what would change.
        ``llm`` (default: ``[llm] enabled``) asks a model about the doubtful cases
        (``vaultmem/llm/``), a dry run too: its answers are cached for the real run.
        ``progress(done, total)`` is told of each daily note distilled, as ``index`` tells
        of each note indexed.

        Raises:
            VaultmemError: an unknown mode, or a note that could not be written.
            LLMError: ``llm`` is on but ``[llm]`` lacks its url or model.
        """
        from vaultmem.memory.pipeline import runner as runs
        from vaultmem.memory.pipeline.gc_pause import young_collections_only

        day = today or dt.date.today()
        use_llm = self.config.llm.enabled if llm is None else llm
        with young_collections_only():
            report = runs.consolidate(
                self.root,
                self.config,
                self.device,
                mode,
                dry_run=dry_run,
                today=day,
                llm=use_llm,
                progress=progress,
            )
            if dry_run:
                return report
            if report.changed:
                self.index_paths(report.changed)
        report.commit = self._commit_quietly(report.summary(), report.notices)
        return report

    def forget(
        self,
        ident: str,
        *,
        reason: str | None = None,
        hard: bool = False,
        today: dt.date | None = None,
    ) -> Forgotten:
        """Take back a memory by its block id: a fact (``f...``), or a daily-note line
        with the facts distilled from it. ``ident`` must name one line: ``YYYY-MM-DD#id``
        names a daily note's line (ids like ``s1-1`` repeat across notes), ``PATH#id`` any
        note's. Soft strikes the words through; ``hard`` removes them from the working
        files (git history keeps them). A soft forget of a line forgotten before changes
        and commits nothing (``already`` names it). See ``memory/forget.py``.

        Raises:
            VaultmemError: no line has that block id.
            AmbiguousIdError: it names more than one line (nothing is written).
        """
        from vaultmem.memory.pipeline import runner as runs

        today = today or dt.date.today()
        done = runs.forget(
            self.root, self.config, self.device, ident, reason=reason, hard=hard, today=today
        )
        if not done.changed:  # forgotten before: no commit (it would take others' edits)
            return done
        self.index_paths(done.changed)
        verb = "forget --hard" if hard else "forget"
        done.commit = self._commit_quietly(f"{verb} ^{done.block_id}", done.notices)
        return done

    def tiers(self, today: dt.date | None = None) -> dict[str, dict[str, int]]:
        """Facts per file of ``facts/`` and ``archive/``, counted by tier today."""
        from vaultmem.memory.pipeline.runner import tier_counts

        return tier_counts(self.root, self.config, today or dt.date.today())

    def validate(self) -> list[Problem]:
        """Problems a person should look at, each with its file and line
        (see ``memory/validate.py``)."""
        from vaultmem.memory.pipeline.validate import validate

        return validate(self.root, self.config)
