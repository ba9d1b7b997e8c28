"""Anchored changes: a later line saying that something an earlier line named has changed.

Most updates name no kind of standing fact ``states`` knows, yet say plainly that
something changed, about a thing the earlier line named: "Ditched Spanish, doing Japanese
now" after "Learning Spanish on Duolingo"; "数据库升到8.0了" after "线上用的是MySQL 5.7"...
So a new fact ``changes`` an old one when

* it says a change (``cue``: "switched to", "cancelled", "no longer", "推迟到", "不去了"),
  in no clause that asks, wishes, tells the past, something passing or going on, or an
  addition (``state_words``), nor with words that say the line is no change ("still",
  "this week", "也", "暂时": ``stays``);
* both are short statements (``_short``: a long chat turn sharing a word tells a story),
  and the old one tells no moment ("yesterday", "昨天");
* the two are about one subject: one speaker, the same person opening both (or either
  opening with a pronoun or a thing: ``states.parties``), or the person one opens with
  named in the other ("煤球" in "用户养了一只猫叫煤球"), and no two different names
  ("「青柠」" / "「蓝莓」");
* they share a specific word that names none of their parties (the speaker, the subject,
  the one addressed: "Thanks, Maria!"): a word outside the most frequent words of
  everyday chat ("coriander", "Jira", "香菜", "三亚");
* the old fact does not say the same cue, and the new one says more than the old one and
  its cue ("I finally live in Berlin" says it again).

The word lists (``change_words.json``) were written blind by a helper session from general
knowledge; ``bench/make_change_words.py`` makes the table from them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Protocol

from vaultmem.memory.language import state_words as w
from vaultmem.memory.language import states
from vaultmem.memory.language.slot_phrases import OWNER
from vaultmem.memory.language.states import parties, spoken

_TABLE = json.loads(Path(__file__).with_name("change_words.json").read_text(encoding="utf-8"))
# The most frequent words of chat, as ``conflicts.words`` reads them (English without a
# plural "s", Chinese in two-character pieces), and any two plans' or prices' words.
COMMON = frozenset(_TABLE["common"]) | w.GENERIC_WORDS


class Phrases:
    """Phrases found by their words (English) or first character (Chinese), not by a
    pattern of alternatives, which is tried at every position of a text (0.7 ms a fact
    for the 600 English cues). "not ... anymore" has one to three words in its gap."""

    def __init__(self, phrases: list[str]) -> None:
        self._whole: dict[tuple[str, ...], str] = {}
        self._heads: set[tuple[str, ...]] = set()  # every phrase's first words
        self._gapped: dict[tuple[str, ...], list[tuple[tuple[str, ...], str]]] = {}
        self._chinese: dict[str, list[str]] = {}  # by first character, longest first
        for phrase in phrases:
            if w.HAS_CJK.search(phrase):
                self._chinese.setdefault(phrase[0], []).append(phrase)
                continue
            head, gap, tail = phrase.partition("...")
            words = tuple(w.EN_WORD.findall(head))
            if gap:
                self._gapped.setdefault(words, []).append((tuple(w.EN_WORD.findall(tail)), phrase))
            else:
                self._whole[words] = phrase
            self._heads.update(words[:n] for n in range(1, len(words) + 1))
        for found in self._chinese.values():
            found.sort(key=len, reverse=True)

    def find(self, text: str) -> str:
        """The first phrase the text holds (the longest of those starting there), or ""."""
        if w.HAS_CJK.search(text):
            chinese = self._chinese
            for start, character in enumerate(text):
                for phrase in chinese.get(character, ()):
                    if text.startswith(phrase, start):
                        return phrase
            return ""
        words = w.EN_WORD.findall(text.casefold().replace("’", "'"))
        for first in range(len(words)):
            found, step = "", first + 1
            key: tuple[str, ...] = (words[first],)
            while key in self._heads:
                found = self._whole.get(key, found) or self._gap(words, key, step)
                if step == len(words):
                    break
                key, step = (*key, words[step]), step + 1
            if found:
                return found
        return ""

    def _gap(self, words: list[str], head: tuple[str, ...], after: int) -> str:
        """A gapped phrase opening with ``head`` (ending before ``after``), if one ends
        one to three words later."""
        for tail, phrase in self._gapped.get(head, ()):
            for start in range(after + 1, min(after + 4, len(words)) + 1):
                if tuple(words[start : start + len(tail)]) == tail:
                    return phrase
        return ""


_CHANGE = Phrases(_TABLE["change"])
_STAYS = Phrases(_TABLE["stays"])


# A standing fact is said in a short line ("Ditched Spanish, doing Japanese now"): words
# an old and a new fact may hold (``_short``).
_OLD_WORDS, _NEW_WORDS = 8, 12
# Words that tell of one moment, as ``conflicts.words`` reads them.
_ONCE = frozenset("yesterday today tonight 昨天 今天 昨晚 今晚 刚才 今早".split())
_LATIN = re.compile(r"[^\W\d_]{3,}")  # a Latin word of three letters or more


class Readings(states.Readings, Protocol):
    """What ``changes`` reads of a fact (``conflicts.Fact``): its words, units and names
    as ``states.ended`` does, and its change and parties."""

    @property
    def change(self) -> str: ...
    @property
    def parties(self) -> tuple[str, str, str]: ...


def read(text: str, words: frozenset[str]) -> tuple[str, tuple[str, str, str]]:
    """The change a fact (of these ``conflicts.words``) says and its parties
    (``states.parties``), as ``changes`` reads them: of a fact that can be neither an old
    one (``_OLD_WORDS``) nor a new one (a change said), the speaker alone (the cost is
    spared: most chat turns are long)."""
    change = cue(text, words)
    if not change and not _short(words, _OLD_WORDS):
        return "", (spoken(text)[0] or OWNER, "", "")
    return change, parties(text)


def cue(text: str, words: frozenset[str]) -> str:
    """The change the text (of these ``conflicts.words``) says ("switched to", "取消了"),
    or "" when it says none, says it where no change is said (a wish, the past, "still",
    "也"...), or is too long to say a change so (``_short``: the cost is spared)."""
    if not _short(words, _NEW_WORDS):
        return ""
    text = spoken(text)[1]
    found = _CHANGE.find(text)
    if not found or (
        w.UNSURE.search(text)
        or w.PASSING.search(text)
        or w.GOES_ON.search(text)
        or w.ALSO.search(text)
        or w.SUBORDINATE.match(text)
        or (w.PAST.search(text) and not w.NOW.search(text))
        or _STAYS.find(text)
    ):
        return ""
    return found


def changes(new: Readings, old: Readings) -> str | None:
    """The words the new fact changes of the old one's ("spanish"), joined, if it does
    (see the module's docstring)."""
    if not new.change or not (
        _same_parties(new.parties, old.parties) or _named_in(new, old) or _named_in(old, new)
    ):
        return None  # another speaker's, or another person's ("Marco" / "Marco's wife")
    if not _short(old.words, _OLD_WORDS):
        return None  # a long turn sharing a word tells a story, not a change of it
    if not old.words.isdisjoint(_ONCE):
        return None  # "I went to a support group yesterday": a moment, no standing fact
    if new.names and old.names and new.names.isdisjoint(old.names):
        return None  # "「青柠」 ships this month" / "「蓝莓」 slipped to next month"
    if _says(old.words, new.change):
        return None  # "用户的姐姐八月结婚" / "用户的表弟九月结婚": the same event, not a change
    if new.units <= old.units | _pieces(new.change):
        return None  # the old fact said again ("I finally live in Berlin")
    names = {name for person in (*new.parties, *old.parties) for name in re.split(r"['\s]", person)}
    shared = specific(new.words & old.words) - names
    return " ".join(sorted(shared)) or None


def _same_parties(new: tuple[str, str, str], old: tuple[str, str, str]) -> bool:
    """Whether two facts' ``states.parties`` allow them one subject: one speaker, and the
    same person opening both, or either opening with a pronoun (anyone named before), or
    one with a thing and the other with the speaker ("The Air finally died" / "Still on
    my MacBook Air"; not "Bob joined the Atlas team" / "The Atlas kickoff is Thursday")."""
    if new[0] != old[0]:
        return False
    subjects = {new[1], old[1]}
    if len(subjects) == 1 or states.PRONOUN in subjects:
        return True
    return subjects == {states.THING, new[0]}


def _named_in(one: Readings, other: Readings) -> bool:
    """Whether the person one fact opens with is named in the other, said by the same
    speaker: "Ella started at the new school" after "Ella's in year 3 at St Mary's" (that
    one read as the speaker's), "煤球上周走了" after "用户养了一只猫叫煤球"."""
    speaker, subject, _ = one.parties
    if speaker != other.parties[0] or subject in (speaker, states.PRONOUN, states.THING):
        return False
    name = subject if w.HAS_CJK.match(subject) is None else subject[:2]
    name = re.split(r"['\s]", name)[0]
    return name not in w.OWNER_WORDS and name in other.words


def _short(words: frozenset[str], most: int) -> bool:
    """Whether a fact of these words is a short statement: at most ``most`` words, a
    Chinese two-character piece counting half (a Chinese clause has about two for each
    word)."""
    if len(words) <= most:
        return True  # however many are Chinese
    if len(words) > 2 * most:
        return False
    latin = sum(map(str.isascii, words))
    return latin * 2 + (len(words) - latin) <= most * 2


def specific(words: frozenset[str]) -> frozenset[str]:
    """The words not among the most frequent of chat: Latin ones of three letters or
    more, and Chinese two-character pieces."""
    return frozenset(
        word
        for word in words
        if word not in COMMON and (_LATIN.fullmatch(word) or w.HAS_CJK.match(word))
    )


def _says(words: frozenset[str], cue: str) -> bool:
    """Whether a fact of these words says the cue too: its Latin words of three letters
    or more, or its two-character pieces, all among them."""
    if w.HAS_CJK.search(cue):
        pieces = {cue[i : i + 2] for i in range(len(cue) - 1)} or {cue}
    else:
        pieces = {part for part in _pieces(cue) if part in words or len(part) > 2}
    return bool(pieces) and pieces <= words


def _pieces(cue: str) -> set[str]:
    """A cue's units (``conflicts.units``): its Latin words, or its characters."""
    return set(cue) if w.HAS_CJK.search(cue) else set(re.findall(r"[^\W_]+", cue))
