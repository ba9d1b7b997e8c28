"""Make the phrase lexicon of ``states.py`` from the raw lexicon a helper wrote blind.

    python bench/make_state_lexicon.py

``bench/data/state_lexicon_raw.json`` was written by a helper AI session from general
knowledge of English and Chinese, without reading any project code, data or test pairs:
for each kind of standing fact (job, home, partner, ...) and event (is, none, starts,
ends, moves), the phrases people use to say it. This keeps the phrases that name one kind
only: a phrase listed under two kinds ("moved to": a home, a job, a plan; "换成") says
nothing of which changed, and broad ones ("i'm a", "我是", "quit") are left to the
patterns of ``state_words.py``. Habits and devices are split by what they name (coffee,
smoking...; a phone, a laptop). Writes ``vaultmem/memory/language/state_lexicon.json``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "bench" / "data" / "state_lexicon_raw.json"
OUT = ROOT / "vaultmem" / "memory" / "language" / "state_lexicon.json"

# Habits and devices by the words a phrase holds: (kind, English parts, Chinese parts).
SPLIT = {
    "habit": (
        ("habit:coffee", "coffee caffeine latte espresso", "咖啡 奶茶 拿铁 美式"),
        ("habit:smoking", "smok cigar vap nicotine", "烟"),
        ("habit:alcohol", "drink alcohol sober booze wine beer", "酒"),
        (
            "habit:exercise",
            "gym run workout work out exercis jog swim yoga lift train",
            "健身 跑 锻炼 运动 游泳 瑜伽",
        ),
        ("habit:sleep", "sleep bed nap wake", "睡 熬夜 起床"),
    ),
    "device": (
        ("device:phone", "phone android pixel galaxy samsung", "手机 华为 小米 苹果 安卓 号"),
        ("device:laptop", "laptop macbook thinkpad computer notebook pc", "电脑 笔记本"),
    ),
}
# Phrases too broad to say a kind alone: the patterns of ``state_words.py`` read them in
# context, or no rule should.
BROAD = frozenset(
    """i'm a|i am a|i'm an|i'm the|taken|my company|our company|at work|on the team|joined|
    joining|just joined|joined a|i've joined|promotion|quit|fired|dropped|skipped|confirmed|
    planned|announced|scheduled|booked|
    i booked|is on|i have a|i've got a|i own|renting|my place|my house|our house|our place|
    our home|my old|settled in|settling in|first home|moving day|last night in|left home|
    no place|nomad|taken|single|married|separated|divorced|widowed|dumped|it's over|
    we're done|ended it|left me|rebound|moved on|now at|left for|leaving for|scheduled for|
    planned for|set for|due on|due by|the deadline|i have|my car|my bike|my phone|my laptop|
    clean|named|off|over|done|gone|new|now|still|sold|bought|got|switched|changed|moved|
    started|let go|
    我是|我在|我做|工作|公司|当|上班|我家|我们家|现在在|目前在|老板|领导|上司|房东|室友|舍友|
    宿舍|我住|租了|租了个|搬家|换|换了|新|停了|退了|没了|走了|还|也|想|了""".replace(
        "\n", ""
    ).split("|")
)


# Words of four letters or more that name nothing ("over it", "i'm taking").
PLAIN = frozenset(
    """over taking take takes have having with from been going getting doing made make back
    into just that this them then they what when your will still some more time very really
    about again after there their here where which would could should being""".split()
)


def kinds_of(kind: str, phrase: str) -> list[str]:
    if kind not in SPLIT:
        return [kind]
    chinese = any("\u4e00" <= char <= "\u9fff" for char in phrase)
    return [
        name
        for name, english, cjk in SPLIT[kind]
        if any(part in phrase for part in (cjk if chinese else english).split())
    ]


def usable(phrase: str, chinese: bool) -> bool:
    """Not broad, and naming something: two CJK characters, or two English words or more,
    one of four letters or more. A single English word names too many things at once
    ("sunset": a product retired, or the evening; "homeless": one's state, or a shelter
    one helps at; "into", "learning", "free"); "i'm on", "on the" name nothing."""
    phrase = phrase.strip()
    if phrase in BROAD:
        return False
    if chinese:
        return len(phrase) >= 2
    words = re.findall(r"[a-z]+", phrase)
    named = [word for word in words if len(word) >= 4 and word not in PLAIN]
    return len(phrase.split()) >= 2 and bool(named)


def main() -> None:
    raw = json.loads(RAW.read_text(encoding="utf-8"))
    out: dict[str, dict[str, dict[str, list[str]]]] = {}
    for language in ("en", "zh"):
        cells: dict[tuple[str, str], set[str]] = defaultdict(set)
        kinds_of_phrase: dict[str, set[str]] = defaultdict(set)
        for kind, events in raw[language].items():
            for event, phrases in events.items():
                for phrase in phrases:
                    phrase = phrase.strip().lower() if language == "en" else phrase.strip()
                    if not usable(phrase, language == "zh"):
                        continue
                    for name in kinds_of(kind, phrase):
                        cells[(name, event)].add(phrase)
                        kinds_of_phrase[phrase].add(name)
        table: dict[str, dict[str, list[str]]] = defaultdict(dict)
        for (kind, event), phrases in sorted(cells.items()):
            kept = sorted(p for p in phrases if len(kinds_of_phrase[p]) == 1)
            if kept:
                table[kind][event] = kept
        out[language] = dict(table)
    OUT.write_text(
        json.dumps(out, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8"
    )
    counts = {lang: sum(len(v) for e in out[lang].values() for v in e.values()) for lang in out}
    print(f"wrote {OUT.relative_to(ROOT)}: {counts}")


if __name__ == "__main__":
    main()
