"""Git, the vault's history and sync: commits, log, restore (``history``), sync with
its file-by-file merge (``sync``), a new repository (``repository``) and snapshots
(``versioning``)."""
