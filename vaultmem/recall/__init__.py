"""What an agent is handed: the context block (``context_block``) and lookups of recent
lines and of one memory by its link (``lookup``). Built over a ``Vault``'s public
methods, named by the ``VaultView`` protocol (``vault_view.py``), never by importing ``vault``."""
