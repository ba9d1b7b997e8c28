"""The agent surface: what agents call (recall, transcripts, hooks, MCP)."""
