"""The memory pipeline: capturing lines (``remember``), and later scoring, consolidation,
tiers and topics. Each module is a concept; ``Vault`` is still the front door."""
