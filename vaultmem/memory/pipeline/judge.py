"""The LLM pass of one consolidation run: asks about the doubtful cases only, within budget.

Consolidation hands two kinds of case to ``Judge``: a possible conflict the rules were not
sure of (``Match.doubtful``) and a fact the rules could not place (``route()`` fell to
``facts/general.md``). Each becomes one question (``judge_questions.py``); its answer comes from
the cache (``cache.py``) or, while the run's ``budget`` of requests lasts, the server
(``client.py``). Whenever there is no usable answer the rule decision stands:

* over budget: the rest of the run's doubtful cases are left to the rules;
* the server is down, timed out or answered an HTTP error: no further request this run
  (each would wait for the same timeout);
* a malformed reply: that case only; it is not cached, so a later run asks again.

Each of these is counted in ``stats`` and said in at most one notice line per kind;
the run goes on and exits 0.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultmem.config import LLMConfig
from vaultmem.llm.cache import CACHE_FILE, AnswerCache, cache_key
from vaultmem.llm.client import ChatClient, ReplyError, ServerError
from vaultmem.memory.language.conflicts import Match
from vaultmem.memory.pipeline.judge_questions import (
    GENERAL,
    Question,
    check,
    pair_question,
    parse_reply,
    place_question,
)

# What each verdict of the model means to consolidation's ``_admit``: "compatible" facts
# are both kept, which the rules call "similar".
_MATCH_VERDICT = {
    "conflict": "conflict",
    "compatible": "similar",
    "duplicate": "duplicate",
    "subsumes": "subsumes",
}


@dataclass
class Stats:
    """What the pass did in one run (``Report.llm``)."""

    asked: int = 0  # doubtful cases handed to the pass
    requests: int = 0  # requests sent to the server
    cached: int = 0  # answers found in the cache
    changed: int = 0  # answers that changed the rule decision
    malformed: int = 0  # replies that did not fit the schema: the rules decided
    over_budget: int = 0  # cases left to the rules once the budget was spent
    unavailable: int = 0  # cases left to the rules because the server failed


class Judge:
    """Asks an OpenAI-compatible model about the cases the rules are unsure of."""

    def __init__(self, client: ChatClient, cache: AnswerCache, budget: int) -> None:
        self.client, self.cache, self.budget = client, cache, budget
        self.stats = Stats()
        self.failure = ""  # the server's failure, once it failed: no more requests

    def settle(self, new: str, old: str, match: Match) -> Match:
        """The match with the model's verdict on a doubtful pair, or as the rules left it."""
        answer = self._answer(pair_question(old, new))
        if answer is None:
            return match
        verdict = _MATCH_VERDICT[answer["verdict"]]
        self.stats.changed += verdict != match.verdict
        return dataclasses.replace(match, verdict=verdict, signal="llm", doubtful=False)

    def place(self, fact: str, target: str) -> str:
        """The category file for a fact the rules sent to ``facts/general.md``."""
        if target != GENERAL:
            return target
        answer = self._answer(place_question(fact))
        if answer is None:
            return target
        category: str = answer["category"]
        self.stats.changed += category != target
        return category

    def _answer(self, question: Question) -> dict[str, Any] | None:
        self.stats.asked += 1
        key = cache_key(self.client.model, question.request())
        stored = self.cache.get(key)
        answer = check(stored, question.schema)  # an old or edited file: checked as strictly
        if answer is not None:
            self.stats.cached += 1
            return answer
        if self.failure:
            self.stats.unavailable += 1
            return None
        if self.stats.requests >= self.budget:
            self.stats.over_budget += 1
            return None
        self.stats.requests += 1
        try:
            text = self.client.complete(question.messages, question.name, question.schema)
        except ServerError as exc:
            self.failure = str(exc)
            self.stats.unavailable += 1
            return None
        except ReplyError:
            text = ""
        answer = parse_reply(text, question.schema)
        if answer is None:
            self.stats.malformed += 1
            return None
        self.cache.put(key, answer)
        return answer

    def notices(self) -> list[str]:
        """One line per way the rules had to stand in for the model."""
        stats, lines = self.stats, []
        if self.failure:
            lines.append(f"{self.failure}; {stats.unavailable} doubtful case(s) left to the rules")
        if stats.over_budget:
            lines.append(
                f"the LLM budget of {self.budget} request(s) was spent; "
                f"{stats.over_budget} doubtful case(s) left to the rules"
            )
        if stats.malformed:
            lines.append(
                f"{stats.malformed} LLM repl(ies) did not fit the schema; the rules decided those"
            )
        if self.cache.problem:
            lines.append(f"the LLM cache is not in use ({self.cache.problem}); delete it to renew")
        return lines

    def close(self) -> None:
        self.cache.close()


def open_judge(state_dir: Path, config: LLMConfig) -> Judge:
    """The pass for one run, with its cache in the vault's state folder.

    Raises:
        LLMError: ``[llm]`` lacks its url or model, or its API key variable is unset.
    """
    client = ChatClient(config)
    return Judge(client, AnswerCache(state_dir / CACHE_FILE), config.budget)
