"""A fact's words: the daily-note line's words without the capture phrasing around them.

"Remember: I live in Berlin." asks for something to be kept; the fact kept is "I live in
Berlin.". The request ("Remember:", "Please note that", "Don't forget", "FYI", "记住：",
"请记住", "注意：", ...) is dropped from the start of the fact, and from its end (", remember
that", "，记住"); stacked requests ("FYI, remember that ...") all go. Only the fact's
text changes: in a conversation turn ("Caroline: remember that ...") the name stays and
the request after it goes. The daily-note line keeps every word, and scoring still sees
the request (it is a reason to keep the line).
"""

from __future__ import annotations

import re
from functools import lru_cache

from vaultmem.memory.language.gates import Gate, Gated, Line
from vaultmem.memory.language.slot_words import SPEAKER

# The requests, English (whole words, any case) and Chinese. A request opens a line when
# punctuation, "that" or "to" follows it ("Remember: ...", "Please note that ...",
# "Don't forget to ..."); the loose ones also when a pronoun or article does ("Remember I
# live ...", "FYI the build ..."), but "Remember when we ..." recalls, it asks nothing.
_EN = (
    r"please\s+note|note\s+to\s+self|note|(?:please\s+)?(?:remember|memori[sz]e)|"
    r"(?:please\s+)?(?:keep|bear)\s+in\s+mind|(?:please\s+)?(?:don'?t|do\s+not)\s+forget|"
    r"fyi|f\.y\.i\.?|btw|by\s+the\s+way|for\s+the\s+record|just\s+so\s+you\s+know|"
    r"heads\s+up|reminder|important\s+note"
)
_LOOSE = (
    r"(?:please\s+)?(?:remember|(?:don'?t|do\s+not)\s+forget|(?:keep|bear)\s+in\s+mind)|"
    r"fyi|btw|by\s+the\s+way|for\s+the\s+record|just\s+so\s+you\s+know|heads\s+up"
)
_FOLLOWS = r"i|i'm|i've|my|we|we're|our|the|a|an|this|these|those|he|she|they|his|her|their|it|it's"
_ZH_BARE = r"请你?记住|请记得|你要记住|记住|记一下|记下来?|记得|别忘了|不要忘了|不要忘记|千万别忘了"
_ZH_PUNCT = r"请注意|注意|备注|提醒一下|提醒|顺便说一下|顺便说|顺便|备忘"
_SEP = r"[\s:：,，\-–—、!！.。]*"
_LEAD = re.compile(
    rf"^(?:(?i:(?:{_EN})\s*[:：,，\-–—!！]+|(?:{_EN})\s+(?:that|to)\s+"
    rf"|(?:{_LOOSE})\s+(?=(?:{_FOLLOWS})\b))"
    rf"|(?:{_ZH_BARE}){_SEP}|(?:{_ZH_PUNCT})\s*[:：,，]{_SEP})"
)
# The request at the end: ", remember that", "- don't forget!", "，记住", "，别忘了。". It is
# set off by punctuation (a comma, semicolon or dash): after bare whitespace the word is
# the sentence's own verb ("This is the day I will always remember").
# It is tried once per run of separators, from where the run starts (its leading hyphens,
# group 1, are kept: ``_TAIL.sub(r"\1", ...)``), not from each separator in it: a long
# run ("x — — — ... note x") was read to its end from each (quadratic).
_TAIL = Gated(
    re.compile(
        r"(?<![\s,，;；\-–—])(-*+)(?:\s*[,，;；–—]|\s+-)[\s,，;；\-–—]*+"
        r"(?:(?i:(?:please\s+)?(?:remember|keep\s+(?:that|this|it)\s+in\s+mind|"
        r"note)(?:\s+(?:that|this|it))?|(?:please\s+)?(?:don'?t|do\s+not)\s+forget"
        r"(?:\s+(?:that|this|it))?|fyi)|请?记住(?:了|哦|啊|喔)?|别忘了|记得(?:哦|啊|喔)?)"
        r"\s*(?:[.!！。~]+\s*)?$"
    ),
    # Every request it takes holds one of these (case-folded): a line without any is not
    # searched (the search walks the whole line).
    Gate(parts=("remember", "keep", "note", "forget", "fyi", "记住", "别忘了", "记得")),
)


# Cached: consolidation asks it of each admitted line three times over (the fact's text,
# its readings, its slots), most often of the same words, as no request was there to strip.
@lru_cache(maxsize=1024)
def strip_triggers(text: str) -> str:
    """The words of a line without the capture request that opens or closes it.

    Args:
        text: the line's words (no time, role, fields or block id).

    Returns:
        The words from the first one the request did not take; the whole text unchanged
        when nothing is left without the request ("Remember!" alone stays as it is).
    """
    words = text.strip()
    speaker = SPEAKER.match(words)
    if speaker is not None and _LEAD.match(words) is None:
        # A conversation turn: the request follows the name ("Caroline: remember that ...").
        rest = strip_triggers(words[speaker.end() :])
        return words[: speaker.end()] + rest
    for _ in range(4):  # "FYI, please remember that ...": a few requests stacked
        match = _LEAD.match(words)
        if match is None or match.end() == 0:
            break
        words = words[match.end() :].lstrip()
    stripped_head = words != text.strip()
    words = _TAIL.sub(r"\1", words, Line.of(words))
    words = words.rstrip()
    if not _has_words(words):
        return text.strip()
    if stripped_head:
        words = _capitalise(words)
    return words


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _capitalise(text: str) -> str:
    """The text with its first letter capitalised: the request took the start of the
    sentence ("the staging server ..."). A word with capitals already (iPhone) stays."""
    first = text.split(" ", 1)[0]
    if first.islower() and first[0].isascii() and first[0].isalpha():
        return text[0].upper() + text[1:]
    return text
