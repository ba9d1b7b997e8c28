"""Is a new fact a repeat of an old one, a contradiction of it, or news?

Similarity is word overlap: plain Jaccard over content words (CJK as bigrams), and the
same overlap weighted by each word's rarity among all facts (idf, the weighting bm25 gives
one-line documents). The higher of the two counts. A pair above ``duplicate_similarity``
with no contradiction is a repeat; a pair above ``conflict_similarity`` with a
contradiction signal is a conflict, and the newer fact supersedes the older:

* negation flip: one says "not", "never", "no longer", "不", "没" and the other does not;
* preference change: one likes and the other dislikes (like / hate, 喜欢 / 讨厌);
* time shift: the new one says "now", "switched", "moved to", "instead", "现在", "改用"
  and the old one does not.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..terms import CJK_RUN, bigrams

_WORD = re.compile(r"[^\W_]+")
_MAX_CANDIDATES = 50
_MAX_POSTING = 1000
_STOP = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being "
    "am do does did have has had i me my we our you your he she it its they them their this "
    "that these those there here so very really just also too about into over than then "
    "what which who whom how when where why can could would should will shall may might "
    "s t d ll re ve m".split()
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|no longer|anymore|"
    r"isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|can't|couldn't|shouldn't|"
    r"haven't|hasn't|hadn't|dont|doesnt|didnt|isnt|cant|wont)\b|不再|从不|[不没]",
    re.I,
)
_LIKE = re.compile(
    r"\b(?:like[sd]?|love[sd]?|prefer(?:s|red)?|enjoy[sd]?|favou?rite)\b|喜欢|爱|偏好", re.I
)
_DISLIKE = re.compile(
    r"\b(?:hate[sd]?|dislike[sd]?|can't stand|detest[sd]?)\b|讨厌|不喜欢|受不了", re.I
)
_SHIFT = re.compile(
    r"\b(?:now|nowadays|switched|changed|moved to|instead|no longer|anymore|these days|"
    r"from now on|as of)\b|现在|改用|换成|换了|搬到|不再|从现在",
    re.I,
)


def words(text: str) -> frozenset[str]:
    """Content words, case-folded, a plural ``s`` dropped; CJK runs as bigrams."""
    # Negations are left out so that "I like tea" and "I don't like tea" read as the same
    # subject (``contradiction`` tells them apart).
    text = _NEGATION.sub(lambda m: "" if CJK_RUN.fullmatch(m.group()) else " ", text)
    found: set[str] = set()
    for run in CJK_RUN.findall(text):
        found.update(bigrams(run) if len(run) > 1 else [run])
    for word in _WORD.findall(CJK_RUN.sub(" ", text).casefold()):
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.add(word)
    return frozenset(found)


def contradiction(new: str, old: str) -> str | None:
    """The signal that the new statement contradicts the old one, if any."""
    new_likes, old_likes = _polarity(new), _polarity(old)
    if new_likes is not None and old_likes is not None and new_likes != old_likes:
        return "preference change"
    if bool(_NEGATION.search(new)) != bool(_NEGATION.search(old)):
        return "negation flip"
    if _SHIFT.search(new) and not _SHIFT.search(old):
        return "time shift"
    return None


def _polarity(text: str) -> bool | None:
    if _DISLIKE.search(text):
        return False
    if _LIKE.search(text):
        return not bool(_NEGATION.search(text))
    return None


@dataclass(frozen=True)
class Match:
    """The most similar earlier fact and what the new one is to it."""

    key: str
    similarity: float
    verdict: str  # "duplicate" | "conflict" | "similar" | "subsumes"
    signal: str | None
    # The rules are unsure (the LLM pass, when on, is asked: vaultmem/llm/).
    doubtful: bool = False


class FactSet:
    """Facts held for comparison: an inverted index from word to facts, with idf weights."""

    def __init__(self) -> None:
        self._words: dict[str, frozenset[str]] = {}
        self._texts: dict[str, str] = {}
        self._postings: defaultdict[str, set[str]] = defaultdict(set)

    def __len__(self) -> int:
        return len(self._words)

    def add(self, key: str, text: str) -> None:
        found = words(text)
        self._words[key] = found
        self._texts[key] = text
        for word in found:
            self._postings[word].add(key)

    def discard(self, key: str) -> None:
        for word in self._words.pop(key, frozenset()):
            self._postings[word].discard(key)
        self._texts.pop(key, None)

    def similarity(self, a: frozenset[str], b: frozenset[str]) -> float:
        """The higher of Jaccard and idf-weighted Jaccard of two word sets."""
        return self._similarity(a, b, {})

    def _similarity(self, a: frozenset[str], b: frozenset[str], idf: dict[str, float]) -> float:
        if not a or not b:
            return 0.0
        union = a | b
        shared = a & b
        jaccard = len(shared) / len(union)
        total = len(self._words)
        for word in union - idf.keys():
            idf[word] = math.log(1 + total / (1 + len(self._postings.get(word, ()))))
        weighted = sum(idf[w] for w in shared) / sum(idf[w] for w in union)
        return max(jaccard, weighted)

    def best(
        self, text: str, duplicate: float, conflict: float, exclude: Iterable[str] = ()
    ) -> Match | None:
        """The earlier fact the new text is closest to, with the verdict; ``None`` when
        nothing is at least ``conflict`` similar."""
        found = words(text)
        if not found:
            return None
        # Candidates share one of the text's rarest words: a repeat or a contradiction
        # shares its subject, and rare words keep the candidate lists short.
        # A word in over _MAX_POSTING facts is too common to find a repeat by.
        shared = [w for w in found if 0 < len(self._postings.get(w, ())) <= _MAX_POSTING]
        rare = sorted(shared, key=lambda w: (len(self._postings[w]), w))[:4]
        skip = set(exclude)
        hits: dict[str, int] = {}
        for word in rare:
            for key in self._postings[word]:
                hits[key] = hits.get(key, 0) + 1
        # The facts sharing most of the rare words; a cap keeps a common subject cheap.
        candidates = sorted((k for k in hits if k not in skip), key=lambda k: (-hits[k], k))
        best: Match | None = None
        idf: dict[str, float] = {}
        for key in candidates[:_MAX_CANDIDATES]:
            sim = self._similarity(found, self._words[key], idf)
            if sim < conflict or (best is not None and sim <= best.similarity):
                continue
            signal = contradiction(text, self._texts[key])
            if signal is not None:
                verdict = "conflict"
            elif sim >= duplicate:
                verdict = "duplicate"
            else:
                verdict = "similar"
            # Similar but neither a repeat nor a contradiction the rules can see: doubtful.
            best = Match(key, sim, verdict, signal, doubtful=verdict == "similar")
        return best
