"""`vaultmem hooks`: vaultmem's entries in an agent host's hook file, and nothing else.

Every test runs with HOME (and the hosts' own folder variables) pointed into tmp_path by
``isolated_env`` and ``host_home``, so the real ~/.claude and ~/.codex are never touched.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import as_unprivileged, write
from test_capture import GEMINI_SESSION, gemini_chat

from vaultmem import Vault
from vaultmem.agent.hooks import is_ours
from vaultmem.agent.settings_file import BACKUP_SUFFIX
from vaultmem.cli import cli

CLAUDE_EVENTS = ["SessionStart", "Stop", "PreCompact", "SessionEnd"]
CODEX_EVENTS = ["SessionStart", "Stop", "PreCompact"]
GEMINI_EVENTS = ["SessionStart", "AfterAgent", "PreCompress", "SessionEnd"]

# A person's settings.json: other keys, another hook on Stop in its own group, and one of
# their hooks on PreCompact in a group with a matcher.
THEIRS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "env": {"FOO": "bär"},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreCompact": [
            {
                "matcher": "auto",
                "hooks": [{"type": "command", "command": "backup.sh", "timeout": 9}],
            }
        ],
        "PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
    },
}


@pytest.fixture(autouse=True)
def host_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hosts' folder variables would move their files out of the tmp HOME."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def claude_settings() -> Path:
    return Path.home() / ".claude" / "settings.json"


def ours_in(settings: dict[str, Any], event: str) -> list[str]:
    """The commands of ours on ``event``."""
    return [
        entry["command"]
        for group in settings.get("hooks", {}).get(event, [])
        for entry in group["hooks"]
        if is_ours(entry)
    ]


def commands_of(settings: dict[str, Any]) -> list[str]:
    return [
        entry["command"]
        for groups in settings.get("hooks", {}).values()
        for group in groups
        for entry in group["hooks"]
    ]


def test_install_adds_our_hooks_and_keeps_everything_else(vault_path: Path) -> None:
    path = write(Path.home(), ".claude/settings.json", json.dumps(THEIRS, ensure_ascii=False))
    original = path.read_bytes()

    result = invoke("hooks", "install", "claude-code", "--vault", str(vault_path))

    assert result.exit_code == 0, result.output
    settings = json.loads(path.read_text())
    for key in ("model", "permissions", "env"):
        assert settings[key] == THEIRS[key]
    assert set(commands_of(THEIRS)) <= set(commands_of(settings))
    # Their groups are untouched, in their place; ours come after.
    assert settings["hooks"]["Stop"][0] == THEIRS["hooks"]["Stop"][0]
    assert settings["hooks"]["PreCompact"][0] == THEIRS["hooks"]["PreCompact"][0]
    assert settings["hooks"]["PostToolUse"] == THEIRS["hooks"]["PostToolUse"]
    for event in CLAUDE_EVENTS:
        [command] = ours_in(settings, event)
        words = shlex.split(command)
        role = "context" if event == "SessionStart" else "capture"
        assert words[-6:] == [
            role,
            "--hook",
            "--host",
            "claude-code",
            "--vault",
            str(vault_path.resolve()),
        ]
        assert os.path.isabs(words[0])  # runs outside the virtualenv too
    assert path.with_name("settings.json" + BACKUP_SUFFIX).read_bytes() == original


def test_a_second_install_changes_nothing(vault_path: Path) -> None:
    write(Path.home(), ".claude/settings.json", json.dumps(THEIRS))
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0
    first = claude_settings().read_bytes()
    inode = claude_settings().stat().st_ino

    result = invoke("hooks", "install", "claude-code", "--vault", str(vault_path), "--json")

    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["changed"] is False
    assert claude_settings().read_bytes() == first
    assert claude_settings().stat().st_ino == inode  # not even rewritten


def test_install_with_another_vault_rewrites_only_our_commands_in_place(tmp_path: Path) -> None:
    old, new = tmp_path / "old vault", tmp_path / "new 'vault'"
    Vault.init(old)
    Vault.init(new)
    assert invoke("hooks", "install", "claude-code", "--vault", str(old)).exit_code == 0
    # The person moves our Stop hook into a group of theirs, with a matcher and a timeout.
    settings = json.loads(claude_settings().read_text())
    ours = settings["hooks"]["Stop"].pop()["hooks"][0]
    settings["hooks"]["Stop"].append(
        {
            "matcher": "x",
            "hooks": [{"type": "command", "command": "theirs.sh"}, {**ours, "timeout": 30}],
        }
    )
    claude_settings().write_text(json.dumps(settings))

    assert invoke("hooks", "install", "claude-code", "--vault", str(new)).exit_code == 0

    after = json.loads(claude_settings().read_text())
    [group] = after["hooks"]["Stop"]
    assert group["matcher"] == "x"
    assert group["hooks"][0] == {"type": "command", "command": "theirs.sh"}
    assert group["hooks"][1]["timeout"] == 30
    assert shlex.split(group["hooks"][1]["command"])[-1] == str(new.resolve())
    for event in CLAUDE_EVENTS:
        assert len(ours_in(after, event)) == 1
    assert str(old.resolve()) not in claude_settings().read_text()


def test_uninstall_removes_only_ours(vault_path: Path) -> None:
    write(Path.home(), ".claude/settings.json", json.dumps(THEIRS))
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0
    # One of ours shares a group with one of theirs.
    settings = json.loads(claude_settings().read_text())
    settings["hooks"]["PostToolUse"][0]["hooks"].append(
        {"type": "command", "command": ours_in(settings, "Stop")[0]}
    )
    claude_settings().write_text(json.dumps(settings))

    result = invoke("hooks", "uninstall", "claude-code")

    assert result.exit_code == 0, result.output
    assert json.loads(claude_settings().read_text()) == THEIRS
    again = invoke("hooks", "uninstall", "claude-code")
    assert again.exit_code == 0 and "nothing changed" in again.output


def test_uninstall_after_install_into_no_file_leaves_no_hooks_object(vault_path: Path) -> None:
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0
    assert not claude_settings().with_name("settings.json" + BACKUP_SUFFIX).exists()

    assert invoke("hooks", "uninstall", "claude-code").exit_code == 0

    assert json.loads(claude_settings().read_text()) == {}


def test_uninstall_without_a_file_writes_nothing() -> None:
    result = invoke("hooks", "uninstall", "claude-code")
    assert result.exit_code == 0
    assert not claude_settings().exists()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"hooks": {"Stop": [', "not valid JSON"),
        (b'["hooks"]', "not an object"),
        (b'{"hooks": []}', '"hooks" is not a JSON object'),
        (b'{"hooks": {"SessionStart": {"command": "x"}}}', "is not a list"),
        (b'{"model": "a", "model": "b"}', "appears twice"),
        (b'{"x": NaN}', "NaN"),
        # Too big for a float: json would read it as infinity and write `Infinity`, which
        # no JSON reader (the host's included) accepts.
        (b'{"x": 1e400}', "not a finite number"),
        (b'{"x": [-1E+999]}', "not a finite number"),
        (b'{"model": "caf\xe9"}', "not UTF-8"),
        # Gemini CLI reads settings with comments; writing them back would drop them.
        (b'{\n  // my theme\n  "theme": "Dracula"\n}', "holds comments (line 2)"),
    ],
)
def test_a_malformed_settings_file_is_refused_and_left_as_it_was(
    vault_path: Path, content: bytes, reason: str
) -> None:
    path = write(Path.home(), ".claude/settings.json", content)
    for args in (
        ("install", "claude-code", "--vault", str(vault_path)),
        ("uninstall", "claude-code"),
    ):
        result = invoke("hooks", *args)
        if args[0] == "uninstall" and reason == "is not a list":
            assert result.exit_code == 0  # nothing of ours to remove there: nothing to do
        else:
            assert result.exit_code == 1
            assert result.output.startswith("Error: ") and reason in result.output
            assert result.output.count("\n") == 1
        assert path.read_bytes() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_numbers_keep_their_value_but_may_change_spelling(vault_path: Path) -> None:
    path = write(
        Path.home(),
        ".claude/settings.json",
        b'{"a": 1.0E2, "b": 12345678901234567890123, "c": -0.5e-3, "d": 1.7976931348623157e308}',
    )

    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0

    text = path.read_text()
    assert '"a": 100.0' in text and '"b": 12345678901234567890123' in text
    settings = json.loads(text)
    assert (settings["c"], settings["d"]) == (-0.0005, 1.7976931348623157e308)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        # json reads the escape as a lone surrogate, which UTF-8 cannot encode on write
        (b'{"note": "\\ud800"}', "cannot be written as UTF-8"),
        (b'{"deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    ],
)
def test_settings_vaultmem_cannot_write_back_are_refused(
    vault_path: Path, content: bytes, reason: str
) -> None:
    path = write(Path.home(), ".claude/settings.json", content)
    for args in (
        ("install", "claude-code", "--vault", str(vault_path)),
        ("show", "claude-code", "--vault", str(vault_path)),
    ):
        result = invoke("hooks", *args)

        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and reason in result.output
        assert "nothing was written" in result.output and result.output.count("\n") == 1
    assert path.read_bytes() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


@pytest.fixture
def shared_home() -> Iterator[Path]:
    """A HOME any user may enter (``tmp_path`` is its owner's alone), removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix="vaultmem-hooks-"))
    top.chmod(0o755)
    yield top
    for folder, _, _ in os.walk(top):
        os.chmod(folder, 0o755)
    shutil.rmtree(top)


@pytest.mark.parametrize("existing", [True, False], ids=["file", "no-file"])
def test_a_read_only_settings_folder_is_one_error_line(shared_home: Path, existing: bool) -> None:
    vault = shared_home / "vault"
    Vault.init(vault)
    for folder, _, files in os.walk(vault):  # only the hooks' folder is read-only
        os.chmod(folder, 0o777)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o666)
    folder = shared_home / ".claude"
    folder.mkdir()
    if existing:  # the backup cannot be made beside it
        write(shared_home, ".claude/settings.json", json.dumps(THEIRS)).chmod(0o644)
    folder.chmod(0o555)

    def work() -> object:
        os.environ["HOME"] = str(shared_home)
        result = invoke("hooks", "install", "claude-code", "--vault", str(vault))
        return [result.exit_code, result.output or repr(result.exception)]

    code, output = as_unprivileged(work)  # type: ignore[misc]

    assert code == 1, output
    assert output.startswith("Error: ") and output.count("\n") == 1, output
    assert "Permission denied" in output and "nothing was written" in output
    assert sorted(p.name for p in folder.iterdir()) == (["settings.json"] if existing else [])
    if existing:
        assert json.loads((folder / "settings.json").read_text()) == THEIRS


def test_a_symlinked_settings_file_is_refused(vault_path: Path, tmp_path: Path) -> None:
    target = write(tmp_path, "dotfiles/settings.json", json.dumps(THEIRS))
    link = claude_settings()
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    result = invoke("hooks", "install", "claude-code", "--vault", str(vault_path))

    assert result.exit_code == 1 and "is a symlink" in result.output
    assert link.is_symlink() and json.loads(target.read_text()) == THEIRS


def test_the_backup_is_the_version_from_before_vaultmem(vault_path: Path) -> None:
    path = write(Path.home(), ".claude/settings.json", json.dumps(THEIRS))
    path.chmod(0o600)  # settings may hold tokens
    original = path.read_bytes()
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0
    assert invoke("hooks", "uninstall", "claude-code").exit_code == 0
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0

    backup = path.with_name("settings.json" + BACKUP_SUFFIX)
    assert backup.read_bytes() == original
    assert backup.stat().st_mode & 0o777 == 0o600
    assert path.stat().st_mode & 0o777 == 0o600


def test_show_prints_the_merged_file_and_writes_nothing(vault_path: Path) -> None:
    path = write(Path.home(), ".claude/settings.json", json.dumps(THEIRS))
    before = path.read_bytes()

    result = CliRunner().invoke(cli, ["hooks", "show", "claude-code", "--vault", str(vault_path)])

    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["model"] == "opus" and len(ours_in(shown, "SessionStart")) == 1
    assert path.read_bytes() == before
    assert not path.with_name("settings.json" + BACKUP_SUFFIX).exists()


def test_project_scope_writes_the_project_file(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    result = invoke(
        "hooks", "install", "claude-code", "--scope", "project", "--vault", str(vault_path)
    )
    assert result.exit_code == 0, result.output
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert len(ours_in(settings, "Stop")) == 1
    assert not claude_settings().exists()


def test_codex_gets_its_hooks_json(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex reads Claude Code's hook shape from hooks.json beside config.toml (in
    $CODEX_HOME, default ~/.codex); it has no SessionEnd event."""
    config = write(Path.home(), ".codex/config.toml", 'model = "o3"\n[features]\nhooks = true\n')
    before = config.read_bytes()

    result = invoke("hooks", "install", "codex", "--vault", str(vault_path))

    assert result.exit_code == 0, result.output
    assert "/hooks" in result.output  # the trust step Codex asks for
    settings = json.loads((Path.home() / ".codex/hooks.json").read_text())
    assert sorted(settings["hooks"]) == sorted(CODEX_EVENTS)
    assert config.read_bytes() == before

    moved = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(moved))
    assert invoke("hooks", "install", "codex", "--vault", str(vault_path)).exit_code == 0
    assert len(ours_in(json.loads((moved / "hooks.json").read_text()), "Stop")) == 1


def run_hook(command: str, payload: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[str]:
    """An installed hook's command as a host runs it: through sh, its JSON on stdin."""
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_gemini_cli_hooks_answer_in_json_and_capture_its_chat_file(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI reads Claude Code's hook shape from ~/.gemini/settings.json under its own
    event names; it reads a hook's stdout as JSON only (plain text would be shown to the
    person, not the model) and shows stderr when stdout is empty."""
    settings_path = write(Path.home(), ".gemini/settings.json", json.dumps({"theme": "Dracula"}))
    with Vault(vault_path) as vault:
        vault.remember("The staging box is atlas-2")

    result = invoke("hooks", "install", "gemini", "--vault", str(vault_path))

    assert result.exit_code == 0, result.output
    settings = json.loads(settings_path.read_text())
    assert settings["theme"] == "Dracula" and sorted(settings["hooks"]) == sorted(GEMINI_EVENTS)
    base = {"session_id": GEMINI_SESSION, "cwd": str(tmp_path), "timestamp": "2026-11-22T08:03Z"}
    [start] = ours_in(settings, "SessionStart")
    started = run_hook(
        start, {**base, "hook_event_name": "SessionStart", "source": "startup"}, tmp_path
    )
    assert started.returncode == 0, started.stderr
    answer = json.loads(started.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert "The staging box is atlas-2" in answer["additionalContext"]

    chat = tmp_path / "session-2026-11-22T08-00-8d3f2a41.jsonl"
    chat.write_text("".join(json.dumps(entry) + "\n" for entry in gemini_chat()))
    [after] = ours_in(settings, "AfterAgent")
    turn = {**base, "hook_event_name": "AfterAgent", "transcript_path": str(chat)}
    captured = run_hook(after, {**turn, "prompt": "Hi", "prompt_response": "Hello"}, tmp_path)
    assert (captured.returncode, captured.stdout, captured.stderr) == (0, "", "")
    note = (vault_path / "memory/2026-11-22.md").read_text()
    assert "**user** Our staging box is atlas-2" in note and "two approvals" in note

    moved = tmp_path / "gemini-home"  # GEMINI_CLI_HOME stands for $HOME
    monkeypatch.setenv("GEMINI_CLI_HOME", str(moved))
    assert invoke("hooks", "install", "gemini", "--vault", str(vault_path)).exit_code == 0
    assert (moved / ".gemini/settings.json").is_file()


def test_installed_command_runs_outside_the_virtualenv(vault_path: Path, tmp_path: Path) -> None:
    """The hook's program is found without PATH, from any folder (hosts run hooks in the
    project's folder with the person's own PATH)."""
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault_path)).exit_code == 0
    [command] = ours_in(json.loads(claude_settings().read_text()), "SessionStart")
    words = shlex.split(command)
    program = words[: words.index("context")]
    status = [*program, "status", "--json", *words[words.index("--vault") :]]
    env = {"HOME": str(Path.home()), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["sh", "-c", shlex.join(status)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["vault"] == str(vault_path.resolve())


def test_install_needs_a_vault(tmp_path: Path) -> None:
    result = invoke("hooks", "install", "claude-code", "--vault", str(tmp_path / "nowhere"))
    assert result.exit_code == 1 and "no vault" in result.output
    assert not claude_settings().exists()


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("/opt/bin/vaultmem context --hook --vault /v", True),
        ("'/my tools/vaultmem' capture --hook --vault '/a b'", True),
        ("/usr/bin/python3 -m vaultmem capture --vault /v --hook", True),
        ("vaultmem capture --hook", True),
        ("VAULTMEM_VAULT=/v /usr/bin/python3.11 -I -m vaultmem context --hook", True),
        ("vaultmem capture session.jsonl", False),  # a person's own capture, not a hook of ours
        ("vaultmem search --hook", False),
        ("echo vaultmem context --hook", False),
        ("my-vaultmem context --hook", False),
        ("python3 script.py -m vaultmem context --hook", False),
        ("python3 -m vaultmemory context --hook", False),
        ("vaultmem context --hook 'unbalanced", False),
    ],
)
def test_which_hooks_are_ours(command: str, ours: bool) -> None:
    assert is_ours({"type": "command", "command": command}) is ours


# -- OpenClaw ---------------------------------------------------------------------------


def test_an_openclaw_workspace_works_as_a_vault_and_keeps_every_word(tmp_path: Path) -> None:
    """An OpenClaw workspace (MEMORY.md + memory/YYYY-MM-DD.md + its persona files) is a
    vault as it is: init adopts it, and index, search and remember change none of its text."""
    workspace = tmp_path / "workspace"
    today = dt.date.today()
    files = {
        "AGENTS.md": "# AGENTS.md\n\nRead SOUL.md and USER.md first. Write memories down.\n",
        "SOUL.md": "# SOUL.md\n\nBe concise. Have opinions.\n",
        "USER.md": "# USER.md\n\n- Name: Dana\n- Timezone: Europe/Berlin\n",
        "IDENTITY.md": "# IDENTITY.md\n\n- Name: Clawd\n- Emoji: 🦞\n",
        "MEMORY.md": "# MEMORY.md\n\n- Dana's sourdough starter is called Bubbles.\n"
        "- 部署只在周五进行。\n",
        "memory/2026-11-20.md": "# 2026-11-20\n\n## 14:32\n- Dana moved the standup to 9:30.\n"
        "- Decided: the blog ships on Fridays only.\n",
        "memory/2026-11-21-dentist.md": "# Session: dentist\n\n- Appointment with Dr. Okafor "
        "on Tuesday.\n",
        f"memory/{today.isoformat()}.md": f"# {today.isoformat()}\n\n- Morning: reviewed the "
        "garden plan.\n",
    }
    for rel, text in files.items():
        write(workspace, rel, text)
    originals = {rel: (workspace / rel).read_bytes() for rel in files}

    init = invoke("init", str(workspace))
    assert init.exit_code == 0, init.output
    assert invoke("index", "--vault", str(workspace)).exit_code == 0
    for query, path in [
        ("standup", "memory/2026-11-20.md"),
        ("Bubbles", "MEMORY.md"),
        ("周五", "MEMORY.md"),
        ("Okafor", "memory/2026-11-21-dentist.md"),
    ]:
        found = invoke("search", query, "--json", "--vault", str(workspace))
        assert found.exit_code == 0, (query, found.output)
        assert path in [hit["path"] for hit in json.loads(found.output)]
    remembered = invoke("remember", "Dana prefers oat milk", "--json", "--vault", str(workspace))
    assert remembered.exit_code == 0, remembered.output
    assert json.loads(remembered.output)["path"] == f"memory/{today.isoformat()}.md"

    for rel, data in originals.items():
        now = (workspace / rel).read_bytes()
        if rel == f"memory/{today.isoformat()}.md":
            assert now.startswith(data) and b"Dana prefers oat milk" in now[len(data) :]
        else:
            assert now == data, rel


def test_consolidating_an_openclaw_workspace_adds_no_empty_block_to_its_memory_md(
    tmp_path: Path,
) -> None:
    """OpenClaw's MEMORY.md is kept by hand: a run with no fact to show writes nothing
    into it (a block saying "0 facts" is noise); once a fact is learnt, its block comes."""
    workspace = tmp_path / "workspace"
    curated = "# MEMORY.md\n\n- Dana's sourdough starter is called Bubbles.\n"
    write(workspace, "MEMORY.md", curated)
    write(workspace, "memory/2026-11-20.md", "# 2026-11-20\n\n- ok\n- thanks!\n")
    assert invoke("init", str(workspace)).exit_code == 0
    done = invoke("consolidate", "--today", "2026-11-21", "--vault", str(workspace))
    assert done.exit_code == 0, done.output
    assert (workspace / "MEMORY.md").read_text() == curated
    write(workspace, "memory/2026-11-21.md", "# 2026-11-21\n\n- I am allergic to penicillin.\n")
    done = invoke("consolidate", "--today", "2026-11-22", "--vault", str(workspace))
    assert done.exit_code == 0, done.output
    memory = (workspace / "MEMORY.md").read_text()
    assert memory.startswith(curated) and "penicillin" in memory


def test_openclaws_dated_notes_with_a_slug_are_consolidated_as_daily_notes(
    tmp_path: Path,
) -> None:
    """``memory/2026-11-26-standup.md`` is a note of that day: its lines become facts whose
    source link opens the line in that note, and validate finds every link whole."""
    workspace = tmp_path / "workspace"
    write(workspace, "MEMORY.md", "# MEMORY.md\n\n- Hand-kept notes.\n")
    write(
        workspace,
        "memory/2026-11-26-standup.md",
        "# Session: standup\n\n- The Atlas release moved to December 12.\n"
        "- I am allergic to penicillin.\n",
    )
    assert invoke("init", str(workspace)).exit_code == 0
    done = invoke("consolidate", "--today", "2026-11-27", "--vault", str(workspace), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["new_facts"] == 2
    note = (workspace / "memory/2026-11-26-standup.md").read_text()
    ident = re.search(r"penicillin\. \^(\S+)$", note, re.M)
    assert ident is not None  # the line got its block id, in its own note
    facts = "".join(p.read_text() for p in (workspace / "facts").rglob("*.md"))
    assert f"[[memory/2026-11-26-standup#^{ident.group(1)}]]" in facts
    checked = invoke("validate", "--json", "--vault", str(workspace))
    assert not [p for p in json.loads(checked.output) if p["kind"] == "broken-link"]
    again = invoke("consolidate", "--today", "2026-11-27", "--vault", str(workspace), "--json")
    assert json.loads(again.output)["new_facts"] == 0  # each line distilled once
