"""The memory pipeline's runs over a vault's files, as ``Vault`` calls them: consolidate,
forget, rebuild the generated blocks after a merge, and count the tiers.

Each run plans its edits (``consolidate.py``, ``forget.py``), applies them under the
vault's write lock (a sync's merge waits for it) together with its memory-log events
(``ledger.py``), and returns what changed. Indexing the changed notes and committing are
the caller's (``Vault``), so a run here touches only the notes and ``.vaultmem/``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from pathlib import Path

from vaultmem.config import Config
from vaultmem.errors import VaultmemError
from vaultmem.memory.pipeline import ledger
from vaultmem.memory.pipeline.consolidate import MODES, Consolidation, Progress
from vaultmem.memory.pipeline.forget import forget_plan
from vaultmem.memory.pipeline.report import Report
from vaultmem.notes.state import STATE_DIR, vault_write_lock


@dataclass
class Forgotten:
    """What ``forget`` changed."""

    block_id: str
    lines: list[str]
    changed: list[str]
    notices: list[str]
    commit: str | None
    already: list[str] = field(default_factory=list)  # "path:line" forgotten before


def consolidate(
    root: Path,
    config: Config,
    device: str,
    mode: str,
    *,
    dry_run: bool,
    today: dt.date,
    llm: bool = False,
    progress: Progress | None = None,
) -> Report:
    """Distill, decay and rebuild ``MEMORY.md``'s block; with ``dry_run``, only
    ``report.diff`` says what would change. ``report.changed`` lists the notes written.
    With ``llm``, a chat model is asked about the doubtful cases (``vaultmem/llm/``), in a
    dry run too: its answers are cached for the real run. ``progress(done, total)`` is
    told of each daily note distilled.

    Raises:
        VaultmemError: an unknown mode, or a note that could not be written.
        LLMError: ``llm`` is on but ``[llm]`` lacks its url or model.
    """
    if mode not in MODES:
        raise VaultmemError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    judge = None
    if llm:
        from vaultmem.memory.pipeline.judge import open_judge

        judge = open_judge(root / STATE_DIR, config.llm)
    run = Consolidation(root, config, today, mode, judge, progress)
    try:
        edits = run.plan()
    finally:
        if judge is not None:
            judge.close()
    report = run.report
    if judge is not None:
        report.llm = asdict(judge.stats)
        report.notices += judge.notices()
    report.dry_run = dry_run
    if dry_run:
        report.diff = edits.preview(root)
        return report
    with vault_write_lock(root / STATE_DIR):  # a sync's merge waits for both
        report.changed, notices = edits.apply(root, root / STATE_DIR)
        ledger.append(root, device, run.events)
    report.notices += notices
    run.save_checkpoint()
    return report


def forget(
    root: Path,
    config: Config,
    device: str,
    ident: str,
    *,
    reason: str | None,
    hard: bool,
    today: dt.date,
) -> Forgotten:
    """Strike through (or with ``hard``, remove) the line ``ident`` names and the facts
    distilled from it, then rebuild ``MEMORY.md``'s block; not committed yet. Lines
    forgotten before are left as they are (``already``); when that is all of them,
    nothing is written.

    Raises:
        VaultmemError: no line has that block id.
        AmbiguousIdError: it names more than one line (nothing is written).
    """
    run = Consolidation(root, config, today, "quick")
    plan = forget_plan(run, ident, reason=reason, hard=hard, today=today)
    if not plan.touched:  # forgotten before: nothing to write, log or rebuild
        return Forgotten(plan.block, [], [], [], None, plan.already)
    with vault_write_lock(root / STATE_DIR):
        changed, notices = plan.edits.apply(root, root / STATE_DIR)
        ledger.append(root, device, plan.events)
    if plan.masked and not hard:  # said as remember says it (the reason is written now)
        notices.append(f"{plan.masked} secret(s) masked in the reason before storing")
    after = Consolidation(root, config, today, "quick")
    more, _ = after.plan(memory_only=True).apply(root, root / STATE_DIR)
    return Forgotten(plan.block, plan.lines, changed + more, notices, None, plan.already)


def rebuild_blocks(root: Path, config: Config, today: dt.date) -> list[str]:
    """``MEMORY.md``'s and the topic pages' generated blocks from the facts as they are
    (after a merge); returns the notices."""
    run = Consolidation(root, config, today, "quick")
    _, notices = run.plan(memory_only=True, pages=True).apply(root, root / STATE_DIR)
    return notices


def tier_counts(root: Path, config: Config, today: dt.date) -> dict[str, dict[str, int]]:
    """Facts per file of ``facts/`` and ``archive/``, counted by tier ``today``."""
    return Consolidation(root, config, today, "quick").tier_counts()
