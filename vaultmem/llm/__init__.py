"""The optional LLM pass of consolidation (``consolidate --llm``, ``[llm]`` in the config).

Rules decide everything by default; this pass only asks an OpenAI-compatible chat model
about the cases the rules are unsure of, off the hot path (never during ``remember``,
``search`` or ``context``). ``client.py`` speaks the protocol, ``questions.py`` holds the
prompts and the strict check of a reply, ``cache.py`` keeps validated answers by content
hash, and ``judge.py`` runs the pass within a budget, falling back to the rule decision
whenever there is no usable answer. docs/llm.md is the user's side of it.
"""

from __future__ import annotations

from .judge import Judge, Stats, open_judge

__all__ = ["Judge", "Stats", "open_judge"]
