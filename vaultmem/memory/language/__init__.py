"""The language rules of memory, pure functions of text: what matters (``scoring``,
``gates``), what a line is about (``slots`` and their word tables), dates, people,
metadata (``extract``), conflicts between two facts, where a fact goes
(``categories``) and what must never be kept (``secrets``). They read no file."""
