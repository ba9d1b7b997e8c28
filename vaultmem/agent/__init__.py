"""The agent hosts' surface: hooks written into a host's settings (``hooks``) and the MCP
server (``mcp``, ``mcp_models``, ``mcp_stdio``, ``live``), each on top of ``Vault``.

``HOOK_FLAG`` and the hosts answered in JSON live here, not in ``hooks.py``: the CLI looks
for them on every hook's run, and importing this package costs nothing.
"""

#: The flag that marks a command run by a host's hook (``hooks.py`` writes it into the
#: host's settings; the CLI then reports usage errors as plain errors, see cli/common.py).
HOOK_FLAG = "--hook"

#: The option naming the host that runs a hook (``--host gemini``), and the hosts it names
#: (``hooks.HOSTS`` holds what vaultmem knows of each).
HOST_FLAG = "--host"
HOOK_HOSTS = ("claude-code", "codex", "gemini")

#: Hosts that read a hook's stdout as JSON only: Gemini CLI shows plain text to the person,
#: not to the model, and shows a hook's stderr when its stdout is empty.
JSON_HOOK_HOSTS = frozenset({"gemini"})
