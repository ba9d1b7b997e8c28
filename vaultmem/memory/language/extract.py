"""Metadata a memory line carries: URLs, repositories, shell commands, file paths,
versions, dates, amounts, people and projects. Rules only; kept with each fact so that
``vaultmem search --url`` and friends can find facts by what they mention.

People and projects are told apart by the words around a name ("with Alice", "the Atlas
project", a ``#project/atlas`` tag); a name with no such hint is left out of both
(``people.py`` has the evidence a person needs). Dates are resolved against the day the
line was written when it is given (``dates.py``): "on Friday" becomes ``2026-11-27``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from vaultmem.memory.language.dates import resolve_dates
from vaultmem.memory.language.gates import Gate, Line
from vaultmem.memory.language.people import COMMON_WORDS, about, people

_URL = re.compile(r"https?://[^\s<>\"'`\])]+")
_SSH_REPO = re.compile(r"\bgit@([\w.-]+):([\w.-]+/[\w.-]+?)(?:\.git)?\b")
_CODE = re.compile(r"`([^`\n]+)`")
_COMMANDS = frozenset(
    "git pip python python3 uv npm npx yarn pnpm node cargo go make docker kubectl ssh scp "
    "rsync curl wget ls cd cp mv rm mkdir cat grep sed awk find tar sudo systemctl brew apt "
    "apt-get psql sqlite3 vaultmem pytest ruff mypy bash sh zsh export chmod chown".split()
)
# A path is looked for once per run of path characters (letters, digits, "_", ".", "-",
# "/") up to a "//", which no path crosses: from where the run starts, or, when no path
# may start there (after ":" or "//"), from after its first hyphen; and at a "~". The
# leftmost start that may begin a path in such a run finds it whenever a later one would;
# tried from each hyphen instead, as before, a long run was read to its end from each
# (quadratic: 10,000 characters took seconds). Group 1 is that path, group 2 a path
# from the home folder.
_PATH = re.compile(
    r"(?:(?<![\w/:.])(?=~)"
    r"|(?<![\w./-])(?:(?<!:)|(?:[\w.]|/(?!/))*-)"
    r"|(?<=//)(?:[\w.]|/(?!/))*-)"
    r"((?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+\.\w{1,8}\b)"
    r"|(?<![\w/:])(~/[\w./-]+)"
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?:-[A-Za-z0-9.]+)?(?![\w.]*\d)")
_PROJECT_KIND = r"\s+(?:project|repo|repository|app|service|release)\b"
# A name before its kind ("the Atlas project") is looked for once per run of word
# characters and hyphens, from where the run starts to its first capital at a word's
# start (the run's ending checked first, and no "项目 Name" passed over, which is a name
# itself): tried from each word start of a run, as before, a long "A-A-A-..." was read to
# its end from each (quadratic). The names found are the same; one group holds each.
_PROJECT_HINT = re.compile(
    rf"\bthe\s+([A-Z][\w-]+){_PROJECT_KIND}"
    rf"|(?<![\w-])(?=[\w-]++{_PROJECT_KIND})(?:(?!项目\s*[A-Za-z])[\w-])*?\b([A-Z][\w-]+){_PROJECT_KIND}"
    r"|\bproject\s+([A-Z][\w-]+)|#project/([\w-]+)|项目\s*([A-Za-z][\w-]*)"
)
# Every match of _PROJECT_HINT holds one of these (case-folded).
_PROJECT_GATE = Gate(parts=("project", "repo", "app", "service", "release", "项目"))
# An amount without a currency sign is looked for only where a run of digits and commas
# starts (its leading commas, which ``extract`` drops, included): tried from each of its
# digits, a long run was read to its end from each (quadratic: 3,000 digits took a second).
_MONEY = re.compile(
    r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM]\b)?"
    r"|(?<![\d,]),*\d[\d,]*(?:\.\d+)?\s?(?:万元|万|元|块钱|块|美元|欧元|千|亿|"
    r"(?i:usd|eur|gbp|rmb|dollars?|euros?)\b)"
)


@dataclass
class Metadata:
    """What a line mentions. Every list keeps the order of first appearance, no repeats."""

    urls: list[str] = field(default_factory=list)
    repositories: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    amounts: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    about: str | None = None  # the person the line is about, when not the owner


def _commands(text: str) -> list[str]:
    """The shell commands of a line's code spans (`` `git pull` ``)."""
    commands = [code.strip().removeprefix("$ ") for code in _CODE.findall(text)]
    return [c for c in commands if c and c.split()[0] in _COMMANDS]


def _unique(items: list[str]) -> list[str]:
    return [i for i in dict.fromkeys(i.strip() for i in items) if i]


def extract(text: str, day: dt.date | None = None, known_people: Iterable[str] = ()) -> Metadata:
    """Everything ``Metadata`` lists, found in one line of text.

    Args:
        text: the line's words (``Name: words`` when a named speaker said them).
        day: the day the line was written: relative dates resolve against it; without
            it, dates are the words as written.
        known_people: names earlier facts hold as people (a person by that alone).
    """
    known = known_people if isinstance(known_people, (set, frozenset)) else set(known_people)
    # Each pattern runs only on a line holding what any match of it must hold (a URL's
    # "://", a path's "/", a version's or an amount's digit): most lines hold none.
    line = Line.of(text)
    linked = "://" in text
    urls = _unique([u.rstrip(".,;:!?") for u in _URL.findall(text)]) if linked else []
    repos = []
    for url in urls:
        match = re.match(
            r"https?://(github\.com|gitlab\.com|codeberg\.org|bitbucket\.org)/([\w.-]+/[\w.-]+)",
            url,
        )
        if match:
            repos.append(f"{match.group(1)}/{match.group(2).removesuffix('.git')}")
    if "git@" in text:
        repos += [f"{host}/{name}" for host, name in _SSH_REPO.findall(text)]
    commands = _commands(text) if "`" in text else []
    without_urls = _URL.sub(" ", text) if linked else text
    paths = [a or b for a, b in _PATH.findall(without_urls)] if "/" in without_urls else []
    paths = [p for p in paths if not _VERSION.fullmatch(p)]
    hinted = _PROJECT_GATE.admits(line)
    hints = _PROJECT_HINT.findall(text) if hinted else []
    projects = [next(filter(None, names)) for names in hints]  # the one group that matched
    projects = [p for p in projects if p not in COMMON_WORDS]  # "The project", "My app"
    return Metadata(
        urls=urls,
        repositories=_unique(repos),
        commands=_unique(commands),
        paths=_unique(paths),
        versions=_unique(_VERSION.findall(without_urls)) if line.digit else [],
        dates=resolve_dates(text, day),
        amounts=_unique([m.group(0).lstrip(",") for m in _MONEY.finditer(text)])
        if line.digit
        else [],
        people=people(text, known),
        projects=_unique(projects),
        about=about(text, known),
    )
