"""Dates a line mentions, resolved against the day the line was written.

"Dentist on Friday 3pm" written in the daily note of Monday 2026-11-23 means
``2026-11-27 15:00``; "明天下午三点" written that day means ``2026-11-24 15:00``. A fact
keeps its words and gets the resolved date as ``[when:: ]`` (``docs/facts.md``).

What each expression resolves to, from the line's day ``D`` (English and Chinese):

- today / tonight / this morning / 今天 / 今晚: ``D``; tomorrow / 明天: ``D+1``; the day after
  tomorrow / 后天: ``D+2``; 大后天 ``D+3``; yesterday / 昨天 ``D-1``; 前天 ``D-2``.
- in 3 days / 3 days from now / 三天后: ``D+3`` (weeks, months, years alike); 2 weeks ago /
  两周前: ``D-14``.
- a weekday alone (Friday, on Fri, 周五, 星期五): the next one after ``D`` (a weekday said
  on that weekday means next week's: today is "today"); when the line tells of the past
  ("I went to the dentist on Friday"), the last one before ``D``.
- this Friday / 这周五 / 本周五: the Friday of ``D``'s week (weeks run Monday to Sunday);
  next Friday / 下周五: the Friday of the week after; last Friday: the last one before ``D``;
  上周五: the Friday of the week before. this / next weekend, 周末: its Saturday.
- next week / 下周: the ISO week (``2026-W49``); next month / 下个月: ``2026-12``; next year /
  明年: ``2027`` (this / last alike): a date no more precise than the words.
- March 3, 3rd of March, 12月5日: that day of the year the line gives, else the one
  nearest ``D`` (within half a year), "next year" / "明年" after it moving it on a year.
- on the 1st, on the 15th of next month: the next such day of a month from ``D`` on
  (months without it passed over); told of the past, the last one up to ``D``. Not a
  floor or a try ("on the 5th floor"), and "on the 3rd of March" is March 3.
- A time next to a date (3pm, 15:30, noon, 下午三点, 晚上8点半) adds ``HH:MM``.

Recurring days ("every Friday", "on Tuesdays", 每周五) are no single date: left out.
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from vaultmem.memory.language.gates import Gate, Gated, Line, fold
from vaultmem.memory.language.gates import words as _words
from vaultmem.memory.language.slot_words import number

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = tuple(m.lower() for m in calendar.month_name[1:])
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_ZH_WEEKDAY |= {str(n): n - 1 for n in range(1, 8)}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_EN_NUMBERS |= {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11}
_EN_NUMBERS |= {"twelve": 12, "a couple of": 2, "couple of": 2}

_WD = (
    r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"(?-i:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?)"
)
# A month by its name, any case, but for names that are also words ("I may 5 times",
# "they march 3 abreast"): those, like the short forms, only with their capital. A
# lower-case "may 5" in chat is left in words rather than guessed.
_MON = (
    r"(?:january|february|april|june|july|august|september|october|november|december|"
    r"(?-i:May|MAY|March|MARCH|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b\.?)"
)
_NUM_EN = (
    r"\d+|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
)
_NUM_ZH = r"\d+|[一二两三四五六七八九十]+"
# A number of ``_NUM_ZH`` read only from the start of its run of digits or of numerals:
# tried from each of their characters, a long run was read to its end from each
# (quadratic: 5,000 digits took seconds). What follows a number is never a digit or a
# numeral, so a run's start finds every number a later start would.
_NUM_ZH_WHOLE = r"(?:(?<!\d)\d+|(?<![一二两三四五六七八九十])[一二两三四五六七八九十]+)"
_UNIT_EN = r"(?P<unit>day|week|month|year)s?"
_UNIT_ZH = r"(?P<zunit>天|日|周|星期|礼拜|个月|月|年)"
_ORD = r"(?:st|nd|rd|th)?"
_NEXT_YEAR = r"(?:,?\s+next\s+year\b)?"
_OF_NEXT_MONTH = re.compile(r"(?i:\s*of\s+next\s+month\b)")
_NTH_END = (
    r"(?=\s*(?:$|[,.;!?)]|at\b|of\s+(?:the|this|next)\s+month\b|\d|"
    r"(?:in\s+the\s+)?(?:morning|afternoon|evening|night)\b))"
)

# Every expression starts a word, so one look behind skips the inside of words at once
# (an alternation of 25 expressions tried at every letter is what made this slow).
_DATE = re.compile(
    r"(?<![A-Za-z])(?=[0-9A-Za-z\u4e00-\u9fff])(?:"
    + "|".join(
        [
            r"(?P<iso>(?<!\d)\d{4}-\d{2}-\d{2}(?!\d))",
            r"(?P<zhfull>(?<!\d)\d{4}年\d{1,2}月\d{1,2}[日号])",
            rf"(?i:\b(?P<mdy>{_MON})\s+(?P<mday>\d{{1,2}}){_ORD}\b(?:,?\s+(?P<myear>\d{{4}})\b)?{_NEXT_YEAR})",
            rf"(?i:\b(?P<dmy>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<dmon>{_MON})(?:,?\s+(?P<dyear>\d{{4}})\b)?{_NEXT_YEAR})",
            rf"(?P<zhmd>(?<![\d年])(?P<zyr>今年|明年|去年)?(?P<zmon>{_NUM_ZH_WHOLE})月(?P<zday>{_NUM_ZH})[日号])",
            # "on the 1st": a day of the month, only where nothing makes it a floor or a try
            # ("on the 5th floor") and no month follows ("on the 3rd of March": above).
            rf"(?i:\bon\s+the\s+(?P<nth>\d{{1,2}})(?:st|nd|rd|th)\b{_NTH_END})",
            r"(?i:\b(?P<after>the\s+day\s+after\s+tomorrow)\b)",
            r"(?i:\b(?P<before>the\s+day\s+before\s+yesterday)\b)",
            r"(?i:\b(?P<today>today|tonight|this\s+(?:morning|afternoon|evening))\b)",
            r"(?i:\b(?P<tomorrow>tomorrow)\b)",
            r"(?i:\b(?P<yesterday>yesterday)\b)",
            rf"(?i:\b(?:in|within)\s+(?P<inn>{_NUM_EN})\s+{_UNIT_EN}\b)",
            rf"(?i:\b(?P<agon>{_NUM_EN})\s+(?P<aunit>day|week|month|year)s?\s+(?P<dir>ago|from\s+now|later)\b)",
            rf"(?i:\b(?P<rel>this|next|last|coming)\s+(?:{_WD}|(?P<span>week|weekend|month|year))\b)",
            r"(?i:\b(?P<every>every|each)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|day))",
            rf"(?i:\b(?:on\s+)?{_WD}(?!s\b))".replace("?P<wd>", "?P<wd2>"),
            r"(?P<zday1>今天|今日|今晚|今早|今天早上|今天下午)",
            r"(?P<zday2>大后天|后天|明天|明早|明晚|明日|大前天|前天|昨天|昨晚|昨日)",
            rf"(?P<zoff>{_NUM_ZH_WHOLE}){_UNIT_ZH}(?P<zdir>后|以后|之后|前|以前|之前)",
            r"(?P<zevery>每(?:个)?(?:周|星期|礼拜)[一二三四五六日天1-7]?)",
            r"(?P<zrel>这|本|下下|下个?|上上|上个?)?(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天1-7])",
            r"(?P<zweekend>(?:这|本|下个?|上个?)?周末)",
            r"(?P<zspan>(?:这|本|下|上)(?:个)?(?:周|星期|礼拜|月)|今年|明年|去年|后年|前年)",
        ]
    )
    + ")"
)
_TIME = re.compile(
    r"(?i:\b(?:at\s+)?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>a\.?m\.?|p\.?m\.?)(?![a-z]))"
    r"|(?<![\d:])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?![\d:])"
    r"|(?i:\b(?P<noon>noon|midday|midnight)\b)"
    r"|(?P<part>上午|早上|早晨|中午|下午|傍晚|晚上|凌晨|夜里)?"
    rf"(?P<zh>{_NUM_ZH_WHOLE})(?:点钟?|时)(?P<zm>半|一刻|三刻|(?:{_NUM_ZH})分?)?"
)
# What any date or time expression holds (``gates.py``): a line holding none of these is
# not searched, as most lines are not (a failed search walks the whole line).
_G_DATE = Gated(
    _DATE,
    Gate(
        _words("day days week weeks weekend month months year years every each today tonight")
        | _words("morning afternoon evening tomorrow yesterday mon tue tues wed thu thur thurs")
        | _words("fri sat sun"),
        # the weekdays' long forms need no word break after them ("on Mondayish")
        (*_WEEKDAYS, "今", "明", "昨", "后", "前", "每", "周", "星期", "礼拜", "月", "年"),
        digit=True,
    ),
)
_G_TIME = Gated(_TIME, Gate(_words("noon midday midnight"), ("点", "时"), digit=True))
# A past tense without a word for the future: a weekday alone is then the last one.
_PAST = re.compile(
    r"(?i:\b(?:i|we|he|she|they|you)\s+(?:\w+ly\s+)?(?:\w+ed|went|did|had|got|came|saw|met|"
    r"took|made|bought|ran|gave|was|were)\b|\bwas\b|\bwere\b|\bago\b)"
)
_FUTURE = re.compile(
    r"(?i:\b(?:will|shall|'ll|going\s+to|gonna|plan(?:ned|s)?|schedul\w*|book\w*|"
    r"moved|postponed|reschedul\w*|until|till|by|for|due|deadline|need|must|have\s+to|"
    r"decided|agreed)\b)|要|会|将|打算|计划|预约|推迟|改到"
)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    value: str  # YYYY-MM-DD, or a coarser ISO form: 2026-W49, 2026-12, 2027
    timed: bool  # a day, to which a time may be added


def resolve_dates(text: str, day: dt.date | None) -> list[str]:
    """The dates a line mentions, in order, each once.

    Args:
        text: the line's words.
        day: the day the line was written; ``None`` gives the date words as written.

    Returns:
        ``YYYY-MM-DD`` (with `` HH:MM`` when a time goes with it), or ``YYYY-Www``,
        ``YYYY-MM``, ``YYYY`` for a week, month or year; the words themselves without a day.
    """
    line = Line.of(text)
    found = list(_find(text, day, line))
    if not found:
        return []
    if day is None:
        words = (re.sub(r"(?i)^on\s+", "", text[f.start : f.end].strip()) for f in found)
        return list(dict.fromkeys(words))
    matches = _G_TIME.finditer(text, line)
    times = [(m.start(), m.end(), _clock(m)) for m in matches]
    out = []
    for item in found:
        value = item.value
        clock = _nearest_time(text, item, times) if item.timed else None
        out.append(f"{value} {clock}" if clock else value)
    return list(dict.fromkeys(out))


def _find(text: str, day: dt.date | None, line: Line) -> Iterator[_Found]:
    base = day or dt.date.today()  # without a day only the spans are used
    for match in _G_DATE.finditer(text, line):
        value, timed = _value(match, base, text)
        if value is not None:
            yield _Found(match.start(), match.end(), value, timed)


_Value = tuple[str | None, bool]  # (the date, whether it is a whole day that takes a time)


def _value(m: re.Match[str], day: dt.date, text: str) -> _Value:
    """What one date expression means on ``day``."""
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    kind = next(iter(g))
    if kind in ("every", "zevery"):
        return None, False
    for rule in (_absolute, _offset, _named):
        found = rule(kind, g, day, text, m)
        if found is not None:
            return found
    return None, False


def _absolute(
    kind: str, g: dict[str, str], day: dt.date, text: str, m: re.Match[str]
) -> _Value | None:
    """A date written out: 2026-12-01, 2026年12月1日, March 3, 3rd of March, 12月5日."""
    if kind == "iso":
        return (g["iso"] if _valid(g["iso"]) else None), True
    if kind == "zhfull":
        y, rest = g["zhfull"].split("年")
        mo, d = rest.split("月")
        return _ymd(int(y), int(mo), int(d[:-1])), True
    if kind in ("mdy", "dmy"):
        month = _month(g.get("mdy") or g["dmon"])
        mday, year = int(g.get("mday") or g["dmy"]), g.get("myear") or g.get("dyear")
        return _month_day(day, month, mday, year, m.group(0)), True
    if kind == "nth":
        next_month = _OF_NEXT_MONTH.match(text, m.end()) is not None
        return _nth(day, int(g["nth"]), next_month, _reads_past(text)), True
    if kind == "zhmd":
        month, mday = number(g["zmon"]), number(g["zday"])
        years = {"今年": 0, "明年": 1, "去年": -1}
        year = str(day.year + years[g["zyr"]]) if "zyr" in g else None
        return _month_day(day, month, mday, year, m.group(0)), True
    return None


_DAY_WORDS = {"after": 2, "before": -2, "today": 0, "tomorrow": 1, "yesterday": -1}
_ZH_DAY_WORDS = {"大后": 3, "后天": 2, "明": 1, "大前": -3, "前天": -2, "昨": -1, "今": 0}
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}


def _offset(
    kind: str, g: dict[str, str], day: dt.date, text: str, m: re.Match[str]
) -> _Value | None:
    """A number of days, weeks, months or years from ``day``: tomorrow, in 3 days, 三天后."""
    if kind in _DAY_WORDS:
        return _shift(day, _DAY_WORDS[kind], "day"), True
    if kind in ("zday1", "zday2"):
        word = g[kind]
        return _shift(day, next(v for k, v in _ZH_DAY_WORDS.items() if k in word), "day"), True
    if kind == "inn":
        return _shift(day, _en_number(g["inn"]), g["unit"].lower()), True
    if kind == "agon":
        direction = g["dir"].lower()
        if direction == "later":  # "two days later": later than a story's day, not known
            return None, False
        amount = _en_number(g["agon"]) * (-1 if direction == "ago" else 1)
        return _shift(day, amount, g["aunit"].lower()), True
    if kind == "zoff":
        sign = -1 if g["zdir"].endswith("前") else 1
        unit = _ZH_UNITS.get(g["zunit"], "month" if "月" in g["zunit"] else "year")
        return _shift(day, sign * number(g["zoff"]), unit), True
    return None


def _named(
    kind: str, g: dict[str, str], day: dt.date, text: str, m: re.Match[str]
) -> _Value | None:
    """A weekday, weekend, week, month or year by name: Friday, next week, 下周一, 明年."""
    if kind == "rel":
        return _relative(day, g["rel"].lower(), g.get("wd"), g.get("span"))
    if kind == "wd2":
        return _bare_weekday(day, _weekday(g["wd2"]), _reads_past(text)), True
    if kind in ("zrel", "zwd"):
        wd, rel = _ZH_WEEKDAY[g["zwd"]], g.get("zrel", "")
        if not rel:  # "我周五去了医院": the verb after the day tells of the past
            return _bare_weekday(day, wd, _last_past_mark(text) >= m.end()), True
        weeks = {"这": 0, "本": 0, "下": 1, "下个": 1, "下下": 2, "上": -1, "上个": -1, "上上": -2}
        return _week_day(day, weeks[rel], wd), True
    if kind == "zweekend":
        word = g["zweekend"]
        step = 1 if word.startswith("下") else -1 if word.startswith("上") else 0
        return _week_day(day, step, 5), True
    if kind == "zspan":
        return _zh_span(day, g["zspan"]), False
    return None


def _relative(
    day: dt.date, rel: str, weekday: str | None, span: str | None
) -> tuple[str | None, bool]:
    if weekday is not None:
        wd = _weekday(weekday)
        if rel == "this":
            return _week_day(day, 0, wd), True
        if rel == "next":
            return _week_day(day, 1, wd), True
        if rel == "coming":
            return _bare_weekday(day, wd, past=False), True
        return _bare_weekday(day, wd, past=True), True
    step = {"this": 0, "coming": 1, "next": 1, "last": -1}[rel]
    if span == "weekend":
        if rel == "coming":
            step = 0 if day.weekday() < 5 else 1
        return _week_day(day, step, 5), True
    if span == "week":
        year, week, _ = (day + dt.timedelta(weeks=step)).isocalendar()
        return f"{year}-W{week:02d}", False
    if span == "month":
        return _add_months(day, step).strftime("%Y-%m"), False
    return str(day.year + step), False


def _zh_span(day: dt.date, word: str) -> str:
    years = {"今年": 0, "明年": 1, "去年": -1, "后年": 2, "前年": -2}
    if word in years:
        return str(day.year + years[word])
    step = 1 if word.startswith("下") else -1 if word.startswith("上") else 0
    if word.endswith("月"):
        return _add_months(day, step).strftime("%Y-%m")
    year, week, _ = (day + dt.timedelta(weeks=step)).isocalendar()
    return f"{year}-W{week:02d}"


def _bare_weekday(day: dt.date, weekday: int, past: bool) -> str:
    """The next such weekday after ``day`` (1 to 7 days on), or the last before it."""
    if past:
        back = (day.weekday() - weekday) % 7 or 7
        return (day - dt.timedelta(days=back)).isoformat()
    ahead = (weekday - day.weekday()) % 7 or 7
    return (day + dt.timedelta(days=ahead)).isoformat()


def _week_day(day: dt.date, weeks: int, weekday: int) -> str:
    monday = day - dt.timedelta(days=day.weekday())
    return (monday + dt.timedelta(weeks=weeks, days=weekday)).isoformat()


# Per line, not per date in it: a line naming a thousand weekdays was read a thousand times.
@functools.lru_cache(maxsize=64)
def _reads_past(text: str) -> bool:
    return bool(_PAST.search(text)) and not _FUTURE.search(text)


@functools.lru_cache(maxsize=64)
def _last_past_mark(text: str) -> int:
    """Where the line's last 了 or 过 is (-1: none): a day before it tells of the past."""
    return max(text.rfind("了"), text.rfind("过"))


def _shift(day: dt.date, amount: int, unit: str) -> str:
    if unit == "day":
        return (day + dt.timedelta(days=amount)).isoformat()
    if unit == "week":
        return (day + dt.timedelta(weeks=amount)).isoformat()
    if unit == "month":
        return _add_months(day, amount).isoformat()
    return _add_months(day, 12 * amount).isoformat()


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def _month_day(day: dt.date, month: int, mday: int, year: str | None, words: str) -> str | None:
    """A day of a month: in the year written, a year on from ``day``'s when "next year"
    goes with it, else the one nearest ``day``."""
    if year is not None:
        return _ymd(int(year), month, mday)
    if re.search(r"(?i:next\s+year)$", words):
        return _ymd(day.year + 1, month, mday)
    dates = [_ymd(day.year + d, month, mday) for d in (-1, 0, 1)]
    days = [dt.date.fromisoformat(d) for d in dates if d is not None]
    return min(days, key=lambda d: abs((d - day).days)).isoformat() if days else None


def _nth(day: dt.date, mday: int, next_month: bool, past: bool) -> str | None:
    """The ``mday``-th of a month: the next one from ``day`` on (of next month when it says
    so), or, for a line that tells of the past, the last one up to ``day``; months without
    that day are passed over."""
    year, month = day.year, day.month + (1 if next_month else 0)
    for _ in range(13):
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        found = _ymd(year, month, mday)
        if found is not None and (
            next_month or (found <= day.isoformat() if past else found >= day.isoformat())
        ):
            return found
        month += -1 if past and not next_month else 1
    return None


def _ymd(year: int, month: int, mday: int) -> str | None:
    try:
        return dt.date(year, month, mday).isoformat()
    except ValueError:
        return None


def _valid(iso: str) -> bool:
    try:
        dt.date.fromisoformat(iso)
    except ValueError:
        return False
    return True


def _weekday(word: str) -> int:
    # Folded as the IGNORECASE pattern that matched it compares letters: "frıday" (a
    # dotless ı) matched "friday" and must be found by it.
    word = fold(word.rstrip("."))
    return next(i for i, name in enumerate(_WEEKDAYS) if name.startswith(word[:3]))


def _month(word: str) -> int:
    word = fold(word.rstrip("."))
    return next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(word[:3]))


def _en_number(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _EN_NUMBERS[word]


def _clock(m: re.Match[str]) -> str | None:
    """``HH:MM`` of one time expression, or ``None`` for a number that is no time."""
    if m["h"] is not None:
        hour, minute = int(m["h"]), int(m["m"] or 0)
        if not 1 <= hour <= 12:
            return None
        pm = m["ap"].lower().startswith("p")
        hour = hour % 12 + (12 if pm else 0)
    elif m["h24"] is not None:
        hour, minute = int(m["h24"]), int(m["m24"])
    elif m["noon"] is not None:
        hour, minute = (0, 0) if m["noon"].lower() == "midnight" else (12, 0)
    else:
        hour = number(m["zh"])
        zm = m["zm"] or ""
        minute = {"半": 30, "一刻": 15, "三刻": 45}.get(zm, number(zm.rstrip("分")) if zm else 0)
        part = m["part"] or ""
        afternoon = part in ("下午", "傍晚", "晚上", "夜里") or (part == "中午" and hour < 6)
        if afternoon and hour < 12:
            hour += 12
        if hour > 23 or minute > 59:
            return None
    return f"{hour:02d}:{minute:02d}"


def _nearest_time(text: str, item: _Found, times: list[tuple[int, int, str | None]]) -> str | None:
    """The time written next to a date ("Friday 3pm", "at 3pm on Friday", "周五下午三点"):
    only a few joining words between them. ``times`` are in the order of the text and do
    not overlap, so only the last one ending before the date and the first one starting
    after it can be that near (any other has one of them between): those two are tried,
    in that order, found by bisection, not by a walk of every time for every date."""
    before = bisect.bisect_right(times, item.start, key=lambda t: t[1]) - 1
    after = bisect.bisect_left(times, item.end, key=lambda t: t[0])
    for index, gap_start, gap_end in ((before, None, item.start), (after, item.end, None)):
        if not 0 <= index < len(times):
            continue
        start, end, clock = times[index]
        if clock is not None and _JOIN.fullmatch(
            text, end if gap_start is None else gap_start, start if gap_end is None else gap_end
        ):
            return clock
    return None


# "[\s,]*(?:at|...)?[\s,]*" would split a run of spaces between its two halves in every way.
_JOIN = re.compile(r"(?i:[\s,]*(?:(?:at|on|from|around|by|@)[\s,]*)?)|的?")
