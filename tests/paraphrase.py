"""The paraphrase set (``tests/data/paraphrase_pairs.json``): questions an agent may ask and
the memories that answer them, in words the memory does not use.

Kinds: ``en`` (English question, English memory), ``zh`` (Chinese, Chinese), ``en-zh``
(English question, Chinese memory) and ``zh-en``. The memories of all pairs plus distractor
memories on the same topics (family, health, food, home, work decisions, dates) are written
as daily-note lines, ``- text``, in a few ``memory/YYYY-MM-DD.md`` files.

"Shares no word" is checked here, strictly: no English content word of the question
begins the same as one of the memory's (so neither exact words, plural forms nor the
prefixes keyword search asks for can match), and no two-character CJK sequence of the
question appears in the memory.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from vaultmem.index.stems import SEARCH, stem

DATA = Path(__file__).parent / "data" / "paraphrase_pairs.json"
KINDS = ("en", "zh", "en-zh", "zh-en")

# Function words only: what carries no topic.
STOP_WORDS = frozenset(
    """a an the of to in on at for and or but is are was were be been am do does did done
    what when where who whom whose which why how that this these those it its with by from
    as about into than then there their they them he she his her him i you your we our us
    my me would could should will can may might must shall has have had not no s t d ll re
    ve m any some if so up out off over under after before again just very too also""".split()
)
_LATIN = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class Memory:
    ident: str
    day: str
    text: str


@dataclass(frozen=True)
class Pair:
    kind: str
    question: str
    memory: Memory


def load() -> tuple[list[Pair], list[Memory]]:
    """The pairs and every memory (the pairs' and the distractors'), in file order."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    memories = [Memory(m["id"], m["day"], m["text"]) for m in data["memories"]]
    by_id = {m.ident: m for m in memories}
    pairs = [Pair(p["kind"], p["question"], by_id[p["memory"]]) for p in data["pairs"]]
    return pairs, memories


def write_daily_notes(root: Path, memories: list[Memory]) -> dict[str, tuple[str, int]]:
    """Write the memories as ``- text`` lines of daily notes; where each one landed:
    ``{id: (path, line)}``."""
    days: dict[str, list[Memory]] = {}
    for memory in memories:
        days.setdefault(memory.day, []).append(memory)
    where: dict[str, tuple[str, int]] = {}
    for day, lines in sorted(days.items()):
        path = f"memory/{day}.md"
        (root / "memory").mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(f"- {m.text}\n" for m in lines), encoding="utf-8")
        for number, memory in enumerate(lines, 1):
            where[memory.ident] = (path, number)
    return where


def content_words(text: str) -> set[str]:
    """Lowercased Latin words of ``text`` that are not function words."""
    return {w for w in _LATIN.findall(text.lower()) if w not in STOP_WORDS}


def cjk_bigrams(text: str) -> set[str]:
    """Every two-character sequence inside a run of Chinese characters."""
    return {run[i : i + 2] for run in _CJK.findall(text) for i in range(len(run) - 1)}


def shared_words(question: str, memory: str) -> set[str]:
    """What ``question`` and ``memory`` have in common: English words one of which begins
    with the other's stem (``birthday``/``birthdays``, ``doc``/``doctor``), and CJK
    bigrams."""
    shared = cjk_bigrams(question) & cjk_bigrams(memory)
    mine = content_words(memory)
    for word in content_words(question):
        for other in mine:
            if other.startswith(stem(word, SEARCH)) or word.startswith(stem(other, SEARCH)):
                shared.add(f"{word}/{other}")
    return shared
