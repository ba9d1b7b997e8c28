"""The shadow index: a SQLite/FTS5 database rebuilt from the notes at any time. Its
schema, how text becomes terms and chunks, writing rows, index runs (full and
incremental) and keeping the database usable when it is missing or damaged."""
