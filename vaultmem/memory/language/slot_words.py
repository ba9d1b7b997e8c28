"""The word lists and patterns ``slots.py`` reads facts with (English and Chinese).

Kept apart so that the rules read as code and the vocabulary as data. A pattern names its
parts: ``value`` (what the slot holds), ``holder``/``org``/``role`` for role holders,
``whose``/``thing`` for favourites, ``software`` for versions, ``event`` for schedules.
"""

from __future__ import annotations

import re

CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# A sentence ends at . ! ? (not in "Dr. Klein" or "3.12") or at Chinese stops. A run of
# stops is tried where it starts (or one after it, after "Dr"): tried from each of its
# stops, a long run was read to its end from each (quadratic).
SENTENCE = re.compile(
    r"(?:(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<![.!?])"
    r"|(?<=\b(?:Dr|Mr|Ms|St)[.!?])|(?<=\bMrs[.!?]))[.!?]+\s+|[。！？；;\n]\s*"
)
# What any SENTENCE break holds, found by a scan for a character, not five look-behinds at
# every position: most facts are one sentence.
SENTENCE_HINT = re.compile(r"[.!?]\s|[。！？；;\n]")
CLAUSE_BREAK = re.compile(
    r"[,;:!?()\"“”]|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)\.(?=\s|$)"
    r"|(?:^|\s)(?i:that|and|but|because|so|although|though|while|since|after|when|if|whereas)\s"
)
CJK_CLAUSE_BREAK = re.compile(r"[，。；：！？,.;:!?、]")
TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
CAPITALISED = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9-]*")
# "Caroline: I live in ..." is Caroline speaking (a conversation turn), unless the word
# before the colon is a capture trigger.
SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?|[^\s:：，。]{1,6})\s*[:：]\s+")

FIRST_PERSON = frozenset(
    "i i'm i’m i've i'd i'll we we're we've we'd me us myself ourselves 我 我们".split()
)
POSSESSIVE_OWNER = frozenset("my our mine ours".split())
PRONOUNS = frozenset(
    "he she they he's she's they're his her their him them 他 她 他们 她们".split()
)
ARTICLES = frozenset("the a an this that these those".split())
TRIGGERS = frozenset(
    "remember note notes fyi important please update reminder actually btw so also oh ok okay "
    "today yesterday recently now finally since after last this next ps todo".split()
)
# Words that open a line like a speaker's name ("Update: ..."). The capture requests
# ("Remember:", "记住：", "注意：") are stripped before slots are read (``triggers.py``); the
# English ones stay listed for the names they may stand before ("Remember Bob moved").
CJK_TRIGGERS = frozenset("重要 更新".split())
SUBJECT_SKIP = frozenset(
    "now currently finally actually also still recently just already officially really has "
    "have had is are was were am 'm do does did will would to used not no longer never been "
    "going all both then even went gone become became turned a an strictly fully mostly "
    "got get gets getting "
    "don't doesn't didn't haven't hasn't isn't aren't wasn't weren't won't can't".split()
)
CJK_FIRST_PERSON = frozenset("我 我们 咱们 本人".split())
CJK_PRONOUNS = frozenset("他 她 他们 她们 它".split())
# Time words, adverbs and particles around a Chinese subject ("我上个月", "我现在是").
CJK_SKIP = tuple(
    sorted(
        "现在 已经 目前 也 还是 还 一直 开始 上个月 上周 去年 今年 最近 都 就 又 刚刚 刚 终于 "
        "不再 不 没有 没 是 已 正在 在 从 记住 请记住 注意 备注 每周的 的".split(),
        key=len,
        reverse=True,
    )
)
# A date or time ending a subject's words ("表哥去年十月" + 结婚了): no part of who.
CJK_TIME_END = re.compile(
    r"(?:[一二三四五六七八九十\d]{1,3}月(?:[一二三四五六七八九十\d]{1,3}[日号])?|[上下这本]个?(?:周|星期|月)"
    r"|[昨今明前]天|[去今明前]年|周[一二三四五六日末])$"
)
CJK_AND = re.compile(r"[和跟与]")  # "小张和女朋友": the first named is the subject
CJK_ORG_SUFFIX = re.compile(r"(?:项目|团队|小组|组|部门|project|team)$", re.I)
FREQUENCY = frozenset(
    "weekly daily monthly yearly annual biweekly regular usual new next our".split()
)
GENERIC_HEADS = frozenset("meeting call session sync".split())
VERBS_BEFORE_NOUN = frozenset(
    "moved rescheduled shifted pushed changed have has is are was were said says think know "
    "note remember".split()
)
VALUE_STOP = frozenset(
    "now since last for with because and but from ago again anymore too as these this next on "
    "at when after before until so then instead not rather though although which who where in "
    "by over near starting effective currently today yesterday tomorrow recently already "
    "still also permanently temporarily is are was were".split()
)
VALUE_STOP_AFTER: frozenset[str] = frozenset()
CJK_VALUE = re.compile(r"[^\s，。！？；,.!?;：:、]+")
CJK_VALUE_STOP = (
    "了",
    "的",
    "工作",
    "上班",
    "生活",
    "住",
    "去",
    "呢",
    "啦",
    "吧",
    "啊",
    "和",
    "跟",
    "一起",
    "现在",
)
ALIASES = {
    "colour": "color",
    "favourite": "favorite",
    "postgres": "postgresql",
    "golang": "go",
    "k8s": "kubernetes",
    "vscode": "vs code",
    "js": "javascript",
    "ts": "typescript",
    "mongo": "mongodb",
    "nodejs": "node",
    "node.js": "node",
    "gh actions": "github actions",
}
VAGUE_PLACES = frozenset(
    "flat apartment house home town city countryside suburbs there here place new".split()
)

# A clause that ends in a word taking back what follows, and at most two more words
# ("no longer", "used to", "不再"): matched at the start of the clause written backwards
# (``slot_phrases.takes_back``), so it is tried once. Searched forwards for an end of the
# clause, it was tried from every "不" of a long clause and read to its end from each.
NEGATED_BEFORE_REVERSED = re.compile(
    r"(?:\s+[\w']+){0,2}\s*"
    r"(?:ton\b|regnol on\b|reven\b|t'n|ot desu\b|ylremrof\b|erom on\b|"
    r"再不|不|有没|没|前以|经曾|来原)",
    re.I,
)
NEGATED_AFTER = re.compile(r"\s*(?:anymore|any more|no more)\b", re.I)
# "also", "too", "as well", "也": the new fact adds to the old one, it does not replace it.
ADDITIVE = re.compile(r"\b(?:also|too|as well|another|second|in addition)\b|也", re.I)

# -- residence and employer ----------------------------------------------------------------
RESIDENCE = (
    re.compile(
        r"(?i:\b(?P<past>used to |formerly |once )?(?:live[sd]?|living|reside[sd]?|residing|"
        r"based|settled|(?:re)?locat(?:ed|ing|e)|mov(?:ed|e|es|ing)(?: back| over| away)?)"
        r"\s+(?:from\s+\S+(?:\s+\S+)?\s+)?(?:to|in|into|near)\s+)(?P<value>[^,.;!?]+)"
    ),
    re.compile(
        r"(?P<past>以前|曾经|原来)?(?:住在|搬到了?|搬去了?|搬回了?|定居在|定居|生活在|家在)"
        r"(?P<value>[^，。！？；,.!?;]+)"
    ),
)
# "lived in Tokyo for two years", "worked at Google in my twenties": a stay that ended.
SPENT = re.compile(
    r"(?i:\b(?:lived|resided|worked|was based|were based|was working)\b)|住过|工作过"
)
PAST_SPAN = re.compile(
    r"(?i:\bfor\s+(?:[\w-]+\s+){0,2}?(?:years?|months?|weeks?|decades?)\b"
    r"|\bin my (?:teens|twenties|thirties|forties|fifties|20s|30s|40s|50s)\b|\bback in\b"
    r"|\bin (?:19|20)\d\d\b|\bwhen (?:I|we|he|she|they) (?:was|were)\b"
    r"|\bas a (?:kid|child|student|teenager)\b|\bduring\b|\buntil\b)|小时候|那几年|那时候"
)
RESIDENCE_FROM = re.compile(
    r"(?i:\bmov(?:ed|e|ing)(?: back| away)?\s+from\s+)(?P<value>[^,.;!?]+?)(?i:\s+to\b)"
    r"|从(?P<cjk>[^，。！？；,.!?;]{1,8}?)搬到"
)
_ORG = r"[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*"
EMPLOYER = re.compile(
    r"(?i:\b(?:work(?:s|ed|ing)?|employed|job|position|started|hired|interning)"
    r"(?:\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|working))?\s+(?:at|for|by|with)\s+)"
    rf"(?P<value>{_ORG})"
    rf"|(?i:\bjoined\s+)(?P<joined>{_ORG})(?=\s+(?i:as|in|last|this|on|recently)\b|\s*[,.;!?]|$)"
)
# A job done at a place makes the place an employer ("在腾讯做产品经理"); cooking at home
# does not ("在家做饭"): only these jobs count.
CJK_JOBS = (
    "产品经理|项目经理|产品|工程师|程序员|开发|前端|后端|全栈|算法|测试|运维|设计师|设计|运营|"
    "销售|市场|客服|人事|财务|会计|律师|医生|护士|老师|教师|研究员|分析师|数据科学家|数据分析|"
    "架构师|实习生|顾问|主管|总监|经理|编辑|记者|咨询|HR|CEO|CTO|VP"
)
CJK_EMPLOYER = re.compile(
    r"在(?P<value>[^\s，。！？；,.!?;在]{2,12}?)(?:工作|上班|任职|实习)"
    r"|(?:入职|跳槽到|跳槽去|加入)了?(?P<joined>[^\s，。！？；,.!?;了]{2,12})"
    rf"|在\s*(?P<doing>[^\s，。！？；,.!?;在]{{2,12}}?)\s*(?:做|当|担任)(?:{CJK_JOBS})"
)
# Where or when a job is done, not for whom: "在周末做设计", "在会上做测试", "在业余时间".
CJK_NOT_EMPLOYER = re.compile(r"[上里中下前后时间末天午晚早边]$|周|星期|每|业余|空闲|假|小时|时候")
# "left Shopify", "quit Google": the old employer, taken back.
EMPLOYER_LEFT = re.compile(
    rf"(?i:\b(?:left|quit|resigned from|was laid off from))\s+(?P<value>{_ORG})"
)
NOT_AN_EMPLOYER = frozenset("home 家 家里 公司 这里 那里".split())

# -- role holders -------------------------------------------------------------------------
ROLE_OF = {
    **dict.fromkeys(
        "lead leader head team lead tech lead project lead owner product owner maintainer "
        "captain chair coordinator".split(" "),
        "lead",
    ),
    "team lead": "lead",
    "tech lead": "lead",
    "project lead": "lead",
    "product owner": "owner",
    **dict.fromkeys("manager boss supervisor pm report".split(), "manager"),
    "project manager": "manager",
    "product manager": "product manager",
    **{r: r for r in "ceo cto cfo coo director doctor dentist gp landlord therapist".split()},
    **{r: r for r in "mentor lawyer accountant advisor physio trainer".split()},
    **dict.fromkeys("负责人 组长 队长".split(), "lead"),
    **dict.fromkeys("经理 主管 老板 领导 上司".split(), "manager"),
    "医生": "doctor",
    "牙医": "dentist",
    "房东": "landlord",
}
_ROLE = (
    r"(?P<role>(?i:team lead|tech lead|project lead|product owner|project manager|"
    r"product manager|lead|leader|head|manager|owner|maintainer|captain|chair|coordinator|"
    r"boss|supervisor|pm|ceo|cto|cfo|coo|director|doctor|dentist|gp|landlord|therapist|"
    r"mentor|lawyer|accountant|advisor|physio|trainer))"
)
_HOLDER = r"(?P<holder>(?:(?:Dr|Mr|Ms|Mrs|Prof)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
_ROLE_ORG = r"(?P<org>(?:the\s+)?[A-Z][\w-]*(?:\s+(?i:project|team|service))?)"
_CJK_NAME = r"[\u4e00-\u9fffA-Za-z]{1,8}"
_CJK_ROLE = r"(?P<role>负责人|经理|主管|组长|队长|老板|领导|上司|医生|牙医|房东)"
ROLE_PATTERNS = (
    re.compile(
        _HOLDER + r"(?i:\s+(?:is|'s|has become|became|was named|was appointed|has been named|"
        r"will be)(?:\s+now)?\s+(?:now\s+)?(?:the|our|a)\s+(?:new\s+|acting\s+|interim\s+|"
        r"current\s+)?)" + _ROLE + r"(?i:\s+(?:of|for|on|at)\s+)" + _ROLE_ORG
    ),
    re.compile(
        _HOLDER + r"(?i:\s+(?:took|takes|has taken|is taking|will take)\s+over)"
        r"(?:(?i:\s+as\s+(?:the\s+)?(?:new\s+)?)" + _ROLE + r")?(?i:\s+(?:of|for))?\s+" + _ROLE_ORG
    ),
    re.compile(
        _HOLDER + r"(?i:\s+(?:now\s+)?(?:leads|runs|heads|is leading|is running|is heading))"
        r"\s+" + _ROLE_ORG
    ),
    re.compile(
        _ROLE_ORG + r"(?:'s)?\s+" + _ROLE + r"(?i:\s+(?:is|is now|has become|became)\s+"
        r"(?:now\s+)?)" + _HOLDER
    ),
    re.compile(_ROLE_ORG + r"(?i:\s+is\s+(?:now\s+)?(?:led|run|headed)\s+by\s+)" + _HOLDER),
    re.compile(
        r"(?i:\b(?:my|our)\s+(?:new\s+|current\s+)?)"
        + _ROLE
        + r"(?i:\s+is(?:\s+now)?\s+)"
        + _HOLDER
    ),
    re.compile(_HOLDER + r"(?i:\s+is\s+(?:now\s+)?my\s+(?:new\s+)?)" + _ROLE + r"\b"),
    re.compile(r"(?i:\b(?:my|our|a)\s+new\s+)" + _ROLE + r",?\s+" + _HOLDER),
    re.compile(r"\bI\s+(?i:now\s+)?(?P<role>(?i:report))(?i:s|ed)?(?i:\s+to\s+)" + _HOLDER),
    re.compile(
        rf"(?P<holder>{_CJK_NAME}?)是(?P<org>[^\s，。是]{{1,12}}?)的(?:新)?(?:任)?{_CJK_ROLE}"
    ),
    re.compile(
        rf"(?P<org>[^\s，。是]{{1,12}}?)的(?:新)?(?:任)?{_CJK_ROLE}(?:现在|已经|目前)?"
        rf"(?:是|换成了?|变成了?|改成了?)\s*(?P<holder>{_CJK_NAME})"
    ),
    re.compile(rf"(?P<org>[^\s，。]{{1,12}}?)由(?P<holder>{_CJK_NAME}?)负责"),
)

# -- favourites -------------------------------------------------------------------------
_WHOSE = r"(?P<whose>\b(?i:my|our|his|her|their)|[A-Z][\w-]*'s)"
FAVOURITE_PATTERNS = (
    re.compile(
        _WHOSE + r"\s+(?i:(?:new|current|all[- ]time|absolute|very)\s+)?(?i:favou?rite)\s+"
        r"(?P<thing>[a-z]+(?:\s+[a-z]+)?)\s+(?i:is|are|was|has become|became|is now)\s+"
        r"(?:now\s+)?(?P<value>[^,.;!?]+)"
    ),
    re.compile(
        r"(?P<value>[\w-]+(?:\s+[A-Z][\w-]*)?)\s+(?i:is|are)\s+(?i:now\s+|still\s+)?"
        + _WHOSE
        + r"\s+(?i:new\s+|current\s+)?(?i:favou?rite)\s+(?P<thing>[a-z]+)"
    ),
    re.compile(
        r"(?P<whose>[^\s，。！？；,.!?;]{0,6}?)最喜欢的(?P<thing>[\u4e00-\u9fff]{1,4}?)"
        r"(?:是|变成了|换成了|变成|成了)(?P<value>[^，。！？；,.!?;]+)"
    ),
    re.compile(
        r"(?P<value>[^\s，。！？；,.!?;是]{1,8})是(?P<whose>我|[^\s，。]{1,4}?)的?最喜欢的"
        r"(?P<thing>[\u4e00-\u9fff]{1,4})"
    ),
)

# -- versions ---------------------------------------------------------------------------
_SOFTWARE = r"(?P<software>[A-Za-z][A-Za-z0-9+#-]*(?:\.js)?)"
_VERSION = r"v?(?P<value>\d+(?:\.\d+)*)"
VERSION_PATTERNS = (
    re.compile(_SOFTWARE + r"\s+v?(?P<value>\d{1,3})\b(?![.:,]\d)"),
    re.compile(_SOFTWARE + r"\s+(?i:version\s+)?v?(?P<value>\d+\.\d+(?:\.\d+)?)\b"),
    re.compile(
        _SOFTWARE + r"(?i:\s+(?:was|has been|got|is|is now)?\s*(?:upgraded|bumped|updated|"
        r"pinned|downgraded)\s+to\s+(?:version\s+)?)" + _VERSION
    ),
    re.compile(
        r"(?i:\b(?:upgraded|bumped|updated|pinned|downgraded|moved))\s+"
        + _SOFTWARE
        + r"(?i:\s+to\s+(?:version\s+)?)"
        + _VERSION
    ),
    re.compile(_SOFTWARE + r"\s*的?版本号?(?:是|为|升级到了?|改成了?|换成了?)\s*" + _VERSION),
    re.compile(r"把" + _SOFTWARE + r"(?:升级|降级|更新)到了?\s*" + _VERSION),
)
# Software known by a bare major version ("Node 18", "PostgreSQL 16"); any other word
# followed by a bare number is not a version ("room 4", "Chapter 3").
BARE_VERSION = frozenset(
    "node java php ios android ubuntu debian fedora windows macos python postgresql mysql "
    "django rails react vue angular kotlin swift go rust ruby dotnet net elasticsearch".split()
)
# The noun a version belongs to when no project is named: "on the server", "the cluster".
CONTEXT_NOUN = re.compile(r"(?i:\b(?:the|our|my))\s+(?P<noun>[a-z][\w-]*)")
NOT_CONTEXT = frozenset("weekend week month year day morning evening night moment end time".split())
NOT_SOFTWARE = frozenset(
    "to at is are was on in by of from version v room chapter step section page and about "
    "around costs cost price paid pay for than over under only top level grade size".split()
)

# -- schedules ----------------------------------------------------------------------------
_WHEN = r"(?P<value>[^,;!?。，；！？]+)"
SCHEDULE_PATTERNS = (
    re.compile(
        r"(?P<event>(?:[A-Za-z][\w'-]*\s+){0,3}?[A-Za-z][\w'-]*)\s+(?i:is|are|happens|happen|"
        r"takes place|take place|starts|start|runs|run|will be)(?:\s+(?i:now|still|always|"
        r"usually|normally|moving))?\s+(?i:(?:at|on|every|each|from)\s+)?" + _WHEN
    ),
    re.compile(
        r"(?P<event>(?:[A-Za-z][\w'-]*\s+){0,3}?[A-Za-z][\w'-]*)\s+(?i:(?:was|has been|is|got|"
        r"have been|were|are|will be|will)\s+)?(?i:moved|moves|move|moving|rescheduled|changed|"
        r"changes|shifted|shifts|pushed(?:\s+back)?|postponed|brought forward|bumped)\s+"
        r"(?i:to|until|till)\s+" + _WHEN
    ),
    re.compile(
        r"(?i:\b(?:moved|rescheduled|shifted|pushed|changed|postponed))\s+"
        r"(?P<event>(?i:the|our|my)\s+[\w' -]+?)\s+(?i:to|until)\s+" + _WHEN
    ),
    re.compile(
        r"(?P<event>[^\s，。！？；,.!?;]{1,10}?)(?:改到了?|改在|改成了?|挪到了?|推迟到了?|提前到了?|"
        r"调到了?|换到了?|定在|(?<![现正存实])在|是)" + _WHEN
    ),
    # A routine of one's own: "I wake up at 6:00", "I usually go to bed around 11pm".
    re.compile(
        r"(?i:\b(?:I|we)\s+(?:usually\s+|normally\s+|always\s+|now\s+|generally\s+)?)"
        r"(?P<event>(?i:wake up|get up|go to bed|go to sleep|work out|eat lunch|have lunch|"
        r"eat dinner|have dinner|start work|finish work|leave work))\s+(?i:at|around|by)\s+" + _WHEN
    ),
    # The time first, then what happens: "每周三晚上七点上瑜伽课", "我一般晚上十二点睡觉".
    re.compile(
        r"(?P<value>(?:每周|每个?星期|每个?礼拜|每天|每晚|周|星期|礼拜)?[一二三四五六日天]?"
        r"(?:早上|上午|中午|下午|晚上|傍晚)?[零一二两三四五六七八九十\d]{1,3}[点點]"
        r"(?:半|[零一二三四五六七八九十\d]{1,3}分?)?)(?:钟)?(?:开始)?(?:上|开|去|有|参加|做)?"
        r"(?P<event>[\u4e00-\u9fff]{1,6}?)(?=[，。！？；,.!?;了]|$)"
    ),
)
# The verbs each of SCHEDULE_PATTERNS needs (its gate, ``gates.py``): whole words (a set:
# English) or parts found anywhere ("|" between them: Chinese).
_MOVED = frozenset(
    "moved moves move moving rescheduled changed changes shifted shifts pushed postponed brought "
    "bumped".split()
)
SCHEDULE_VERBS: tuple[frozenset[str] | str, ...] = (
    frozenset("is are happens happen takes take starts start runs run will".split()),
    _MOVED,
    _MOVED,
    "改到|改在|改成|挪到|推迟到|提前到|调到|换到|定在|在|是",
    frozenset("wake get go work eat have start finish leave".split()),
    "点|點",
)
NOT_AN_EVENT = frozenset("it this that there here what which who 这 那".split())
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|"
    r"thu(?:rs?)?|fri|sat|sun|weekday|weekend)s?\b|"
    r"(?:周|星期|礼拜)[一二三四五六日天]",
    re.I,
)
WEEKDAY_OF = {
    **{day: short for day, short in zip(_EN_DAYS, _DAYS, strict=True)},
    **{short: short for short in _DAYS},
    "tues": "tue",
    "weekday": "weekday",
    "weekend": "weekend",
    "thur": "thu",
    "thurs": "thu",
    **{
        f"{prefix}{char}": _DAYS[index]
        for prefix in ("周", "星期", "礼拜")
        for index, chars in enumerate(("一", "二", "三", "四", "五", "六", "日天"))
        for char in chars
    },
}
# A phrase that starts with a day or a clock time: "moved to Tuesday" is not a place.
TIME_WORD = re.compile(
    WEEKDAY.pattern + r"|\d{1,2}(?::\d{2})?\s*[ap]\.?m\b|\d{1,2}[:h.]\d\d\b", re.I
)
CLOCKS = (
    re.compile(r"\b(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>[ap])\.?m\b\.?", re.I),
    re.compile(r"\b(?P<hour>[01]?\d|2[0-3])[:h.](?P<minute>[0-5]\d)\b"),
    re.compile(
        r"(?P<ampm>上午|下午|晚上|早上|中午|傍晚)?(?P<hour>[零一二两三四五六七八九十\d]{1,3})"
        r"[点點时](?P<minute>半|[零一二三四五六七八九十\d]{1,3})?"
    ),
)
DAYPART = re.compile(r"\b(?:morning|afternoon|evening|night|noon)\b|上午|下午|晚上|早上|中午", re.I)
DAYPART_OF = {
    "morning": "am",
    "上午": "am",
    "早上": "am",
    "afternoon": "pm",
    "下午": "pm",
    "noon": "noon",
    "中午": "noon",
    "evening": "evening",
    "晚上": "evening",
    "night": "night",
}
_CJK_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_CJK_DIGITS |= {"八": 8, "九": 9}


def number(text: str) -> int:
    """1 to 99 in digits or Chinese numerals (十, 十二, 二十五): an hour, a minute, a day,
    a month, a count of days (``dates.py`` reads its numbers with this too)."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _CJK_DIGITS.get(tens, 1) * 10 + _CJK_DIGITS.get(ones, 0)
    return _CJK_DIGITS.get(text, 0)


# -- contacts -----------------------------------------------------------------------------
PHONE_WORD = re.compile(r"phone|number|mobile|\bcell|\btel\b|call me|whatsapp|手机|电话|号码")
PHONE = re.compile(r"\+?\d[\d\s().-]{5,}\d")
PHONE_KIND = re.compile(
    r"\b(?:work|office|business|mobile|cell|home|landline|private|personal)\b|手机|座机|办公"
)
PHONE_KIND_OF = {
    **dict.fromkeys(("work", "office", "business", "办公"), "work"),
    **dict.fromkeys(("mobile", "cell", "手机"), "mobile"),
    **dict.fromkeys(("home", "landline", "座机"), "home"),
    **dict.fromkeys(("private", "personal"), "personal"),
}
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
EMAIL_KIND = re.compile(
    r"\b(?:work|office|business|company|school|university|uni|private|personal|home)\b"
    r"|工作|办公|公司|学校|私人|个人"
)
EMAIL_KIND_OF = {
    **dict.fromkeys(("work", "office", "business", "company", "工作", "办公", "公司"), "work"),
    **dict.fromkeys(("school", "university", "uni", "学校"), "school"),
    **dict.fromkeys(("private", "personal", "home", "私人", "个人"), "personal"),
}
# The part of a system or the team a tool or version is for: two facts naming different
# ones are about different things ("the frontend uses Vite" / "the mobile app uses Gradle").
AREA = re.compile(
    r"(?i:\b(?:front[- ]?end|back[- ]?end|mobile|ios|android|web|desktop|server|client|infra"
    r"|infrastructure|analytics|docs|staging|production|prod|devops|embedded|firmware)\b)"
    r"|前端|后端|移动端|客户端|服务端|服务器|网页|小程序|测试环境|生产环境"
)
AREA_OF = {"front end": "frontend", "front-end": "frontend", "back end": "backend"}
AREA_OF |= {"back-end": "backend", "production": "prod"}
# A project, team or service named in Chinese: "天穹项目", "北斗团队".
CJK_PROJECT = re.compile(r"(?P<name>[\u4e00-\u9fff]{2,6}?)(?:项目|团队|小组|组|系统|服务|平台)")
NOT_A_CJK_PROJECT = frozenset("我们 咱们 你们 他们 这个 那个 这 那 整个 新 老 公司 我们的".split())
ADDRESS = re.compile(
    r"(?<!email )(?<!e-mail )(?i:\b(?:home |postal |mailing |new |street )?address)\s*"
    r"(?i:is now|is|:|has changed to|changed to)\s*(?i:now\s+)?(?P<value>.+)"
    r"|地址(?:是|为|改成了?|换成了?|变成了?)(?P<cjk>[^，。！？；]+)"
)
ADDRESS_END = re.compile(r"[;!?]|\.(?=\s|$)|\s(?i:from now on|now|since|starting)\b")
CONTACT_WHOSE = re.compile(
    r"(?P<whose>\b(?i:my|our|his|her|their)|[A-Z][\w-]*'s|我的?|[^\s，。]{1,4}的)\s*"
    r"(?i:new\s+|current\s+|work\s+|home\s+|mobile\s+|cell\s+|private\s+|新)?"
    r"(?i:phone|number|mobile|cell|email|e-mail|address|手机|电话|邮箱|地址)"
)
CJK_CONTACT_VERB = re.compile(r"换了|改了|换成|改成|有了?|的?新|留了")

# -- diet ---------------------------------------------------------------------------------
DIETS = (
    (re.compile(r"(?i:\bvegan\b|plant[- ]based)|纯素|全素"), "vegan"),
    (
        re.compile(
            r"(?i:\b(?:don't|do not|doesn't|does not|never|no longer|stopped|quit|gave up)\s+"
            r"(?:eat(?:ing)?\s+)?meat\b|\bvegetarian\b|\bveggie\b)|不吃肉|吃素|素食"
        ),
        "vegetarian",
    ),
    (re.compile(r"(?i:\bpesc[ae]tarian\b|only eats? fish)"), "pescatarian"),
    (re.compile(r"(?i:\bketo\b)|生酮"), "keto"),
    (
        re.compile(
            r"(?i:\beat(?:s|ing)?\s+(?:meat|everything|anything)\b|no dietary restrictions|"
            r"\bomnivore\b|\bcarnivore\b)|(?<!不)吃肉|什么都吃"
        ),
        "omnivore",
    ),
)

# -- tools --------------------------------------------------------------------------------
_TOOL = r"(?P<value>[A-Za-z][A-Za-z0-9+#.-]*)"
TOOL_CHOICE = (
    re.compile(
        r"(?i:\b(?:use[sd]?|using|adopt(?:ed|ing)?|chose|choose|picked|pick|went with|go with|"
        r"going with|standardi[sz]ed on|switch(?:ed|ing)? to|mov(?:ed|e|ing) to|"
        r"migrat(?:ed|e|ing) to|rewr(?:ote|ite|itten) in|written in|built (?:with|on|in)|"
        r"runs on|run on|running on))\s+(?:(?i:the|a)\s+)?" + _TOOL
    ),
    re.compile(
        r"(?i:\b(?:switch(?:ed|ing)?|mov(?:ed|e|ing)|migrat(?:ed|e|ing)|port(?:ed|ing)?))\s+"
        r"(?:(?i:the|our|my)\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?i:to|onto|over to)\s+" + _TOOL
    ),
    re.compile(r"(?:改用|换成了?|迁移到|使用|采用|改成了?|用)\s*" + _TOOL),
)
TOOL_DROP = (
    re.compile(
        r"(?i:\b(?:not|instead of|rather than|replac(?:ed|ing|es)|dropp(?:ed|ing)|"
        r"ditch(?:ed|ing)|abandon(?:ed|ing)|away from|no longer use|stopped using|from))\s+" + _TOOL
    ),
    re.compile(r"(?:不用|不再用|弃用|替换掉?|而不是|不是)\s*" + _TOOL),
)
TOOL_NAME = re.compile(
    r"[A-Za-z][A-Za-z0-9+#-]*(?:\.js|\.io)?(?:\s+(?:Actions|Code|CI|Server|Cloud|DB))?"
)
PURPOSE = re.compile(
    r"(?i:\b(?:for|as)\s+(?:the\s+|our\s+|a\s+)?)(?P<purpose>[a-z]+(?:\s+[a-z]+)?)"
)
PURPOSE_OF = {
    **dict.fromkeys("db database databases storage 数据库".split(), "database"),
    **dict.fromkeys("cache caching 缓存".split(), "cache"),
    **dict.fromkeys("queue queues messaging".split(), "queue"),
    **dict.fromkeys(("ci", "builds", "continuous integration"), "ci"),
    **dict.fromkeys(("frontend", "front end", "ui", "web ui"), "ui"),
    **dict.fromkeys("hosting deploys deployment infra infrastructure".split(), "cloud"),
    **dict.fromkeys("tickets issues tracking".split(), "tracker"),
    **dict.fromkeys("monitoring metrics alerting".split(), "monitoring"),
    **{p: p for p in "editor chat search logging auth payments email analytics docs".split()},
    **{p: p for p in "testing backend".split()},
}
_KINDS = {
    "database": "postgresql mysql mariadb sqlite mongodb dynamodb cassandra oracle mssql "
    "cockroachdb supabase firestore couchdb neo4j clickhouse",
    "warehouse": "snowflake bigquery redshift databricks",
    "cache": "redis memcached valkey",
    "queue": "kafka rabbitmq sqs nats pulsar",
    "language": "python go rust java kotlin typescript javascript ruby php swift scala elixir "
    "haskell clojure dart perl lua zig c# c++",
    "ui": "react vue angular svelte solid preact ember htmx next.js nuxt",
    "web framework": "django flask fastapi rails express spring laravel phoenix nestjs",
    "ci": "jenkins circleci travis buildkite drone teamcity",
    "cloud": "aws gcp azure hetzner digitalocean heroku vercel netlify fly.io linode",
    "editor": "vim neovim emacs vscode sublime intellij pycharm cursor zed",
    "chat": "slack discord mattermost",
    "tracker": "jira linear asana trello youtrack",
    "orchestration": "kubernetes nomad",
    "search": "elasticsearch opensearch meilisearch typesense solr",
    "monitoring": "grafana prometheus datadog sentry",
    "package manager": "npm yarn pnpm poetry conda",
    "browser": "chrome firefox safari",
}
KIND_OF = {name: kind for kind, names in _KINDS.items() for name in names.split()}
KIND_OF |= {"vs code": "editor", "github actions": "ci", "gitlab ci": "ci", "gitlab": "forge"}
KIND_OF |= {"github": "forge", "bitbucket": "forge", "sql server": "database"}

# Capitalised words that are not a project's name: sentence starters, pronouns, days.
NOT_A_PROJECT = re.compile(
    r"(?:i|we|the|a|an|my|our|you|he|she|they|it|this|that|actually|remember|note|please|"
    r"today|yesterday|tomorrow|now|new|decided|started|switched|moved|upgraded|also|so|"
    r"after|since|last|next|fyi|important|update|btw|ok|okay|then|finally|because|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|dr|mr|ms|mrs|"
    r"version|project|team|[a-z]+ed|[a-z]+ing)"
)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

# -- cues: a reader runs only on a sentence holding one of its words ----------------------
# Searched in the lower-cased sentence (faster than case-insensitive patterns); the role
# and tool cues are word sets, as an alternation of a hundred names is slow in ``re``.
# A cue is searched only when the sentence holds one of its literal parts (``_PARTS``, "|"
# between them: its gate, ``gates.py``; a digit also opens the version and schedule
# gates): most sentences hold none, and a failed search walks the whole sentence.
CUE_RESIDENCE = re.compile(r"liv|resid|based|settled|locat|mov|住|搬|定居|生活在|家在")
RESIDENCE_PARTS = "liv|resid|based|settled|locat|mov|住|搬|定居|生活在|家在"
CUE_EMPLOYER = re.compile(
    r"work|employ|job|position|started|hired|intern|joined|left|quit|resigned|laid off"
    r"|工作|上班|任职|实习|入职|跳槽|加入|在[^在]{2,14}(?:做|当|担任)"
)
EMPLOYER_PARTS = (
    "work|employ|job|position|started|hired|intern|joined|left|quit|resigned|laid off"
    "|工作|上班|任职|实习|入职|跳槽|加入|做|当|担任"
)
CUE_FAVOURITE = re.compile(r"favou?rite|最喜欢")
FAVOURITE_PARTS = "favorite|favourite|最喜欢"
CUE_VERSION = re.compile(
    r"\d\.\d|version|upgraded|bumped|updated|pinned|downgraded|版本|升级|降级"
    r"|\b(?:" + "|".join(sorted(BARE_VERSION)) + r")\s+v?\d"
)
VERSION_PARTS = "version|upgraded|bumped|updated|pinned|downgraded|版本|升级|降级"
CUE_SCHEDULE = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun|weekday|weekend)|\d:\d\d|\d\s*[ap]\.?m\b|noon|morning|afternoon|evening"
    r"|night|周[一二三四五六日天]|星期|礼拜|上午|下午|晚上|早上|中午|[\d一二两三四五六七八九十]点"
)
SCHEDULE_PARTS = (
    "mon|tue|wed|thu|fri|sat|sun|week|noon|morning|afternoon|evening|night"
    "|周|星期|礼拜|上午|下午|晚上|早上|中午|点"
)
CUE_CONTACT = re.compile(
    r"@|phone|number|mobile|cell|\btel\b|call me|whatsapp|address|手机|电话|号码|地址"
)
CONTACT_PARTS = "@|phone|number|mobile|cell|tel|call me|whatsapp|address|手机|电话|号码|地址"
# Where someone stands in love: one state at a time. "single" only as a state, not a
# "single room" or "single-handedly".
RELATIONSHIP = (
    (
        re.compile(
            r"(?i:\bsingle\b(?![-\w])(?!\s+(?:room|bed|file|page|line|point|source|day|time))"
            r"|\bnot (?:seeing|dating) anyone\b|\bbroke up\b|\bsplit up\b)|单身|分手"
        ),
        "single",
    ),
    (
        re.compile(
            r"(?i:\b(?:dating|going out with|in a relationship)\b|\bhas a (?:girl|boy)friend\b)"
            r"|谈恋爱|在一起了|有(?:男|女)朋友"
        ),
        "dating",
    ),
    (re.compile(r"(?i:\bengaged\b|\bfianc[ée]e?\b)|订婚"), "engaged"),
    (re.compile(r"(?i:\bmarried\b|\btied the knot\b|\bgot hitched\b)|结婚|已婚|成家"), "married"),
    (re.compile(r"(?i:\bdivorced\b|\bseparated\b)|离婚|离异"), "divorced"),
)
# A clause that asks, wishes or supposes ("why we didn't get married", "if she is vegan",
# "如果"): it states no one's diet or status.
UNASSERTED = re.compile(
    r"\b(?:why|whether|if|wonder|wondering|hope|hoping|wish|would|could|should|might|maybe)\b"
    r"|为什么|如果|要是|是否|希望|也许|可能",
    re.I,
)
CUE_RELATIONSHIP = re.compile(
    r"single|dating|going out|relationship|friend|engaged|fianc|married|knot|hitched|divorced"
    r"|separated|broke up|split up|单身|分手|恋爱|在一起|朋友|订婚|结婚|已婚|成家|离婚|离异"
)
RELATIONSHIP_PARTS = (
    "single|dating|going out|relationship|friend|engaged|fianc|married|knot|hitched"
    "|divorced|separated|broke up|split up|单身|分手|恋爱|在一起|朋友|订婚|结婚|已婚|成家"
    "|离婚|离异"
)
CUE_DIET = re.compile(
    r"vegan|plant|vegetarian|veggie|meat|pesc|fish|keto|\beat|omnivore|carnivore|diet"
    r"|素|肉|生酮|什么都吃"
)
DIET_PARTS = "veg|plant|meat|pesc|fish|keto|eat|omnivore|carnivore|diet|素|肉|生酮|什么都吃"
CUE_ROLE_CJK = re.compile(r"负责|经理|主管|组长|队长|老板|领导|上司|医生|牙医|房东")
ROLE_CUE_WORDS = frozenset(
    "lead leads leader led head heads headed manager managers manages managed pm owner owns "
    "maintainer captain chair coordinator boss supervisor ceo cto cfo coo director doctor "
    "dentist gp landlord therapist mentor lawyer accountant advisor physio trainer took takes "
    "taking runs run running report reports reported".split()
)
TOOL_CUE_WORDS = frozenset(
    {name.split()[0] for name in KIND_OF} | {p.split()[0] for p in PURPOSE_OF if p.isascii()}
)
CUE_TOOL_CJK = re.compile(r"数据库|缓存")
ASCII_WORD = re.compile(r"[a-z0-9+#.]+")
