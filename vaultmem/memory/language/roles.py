"""The roles a daily-note line may name that are no person (an agent's, the owner's), and
the role a fact keeps of its line, ``Name: words`` (``kept_role``).

Kept apart from the cue tables so that reading a fact (``memory/pipeline/facts.py``, on
search's path) and a context block do not compile them.
"""

from __future__ import annotations

import re

# An agent's lines: what it says of its own work is no memory of the owner's
# (``scoring.narrates``).
AGENT_ROLES = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})
# Roles that are not a person's name: a fact keeps the words alone, without ``Role: ``.
PLAIN_ROLES = AGENT_ROLES | {"user", "me", "owner"}

_LATIN = "A-Za-z0-9_\u00c0-\u024f"
# A name: capitalised, and not part of a longer word on either side (MySQL, JavaScript,
# 3Com); a full name, one or two of them ("Caroline", "Jean-Luc", "Mary Ann").
_NAME = rf"(?<![{_LATIN}])[A-Z][a-z\u00df-\u00ff]+(?:-[A-Z][a-z\u00df-\u00ff]+)?(?![{_LATIN}])"
FULL_NAME = rf"(?:{_NAME})(?:\s(?:{_NAME}))?"
KEPT_ROLE = re.compile(rf"^({FULL_NAME}):\s")


def kept_role(text: str) -> str:
    """The name a fact's words open with, as consolidation keeps its line's role
    (``Caroline: I ...``), or "" (``people.speaker`` also asks that it be no common word)."""
    found = KEPT_ROLE.match(text.strip())
    return found[1] if found else ""
