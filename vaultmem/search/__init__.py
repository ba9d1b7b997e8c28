"""Finding memories: query parsing, word forms, ranking, keyword search over the index,
semantic and hybrid search over the vectors (``semantic``), and what a result holds
(``results``). ``retrieval.retrieve`` is one search, start to end."""
