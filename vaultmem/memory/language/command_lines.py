"""Passwords given on command lines: which commands take one, and in which argument.

``-p`` is a port to ``ssh`` and ``psql``, a parent folder to ``mkdir``, a patch to ``git``
and a project to ``docker compose``; it is a password only to a few commands
(``sshpass -p``, ``docker login -p``, ``mysql -pSECRET``). So a command line's password is
found from its command (``COMMANDS``): the options that take one, the argument that is
one (``htpasswd -b FILE USER PASSWORD``, ``sqlplus USER/PASSWORD@DB``), and for some
commands the subcommand it comes after (``docker login``, not ``docker run``). The value
is masked whatever it is (a word too: it was typed as a password), unless it stands for
one (``$PASSWORD``, ``$(cat file)``, ``env:VAR``, ``-`` for standard input, ``PASSWORD``),
is a word of prose (``sshpass -p with ...`` in a sentence about it), or is masked already.

Generic credential flags of any command (``--password X``, ``--token X``, ``--api-key X``)
are labels and belong to ``secrets.py``; so do ``curl -u user:password`` and URLs.

Linear time: each command is read up to the end of its shell command (a line end, ``|``,
``;``, ``&&``, a redirection), the next command named in ``COMMANDS`` or ``REACH``
characters, whichever comes first, so no character is read twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from vaultmem.memory.language.credentials import FIELD_MASK, MASK, PROSE_WORDS, placeholder


@dataclass(frozen=True)
class Command:
    """How one command takes a password on its command line."""

    # options followed by the password ("-p SECRET"); a long one also as "--password=SECRET"
    spaced: tuple[str, ...] = ()
    # options with the password attached only ("-pSECRET": mysql's "-p SECRET" asks for it,
    # and SECRET is the database); a long one as "--password=SECRET"
    attached: tuple[str, ...] = ()
    # options whose value is a user, ``separator`` and the password ("-U bob%SECRET")
    user: tuple[str, ...] = ()
    separator: str = ""
    # the arguments the command must start with for its options to mean a password
    subcommands: tuple[tuple[str, ...], ...] = ()
    # its own options end at its first argument, the command it runs (sshpass -p X ssh -p 22)
    options_first: bool = False
    # the password is this argument after the subcommand (with ``separator``: its part after
    # the separator, up to ``until``)
    argument: int | None = None
    until: str = ""
    # ... given only with this option letter (htpasswd -b); with ``omits`` one argument
    # before it is left out (htpasswd -nb USER PASSWORD prints instead of naming a file)
    needs: str = ""
    omits: str = ""

    def passwords(self, text: str, words: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
        """The spans of the passwords among a command's ``words`` (spans in ``text``)."""
        found: list[tuple[int, int]] = []
        arguments: list[tuple[int, int]] = []
        letters: set[str] = set()
        index = 0
        while index < len(words):
            start, end = words[index]
            word = text[start:end]
            index += 1
            if word in self.spaced or word in self.user:
                if index < len(words) and not _is_option(text, *words[index]):
                    found += _within(text, *words[index], self._separator(word))
                    index += 1
                continue
            attached = self._attached(word)
            if attached is not None:
                name, value_start = attached
                found += _within(text, start + value_start, end, self._separator(name))
                continue
            if _is_option(text, start, end):
                if word[1:].isalpha() and not word.startswith("--"):
                    letters.update(word[1:])
                continue
            if self.options_first:
                break  # the command sshpass runs: its options are its own
            arguments.append((start, end))
        texts = tuple(text[s:e] for s, e in arguments)
        lead = next((len(sub) for sub in self.subcommands if texts[: len(sub)] == sub), None)
        if self.subcommands and lead is None:
            return  # docker run, not docker login: -p is a port
        lead = lead or 0
        if self.argument is not None and set(self.needs) <= letters:
            at = lead + self.argument - (1 if self.omits and self.omits in letters else 0)
            if at < len(arguments):
                found += _within(text, *arguments[at], self.separator, self.until)
        yield from (span for span in found if _stands_for_itself(text[span[0] : span[1]]))

    def _separator(self, option: str) -> str:
        return self.separator if option in self.user else ""

    def _attached(self, word: str) -> tuple[str, int] | None:
        """The option and where its value starts, for ``-pSECRET``, ``--password=SECRET``,
        ``/p:SECRET``, ``-Ubob%SECRET``; ``None`` for any other word."""
        for name in (*self.attached, *self.spaced, *self.user):
            if name.startswith("--") or (name.startswith("-") and len(name) > 2):
                glued = name + "="  # "-passin" is no "-p" with "assin"
            elif name in self.attached or name in self.user or name.endswith(":"):
                glued = name  # "-pSECRET", "-Ubob%SECRET", "/p:SECRET"
            else:
                continue  # an option spaced only: "-p SECRET"
            if word.startswith(glued) and len(word) > len(glued):
                return name, len(glued)
        return None


_LOGIN = Command(spaced=("-p", "--password"), subcommands=(("login",),))
_SPACED_P = Command(spaced=("-p", "--password"))
_MYSQL = Command(attached=("-p", "--password"))
_ARCHIVE = Command(attached=("-p",))
_ZIP = Command(spaced=("-P", "--password"))
_LDAP = Command(spaced=("-w",), attached=("-w",))
_SQL_SERVER = Command(spaced=("-P",))
_FREERDP = Command(attached=("/p:",))
_SAMBA = Command(spaced=("--password",), user=("-U", "--user"), separator="%")
_GPG = Command(spaced=("--passphrase",))
_JAVA_KEYS = Command(
    spaced=(
        "-storepass",
        "-keypass",
        "-srcstorepass",
        "-deststorepass",
        "-srckeypass",
        "-destkeypass",
        "-new",
    )
)

# Each command that takes a password on its command line, and how (``Command``).
COMMANDS: dict[str, Command] = {
    "sshpass": Command(spaced=("-p",), attached=("-p",), options_first=True),
    **dict.fromkeys(("docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "az"), _LOGIN),
    "helm": Command(spaced=("-p", "--password"), subcommands=(("registry", "login"),)),
    "twine": Command(spaced=("-p", "--password"), subcommands=(("upload",),)),
    **dict.fromkeys(
        (
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlsh",
            "mysqlimport",
            "mysqlcheck",
            "mysqlshow",
            "mysqlpump",
            "mariadb",
            "mariadb-dump",
            "mariadb-admin",
        ),
        _MYSQL,
    ),
    "redis-cli": Command(spaced=("-a", "--pass")),
    **dict.fromkeys(
        (
            "mongo",
            "mongosh",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
            "mongostat",
            "mongotop",
            "mongofiles",
            "cqlsh",
            "psexec",
            "rdesktop",
        ),
        _SPACED_P,
    ),
    **dict.fromkeys(
        (
            "ldapsearch",
            "ldapadd",
            "ldapmodify",
            "ldapdelete",
            "ldapwhoami",
            "ldappasswd",
            "ldapcompare",
            "ldapmodrdn",
            "ldapexop",
        ),
        _LDAP,
    ),
    **dict.fromkeys(("sqlcmd", "bcp", "osql"), _SQL_SERVER),
    **dict.fromkeys(("zip", "unzip", "zipcloak"), _ZIP),
    **dict.fromkeys(("7z", "7za", "7zr", "7zz", "rar", "unrar"), _ARCHIVE),
    **dict.fromkeys(("keytool", "jarsigner"), _JAVA_KEYS),
    "openssl": Command(spaced=("-passin", "-passout", "-pass", "-k", "-password")),
    **dict.fromkeys(("gpg", "gpg2"), _GPG),
    "ssh-keygen": Command(spaced=("-N", "-P")),
    **dict.fromkeys(("xfreerdp", "xfreerdp3", "wlfreerdp", "sdl-freerdp"), _FREERDP),
    **dict.fromkeys(("smbclient", "rpcclient", "smbcacls", "smbget"), _SAMBA),
    "lftp": Command(user=("-u",), separator=","),
    "wget": Command(spaced=("--password", "--http-password", "--ftp-password", "--proxy-password")),
    "htpasswd": Command(argument=2, needs="b", omits="n"),
    "rabbitmqctl": Command(subcommands=(("add_user",), ("change_password",)), argument=1),
    "net": Command(subcommands=(("user",),), argument=1),
    "sqlplus": Command(argument=0, separator="/", until="@"),
}

# How far a command's arguments are read: longer command lines are rare, and the bound
# keeps a line of ten thousand "zip" words linear.
REACH = 400

_COMMAND = re.compile(
    r"(?<![A-Za-z0-9_./\\\-])(?P<name>"
    + "|".join(re.escape(name) for name in sorted(COMMANDS, key=len, reverse=True))
    + r")(?:\.exe)?(?=[ \t])"
)
# One shell word: quoted parts and a masked secret are parts of it; a space, a line end,
# "|", ";", "&&", "<", ">" and "`" end it.
_WORD = re.compile(
    r"(?:" + re.escape(MASK) + "|" + re.escape(FIELD_MASK) + r"|'[^'\n]*'|\"[^\"\n]*\""
    r"|&(?=[^\s&])|[^\s'\"|;&<>`])+"
)
_BLANKS = re.compile(r"[ \t]*")
# A value that names where the password is, not the password (openssl -passin env:VAR)
_INDIRECT = re.compile(r"(?:env|file|fd):|stdin$")
# An all-capitals name of a password: a placeholder in a how-to ("-p PASSWORD")
_NAMED = re.compile(r"[A-Z_]*(?:PASS|PWD|SECRET|TOKEN|KEY)[A-Z0-9_]*")


# Every command line with a password holds one of these (an option, or the words before
# the argument that is the password): most text holds none and is not searched further.
_HINTS = (" -", "\t-", "/p:", "add_user", "change_password", "net user", "sqlplus")


def command_passwords(text: str) -> list[tuple[int, int]]:
    """The spans of the passwords given on command lines in ``text``, in text order."""
    found: list[tuple[int, int]] = []
    for hint in _HINTS:  # a loop, not any(): no generator for each line of a run
        if hint in text:
            break
    else:
        return found
    commands = list(_COMMAND.finditer(text))
    for number, match in enumerate(commands):
        stop = min(len(text), match.end() + REACH)
        if number + 1 < len(commands):
            stop = min(stop, commands[number + 1].start())
        words = _words(text, match.end(), stop)
        found += COMMANDS[match.group("name")].passwords(text, words)
    return found


def _words(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of a command's words from ``start``, up to the end of its command."""
    spans: list[tuple[int, int]] = []
    position = start
    while True:
        blanks = _BLANKS.match(text, position, stop)
        position = blanks.end() if blanks else position
        word = _WORD.match(text, position, stop)
        if word is None:
            return spans
        spans.append(word.span())
        position = word.end()


def _is_option(text: str, start: int, end: int) -> bool:
    return text[start] == "-" and end - start > 1


def _within(
    text: str, start: int, end: int, separator: str = "", until: str = ""
) -> list[tuple[int, int]]:
    """The span of the password in the word ``text[start:end]``: inside its quotes, after
    ``pass:`` (openssl), after ``separator`` (user%password) and before ``until``."""
    if end - start >= 2 and text[start] in "'\"" and text[end - 1] == text[start]:
        start, end = start + 1, end - 1
    if text.startswith("pass:", start, end):
        start += len("pass:")
    if separator:
        cut = text.find(separator, start, end)
        if cut < 0:
            return []  # "-U bob": the password is asked for
        start = cut + 1
        if end - start >= 2 and text[start] in "'\"" and text[end - 1] == text[start]:
            start, end = start + 1, end - 1
    if until:
        cut = text.find(until, start, end)
        end = cut if cut >= 0 else end
    return [(start, end)] if start < end else []


def _stands_for_itself(value: str) -> bool:
    """Whether a password given on a command line is one, not a stand-in or prose."""
    return not (
        value[0] in "-$`/%"
        or _INDIRECT.match(value) is not None
        or placeholder(value)
        or value.casefold() in PROSE_WORDS
        or _NAMED.fullmatch(value) is not None
    )
