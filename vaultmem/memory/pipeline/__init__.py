"""The memory pipeline's steps over a vault's files: capture (``remember``,
``transcripts``), consolidation (``reading``, ``consolidate``, ``fact_upkeep``, ``topics``,
``memory_md``), the facts' format (``facts``), tiers and decay, forgetting, validation
and the optional LLM pass (``judge``). It decides with the rules of ``memory.language``."""
