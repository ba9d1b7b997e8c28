"""Secret masking on precision: credentials go, every other word stays, in linear time.

Each table row is one shape. A masked row asserts the whole expected text (the secret
replaced by the marker, every other character kept); a prose row asserts the text is not
touched at all.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from conftest import MOST_GROWTH, copy_shared, growth, repeated, write
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.memory.language.secrets import MASK, find_secrets, mask_secrets


def token(prefix: str, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A made-up credential: ``prefix`` and ``length`` characters, the same on every run."""
    chars = random.Random(prefix + str(length)).choices(alphabet, k=length)
    return prefix + "".join(chars)


HEX = "0123456789abcdef"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + token("MIIEow", 58, string.ascii_letters + string.digits + "+/")
    + "\n"
    + token("", 64, string.ascii_letters + string.digits + "+/")
    + "\n-----END RSA PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

# (text with the secret, the part that must go): expected = text with that part masked
SECRETS = [
    ("DB_PASSWORD=hunter2xyz", "hunter2xyz"),
    ("passwd=letmein in the old cron job", "letmein"),
    ('{"user": "admin", "password": "sunshine"}', "sunshine"),
    ("mysql -uroot -pS3cr3tPass shop < dump.sql", "S3cr3tPass"),
    (
        'export API_TOKEN="a8f5f167f44f4964e6c998dee827110c" # staging',
        "a8f5f167f44f4964e6c998dee827110c",
    ),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("the key id is AKIAIOSFODNN7EXAMPLE for prod", "AKIAIOSFODNN7EXAMPLE"),
    ("GITHUB_TOKEN=" + token("ghp_", 36), token("ghp_", 36)),
    ("oauth " + token("gho_", 36) + " works", token("gho_", 36)),
    ("app user token " + token("ghu_", 36), token("ghu_", 36)),
    ("installation " + token("ghs_", 36) + " expires", token("ghs_", 36)),
    ("refresh with " + token("ghr_", 36), token("ghr_", 36)),
    ("fine-grained " + token("github_pat_", 82) + " done", token("github_pat_", 82)),
    ("gitlab " + token("glpat-", 20) + " for CI", token("glpat-", 20)),
    (
        "bot xoxb-123456789012-1234567890123-" + token("", 24),
        "xoxb-123456789012-1234567890123-" + token("", 24),
    ),
    ("user " + token("xoxp-", 40) + " ok", token("xoxp-", 40)),
    (
        "post to https://hooks.slack.com/services/T024BE7LD/B01234567/" + token("", 24) + " daily",
        "T024BE7LD/B01234567/" + token("", 24),
    ),
    ("stripe " + token("sk_live_", 24) + " in prod", token("sk_live_", 24)),
    ("restricted " + token("rk_live_", 24), token("rk_live_", 24)),
    ("test key " + token("sk_test_", 24) + " for dev", token("sk_test_", 24)),
    ("OPENAI_API_KEY=" + token("sk-proj-", 48), token("sk-proj-", 48)),
    ("legacy openai " + token("sk-", 48) + " revoked", token("sk-", 48)),
    ("claude " + token("sk-ant-api03-", 93) + "AA here", token("sk-ant-api03-", 93) + "AA"),
    ("hugging face " + token("hf_", 34) + " read", token("hf_", 34)),
    ("maps " + token("AIza", 35) + " browser", token("AIza", 35)),
    ("publish with " + token("npm_", 36), token("npm_", 36)),
    ("twine " + token("pypi-AgEIcHlwaS5vcmc", 60) + " upload", token("pypi-AgEIcHlwaS5vcmc", 60)),
    ("mail " + token("SG.", 22) + token(".", 43) + " ok", token("SG.", 22) + token(".", 43)),
    ("twilio " + token("SK", 32, HEX) + " api", token("SK", 32, HEX)),
    ("shop " + token("shpat_", 32, HEX) + " admin", token("shpat_", 32, HEX)),
    ("droplet " + token("dop_v1_", 64, HEX) + " pat", token("dop_v1_", 64, HEX)),
    ("VAULT_TOKEN=" + token("hvs.", 90), token("hvs.", 90)),
    (
        "discord bot MTA4NzY1NDMyMTA5ODc2NTQzMg.GhIjKl." + token("", 38) + " online",
        "MTA4NzY1NDMyMTA5ODc2NTQzMg.GhIjKl." + token("", 38),
    ),
    ("telegram 123456789:" + token("AA", 33) + " bot", "123456789:" + token("AA", 33)),
    ("session " + JWT + " expired", JWT),
    ("key:\n" + PEM + "\nkeep this", PEM),
    (
        "age " + token("AGE-SECRET-KEY-1", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") + " backup",
        token("AGE-SECRET-KEY-1", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    ),
    ("db at postgres://admin:S3cr3tPass@db.internal:5432/app", "S3cr3tPass"),
    ("cache redis://:p4ssw0rdXyz@cache:6379/0 fast", "p4ssw0rdXyz"),
    ("clone https://bob:tok3nValue99@git.example.com/team/repo.git", "tok3nValue99"),
    ('{"user": "bob", "password": "correct7horse"}', "correct7horse"),
    ("password: Tr0ub4dor!3", "Tr0ub4dor!3"),
    ("mytool login --password xyz12345abc --user bob", "xyz12345abc"),
    ("connect with pw=hunter2x now", "hunter2x"),
    ("Authorization: Bearer " + token("", 40) + " sent", token("", 40)),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' api", "dXNlcjpwYXNzd29yZA=="),
    ("服务器密码：Abc12345 别忘了", "Abc12345"),
    ("数据库口令是 Zx9!kq2Lm 请保密", "Zx9!kq2Lm"),
    ("密钥=" + token("", 32) + " 已轮换", token("", 32)),
    ("访问令牌：" + token("", 40) + " 有效", token("", 40)),
    ("my password is hunter22 ok", "hunter22"),
    ("curl -u admin:S3cretPw1 https://api.example.com", "S3cretPw1"),
    ("Server=db;User Id=sa;Password=Str0ngP4ss;Database=app", "Str0ngP4ss"),
    ("GET /v1/items?access_token=" + token("", 32) + "&page=2", token("", 32)),
    ('config = {"apiKey": "' + token("", 39) + '"}', token("", 39)),
    ("SECRET_KEY=django-insecure-k2#9xq!7zv@w", "django-insecure-k2#9xq!7zv@w"),
    ("HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
    ("machine api.example.com login bob password s3cr3tPa55", "s3cr3tPa55"),
    ("MYSQL_PWD='s3cr3t!x9'", "s3cr3t!x9"),
    ("client_secret: " + token("GOCSPX-", 28), token("GOCSPX-", 28)),
    ("the wifi password: 84613927", "84613927"),
    ("**Password:** Gr8Sunset#42 for the router", "Gr8Sunset#42"),
]

PROSE = [
    "if password == confirm: show the form again",
    "The token expires after fifteen minutes",
    "Save the token to a safe place like your password manager.",
    "My password policy requires 12 characters and a symbol.",
    "API key rotation happens every 90 days.",
    "The access token lifetime is one hour.",
    "Reset your password from the settings page.",
    "The secret to good bread is patience.",
    "Use a key: value pair for each setting.",
    "The keyboard shortcut for search is Ctrl+K.",
    "Tokenizers split text into tokens; the model reads 4096 tokens.",
    "max_tokens: 4096",
    "The password is required.",
    "password: required",
    "token_count: 12345678",
    "Password protection for published notes is not supported.",
    "| `--password` | End-to-end encryption password (prompted if omitted) |",
    "The release sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Fixed in commit 3f2a9c1, merged as 3f2a9c1e5b7d4a6f8e9c0b1a2d3e4f5a6b7c8d9e",
    "Request 123e4567-e89b-12d3-a456-426614174000 failed twice",
    "Docs at https://docs.example.com/auth/tokens?lang=en#refresh",
    "Clone git@github.com:owner/repo.git and run make",
    "Upgrade to Python 3.11.2 (python3.11) and node v20.11.1",
    "Key files live in /etc/ssl/private/server.key",
    "SSH_KEY_PATH=~/.ssh/id_ed25519",
    "password: ${DB_PASSWORD}",
    "token: <your-token-here>",
    "API_KEY=xxxxxxxxxxxxxxxx",
    "PASSWORD=********",
    "password: changeme",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "The bearer token goes in the Authorization header.",
    "password_hash: $2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
    "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsa",
    "Passwords must be at least 8 characters long.",
    "The secret key is stored in the keychain.",
    "Use an API key or an OAuth token, never your password.",
    "My token budget is 2000 per day.",
    "A JSON Web Token has three parts.",
    "sk-learn is a typo for scikit-learn",
    "The token is gpt-4o-mini, the cheap model",
    "password reset link: https://example.com/reset",
    "Postgres listens on postgres://db.internal:5432/app",
    "Remember: the secret santa draw is on Friday",
    "The API key is stored in 1Password.",
    "Token auth: see the wiki",
    "The deploy key fingerprint: SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
    "令牌过期时间是十五分钟",
    "请把密码保存在密码管理器里",
    "密码长度至少 12 位",
    "密钥轮换每 90 天一次",
    "访问令牌的有效期是一小时",
    "默认上下文是 2048 个 token。这是最大 token 数。",
    "密码是必填项",
    "忘记密码了怎么办？",
    "令牌：请在设置页面生成",
    "提交 3f2a9c1 修复了这个问题",
    "口令：见 1Password",
    "密码：<在此填写>",
    "我们用 sha256 校验发布包：9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "already masked: password [secret masked] and token: [secret masked]",
]


@pytest.mark.parametrize("text, secret", SECRETS)
def test_a_secret_is_masked_and_the_words_around_it_kept(text: str, secret: str) -> None:
    masked, count = mask_secrets(text)
    assert secret not in masked
    assert masked == text.replace(secret, MASK)
    assert count == 1


def test_the_tables_are_large_and_distinct() -> None:
    assert len({text for text, _ in SECRETS}) == len(SECRETS) >= 40
    assert len(set(PROSE)) == len(PROSE) >= 40


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_kept_word_for_word(text: str) -> None:
    assert mask_secrets(text) == (text, 0)


def test_a_private_key_in_json_goes_whole() -> None:
    body = PEM.replace("\n", "\\n")
    masked, _ = mask_secrets('{"type": "service_account", "private_key": "' + body + '\\n"}')
    assert masked == '{"type": "service_account", "private_key": "' + MASK + '\\n"}'


def test_a_secret_longer_than_the_scan_bound_goes_whole() -> None:
    value = token("", 5000)
    assert mask_secrets(f"SECRET={value} end") == (f"SECRET={MASK} end", 1)


def test_findings_name_the_kind_and_the_span_in_the_text() -> None:
    text = "x " + token("ghp_", 36) + " DB_PASSWORD=hunter2xyz and AKIAIOSFODNN7EXAMPLE"
    found = [(f.kind, text[f.start : f.end]) for f in find_secrets(text)]
    assert found == [
        ("GitHub token", token("ghp_", 36)),
        ("password", "hunter2xyz"),
        ("AWS access key", "AKIAIOSFODNN7EXAMPLE"),
    ]


@pytest.mark.parametrize("text", [t for t, _ in SECRETS] + PROSE)
def test_masking_is_idempotent_on_the_tables(text: str) -> None:
    once, _ = mask_secrets(text)
    assert mask_secrets(once) == (once, 0)


_PIECES = [t for t, _ in SECRETS] + PROSE + [MASK, "=", ":", " ", "password", "token", "_", "@"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(_PIECES), st.text(alphabet=string.printable + "密码令牌：是")),
        max_size=8,
    ).map("".join)
)
def test_masking_is_idempotent(text: str) -> None:
    once, _ = mask_secrets(text)
    assert mask_secrets(once) == (once, 0)


_B64 = string.ascii_letters + string.digits + "+/"
# Texts that make a masker scan far: each said again and again, to 10 kB and to 100 kB.
ADVERSARIAL = {
    "sk- repeated": "sk-",
    "a= repeated": "a=",
    "password repeated": "password ",
    "password= repeated": "password=",
    "base64 run": token("", 4096, _B64),
    "one letter run": "A",
    "prose": "The token expires after fifteen minutes. ",
    "JWT starts": "eyJ",
    "PEM headers": "-----BEGIN RSA PRIVATE KEY-----\n",
    "URL starts": "https://user:",
    "labels with long values": "x_token=" + "a" * 300 + " ",
    "Chinese labels": "密码：",
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_masking_is_linear_time(name: str) -> None:
    # The regexes before issue 12 were quadratic ("sk-" * 20000 took 9.9 s): ten times the
    # text took a hundred times the CPU. Growth, not a time limit (conftest.growth).
    ratio = growth(mask_secrets, repeated(ADVERSARIAL[name]), n=10_000)
    assert ratio < MOST_GROWTH, f"{name}: {ratio:.0f}x for 10x the text"


# ---- end to end -------------------------------------------------------------------------

NOON = dt.datetime(2026, 11, 22, 12, 0)
SECRET_LINE = "Remember the staging deploy uses DB_PASSWORD=hunter2xyz99, it is important"


def test_the_cli_stores_the_masked_line_and_warns(vault: Vault) -> None:
    result = CliRunner().invoke(
        cli, ["remember", SECRET_LINE, "--vault", str(vault.root)], catch_exceptions=False
    )
    assert result.exit_code == 0
    assert result.stderr == "Warning: 1 secret(s) masked before storing\n"
    notes = "".join(p.read_text() for p in (vault.root / "memory").glob("*.md"))
    assert "hunter2xyz99" not in notes
    assert f"deploy uses DB_PASSWORD={MASK}, it is important" in notes


def test_the_cli_stores_prose_about_passwords_untouched(vault: Vault) -> None:
    text = "The token expires after fifteen minutes, says the password manager"
    result = CliRunner().invoke(
        cli, ["remember", text, "--vault", str(vault.root)], catch_exceptions=False
    )
    assert (result.exit_code, result.stderr) == (0, "")
    notes = "".join(p.read_text() for p in (vault.root / "memory").glob("*.md"))
    assert text in notes


def test_a_persons_line_keeps_its_words_and_facts_never_hold_the_secret(vault: Vault) -> None:
    typed = f"- **user** {SECRET_LINE} ^a1"
    note = write(vault.root, "memory/2026-11-22.md", f"# 2026-11-22\n\n{typed}\n")
    vault.consolidate(today=NOON.date())
    assert typed in note.read_text()  # masking never rewrites a person's own line
    facts = "".join(p.read_text() for p in (vault.root / "facts").rglob("*.md"))
    assert f"DB_PASSWORD={MASK}" in facts
    assert "hunter2xyz99" not in facts + (vault.root / "MEMORY.md").read_text()


def test_git_history_never_holds_a_remembered_secret(vault: Vault) -> None:
    vault.remember(SECRET_LINE, now=NOON)
    vault.remember("Alice uses the API key " + token("sk-proj-", 48) + ", important", now=NOON)
    vault.consolidate(today=NOON.date())
    history = git.Repo(vault.root).git.log("-p", "--all")
    assert "DB_PASSWORD=" + MASK in history
    assert "hunter2xyz99" not in history and token("sk-proj-", 48) not in history


def test_validate_flags_each_line_with_a_secret_and_no_prose(vault: Vault) -> None:
    write(
        vault.root,
        "notes/setup.md",
        "# Setup\n\nThe token expires after fifteen minutes.\n"
        "DB_PASSWORD=hunter2xyz\n"
        f"Already masked: password {MASK}\n"
        "```\nexport GITHUB_TOKEN=" + token("ghp_", 36) + "\n```\n",
    )
    secret = [p for p in vault.validate() if p.kind == "secret"]
    assert [(p.path, p.line) for p in secret] == [("notes/setup.md", 4), ("notes/setup.md", 7)]
    assert secret[1].message == "looks like a secret (GitHub token)"


def test_validate_finds_no_secret_in_the_obsidian_help_vault(tmp_path: Path) -> None:
    # Before issue 12, validate flagged 12 lines of this corpus ("your password manager",
    # "Encryption password", "2048 个 token。..."): all prose.
    root = copy_shared("corpora/obsidian-help", tmp_path / "help")
    Vault.init(root)
    with Vault(root) as vault:
        problems = vault.validate()
    assert problems  # the corpus has other problems: validate did read it
    assert [str(p) for p in problems if p.kind == "secret"] == []
