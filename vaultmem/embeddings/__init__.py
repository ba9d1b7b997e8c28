"""Optional semantic search (the ``vaultmem[embeddings]`` extra): embedders
(``embedders.py``, ``openai_api.py``), the vector store (``store.py``), the search matrix
(``matrix.py``), ``vaultmem embed`` (``embed.py``) and semantic and hybrid search
(``semantic.py``). See docs/embeddings.md.

Nothing here is imported by the core or by keyword search: a vault without
``.vaultmem/vectors.db`` never loads numpy or a model.
"""
