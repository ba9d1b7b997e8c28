"""The agent surface: what agents call (the prompt context block and recall, transcript
capture, host hooks and the MCP server), each module on top of ``Vault``.

``HOOK_FLAG`` lives here, not in ``hooks.py``: the CLI looks for it in every command's
arguments, and importing this package costs nothing.
"""

#: The flag that marks a command run by a host's hook (``hooks.py`` writes it into the
#: host's settings; the CLI then reports usage errors as plain errors, see cli/common.py).
HOOK_FLAG = "--hook"
