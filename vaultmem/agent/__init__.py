"""The agent surface: what agents call (the prompt context block and recall, transcript
capture, host hooks and the MCP server), each module on top of ``Vault``."""
