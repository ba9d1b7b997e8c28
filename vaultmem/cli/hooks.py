"""``vaultmem hooks``: install, uninstall and show vaultmem's hooks in an agent host."""

from __future__ import annotations

from pathlib import Path

import click

from vaultmem.agent import hooks as agent_hooks
from vaultmem.agent.settings_file import render
from vaultmem.cli.common import echo_json, json_option, utf8, vault_option
from vaultmem.vault import Vault

host_argument = click.argument("host", type=click.Choice(sorted(agent_hooks.HOSTS)))
scope_option = click.option(
    "--scope",
    type=click.Choice(agent_hooks.SCOPES),
    default="user",
    show_default=True,
    help="user: the host's settings in your home folder; project: the ones in the "
    "current folder (.claude/, .codex/ or .gemini/).",
)


@click.group()
def hooks() -> None:
    """Wire vaultmem into an agent host: context at session start, transcripts captured.

    Edits only vaultmem's own entries in the host's hook file (Claude Code:
    ~/.claude/settings.json; Codex: ~/.codex/hooks.json; Gemini CLI:
    ~/.gemini/settings.json); every other setting and hook is kept. See docs/agents.md.

    Example: vaultmem hooks install claude-code --vault ~/memory
    """


def _vault_root(vault_path: Path | None) -> Path:
    with Vault.find(vault_path) as vault:
        return vault.root


def _trust_notice(host: str, scope: str) -> None:
    """What the host asks of the person before it runs a new hook."""
    if host == "codex":
        click.echo(
            "Note: Codex runs a new or changed hook only after you trust it: open /hooks in "
            "Codex and trust vaultmem's hooks.",
            err=True,
        )
    elif host == "gemini" and scope == "project":
        click.echo(
            "Note: Gemini CLI warns about a new or changed project hook before it runs it: "
            "accept vaultmem's hooks when it asks.",
            err=True,
        )


@hooks.command()
@host_argument
@scope_option
@click.option("--agent", callback=utf8, help="Record and recall as this agent (--agent NAME).")
@json_option
@vault_option
def install(
    host: str, scope: str, agent: str | None, as_json: bool, vault_path: Path | None
) -> None:
    """Add vaultmem's hooks to HOST's settings: SessionStart prints the context block,
    the events after a turn, before compaction and at the end (Claude Code: Stop,
    PreCompact, SessionEnd) capture the session's transcript into the vault.

    A second install changes nothing; one with another --vault rewrites only vaultmem's
    commands. The first version changed is kept as <file>.vaultmem-bak.

    Example: vaultmem hooks install claude-code --vault ~/memory
    """
    root = _vault_root(vault_path)
    change = agent_hooks.install(agent_hooks.host_named(host), root, scope=scope, agent=agent)
    if as_json:
        echo_json(change.as_dict())
    elif change.written:
        events = ", ".join(change.commands)
        click.echo(f"installed vaultmem's hooks ({events}) in {change.path}")
        if change.backup:
            click.echo(f"the previous file is kept as {change.backup}")
    else:
        click.echo(f"already installed in {change.path}: nothing changed")
    _trust_notice(host, scope)


@hooks.command()
@host_argument
@scope_option
@json_option
def uninstall(host: str, scope: str, as_json: bool) -> None:
    """Remove vaultmem's hooks from HOST's settings, and nothing else.

    Example: vaultmem hooks uninstall claude-code
    """
    change = agent_hooks.uninstall(agent_hooks.host_named(host), scope=scope)
    if as_json:
        echo_json(change.as_dict())
    elif change.written:
        click.echo(f"removed vaultmem's hooks from {change.path}")
    else:
        click.echo(f"no vaultmem hooks in {change.path}: nothing changed")


@hooks.command()
@host_argument
@scope_option
@click.option("--agent", callback=utf8, help="As for install.")
@json_option
@vault_option
def show(host: str, scope: str, agent: str | None, as_json: bool, vault_path: Path | None) -> None:
    """Print the settings file as `hooks install` would write it; write nothing.

    Example: vaultmem hooks show codex --scope project
    """
    root = _vault_root(vault_path)
    change = agent_hooks.install(
        agent_hooks.host_named(host), root, scope=scope, agent=agent, write=False
    )
    if as_json:
        echo_json({**change.as_dict(), "settings": change.settings})
        return
    click.echo(f"# {change.path}" + ("" if change.changed else " (already as shown)"), err=True)
    click.echo(render(change.settings), nl=False)
