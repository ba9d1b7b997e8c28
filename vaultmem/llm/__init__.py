"""An OpenAI-compatible chat client for the optional LLM pass (``consolidate --llm``,
``[llm]`` in the config): ``client.py`` speaks the protocol, ``cache.py`` keeps validated
answers by content hash, and ``http_post.py`` is the one HTTP call (shared with the
embeddings' ``openai_api`` backend). What the pass asks and how it falls back to the rules
lives with the pipeline (``memory/pipeline/judge.py``); docs/llm.md is the user's side.
"""
