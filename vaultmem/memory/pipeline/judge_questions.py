"""The two questions the LLM pass asks, their reply schemas, and the strict check of a reply.

* **pair**: is a new fact about the same slot as an earlier one (the same subject and
  property), and is it a ``conflict`` (a new value: the old one is superseded), ``compatible``
  (both can be true), a ``duplicate`` (it says nothing the old one does not) or ``subsumes``
  (it says all the old one does, and more)?
* **place**: which category file of ``facts/`` a fact the rules could not place belongs in.

Facts go to the model as a JSON object in the user message, never spliced into the
instructions, and the answer can only be one of a closed set of values. A reply is used
only if it is a JSON object with exactly the schema's keys and allowed values, and it makes
sense (a conflict is always about the same slot); anything else is a malformed reply and
the rules decide. Pure functions: no IO.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

VERDICTS = ("conflict", "compatible", "duplicate", "subsumes")
GENERAL = "facts/general.md"
# The files of the tree route() writes (memory/language/categories.py), with what belongs in each.
PLACES: dict[str, str] = {
    "facts/identity.md": "who the owner (the person speaking) is: name, home, job, family",
    "facts/health.md": "health, allergies, medication, diet for health reasons",
    "facts/safety.md": "safety: emergencies, dangers, things never to do",
    "facts/preferences.md": "likes, dislikes, favourites, habits of choice",
    "facts/people.md": "other people: who they are, what they do, what they like",
    "facts/money.md": "money: prices, budgets, payments, accounts",
    "facts/life/events.md": "events, appointments, trips, plans with a date",
    "facts/life/changes.md": "changes in someone's life: moves, new jobs, status changes",
    "facts/work/decisions.md": "decisions and rules agreed at work or in a project",
    "facts/work/projects.md": "projects: what they are, who works on them, their state",
    "facts/tech/errors.md": "errors met and how they were fixed",
    "facts/tech/tools.md": "tools, commands, configuration, repositories, versions",
    GENERAL: "none of the above fits",
}

PAIR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "same_slot": {"type": "boolean"},
        "verdict": {"type": "string", "enum": list(VERDICTS)},
    },
    "required": ["same_slot", "verdict"],
    "additionalProperties": False,
}
PLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"category": {"type": "string", "enum": list(PLACES)}},
    "required": ["category"],
    "additionalProperties": False,
}

_PAIR_SYSTEM = (
    "You keep a person's long-term memory. You get an earlier fact and a new fact, as JSON. "
    "Answer whether they are about the same slot: the same subject and the same property "
    "(where someone lives, who holds a role, a favourite thing, a version, a schedule, a "
    "phone number, a diet, what a project uses), and which verdict fits: "
    '"conflict": the same slot with a different value, so the new fact replaces the old; '
    '"compatible": both can be true at once (two hobbies, two allergies, two friends); '
    '"duplicate": the new fact says nothing the old one does not; '
    '"subsumes": the new fact says all the old one says, and more. '
    "Judge only from the two facts. Answer with the JSON object the schema asks for."
)


@dataclass(frozen=True)
class Question:
    """One request: its name, messages and reply schema."""

    name: str
    messages: list[dict[str, str]]
    schema: dict[str, Any]

    def request(self) -> dict[str, Any]:
        """Everything that decides the answer, for the cache key."""
        return {"name": self.name, "messages": self.messages, "schema": self.schema}


def pair_question(old: str, new: str) -> Question:
    """Ask how a new fact relates to an earlier one."""
    facts = json.dumps({"earlier fact": old, "new fact": new}, ensure_ascii=False)
    messages = [{"role": "system", "content": _PAIR_SYSTEM}, {"role": "user", "content": facts}]
    return Question("fact_pair", messages, PAIR_SCHEMA)


def place_question(fact: str) -> Question:
    """Ask which category file a fact belongs in."""
    listing = "\n".join(f"- {path}: {what}" for path, what in PLACES.items())
    system = (
        "You keep a person's long-term memory as facts filed by category. Choose the one "
        f"category file the fact given as JSON belongs in:\n{listing}\n"
        "Answer with the JSON object the schema asks for."
    )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps({"fact": fact}, ensure_ascii=False)},
    ]
    return Question("fact_place", messages, PLACE_SCHEMA)


def parse_reply(text: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The reply as an object if it is JSON that ``check`` accepts, else ``None``."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return check(value, schema)


def check(value: Any, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The answer if it is exactly what ``schema`` allows and makes sense; ``None``
    otherwise (a missing or extra key, a wrong type, a value not in the list, a conflict
    said to be about different slots)."""
    if not isinstance(value, dict) or not fits(value, schema):
        return None
    if value.get("verdict") == "conflict" and value.get("same_slot") is False:
        return None  # a self-contradicting answer: trust neither half
    return dict(value)


def fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a JSON value fits the subset of JSON Schema the questions use (objects with
    required keys and no others, strings from an enum, booleans)."""
    kind = schema.get("type")
    if kind == "object":
        properties: dict[str, Any] = schema["properties"]
        return (
            isinstance(value, dict)
            and set(value) == set(properties) == set(schema["required"])
            and all(fits(value[k], properties[k]) for k in properties)
        )
    if kind == "string":
        return isinstance(value, str) and ("enum" not in schema or value in schema["enum"])
    if kind == "boolean":
        return isinstance(value, bool)
    return False
