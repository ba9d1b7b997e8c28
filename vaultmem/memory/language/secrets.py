"""Secrets: find them in a line of text and mask them, on precision.

What counts as a secret (each becomes ``[secret masked]``, the words around it stay):

* **Known token formats**, ported by hand from the published gitleaks and detect-secrets
  rule sets: AWS access key ids, GitHub, GitLab, Slack (tokens and webhooks), Stripe,
  OpenAI, Anthropic, Hugging Face, Google, npm, PyPI, SendGrid, Twilio, Shopify,
  DigitalOcean, HashiCorp Vault and Terraform, Discord and Telegram bots, JWTs, PEM private
  key blocks, age keys and more (``token_formats.py``). These shapes are a secret wherever they
  stand.
* **Credentials in URLs**: the password of ``scheme://user:password@host`` (the scheme,
  user and host stay), and the secret path of Slack and Discord webhooks.
* **Labelled values**: a value after a label that names a credential, in env, config,
  JSON, YAML, flag, header or prose form (``DB_PASSWORD=...``, ``"apiKey": "..."``,
  ``--token xyz``, ``Authorization: Bearer ...``, ``my password is ...``, ``密码：...``),
  whatever the phrasing between them: what the credential is for ("the admin password
  *for the router* is ...", ``_ABOUT``), a verb ("the password was reset to ...", "set the
  wifi password to ..."), typographic or CJK quotes (``“...”``, ``「...」``). The value must
  look like a credential (``credentials.py``): long enough, of mixed character classes or
  random enough, and not a word, a placeholder (``<your-token>``, ``${VAR}``, ``xxx``,
  ``***``, ``changeme``), a number of a setting, a version, a path, a URL or an email
  address. A password label accepts more: a word assigned in code (``passwd=letmein``) or
  quoted, four or more digits ("门锁密码：4821"), and plain words up to the end of their
  clause when none of them is a word of prose ("passphrase: correct horse battery
  staple"; a wallet's seed phrase of 12 to 24 words).
* **PINs**: four to eight digits after ``PIN``, ``PIN code``, ``passcode`` or ``PIN码``
  and an explicit separator ("PIN: 4821", "the PIN for the garage is 4821"); three or four
  after ``CVV``/``CVC``.
* **Passwords on command lines** (``command_lines.py``): ``sshpass -p``, ``docker login
  -p``, ``mysql -pSECRET``, ``htpasswd -b FILE USER SECRET``, ``openssl -passin pass:...``
  and the other commands that take one, found from the command, so ``ssh -p 2222`` and
  ``docker run -p 8080:80`` stay.

Deliberately kept, word for word: prose about passwords, tokens and keys ("the token
expires after fifteen minutes", "password manager", "the password for the router is on
the sticker", "令牌过期时间是十五分钟", "PIN code"); a single plain word after "password is"
in prose ("the password is required": a word cannot tell a password from a predicate);
hashes named as hashes (``sha256: 9f86…``, ``commit 3f2a9c1``); UUIDs, versions, paths and
URLs without credentials. There is no "any high-entropy string" rule: a git sha or a
checksum in prose is not a secret, and a safety net that rewrites ordinary words teaches
people to ignore it.

A field of a line (a role, a tag, ``[session:: ]``, a forget's ``[reason:: ]``) cannot
hold a bracket: ``mask_field`` masks it with ``(secret masked)`` instead.

Masking is idempotent: the markers hold ``[`` and ``]`` or ``(secret masked)``, which no
rule's value may hold or start with, so ``mask(mask(x)) == mask(x)`` and a marker is never
counted.

Linear time: every rule begins with a look-behind that refuses to start inside a run of its
own characters, so a long run of token characters is scanned once per rule, not once per
position; every other repetition is bounded; labelled values are read in a look-ahead (a
rejected label consumes only the label) and a value longer than the bound is extended by
one forward scan. A 1 MB line is masked in well under a second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from vaultmem.memory.language.command_lines import command_passwords
from vaultmem.memory.language.credentials import FIELD_MASK, MASK, credential, pass_phrase_end
from vaultmem.memory.language.gates import Gate, Line, fold
from vaultmem.memory.language.token_formats import token_spans

__all__ = ["FIELD_MASK", "MASK", "Finding", "find_secrets", "mask_field", "mask_secrets"]


@dataclass(frozen=True)
class Finding:
    """One secret in a text: ``text[start:end]`` is the part to hide."""

    start: int
    end: int
    kind: str


# ---- labelled values --------------------------------------------------------------------

_IDENT = r"[A-Za-z0-9_.\-]"
# A bare value is printable ASCII without quotes, brackets (the mask's) and the characters
# that end a value in a connection string or a table: , ; |  ("&name=" ends one too)
_BARE = r"[!#-&(-+\--:<-Z\\^_a-{}~]"
_NEXT_PARAMETER = re.compile(r"&[A-Za-z_][A-Za-z0-9_.\-]{0,40}=")
# The words a label ends in, as a tree of prefixes: the pattern tries them at each step of
# a label, and a flat list of twenty made every line with a label half as slow again.
# "phrase" is a label after "seed", "recovery" or "wallet" only (``_names_a_secret``).
_WORD = (
    r"(?:p(?:ass(?:word|wd|phrase|code)?s?|wd|w|sk)|secrets?|tokens?|cred(?:entials?|s)"
    r"|keys?|auth|phrases?|mnemonics?)"
)
# A quoted value ends at its own closing quote: ASCII quotes pair with themselves, and the
# typographic and CJK ones a chat app or an IME types (“…”, ‘…’, 「…」, 『…』) with theirs.
_VALUE = (
    r"(?=(?P<q>(?P<ascii>[\"'`])|(?P<double>“)|(?P<single>‘)|(?P<corner>「)|『)"
    r"(?P<qv>[^\"'`“”‘’「」『』\n\[\]]{1,256})"
    r"(?(ascii)(?P=ascii)|(?(double)”|(?(single)’|(?(corner)」|』))))"
    r"|[\"'`“‘「『]?(?P<bv>" + _BARE + r"{1,256}))"
)
_OP = r"(?P<op>:=|=>|==?|:|：)"
_VERB = r"(?:is now|has been|will be|is|was|are|were)"
# What a prose label is for, between it and its value: "the password *for the home NAS* is
# ...", "the PIN *of the office safe*: ...". At most five words, none ending a clause, and
# only when a value's separator follows (a bounded look: linear time holds).
_ABOUT = (
    r"(?P<about>[ \t](?i:for|of|to|at|on|in|from|with)"
    r"(?:[ \t](?:[^\s:=：,;.!?\"`\[\]]|\.(?=\S)){1,30}){1,5}?"
    r"(?=[ \t]{0,3}[:=：]|[ \t]{1,3}(?:" + _VERB + r"|to)[ \t]))?"
)
_LABELLED = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<flag>--?)?"
    # "my password", "AWS secret key", "DB_PASSWORD", "aws_secret_access_key", "apiKey"
    r"(?P<key>(?:[A-Za-z]{1,15} )?" + _IDENT + r"{0,40}?(?i:" + _WORD + r")"
    r"(?: (?i:key|token|secret|password))?" + _IDENT + r"{0,40})" + _ABOUT + r"(?:"
    r"(?:\*\*|__)?[\"']?[ \t]{0,3}(?:\*\*|__)?" + _OP + r"(?:\*\*|__)?[ \t]{0,3}"
    r"|[ \t]{0,3}(?P<cjk>是|为|為)[ \t]{0,3}"
    # "the password was changed to ...", "set the wifi password to ..." (``_SET_BEFORE``)
    r"|[ \t]{1,3}(?P<to>(?:(?:was|is|has been|got|gets) )?"
    r"(?:changed|set|reset|updated|rotated) to|to)[ \t]{1,3}"
    r"|[ \t]{1,3}(?P<verb>" + _VERB + r"):?[ \t]{1,3}"
    # "Token MYSQL_PWD='...'": a bare space never takes a value that is itself a label
    r"|(?P<space>[ \t]{1,3})(?!" + _IDENT + r"{0,40}?(?i:" + _WORD + r")" + _IDENT + r"{0,40}"
    r"[\"']?[ \t]{0,3}[:=：]))" + _VALUE
)
# "set/change/reset/update ... <label> to <value>": the verb within three words before it
_SET_BEFORE = re.compile(
    r"(?i:\b(?:set|sets|setting|changed?|changes|changing|reset|resets|resetting|updated?"
    r"|updates|updating|rotated?|rotates))(?:[ \t]+[^\s]{1,30}){0,3}?[ \t]+$"
)
# "密码是 ...", "密码为：...", "把密码改成 ..." ("changed to"), "设为"/"设置为" ("set to")
_LABELLED_ZH = re.compile(
    r"(?P<key>密码|口令|密钥|秘钥|私钥|令牌)[ \t]{0,3}"
    r"(?:(?:是|为|為|改成|改为|改為|换成|換成|设为|設為|设置为|設置為)[ \t]{0,3}[:：]?|[:：=]"
    # "WiFi 密码 Xk9#mPq2": a bare space asks more of the value, as in English
    r"|(?P<space>(?=[ \t])))[ \t]{0,3}" + _VALUE
)
# A PIN, a passcode or a card's security code: digits after an explicit separator ("PIN:
# 4821", "my PIN is 4821", "the PIN for the garage is 4821", "PIN码是 4821", "PIN 4821").
# "PIN code" prose, a GPIO pin, "pin: 3.2.1" and "my PIN has 4 digits" are none.
_PIN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?P<key>(?i:pin(?:[ _\-]?(?:code|number))?|passcode|cvv2?|cvc2?)"
    r"|PIN[ \t]?码)" + _ABOUT + r"[\"']?"
    r"(?:[ \t]{0,3}(?:[:=：]|是|为|為)|[ \t]{1,3}" + _VERB + r"[ \t]{0,3}:?|(?<=PIN)(?=[ \t]))"
    r"[ \t]{0,3}[\"'“‘「]?(?P<bv>[0-9]{3,8})(?![0-9A-Za-z_]|[.,:/\-][0-9])"
)
_AUTH_HEADER = re.compile(
    r"(?i:(?<![A-Za-z0-9_\-])(?:proxy-)?authorization[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
    r"(?:(?:bearer|basic|token|bot|apikey|digest|sso-key)[ \t]{1,3})?"
    r"|(?<![A-Za-z0-9_\-])bearer[ \t]{1,3})" + _VALUE
)
# <password>...</password> in XML and .NET configs
_XML = re.compile(r"<(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,60})>(?=(?P<qv>[^<\n\[\]]{1,256})</)")
_CURL_USER = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:-u|--user)[ \t=]{1,3}[\"']?[^\s:\"'\[\]]{1,64}:" + _VALUE
)

_PASSWORD_WORDS = {"password", "passwords", "passwd", "pwd", "pw", "pass", "passphrase"}
_PASSWORD_WORDS |= {"passphrases", "passcode", "passcodes", "psk"}
# "seed phrase", "recovery phrase", "mnemonic": a wallet's words, twelve to twenty-four
_SEED_WORDS = {"seed", "recovery", "wallet"}
_SECRET_WORDS = {"secret", "secrets", "token", "tokens", "credential", "credentials", "creds"}
_SECRET_WORDS |= {"auth", "apikey", "apikeys", "accesskey", "secretkey", "privatekey"}
_SECRET_WORDS |= {"authtoken", "accesstoken", "refreshtoken", "apitoken", "clientsecret"}
# Short labels that are also ordinary words read as labels only in code-like assignments.
_CODE_ONLY = {"pass", "pw", "pwd", "auth", "creds", "mnemonic", "mnemonics"}
# Env names glue words: PGPASSWORD, MYSQLPASSWORD, CSRFTOKEN (not "bypass", "monkey", "OLDPWD")
_GLUED = re.compile(r"(?:password|passwd|passphrase|secret|token|apikey|secretkey|accesskey)s?$")
# "password_hash", "public_key", "token_count": the value is not the credential itself.
_NOT_SECRET_ANYWHERE = set(
    "public pub publishable hash hashed sha sha1 sha256 sha512 md5 digest checksum "
    "fingerprint policy manager".split()
)
_NOT_SECRET_LAST = set(
    "id ids name names path file files dir url uri endpoint type kind count length len size "
    "limit limits max min ttl expiry expires expiration lifetime timeout format prompt field "
    "hint label header regex pattern rotation reset required enabled enable mode version "
    "budget usage window encoding encoder tokenizer strength placeholder location env var "
    "ref source provider helper age date time scope scopes user username login email "
    "length_min length_max".split()
)
# "key" alone is no label ("key: Ctrl+K"); qualified keys are, unless the qualifier says
# the key is an index or a lookup.
_NOT_SECRET_KEY = set(
    "the a an my your our their this that its any each one no new old main primary foreign "
    "sort partition cache index idempotency hot short shortcut lookup dict map row group "
    "composite unique natural surrogate range routing object s3 translation i18n cursor "
    "page next music piano house door car home".split()
)


def find_secrets(text: str) -> list[Finding]:
    """Every secret in ``text``, as spans in text order with overlaps merged.

    Known formats are found first; labels are then read in the text with those already
    masked, as a second run would read it ("ghp_...DB_PASSWORD=x" and its masked form
    give the same answer), so masking is idempotent.

    Args:
        text: any text; a line, a note, a megabyte of garbage.

    Returns:
        The findings, sorted and disjoint; empty when nothing looks like a credential.
    """
    known = _merge(list(_formats(text)))
    masked = _apply(text, known)
    # a position in the masked text -> the same position in ``text``
    ends: list[int] = []
    shifts: list[int] = []
    delta = 0
    for finding in known:
        ends.append(finding.start - delta + len(MASK))
        delta += finding.end - finding.start - len(MASK)
        shifts.append(delta)

    def back(pos: int) -> int:
        index = bisect.bisect_right(ends, pos)
        return pos + (shifts[index - 1] if index else 0)

    labelled = _labelled(masked) + [
        Finding(start, end, "password") for start, end in command_passwords(masked)
    ]
    return _merge(known + [Finding(back(f.start), back(f.end), f.kind) for f in labelled])


def mask_secrets(text: str) -> tuple[str, int]:
    """Replace each secret in ``text`` with ``[secret masked]``.

    Returns:
        The masked text and how many secrets were masked. ``mask_secrets`` of its own
        output changes nothing and counts nothing.
    """
    findings = find_secrets(text)
    return _apply(text, findings), len(findings)


def mask_field(value: str) -> tuple[str, int]:
    """``value`` made fit for a field of a line (a role, a tag, ``[session:: ]``, ``[reason::
    ]``): on one line, its brackets as parentheses (a bracket would end the field), and
    each secret as ``FIELD_MASK``, ``(secret masked)``: the marker in the words,
    ``[secret masked]``, would end the field too.

    Every field vaultmem writes from what it is given passes here, as the words pass
    ``mask_secrets``: a token in a session id, a tag or a forget reason is a token still.
    Idempotent, like ``mask_secrets``: ``mask_field`` of its own output changes nothing.

    Returns:
        The field's value and how many secrets were masked in it.
    """
    one_line = " ".join(value.replace("[", "(").replace("]", ")").split())
    masked, count = mask_secrets(one_line)
    return masked.replace(MASK, FIELD_MASK), count


def _apply(text: str, findings: list[Finding]) -> str:
    """``text`` with each (sorted, disjoint) finding replaced by the marker."""
    if not findings:
        return text
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts += [text[last : finding.start], MASK]
        last = finding.end
    parts.append(text[last:])
    return "".join(parts)


def _formats(text: str) -> Iterator[Finding]:
    for start, end, kind in token_spans(text):
        yield Finding(start, end, kind)


# What any match of each label pattern holds (case-folded): a line holding none of a
# pattern's parts is not searched with it (most lines name no credential at all).
_LABEL_GATES = tuple(
    (pattern, Gate(parts=parts))
    for pattern, parts in (
        (
            _LABELLED,
            ("pass", "pw", "psk", "secret", "token", "cred", "key", "auth", "phrase", "mnem"),
        ),
        (_LABELLED_ZH, ("密码", "口令", "密钥", "秘钥", "私钥", "令牌")),
        (_PIN, ("pin", "passcode", "cvv", "cvc")),
        (_AUTH_HEADER, ("authorization", "bearer")),
        (_XML, ("<",)),
        (_CURL_USER, ("-u",)),
    )
)


def _labelled(text: str) -> list[Finding]:
    out: list[Finding] = []
    # Gates of parts alone: the folded text is all they read (no word set of a long text).
    line = Line.lowered(fold(text))
    for pattern, gate in _LABEL_GATES:
        if not gate.admits(line):
            continue
        covered = 0  # values already masked end here: later labels inside them are skipped
        for match in pattern.finditer(text):
            quoted = _quoted(match)
            start, end = match.span("qv" if quoted else "bv")
            if start < covered or text.startswith(FIELD_MASK, match.start() - 1):
                continue  # "(secret masked)" names no secret of its own
            if FIELD_MASK in text[match.start() : start]:
                continue  # the label's value was masked already: what follows is not it
            # the label's words, split once: "DB_PASSWORD" -> ["db", "password"]
            words = _components(match.group("key")) if pattern in (_LABELLED, _XML) else []
            if not _is_label(match, pattern, words):
                continue
            if _FIELD_MASK_START in text[start:end] or (
                not quoted and text[end : end + 1] in ("[", "]")
            ):
                continue  # masked, or glued to a link or to a mask: no value of its own
            value = text[start:end]
            parameter = _NEXT_PARAMETER.search(value)  # ?token=...&page=2
            trimmed = value[: parameter.start()] if parameter else value
            trimmed = trimmed.rstrip(".,:;)")
            password = _family(match, pattern, words)
            weak = _weak(match, pattern)
            if pattern is _PIN:
                if not _pin(match.group("key"), trimmed):
                    continue
                end = start + len(trimmed)
            elif credential(trimmed, password, weak, _assigned(match, pattern)):
                if len(trimmed) == 256 and not quoted:  # longer than the bound
                    end = _run_end(text, end)
                else:
                    end = start + len(trimmed)
            elif password and not weak and not quoted and text[start].isalnum():
                phrase_end = pass_phrase_end(text, start, _seed(words))
                if phrase_end is None:
                    continue
                end = phrase_end
            else:
                continue
            out.append(Finding(start, end, "password" if password else "secret"))
            covered = end
    return out


# The start of ``FIELD_MASK``, as a bare value (which ends at a space) reads it.
_FIELD_MASK_START = FIELD_MASK.split(" ", 1)[0]


def _quoted(match: re.Match[str]) -> bool:
    return "qv" in match.re.groupindex and match.group("qv") is not None


_VALUE_CHAR = re.compile(_BARE + "*")


def _run_end(text: str, pos: int) -> int:
    found = _VALUE_CHAR.match(text, pos)
    return found.end() if found else pos


def _pin(key: str, digits: str) -> bool:
    """A PIN or passcode has four to eight digits, a card's security code three or four;
    one digit repeated ("0000") stands for one."""
    shortest, longest = (3, 4) if key.lower().startswith("cv") else (4, 8)
    return shortest <= len(digits) <= longest and len(set(digits)) > 1


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_PASSWORD_END = re.compile(r"pass(?:word|wd)s?$")


def _components(key: str) -> list[str]:
    spaced = _CAMEL.sub(" ", key)
    return [part for part in _NOT_ALNUM.split(spaced.lower()) if part]


def _is_label(match: re.Match[str], pattern: re.Pattern[str], words: list[str]) -> bool:
    if pattern is _XML:
        return _names_a_secret(words, code_like=True)
    if pattern is not _LABELLED:
        return True
    if match.group("to") == "to":  # "set the wifi password to ...", not "send the password to"
        window = match.string[max(0, match.start("key") - 48) : match.start("key")]
        if _SET_BEFORE.search(window) is None:
            return False
    return _names_a_secret(words, bool(match.group("op") or match.group("flag")))


def _names_a_secret(parts: list[str], code_like: bool) -> bool:
    """Whether a label (its words, ``_components``) names a credential: ``DB_PASSWORD``,
    ``apiKey``, ``PGPASSWORD``, ``AWS secret key``, ``seed phrase``; not ``token_count``,
    ``public_key``, ``password_hash``, ``key``."""
    if not parts or parts[-1] in _NOT_SECRET_LAST or _NOT_SECRET_ANYWHERE.intersection(parts):
        return False
    for index, part in enumerate(parts):
        if part in _CODE_ONLY and not code_like:
            continue
        if part in _PASSWORD_WORDS or part in _SECRET_WORDS or _GLUED.search(part):
            return True
        if part.startswith("mnemonic"):
            return True
        if part in ("phrase", "phrases") and index and parts[index - 1] in _SEED_WORDS:
            return True
        if part in ("key", "keys") and any(other not in _NOT_SECRET_KEY for other in parts[:index]):
            return True
    return False


def _family(match: re.Match[str], pattern: re.Pattern[str], words: list[str]) -> bool:
    """Whether the label names a password (any word may be one) rather than a token."""
    if pattern is _CURL_USER:
        return True
    if pattern is _LABELLED_ZH:
        return match.group("key") in ("密码", "口令")
    return any(p in _PASSWORD_WORDS or _PASSWORD_END.search(p) for p in words) or _seed(words)


def _seed(parts: list[str]) -> bool:
    """Whether a label's words name a wallet's recovery words (``seed phrase``,
    ``mnemonic``)."""
    return any(
        part.startswith("mnemonic") or (part.startswith("phrase") and previous in _SEED_WORDS)
        for previous, part in zip(["", *parts], parts, strict=False)
    )


def _assigned(match: re.Match[str], pattern: re.Pattern[str]) -> bool:
    """Code, or a value set apart: ``passwd=letmein``, ``"password": "letmein"``, ``my
    password is 'letmein'``."""
    if pattern is not _LABELLED:
        return False
    return match.group("op") in ("=", ":=", "=>") or match.group("qv") is not None


def _weak(match: re.Match[str], pattern: re.Pattern[str]) -> bool:
    """A label followed by a bare space ("password manager") asks more of the value."""
    if pattern is _LABELLED_ZH:
        return match.group("space") is not None
    return pattern is _LABELLED and bool(match.group("space")) and not match.group("flag")


def _merge(found: list[Finding]) -> list[Finding]:
    merged: list[Finding] = []
    for finding in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.start, max(last.end, finding.end), last.kind)
        else:
            merged.append(finding)
    return merged
