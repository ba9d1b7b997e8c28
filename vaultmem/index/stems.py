"""The one English stemmer: a word without an ending, by a rule that says which endings.

Words are indexed as written (``terms.py``); English word forms are joined where a word is
read, each reader by its own ``Rule``:

* ``SEARCH``, a keyword query's words (``search/query.py``): the first of many endings
  dropped, and the rest asked as a prefix (``meetings`` -> ``meet*``, ``created`` ->
  ``creat*``, which finds create, created and creator). A prefix only has to begin every
  form, so it may cut more than a stem would (``class`` -> ``clas*``).
* ``PLURAL``, the words of a fact (``memory/language/conflicts.py``) and the nouns of a slot
  (``memory/language/slot_phrases.py``): a plural ``s`` dropped, never the ``ss`` of
  ``glass``. These words are compared whole, so a rule that cut more would join words that
  differ.
* ``VERB``, after ``PLURAL``, where two facts are checked for saying the same thing but for
  their stance (``memory/language/conflicts.py``: "I enjoy running" / "I hate my runs"):
  ``-ing`` and ``-ed`` dropped and a consonant doubled before them undone (``running`` ->
  ``run``, ``planned`` -> ``plan``), for ASCII words only: the doubling is English spelling's.

Every rule leaves at least three letters (``MIN_STEM``): ``sing`` keeps its ``ing`` and
``bus`` its ``s``. Irregular forms no ending reaches (``win``/``won``) are listed in
``search/word_forms.py``.
"""

from __future__ import annotations

from typing import NamedTuple

MIN_STEM = 3


class Rule(NamedTuple):
    """Which endings a word drops, and how."""

    endings: tuple[str, ...]  # tried in order: the first one that leaves MIN_STEM letters
    keep: tuple[str, ...] = ()  # a word ending so keeps its ending ("glass")
    ascii_only: bool = False  # a word with any other character is left as it is
    undouble: bool = False  # a consonant doubled before the ending goes too ("running")


SEARCH = Rule(("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly", "e"))
PLURAL = Rule(("s",), keep=("ss",))
VERB = Rule(("ing", "ed"), ascii_only=True, undouble=True)


def stem(word: str, rule: Rule) -> str:
    """``word`` without the first of ``rule``'s endings that leaves ``MIN_STEM`` letters.

    Args:
        word: one word, lowercased by the caller.
        rule: ``SEARCH``, ``PLURAL`` or ``VERB`` (see the module's docstring).

    Returns:
        The stem; ``word`` itself (the same object) when no ending is dropped.
    """
    # Most words have none of the endings: one test, not one per ending.
    if not word.endswith(rule.endings) or word.endswith(rule.keep):
        return word
    if rule.ascii_only and not word.isascii():
        return word
    for ending in rule.endings:
        if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM:
            word = word[: -len(ending)]
            if rule.undouble and word[-1] == word[-2] and word[-1] not in "aeiousl":
                word = word[:-1]
            return word
    return word
