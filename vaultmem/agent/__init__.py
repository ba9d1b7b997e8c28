"""The agent hosts' surface: hooks written into a host's settings (``hooks``) and the MCP
server (``mcp``, ``mcp_models``, ``mcp_stdio``, ``live``), each on top of ``Vault``.

``HOOK_FLAG`` lives here, not in ``hooks.py``: the CLI looks for it in every command's
arguments, and importing this package costs nothing.
"""

#: The flag that marks a command run by a host's hook (``hooks.py`` writes it into the
#: host's settings; the CLI then reports usage errors as plain errors, see cli/common.py).
HOOK_FLAG = "--hook"
