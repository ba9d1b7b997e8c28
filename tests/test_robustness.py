"""Hostile shapes of a real vault: symlinks of every kind, unreadable folders, a damaged or
vanishing index, killed and concurrent index runs. Each command must finish, say what it
skipped, and never follow anything out of the vault."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.watch import running_watcher

DEADLINE = 60.0
SECRET = "outsidesecretword"


def wait_for(condition: Callable[[], object], timeout: float = DEADLINE) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"condition not met within {timeout} s")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def warnings_of(root: Path) -> dict[str, list[str]]:
    code, out, err = run("status", "--json", "--vault", str(root))
    assert code == 0, err
    return {w["path"]: w["warnings"] for w in json.loads(out)["warnings"]}


# -- symlinks --------------------------------------------------------------------------


def make_outside(tmp_path: Path) -> Path:
    """A folder outside the vault holding a note with a word no vault note has."""
    outside = tmp_path / "outside"
    write(outside, "secret.md", f"# Secret\n\n{SECRET}\n")
    return outside


# Each shape: (link path inside the vault, its target as ln -s would be given it).
LINK_SHAPES: dict[str, Callable[[Path], list[tuple[str, str]]]] = {
    "loop to itself": lambda out: [("topics/self.md", "self.md")],
    "loop without a note name": lambda out: [("facts/deep/loop", "loop")],
    "mutual loop": lambda out: [("topics/a.md", "b.md"), ("topics/b.md", "a.md")],
    "folder link to .": lambda out: [("topics/here", ".")],
    "folder link to the vault root": lambda out: [("facts/deep/up", "../..")],
    "folder link to its parent": lambda out: [("facts/deep/parent", "..")],
    "dangling": lambda out: [("topics/gone.md", "nowhere/missing.md")],
    "note outside the vault": lambda out: [("topics/out.md", str(out / "secret.md"))],
    "folder outside the vault": lambda out: [("ext", str(out))],
    "top-level loop": lambda out: [("loop.md", "loop.md")],
}


def make_links(root: Path, links: list[tuple[str, str]]) -> None:
    for rel, target in links:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)


@pytest.mark.parametrize("shape", sorted(LINK_SHAPES))
def test_every_symlink_shape_is_skipped_with_a_warning_by_every_command(
    vault_path: Path, tmp_path: Path, shape: str
) -> None:
    links = LINK_SHAPES[shape](make_outside(tmp_path))
    write(vault_path, "facts/deep/note.md", "- a plain fact about wombats\n")
    make_links(vault_path, links)
    vault = str(vault_path)
    for command in (["index"], ["reindex"], ["validate"]):
        code, _, err = run(*command, "--vault", vault)
        assert code in (0, 1), err  # validate may find problems; nothing may crash
    code, out, _ = run("search", "wombats", "--json", "--vault", vault)
    assert code == 0
    assert [hit["path"] for hit in json.loads(out)] == ["facts/deep/note.md"]  # found once
    code, _, _ = run("search", SECRET, "--vault", vault)
    assert code == 1  # nothing was followed out of the vault
    recorded = warnings_of(vault_path)
    for rel, _ in links:
        assert any("not followed" in w for w in recorded[rel]), recorded
    code, out, _ = run("status", "--json", "--vault", vault)
    assert json.loads(out)["stale"] == []  # a recorded link is not "changed" at every status


def test_an_unreachable_link_target_is_named_in_the_warning(vault_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can reach any folder")
    locked = vault_path / "locked"
    write(locked, "inner.md", "hidden\n")
    os.symlink("../locked/inner.md", vault_path / "topics/through.md")
    locked.chmod(0)
    try:
        Vault(vault_path).index()
        recorded = warnings_of(vault_path)
    finally:
        locked.chmod(0o755)
    assert "cannot be reached" in recorded["topics/through.md"][0]


def test_symlinks_appearing_while_watch_runs_are_recorded_and_the_daemon_lives_on(
    vault_path: Path, tmp_path: Path
) -> None:
    outside = make_outside(tmp_path)
    with running_watcher(vault_path), Vault(vault_path) as searcher:
        for shape in sorted(LINK_SHAPES):
            make_links(
                vault_path,
                [
                    (f"w/{shape.replace(' ', '-')}/{rel}", target)
                    for rel, target in LINK_SHAPES[shape](outside)
                ],
            )
        expected = {
            f"w/{shape.replace(' ', '-')}/{rel}"
            for shape in LINK_SHAPES
            for rel, _ in LINK_SHAPES[shape](outside)
        }
        wait_for(lambda: expected <= {p for p, _ in searcher.status().warnings})
        write(vault_path, "memory/2026-01-02.md", "- after the links, a quokka\n")
        wait_for(lambda: searcher.search("quokka"))
        assert not searcher.search(SECRET)
        os.unlink(vault_path / "w/loop-to-itself/topics/self.md")
        wait_for(
            lambda: (
                "w/loop-to-itself/topics/self.md" not in {p for p, _ in searcher.status().warnings}
            )
        )


def test_watch_starts_in_a_vault_full_of_symlink_loops(vault_path: Path, tmp_path: Path) -> None:
    outside = make_outside(tmp_path)
    for shape in LINK_SHAPES.values():
        make_links(vault_path, [(f"s{i}/{rel}", t) for i, (rel, t) in enumerate(shape(outside))])
    write(vault_path, "memory/2026-01-01.md", "- a numbat\n")
    with running_watcher(vault_path), Vault(vault_path) as searcher:
        assert searcher.search("numbat")


@pytest.mark.parametrize("command", ["show", "log"])
def test_a_looping_path_given_to_a_command_is_a_clear_error(vault_path: Path, command: str) -> None:
    os.symlink("self.md", vault_path / "topics/self.md")
    code, _, err = run(command, "topics/self.md", "--vault", str(vault_path))
    assert code == 1
    assert err.startswith("Error: topics/self.md")
