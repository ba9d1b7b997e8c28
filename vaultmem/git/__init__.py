"""Git, the vault's history and sync: commits, log, restore (``history``), sync with
its file-by-file merge (``sync``, built on ``history``), a new repository
(``repository``) and snapshots (``versioning``). Every git command runs as a process
through ``runner``, the one module here that config, below git/, may import."""
