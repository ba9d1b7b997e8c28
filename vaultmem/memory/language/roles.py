"""The roles a daily-note line may name that are no person: an agent's, and the owner's.

Kept apart from the cue tables so that reading a fact (``memory/pipeline/facts.py``, on
search's path) does not compile them.
"""

from __future__ import annotations

# An agent's lines: what it says of its own work is no memory of the owner's
# (``scoring.narrates``).
AGENT_ROLES = frozenset({"assistant", "agent", "ai", "bot", "system", "model"})
# Roles that are not a person's name: a fact keeps the words alone, without ``Role: ``.
PLAIN_ROLES = AGENT_ROLES | {"user", "me", "owner"}
