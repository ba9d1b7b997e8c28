"""``vaultmem init``: a new vault from the template, or adopting an existing notes folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
from conftest import copy_mini_vault, copy_shared, write

from vaultmem import Vault, VaultmemError


def test_init_lays_down_the_template_and_commits(tmp_path: Path) -> None:
    report = Vault.init(tmp_path / "v")
    root = tmp_path / "v"
    for rel in (
        "MEMORY.md",
        ".vaultmem/config.toml",
        ".gitignore",
        ".gitattributes",
        "memory",
        "facts",
        "topics",
        "archive",
    ):
        assert (root / rel).exists(), rel
    assert "<!-- vaultmem:begin -->" in (root / "MEMORY.md").read_text()
    assert "memory/*.md merge=union" in (root / ".gitattributes").read_text()
    assert report.committed
    repo = git.Repo(root)
    assert repo.head.commit.message.strip() == "vaultmem: initialise vault"
    assert "MEMORY.md" in repo.git.ls_files().splitlines()


def test_the_index_stays_out_of_git(tmp_path: Path) -> None:
    root = tmp_path / "v"
    Vault.init(root, example=True)
    with Vault(root) as vault:
        vault.index()
    repo = git.Repo(root)
    assert repo.is_dirty(untracked_files=True) is False
    assert repo.git.check_ignore(".vaultmem/index.db") == ".vaultmem/index.db"


def test_init_adopts_an_obsidian_vault_without_changing_a_file(tmp_path: Path) -> None:
    root = copy_shared("corpora/obsidian-help/en", tmp_path / "help")
    write(root, "MEMORY.md", "my own memory file\n")
    write(root, ".gitignore", "secret/\n")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    report = Vault.init(root)
    assert "MEMORY.md" in report.kept and ".gitignore" in report.kept
    after = {
        p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git/" not in p.as_posix()
    }
    assert {p: after[p] for p in before} == before
    # The index stays out of git even though the person's own .gitignore was kept as it was.
    assert git.Repo(root).git.check_ignore(".vaultmem/index.db")


def test_init_adopts_the_mini_obsidian_vault_without_changing_a_file(tmp_path: Path) -> None:
    root = copy_mini_vault(tmp_path / "mini")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    report = Vault.init(root)
    after = {p: p.read_bytes() for p in before}
    assert after == before  # .obsidian/, Templates/, Daily/ and every note as they were
    assert "MEMORY.md" in report.created
    with Vault(root) as vault:
        vault.index()
        assert vault.search("龙井")[0].path == "zh/人物/王小明.md"


def test_init_inside_an_existing_repository_commits_only_what_it_added(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    repo = git.Repo.init(root)
    write(root, "draft.md", "uncommitted draft\n")
    Vault.init(root)
    committed = repo.git.show("--name-only", "--format=", "HEAD").splitlines()
    assert "draft.md" not in committed
    assert "MEMORY.md" in committed
    assert repo.is_dirty(untracked_files=True)  # the draft is still the person's to commit


def test_init_twice_changes_nothing(tmp_path: Path) -> None:
    Vault.init(tmp_path / "v", example=True)
    second = Vault.init(tmp_path / "v", example=True)
    assert second.created == []
    assert not second.committed


def test_init_never_commits_the_persons_staged_work(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    repo = git.Repo.init(root)
    write(root, "secret.txt", "staged but not mine to commit\n")
    repo.git.add("secret.txt")
    Vault.init(root)
    assert "secret.txt" not in repo.git.show("--name-only", "--format=", "HEAD").splitlines()
    assert repo.git.diff("--cached", "--name-only") == "secret.txt"


def test_init_in_a_subfolder_of_a_repository(tmp_path: Path) -> None:
    repo = git.Repo.init(tmp_path / "repo")
    report = Vault.init(tmp_path / "repo" / "notes")
    assert report.committed
    assert "notes/MEMORY.md" in repo.git.ls_files().splitlines()


def test_created_files_have_normal_permissions(tmp_path: Path) -> None:
    Vault.init(tmp_path / "v")
    mode = (tmp_path / "v" / "MEMORY.md").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    import os

    old = os.umask(0)
    os.umask(old)
    return old


def test_init_inside_a_vault_is_refused(tmp_path: Path) -> None:
    Vault.init(tmp_path / "outer")
    with pytest.raises(VaultmemError, match=r"is inside the vault at .*outer"):
        Vault.init(tmp_path / "outer" / "notes" / "inner")
    assert not (tmp_path / "outer" / "notes").exists()


def run_init(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", "init", *args], capture_output=True, text=True, env=env
    )


def test_init_says_plainly_that_it_committed_the_persons_own_files(tmp_path: Path) -> None:
    root = copy_mini_vault(tmp_path / "mini")
    done = run_init(str(root))
    assert done.returncode == 0, done.stderr
    committed = [p for p in git.Repo(root).git.ls_files("-z").split("\0") if p]
    assert "zh/人物/王小明.md" in committed and "MEMORY.md" in committed
    assert done.stdout.splitlines()[-1] == (
        f"git: made a repository here and committed {len(committed)} files, 12 of them yours"
        " (history, sync and restore cover them; `vaultmem init --no-git` makes none)"
    )


def test_init_with_no_git_makes_no_repository_and_commits_nothing(tmp_path: Path) -> None:
    root = copy_mini_vault(tmp_path / "mini")
    done = run_init(str(root), "--no-git", "--json")
    assert done.returncode == 0, done.stderr
    assert not (root / ".git").exists()
    said = json.loads(done.stdout)
    assert said["repository"] == "none" and said["committed"] == []
    assert "MEMORY.md" in said["created"]


def test_init_without_git_installed_is_one_line_naming_what_to_do(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent  # python, and no git
    done = run_init(str(tmp_path / "v"), env={**os.environ, "PATH": str(bin_dir)})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "Error: git is not installed: install git (vaultmem keeps the vault's history in it),"
        " or run `vaultmem init --no-git`\n"
    )
    assert run_init(str(tmp_path / "w"), "--no-git", env={"PATH": str(bin_dir)}).returncode == 0
