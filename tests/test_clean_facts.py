"""Clean facts (issue 15): a fact drops the capture request, resolves relative dates
against its line's own day, sits with the owner or with the people it is about, is a
lesson only when it teaches one, and names a person only with evidence."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.memory.language.categories import is_lesson
from vaultmem.memory.language.dates import resolve_dates
from vaultmem.memory.language.extract import extract
from vaultmem.memory.language.people import about, people
from vaultmem.memory.language.scoring import narrates
from vaultmem.memory.language.triggers import strip_triggers
from vaultmem.memory.pipeline.facts import parse_entries
from vaultmem.notes.generated_block import block_of

MONDAY = dt.date(2026, 11, 23)
HEADER = "---\ndate: {day}\ntype: daily\n---\n\n# {day}\n\n"


def daily(root: Path, day: str, *lines: str) -> None:
    write(root, f"memory/{day}.md", HEADER.format(day=day) + "\n".join(lines) + "\n")


def fact_lines(root: Path, rel: str) -> list[str]:
    path = root / rel
    return [e.raw for e in parse_entries(path.read_text(encoding="utf-8"))] if path.exists() else []


def all_facts(root: Path) -> dict[str, list[str]]:
    return {
        str(p.relative_to(root)): fact_lines(root, str(p.relative_to(root)))
        for p in sorted((root / "facts").rglob("*.md"))
    }


def memory_section(root: Path, title: str) -> str:
    block = block_of((root / "MEMORY.md").read_text(encoding="utf-8")) or ""
    _, _, rest = block.partition(f"## {title}\n")
    return rest.split("\n## ", 1)[0] if rest else ""


# -- capture requests are no part of a fact ----------------------------------------------


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("Remember: I live in Berlin.", "I live in Berlin."),
        (
            "remember that the staging server runs on port 8443",
            "The staging server runs on port 8443",
        ),
        ("Please note that the VPN drops at midnight", "The VPN drops at midnight"),
        ("Note to self: renew the passport in March", "Renew the passport in March"),
        (
            "Don't forget to call the landlord about the boiler",
            "Call the landlord about the boiler",
        ),
        ("FYI, please remember that Bob is out until May", "Bob is out until May"),
        ("Keep in mind I am vegetarian", "I am vegetarian"),
        ("Heads up - the office is closed on Monday", "The office is closed on Monday"),
        ("Alice is allergic to peanuts, remember that", "Alice is allergic to peanuts"),
        ("Our wifi password rotates monthly - don't forget!", "Our wifi password rotates monthly"),
        ("记住：我对花生过敏", "我对花生过敏"),
        ("请记住我住在上海", "我住在上海"),
        ("注意：服务器周五维护", "服务器周五维护"),
        ("别忘了明天交房租", "明天交房租"),
        ("我喜欢喝加糖的咖啡，记住", "我喜欢喝加糖的咖啡"),
        ("The gate code is 4711; remember that", "The gate code is 4711"),
        ("Caroline: remember that I live in Boston", "Caroline: I live in Boston"),
        ("Note: Bob is out until May", "Bob is out until May"),
        ("The gate code is 4711 — don't forget", "The gate code is 4711"),
        ("我的车位是B12；别忘了", "我的车位是B12"),
    ],
)
def test_a_capture_request_is_dropped_from_the_facts_words(line: str, fact: str) -> None:
    assert strip_triggers(line) == fact


@pytest.mark.parametrize(
    "line",
    [
        "Remember when we drove to the coast?",  # recalling, not a request
        "I remember the old house well",
        "Notebook is on the desk",
        "Remember!",  # nothing left without the request: kept whole
        "注意安全",
        # The sentence's own verb, not a request tacked on: a request at the end is set
        # off by punctuation.
        "This is the day I will always remember",
        "Things I need to remember",
        "That is a birthday I do not forget",
        "The landlord left a note",
        "Please keep this in mind",
    ],
)
def test_words_that_only_look_like_a_request_stay(line: str) -> None:
    assert strip_triggers(line) == line


def test_consolidation_drops_the_request_and_the_daily_line_keeps_it(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- 09:00 **user** Remember: I live in Berlin. ^m1",
        "- 09:01 **user** 记住：我对花生过敏，必须避免 ^m2",
        "- 09:02 **Alice** Please note that I am vegan now ^m3",
    )
    vault.consolidate(today=MONDAY)
    lines = [line for facts in all_facts(vault.root).values() for line in facts]
    assert any(line.startswith("- I live in Berlin. [kind:: identity]") for line in lines)
    assert any(line.startswith("- 我对花生过敏，必须避免 [kind:: health]") for line in lines)
    assert any(line.startswith("- Alice: I am vegan now [") for line in lines)
    assert not any(word in " ".join(lines) for word in ("Remember", "记住", "Please note"))
    note = (vault.root / "memory/2026-11-23.md").read_text(encoding="utf-8")
    assert "Remember: I live in Berlin. ^m1" in note and "记住：我对花生过敏" in note


# -- relative dates resolve against the line's own day -----------------------------------


@pytest.mark.parametrize(
    ("words", "when"),
    [
        ("dentist on Friday 3pm", ["2026-11-27 15:00"]),
        ("at 9:30am on Wednesday the plumber comes", ["2026-11-25 09:30"]),
        ("standup moved to tomorrow at 10:15", ["2026-11-24 10:15"]),
        ("the day after tomorrow we fly", ["2026-11-25"]),
        ("next Monday is the review", ["2026-11-30"]),
        ("this Friday at noon", ["2026-11-27 12:00"]),
        ("invoice due in 3 days", ["2026-11-26"]),
        ("the contract ends in two weeks", ["2026-12-07"]),
        ("I went to the dentist on Friday", ["2026-11-20"]),  # told of the past
        ("we shipped it two weeks ago", ["2026-11-09"]),
        ("last Friday was rough", ["2026-11-20"]),
        ("party this weekend", ["2026-11-28"]),
        ("planning starts next week", ["2026-W49"]),
        ("budget review next month", ["2026-12"]),
        ("the launch moves to March 3 next year", ["2027-03-03"]),
        ("Dec 3rd at 6pm dinner", ["2026-12-03 18:00"]),
        ("release on 2026-12-01 15:00", ["2026-12-01 15:00"]),
        ("明天下午三点开会", ["2026-11-24 15:00"]),
        ("下周一交报告", ["2026-11-30"]),
        ("周五下午三点看牙医", ["2026-11-27 15:00"]),
        ("三天后出发", ["2026-11-26"]),
        ("后天晚上8点半聚餐", ["2026-11-25 20:30"]),
        ("上周五我们开会", ["2026-11-20"]),
        ("下个月搬家", ["2026-12"]),
        ("明年3月5日发布", ["2027-03-05"]),
        ("12月5日是她的生日", ["2026-12-05"]),
        ("dentist on the 1st at 3pm", ["2026-12-01 15:00"]),  # the next 1st
        ("rent is due on the 30th.", ["2026-11-30"]),
        ("I went to the dentist on the 20th", ["2026-11-20"]),  # told of the past
        ("on the 31st, the audit", ["2026-12-31"]),  # November has no 31st
        ("payday on the 25th of next month", ["2026-12-25", "2026-12"]),
        ("the office is on the 5th floor", []),  # a floor, a try: no day
        ("it worked on the 2nd try", []),
        ("we deploy every Friday", []),  # recurring: no single date
        ("we always deploy on Tuesdays, never Fridays", []),
        ("每周五健身", []),
    ],
)
def test_relative_dates_resolve_against_the_day_written(words: str, when: list[str]) -> None:
    assert resolve_dates(words, MONDAY) == when


@pytest.mark.parametrize(
    "words",
    [
        "I may 5 times try again",  # the verb, not the month
        "we may 10 more tickets close",
        "they march 3 abreast",
        "Sat on it for 2 days",  # not "Sat"urday 2
        "the 5th may help",
    ],
)
def test_a_word_that_is_also_a_month_needs_its_capital(words: str) -> None:
    assert not any(
        when.startswith(("2026-05", "2027-05", "2026-03", "2027-03"))
        for when in resolve_dates(words, MONDAY)
    )


@pytest.mark.parametrize(
    ("words", "when"),
    [
        ("the launch is on May 5", ["2027-05-05"]),
        ("the launch is on 5 May 2027", ["2027-05-05"]),
        ("rent due march 3rd", []),  # lower case "march": unsure, left in words
        ("rent due december 3rd", ["2026-12-03"]),  # no other reading: a month
        ("我们5月3日发布", ["2027-05-03"]),
    ],
)
def test_a_month_is_read_by_its_capital_or_an_unambiguous_name(words: str, when: list[str]) -> None:
    assert resolve_dates(words, MONDAY) == when


def test_letters_that_fold_to_ascii_name_the_same_day() -> None:
    # Case-insensitive patterns match "frıday" (dotless ı), "FRİDAY" and "ſeptember" (long
    # s) as Friday and September; reading the name back used to raise StopIteration.
    assert resolve_dates("dentist on frıday 3pm", MONDAY) == ["2026-11-27 15:00"]
    assert resolve_dates("FRİDAY standup", MONDAY) == ["2026-11-27"]
    assert resolve_dates("due 3 ſeptember", MONDAY) == ["2026-09-03"]


def test_a_date_without_a_day_stays_in_words() -> None:
    assert resolve_dates("dentist on Friday 3pm, 下周一 review", None) == ["Friday", "下周一"]


def test_a_fact_gets_the_date_of_its_own_line_and_keeps_its_words(vault: Vault) -> None:
    # Written on Monday 2026-11-23, consolidated two weeks later: Friday is the 27th.
    daily(vault.root, "2026-11-23", "- 08:00 **user** Remember: dentist on Friday 3pm ^m1")
    vault.consolidate(today=dt.date(2026, 12, 7))
    (fact,) = [line for facts in all_facts(vault.root).values() for line in facts]
    assert fact.startswith("- Dentist on Friday 3pm [")
    assert "[when:: 2026-11-27 15:00]" in fact
    assert "[when:: Friday]" not in fact


# -- the owner's identity, the people's facts, decisions and lessons ---------------------


def test_a_fact_about_someone_else_goes_to_people_with_a_topic_page(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- **user** I live in Berlin and work from home ^m1",
        "- **user** Alice is allergic to peanuts ^m2",
        "- **user** Alice's birthday is on March 3, she loves tulips ^m3",
        "- **user** My sister Jenny is pregnant with twins ^m4",
        "- **Caroline** I was diagnosed with asthma last year ^m5",
    )
    vault.consolidate(today=MONDAY)
    identity = " ".join(fact_lines(vault.root, "facts/identity.md"))
    people_facts = " ".join(fact_lines(vault.root, "facts/people.md"))
    assert "I live in Berlin" in identity
    for words in ("Alice is allergic", "Alice's birthday", "Jenny is pregnant", "Caroline: I was"):
        assert words in people_facts
        assert words not in identity + " ".join(fact_lines(vault.root, "facts/health.md"))
    page = (vault.root / "topics/alice.md").read_text(encoding="utf-8")
    assert "kind: person" in page and "Alice is allergic to peanuts" in page
    owner = memory_section(vault.root, "Owner and identity")
    assert "I live in Berlin" in owner
    assert "Alice" not in owner and "Jenny" not in owner and "Caroline" not in owner


def test_what_someone_says_of_themself_is_filed_under_people(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- **user** Caroline says she is allergic to nuts ^r1",
        "- **user** Bob told me he is allergic to shellfish ^r2",
    )
    vault.consolidate(today=MONDAY)
    people_facts = " ".join(fact_lines(vault.root, "facts/people.md"))
    facts = all_facts(vault.root)
    owners = " ".join(facts.get("facts/health.md", []) + facts.get("facts/identity.md", []))
    for words in ("Caroline says she is allergic", "Bob told me he is allergic to shellfish"):
        assert words in people_facts and words not in owners


def test_a_person_typed_fact_about_someone_else_is_not_the_owners_identity(
    vault: Vault,
) -> None:
    write(
        vault.root,
        "facts/health.md",
        "# Health\n\n- Bob is allergic to shellfish [kind:: health]\n"
        "- I take metformin every morning [kind:: health]\n",
    )
    vault.consolidate(today=MONDAY)
    owner = memory_section(vault.root, "Owner and identity")
    assert "metformin" in owner and "Bob" not in owner


def test_decisions_are_decisions_and_only_rules_and_errors_are_lessons(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- **user** We decided to use PostgreSQL 16 for the Atlas database ^m1",
        "- **user** Actually we switched Atlas to MySQL 8 last week, not PostgreSQL ^m2",
        "- **user** We decided we always deploy on Tuesdays and never on Fridays ^m3",
        "- **user** Deploy failed with error: connection refused on port 5432 ^m4",
    )
    vault.consolidate(today=MONDAY)
    decisions = " ".join(fact_lines(vault.root, "facts/work/decisions.md"))
    assert "PostgreSQL 16" in decisions and "MySQL 8" in decisions
    lessons = memory_section(vault.root, "Lessons")
    assert "always deploy on Tuesdays" in lessons and "connection refused" in lessons
    assert "PostgreSQL 16" not in lessons and "MySQL 8" not in lessons


@pytest.mark.parametrize(
    ("path", "words", "lesson"),
    [
        ("facts/work/decisions.md", "We chose Grafana for the dashboards", False),
        ("facts/work/decisions.md", "From now on every PR needs two reviews", True),
        ("facts/work/decisions.md", "Lesson learned: test the restore, not just the backup", True),
        ("facts/work/decisions.md", "我们决定以后都用 pnpm", True),
        ("facts/work/decisions.md", "我们决定用 Rust 重写解析器", False),
        ("facts/tech/errors.md", "The build failed on ARM with an illegal instruction", True),
        ("facts/preferences.md", "I always take the window seat", False),
        ("facts/work/decisions.md", "Next time I visit Paris I want to see the Louvre", False),
        ("facts/work/decisions.md", "下次去北京要吃烤鸭", False),
        ("facts/work/decisions.md", "Next time, make sure the backup is tested first", True),
        ("facts/work/decisions.md", "下次务必先备份数据库", True),
    ],
)
def test_what_is_a_lesson(path: str, words: str, lesson: bool) -> None:
    assert is_lesson(path, words) is lesson


def test_next_time_alone_is_a_plan_not_a_decision_or_a_lesson(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- **user** Next time I visit Paris I want to see the Louvre ^n1",
        "- **user** 下次去北京要吃烤鸭 ^n2",
        "- **user** Next time we should always run the migrations on staging first ^n3",
    )
    vault.consolidate(today=MONDAY)
    decisions = " ".join(fact_lines(vault.root, "facts/work/decisions.md"))
    lessons = memory_section(vault.root, "Lessons")
    for plan in ("the Louvre", "烤鸭"):
        assert plan not in decisions and plan not in lessons
    assert "run the migrations on staging" in decisions
    assert "run the migrations on staging" in lessons


# -- a capitalised word is a person only with evidence -----------------------------------


@pytest.mark.parametrize(
    ("words", "found"),
    [
        ("We switched Atlas to MySQL 8, not PostgreSQL", []),
        ("I moved to Paris last month, I live in Paris now", []),
        ("Flew from Berlin to Tokyo on Sunday", []),
        ("Everyone said the demo went well", []),
        ("Paris is lovely in spring", []),
        ("Deployed it with Docker and Kubernetes", []),
        ("Thursday works for the retro", []),
        ("Met with Alice Chen about the Atlas project; Bob said it slips", ["Alice Chen", "Bob"]),
        ("My friend Dana is vegan", ["Dana"]),
        ("Had lunch with Priya near the office", ["Priya"]),
        ("Got an email from Tomás about the invoice", ["Tomás"]),
        ("Tomorrow's standup with Tomás is at 9", ["Tomás"]),
        ("Got an email from Dan about the invoice", ["Dan"]),
        ("talked to Grace about the budget", ["Grace"]),
        ("Dr. Okafor moved my appointment", ["Okafor"]),
        ("Emma has two kids", ["Emma"]),
        ("Sarah and I went hiking", ["Sarah"]),
        ("Alice对花生过敏", ["Alice"]),
        ("我的同事Kevin住在深圳", ["Kevin"]),
        ("Dinner with Tom and Priya on Saturday", ["Tom", "Priya"]),
        ("Met Ann, Bo and Cy for lunch", ["Ann", "Bo", "Cy"]),
        ("Lunch with Alice and Google folks", ["Alice"]),
    ],
)
def test_a_person_needs_evidence(words: str, found: list[str]) -> None:
    assert people(words) == found


def test_a_known_name_is_a_person_without_other_evidence() -> None:
    assert people("Kate is in Berlin this week") == []
    assert people("Kate is in Berlin this week", known=["Kate"]) == ["Kate"]
    assert people("Paris is lovely", known=["Paris"]) == []  # an old wrong [person:: ] spreads not


@pytest.mark.parametrize(
    ("words", "subject"),
    [
        ("I live in Berlin", None),
        ("My wife and I moved to Lisbon", None),
        ("Sarah and I went hiking", None),
        ("Alice said the release slips to May", None),  # about the release
        ("We switched Atlas to MySQL 8", None),
        ("Alice is allergic to peanuts", "Alice"),
        ("Bob is the new lead of Atlas", "Bob"),
        ("My sister Jenny is pregnant", "Jenny"),
        ("My husband is vegetarian", "My husband"),
        ("Caroline: I went to a support group", "Caroline"),
        ("我的朋友Alice住在上海", "Alice"),
        ("我妈妈对青霉素过敏", "我妈妈"),
        ("我对花生过敏", None),
        # Reported speech about the one who speaks: about them, not the owner.
        ("Caroline says she is allergic to nuts", "Caroline"),
        ("Bob told me he moved to Denver", "Bob"),
        ("Priya mentioned that she is pregnant", "Priya"),
        ("Alice said, she's vegan now", "Alice"),
        ("Alice说她对花生过敏", "Alice"),
        ("Alice said the release slips because I was ill", None),
    ],
)
def test_who_a_line_is_about(words: str, subject: str | None) -> None:
    assert about(words) == subject


def test_no_person_fields_from_inside_words_or_places(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-23",
        "- **user** Actually we switched Atlas to MySQL 8, not PostgreSQL ^m1",
        "- **user** I moved to Paris last month, I live in Paris now ^m2",
        "- **user** Had lunch with Priya, she leads the Atlas team now ^m3",
    )
    vault.consolidate(today=MONDAY)
    text = "\n".join(line for facts in all_facts(vault.root).values() for line in facts)
    assert "[person:: My]" not in text and "[person:: Paris]" not in text
    assert "[person:: Priya]" in text
    assert not (vault.root / "topics/my.md").exists()
    assert extract("We moved the Atlas DB to MySQL").people == []


def test_the_cli_shows_clean_facts(vault: Vault) -> None:
    daily(vault.root, "2026-11-23", "- **user** 请记住：周五下午三点看牙医 ^m1")
    result = CliRunner().invoke(
        cli, ["consolidate", "--vault", str(vault.root)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    (fact,) = [line for facts in all_facts(vault.root).values() for line in facts]
    assert fact.startswith("- 周五下午三点看牙医 [")
    assert "[when:: 2026-11-27 15:00]" in fact


# -- MEMORY.md: a profile ----------------------------------------------------------------


def test_memory_md_profiles_each_speaker_of_a_conversation_with_dated_linked_lines(
    vault: Vault,
) -> None:
    daily(
        vault.root,
        "2026-11-20",
        "- **Dana**: Hey Lee! I just started a new job as a nurse at St. Mary's hospital ^c1",
        "- **Lee**: Wow, Dana, congrats! That sounds amazing, you deserve it! ^c2",
        "- **Lee**: I moved to Porto last month with my partner Sam and our cat Miso ^c3",
        "- **Dana**: I'm allergic to penicillin, so I always carry a card in my wallet ^c4",
        "- **Lee**: I'm learning Portuguese at a language school three evenings a week ^c5",
        "- **Dana**: My daughter Ivy turned six and she wants to be an astronaut ^c6",
    )
    vault.consolidate(today=MONDAY)
    dana, lee = memory_section(vault.root, "Dana"), memory_section(vault.root, "Lee")
    assert "nurse" in dana and "penicillin" in dana and "Porto" not in dana
    assert "Porto" in lee and "Portuguese" in lee and "nurse" not in lee
    for line in (dana + lee).strip().splitlines():  # dated, linked, without the name
        assert line.startswith("- ") and not line.startswith(("- Dana:", "- Lee:"))
        assert re.search(r" \[\[facts/[^\]]*#\^f[0-9a-f]+\|2026-11-20\]\]$", line), line
    assert "congrats" not in dana + lee  # small talk to the listener: no fact
    assert "Hey Lee!" not in dana  # the greeting a line opens with is not shown
    assert memory_section(vault.root, "Owner and identity") == ""


def test_an_agents_narration_of_its_own_work_is_no_fact(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-20",
        "- 09:00 **user** I'm allergic to peanuts, please remember ^n1",
        "- 09:01 **assistant** Noted: peanut allergy stored as a health fact. ^n2",
        "- 09:02 **agent** Let me run the test suite before I push the fix. ^n3",
        "- 09:03 **assistant** 已记录：预算 5 万元，部署截止下个月。 ^n4",
    )
    vault.consolidate(today=MONDAY)
    facts = " ".join(line for lines in all_facts(vault.root).values() for line in lines)
    assert "allergic to peanuts" in facts
    for narration in ("Noted", "run the test suite", "已记录"):
        assert narration not in facts
    # What an agent tells of the world is no narration; the owner's own words never are.
    assert not narrates("The staging database listens on port 5433, not 5432.", "assistant")
    assert not narrates("Noted: the meeting moved to Friday", "user")


def test_years_old_notes_keep_what_lasts_and_archive_their_events(vault: Vault) -> None:
    daily(
        vault.root,
        "2023-03-01",
        "- **user** I live in Lisbon with my wife Ana ^o1",
        "- **user** I'm allergic to penicillin, it gives me a rash ^o2",
        "- **user** We went to a concert downtown last night and it was really loud ^o3",
    )
    vault.consolidate(today=MONDAY)  # more than three years later, the first run
    live = " ".join(line for lines in all_facts(vault.root).values() for line in lines)
    archived = " ".join(p.read_text() for p in (vault.root / "archive").rglob("*.md"))
    assert "Lisbon" in live and "penicillin" in live
    assert "concert" in archived and "concert" not in live
    owner = memory_section(vault.root, "Owner and identity")
    assert "Lisbon" in owner and "penicillin" in owner


def test_topic_pages_are_for_people_written_as_names_one_page_per_person(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-20",
        "- **Melanie**: Thankfully, I'm allergic to nothing but my son is allergic to dust ^t1",
        "- **Melanie**: Thankfully my husband and I moved to a house with a big garden ^t2",
        "- **Caroline**: Mel, I adopted a puppy named Oscar from the shelter, I love him ^t3",
        "- **Caroline**: My friend Melanie moved to a new house with a big garden ^t4",
        "- **Caroline**: I'm allergic to cats, so my dog Oscar is the only pet I can have ^t5",
        "- **Melanie**: I started a pottery class downtown and I love it so much ^t6",
    )
    vault.consolidate(today=MONDAY)
    pages = sorted(p.name for p in (vault.root / "topics").glob("*.md"))
    assert "thankfully.md" not in pages  # only ever opening a sentence: no name
    assert "mel.md" not in pages and "melanie.md" in pages  # Mel is Melanie
    assert "caroline.md" in pages  # a speaker has a page of her own
