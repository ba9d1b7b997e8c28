"""The watch daemon: keeps the index (and the vectors) current as notes change, and
optionally commits and syncs. It runs a ``Vault``; nothing below imports it."""
