"""Reading and writing notes safely: the files (``files``), atomic writes under the
vault's lock (``writes``, ``state``), the Markdown parser (``parse``), a note's generated
block (``generated_block``), merging two versions of a note (``merge``) and the dates a
note can have (``date_range``). Everything above builds on these; they import only
``config`` and ``errors``."""
