"""The characters vaultmem counts as CJK (Chinese, Japanese, Korean), as the body of a
regular expression's character class: the index splits their runs into bigrams
(``index/terms.py``) and a generated block counts each as a token (``generated_block``).
``mostly_cjk`` tells a text's language apart for semantic ranking (``embeddings/matrix.py``)."""

import re

CJK_CHARACTERS = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0002ffff"
)

_CJK = re.compile(f"[{CJK_CHARACTERS}]")
_SPACE = re.compile(r"\s")


def mostly_cjk(text: str) -> bool:
    """Whether CJK characters make up at least 30% of ``text``'s non-space characters: the
    language a model places a text by (a Chinese line keeps its markup and numbers)."""
    letters = len(_SPACE.sub("", text))
    return letters > 0 and len(_CJK.findall(text)) >= 0.3 * letters
