"""The agent surface: what agents call (the prompt context block, recall, transcripts,
host hooks and the MCP server), each module on top of ``Vault``."""
