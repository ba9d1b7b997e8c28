"""``vaultmem validate``: problems in the vault a person should look at, with file and line.

* ``broken-link``: one of vaultmem's own links that leads nowhere: a fact's ``[source:: ]``,
  ``[confirmed_by:: ]``, ``[supersedes:: ]`` or ``[superseded_by:: ]``, a daily line's
  ``[full:: ]`` (the note holding a long message whole), or a link in a generated block
  (``MEMORY.md``, topic pages), to no note or to a ``^block`` id the note does not have;
* ``unresolved-link`` (severity ``info``): any other ``[[wikilink]]`` to a note that does
  not exist yet. Obsidian people link to notes they mean to write, so it is no error;
* ``no-source``: a live fact line in ``facts/`` without a ``[source:: ]`` link;
* ``bad-field``: an inline field that does not parse (``[key:: value`` left open, ``[:: x]``);
* ``duplicate-id``: a block id used twice in one note, or a fact id in two fact files;
* ``secret``: something that looks like a password, API key, token or private key;
* ``sync-conflict``: the other side of a sync conflict, kept beside its note; its facts are
  not live until a person merges what they want into the note and deletes the copy;
* ``missing-reference``: a daily-note entry that speaks of "this link" or "the command"
  without holding a URL or a command;
* ``too-large``: a note over ``index.max_file_bytes``: search finds only its first part
  (the line is the first one it does not find);
* ``nul-byte``: a note holding NUL bytes: git takes it for a binary file (no diff, no
  line merge), and the index reads them as U+FFFD;
* ``binary``: a ``.md`` file that is no text (``files.read_note`` says when): not indexed.

Every problem is an ``error`` but ``unresolved-link``, an ``info``; ``vaultmem validate``
exits 1 on errors only. Template folders (``config/obsidian.py``) are not read: a template's
``{{date}}`` is no note's problem.

Nothing here writes; it reads the files, not the index.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from vaultmem.config import Config
from vaultmem.memory.language.extract import extract
from vaultmem.memory.language.secrets import find_secrets
from vaultmem.memory.pipeline.facts import daily_date, parse_entries
from vaultmem.notes.files import read_note, scan_notes
from vaultmem.notes.generated_block import BEGIN, END
from vaultmem.notes.merge import is_conflict_copy
from vaultmem.notes.parse import find_block_id, find_fields, iter_links, note_links

_OPEN_FIELD = re.compile(r"\[([^\[\]\n]{0,60})::")
_REFERENCE = re.compile(
    r"\b(?:this|that|the following|here(?:'s| is) the|below)\s+(?:link|url|command|script)\b"
    r"|(?:这个|下面的|以下)(?:链接|网址|命令)",
    re.I,
)


# Inline fields whose links vaultmem writes and follows: a broken one is an error.
OWN_FIELDS = ("source", "confirmed_by", "supersedes", "superseded_by", "full")


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    kind: str
    message: str
    severity: str = "error"  # or "info": worth a look, not wrong

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"


def validate(root: Path, config: Config) -> list[Problem]:
    """Every problem found, ordered by file and line."""
    notes: dict[str, str] = {}
    hidden: list[Problem] = []
    for stat in scan_notes(root, config.index.exclude):
        if stat.skip_reason:
            continue
        read = read_note(root / stat.path, config.index.max_file_bytes)
        # What hides a note's words from search, as the index met it (``read_note``).
        hidden += [Problem(stat.path, i.line, i.kind, i.message) for i in read.issues]
        if read.text is not None:
            notes[stat.path] = read.text
    names = _link_targets(root, config, notes)
    blocks = {path: _block_ids(text) for path, text in notes.items()}
    problems: list[Problem] = hidden
    fact_ids: defaultdict[str, list[tuple[str, int]]] = defaultdict(list)
    for path, text in sorted(notes.items()):
        if is_conflict_copy(path):
            message = (
                "the other device's side of a sync conflict: merge it into its note, delete it"
            )
            problems.append(Problem(path, 1, "sync-conflict", message))
            continue
        problems += _check_lines(path, text, names, blocks)
        if path.startswith("facts/"):
            for entry in parse_entries(text):
                if entry.block_id:
                    fact_ids[entry.block_id].append((path, entry.number))
                if not entry.struck and entry.field("source") is None:
                    problems.append(
                        Problem(path, entry.number, "no-source", "fact without [source:: ]")
                    )
        if daily_date(path, config.vault.daily_folder):
            problems += _missing_references(path, text)
    for ident, places in fact_ids.items():
        files = sorted({p for p, _ in places})
        if len(files) > 1:
            for path, line in places:
                others = ", ".join(f for f in files if f != path)
                problems.append(
                    Problem(path, line, "duplicate-id", f"fact id ^{ident} also in {others}")
                )
    return sorted(problems, key=lambda p: (p.path, p.line, p.kind))


def _missing_references(path: str, text: str) -> list[Problem]:
    problems = []
    for entry in parse_entries(text):
        if _REFERENCE.search(entry.text):
            found = extract(entry.text)
            if not (found.urls or found.commands):
                message = "mentions a link or command but holds none"
                problems.append(Problem(path, entry.number, "missing-reference", message))
    return problems


def _check_lines(
    path: str, text: str, names: dict[str, str], blocks: dict[str, dict[str, int]]
) -> list[Problem]:
    problems = []
    own = _own_links(text)
    for number, link in note_links(text):  # as the index reads them: not those in code
        problem = _check_link(link.target + link.anchor, path, names, blocks)
        if problem and (number, link.target + link.anchor) in own:
            problems.append(Problem(path, number, "broken-link", problem))
        elif problem:
            problems.append(Problem(path, number, "unresolved-link", problem, "info"))
    seen: dict[str, int] = {}
    fence = False
    for number, line in enumerate(text.splitlines(), 1):
        problems += _secrets(path, number, line)  # a key pasted in a code block leaks too
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        ident = find_block_id(line)
        if ident:
            if ident in seen:
                problems.append(
                    Problem(path, number, "duplicate-id", f"^{ident} also on line {seen[ident]}")
                )
            seen.setdefault(ident, number)
        parsed = len(find_fields(line)) if "::" in line else 0
        opened = len(_OPEN_FIELD.findall(line))
        if opened > parsed or "[::" in line:
            problems.append(Problem(path, number, "bad-field", "an inline field does not parse"))
    return problems


def _own_links(text: str) -> set[tuple[int, str]]:
    """``(line, target)`` of the links vaultmem wrote and relies on: in its own fields
    (``OWN_FIELDS``) and in generated blocks."""
    own: set[tuple[int, str]] = set()
    generated = False
    for number, line in enumerate(text.splitlines(), 1):
        if BEGIN in line or END in line:
            generated = BEGIN in line
            continue
        values = [v for k, v in find_fields(line) if k in OWN_FIELDS] if "::" in line else []
        for value in [line] if generated else values:
            own |= {(number, link.target + link.anchor) for link in iter_links(value)}
    return own


def _secrets(path: str, number: int, line: str) -> list[Problem]:
    """One ``secret`` problem per line that holds any; vaultmem's own mask is none."""
    kinds = sorted({finding.kind for finding in find_secrets(line)})
    if not kinds:
        return []
    return [Problem(path, number, "secret", f"looks like a secret ({', '.join(kinds)})")]


def _check_link(
    target: str, path: str, names: dict[str, str], blocks: dict[str, dict[str, int]]
) -> str | None:
    note, _, anchor = target.partition("#")
    note = note.strip()
    if not note:
        resolved: str | None = path
    else:
        key = note.casefold().removesuffix(".md")
        resolved = names.get(key) or names.get(key.rsplit("/", 1)[-1])
        if resolved is None:
            return f"[[{target}]]: no such note"
    if anchor.startswith("^") and resolved in blocks and anchor[1:] not in blocks[resolved]:
        return f"[[{target}]]: {resolved} has no block ^{anchor[1:]}"
    return None


def _link_targets(root: Path, config: Config, notes: dict[str, str]) -> dict[str, str]:
    """What a link may name -> the note or file it resolves to: full paths without ``.md``
    and bare names, case-folded, as Obsidian resolves them; attachments by file name."""
    names: dict[str, str] = {}
    for path in sorted(notes, key=lambda p: (p.count("/"), p)):  # shortest path wins
        bare = path.casefold().removesuffix(".md")
        names.setdefault(bare, path)
        names.setdefault(bare.rsplit("/", 1)[-1], path)
    skip = set(config.index.exclude)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in skip]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            names.setdefault(rel.casefold(), rel)
            names.setdefault(name.casefold(), rel)
    return names


def _block_ids(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        ident = find_block_id(line)
        if ident:
            found.setdefault(ident, number)
    return found
