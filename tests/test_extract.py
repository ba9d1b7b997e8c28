"""Metadata extraction from memory lines, English and Chinese."""

from __future__ import annotations

from vaultmem.memory.language.extract import extract


def test_urls_and_repositories() -> None:
    found = extract(
        "Release notes at https://github.com/example/atlas/releases/tag/v2.3.0, mirror "
        "git@gitlab.com:team/beacon.git and docs https://docs.example.org/a?b=1."
    )
    assert found.urls == [
        "https://github.com/example/atlas/releases/tag/v2.3.0",
        "https://docs.example.org/a?b=1",
    ]
    assert found.repositories == ["github.com/example/atlas", "gitlab.com/team/beacon"]
    assert found.versions == []  # the version inside a URL is part of the URL


def test_commands_and_paths() -> None:
    found = extract(
        "Ran `sudo systemctl restart postgresql` then edited /etc/postgresql/16/main/pg_hba.conf "
        "and `scripts/backup.sh`; `not a command here`."
    )
    assert found.commands == ["sudo systemctl restart postgresql"]
    assert "/etc/postgresql/16/main/pg_hba.conf" in found.paths
    assert "scripts/backup.sh" in found.paths


def test_an_empty_code_span_is_no_command() -> None:
    """A code span of spaces (`` ` ` ``) used to stop the whole line's reading."""
    found = extract("Type ` ` between the words, then run `git pull`")
    assert found.commands == ["git pull"]


def test_versions_dates_amounts() -> None:
    found = extract(
        "Upgrade to PostgreSQL 16.4 and v2.3.0-rc.1 by 2026-12-01; "
        "budget $40 or 5 万元 or 30 euros, 下周一 review"
    )
    assert found.versions == ["16.4", "v2.3.0-rc.1"]
    assert found.dates == ["2026-12-01", "下周一"]  # as written: no day to resolve against
    assert found.amounts == ["$40", "5 万元", "30 euros"]


def test_people_and_projects() -> None:
    found = extract(
        "Met with Alice Chen about the Atlas project; "
        "Bob said the Beacon release slips. #project/orion"
    )
    assert found.people == ["Alice Chen", "Bob"]
    assert found.projects == ["Atlas", "Beacon", "orion"]
    assert extract("Paris is lovely in spring").people == []  # no hint: neither


def test_a_sentence_opening_word_is_no_project() -> None:
    assert extract("The project deadline is Friday; My app crashed").projects == []
    assert extract("The Atlas project ships Friday").projects == ["Atlas"]
