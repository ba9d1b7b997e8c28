"""The characters vaultmem counts as CJK (Chinese, Japanese, Korean), as the body of a
regular expression's character class: the index splits their runs into bigrams
(``index/terms.py``) and a generated block counts each as a token (``generated_block``)."""

CJK_CHARACTERS = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0002ffff"
)
