"""Known token formats: shapes that are a secret wherever they stand (``secrets.py`` masks
them with the labelled values). Ported by hand from the published gitleaks and
detect-secrets rule sets; each rule runs only on text holding one of its literal parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vaultmem.memory.language.credentials import placeholder, random_token

# A token never starts right after one of its own characters: this keeps the formats
# precise ("xAKIA..." is no key) and linear (a run is entered once, at its start). A
# token also ends where its run ends (an open-ended last class, or a guard): masking one
# then never lets another start where it stopped, which keeps masking idempotent.
_B = r"(?<![A-Za-z0-9_\-])"
_RULES = [
    (
        "private key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        # the body stops at the next "-----": a missing END line never lets one
        # BEGIN scan past the next
        r"(?:[A-Za-z0-9+/=:,.\\ \t\r\n]|-(?!----))*"
        r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    ("age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58,}"),
    ("AWS access key", _B + r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])"),
    ("GitHub token", _B + r"gh[pousr]_[A-Za-z0-9]{30,}"),
    ("GitHub token", _B + r"github_pat_[A-Za-z0-9_]{30,}"),
    (
        "GitLab token",
        _B + r"gl(?:pat|dt|rt|ptt|soat|cbt|ffct|ft|imt|agent|oas)-[A-Za-z0-9_.\-]{20,}",
    ),
    ("GitLab token", _B + r"GR1348941[A-Za-z0-9_\-]{20,}"),
    ("Slack token", _B + r"xox[abeoprs]-[A-Za-z0-9\-]{10,}"),
    ("Slack token", _B + r"xapp-[0-9]-[A-Za-z0-9\-]{10,}"),
    ("Stripe key", _B + r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    ("Stripe key", _B + r"whsec_[A-Za-z0-9]{20,}"),
    ("API key", _B + r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("Hugging Face token", _B + r"(?:hf_|api_org_)[A-Za-z0-9]{30,}"),
    ("Google API key", _B + r"AIza[A-Za-z0-9_\-]{35,}"),
    ("Google OAuth secret", _B + r"GOCSPX-[A-Za-z0-9_\-]{20,}"),
    ("Google OAuth token", _B + r"ya29\.[A-Za-z0-9_\-]{20,}"),
    ("npm token", _B + r"npm_[A-Za-z0-9]{36,}"),
    ("PyPI token", _B + r"pypi-AgE[A-Za-z0-9_\-]{50,}"),
    ("SendGrid key", _B + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,}"),
    ("Twilio key", _B + r"SK[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    ("Shopify token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])"),
    ("DigitalOcean token", _B + r"do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])"),
    ("Vault token", _B + r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    ("Terraform token", _B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}"),
    (
        "Discord token",
        _B + r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}",
    ),
    ("Telegram bot token", r"(?<![0-9])[0-9]{8,10}:A[A-Za-z0-9_\-]{32,}"),
    ("JWT", _B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
    ("Atlassian token", _B + r"ATATT3[A-Za-z0-9_=\-]{100,}"),
    ("Linear key", _B + r"lin_api_[A-Za-z0-9]{40,}"),
    ("Postman key", _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])"),
    ("Databricks token", _B + r"dapi[a-f0-9]{32}(?![A-Za-z0-9])"),
    ("Grafana token", _B + r"(?:glc_|glsa_)[A-Za-z0-9+/_]{32,}"),
    ("Supabase token", _B + r"sbp_[a-f0-9]{40}(?![A-Za-z0-9])"),
    ("Doppler token", _B + r"dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}"),
    ("Groq key", _B + r"gsk_[A-Za-z0-9]{40,}"),
    ("xAI key", _B + r"xai-[A-Za-z0-9]{60,}"),
    ("Replicate token", _B + r"r8_[A-Za-z0-9]{30,}"),
    ("Perplexity key", _B + r"pplx-[A-Za-z0-9]{40,}"),
    ("Notion token", _B + r"(?:ntn_[0-9]{11}[A-Za-z0-9]{35,}|secret_[A-Za-z0-9]{43,})"),
    ("Mailgun key", _B + r"key-[0-9a-z]{32}(?![A-Za-z0-9])"),
    ("Square token", _B + r"(?:sq0atp|sq0csp)-[A-Za-z0-9_\-]{22,}"),
    ("Alibaba key", _B + r"LTAI[A-Za-z0-9]{20,}"),
    ("Fly.io token", _B + r"(?:fo1_[A-Za-z0-9_\-]{43,}|fm[12][ar]?_[A-Za-z0-9+/]{100,})"),
    ("Sentry token", _B + r"sntr[ysu]_[A-Za-z0-9+/=_]{40,}"),
    ("PlanetScale token", _B + r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{32,}"),
    ("RubyGems key", _B + r"rubygems_[a-f0-9]{48}(?![A-Za-z0-9])"),
    ("1Password token", _B + r"ops_eyJ[A-Za-z0-9+/=]{100,}"),
    # webhooks: the URL path after the fixed prefix is the credential
    (
        "webhook URL",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_\-]{20,})",
    ),
    (
        "webhook URL",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/(?P<s>[A-Za-z0-9_\-]{30,})",
    ),
    # scheme://user:password@host : the password, up to the last "@" of the authority
    (
        "password in URL",
        r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://"
        r"[^\s:/?#@\[\]\"'<>]{0,128}:(?P<s>[^\s/?#\[\]\"'<>]{1,256})@",
    ),
]

# A rule runs only on text holding one of its literal parts: most text holds none, and a
# megabyte is then scanned by a handful of rules instead of fifty.
_NEEDLES = [
    ("PRIVATE KEY",),
    ("AGE-SECRET-KEY-",),
    ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
    ("gh",),
    ("github_pat_",),
    ("gl",),
    ("GR1348941",),
    ("xox",),
    ("xapp-",),
    ("k_",),
    ("whsec_",),
    ("sk-",),
    ("hf_", "api_org_"),
    ("AIza",),
    ("GOCSPX-",),
    ("ya29.",),
    ("npm_",),
    ("pypi-",),
    ("SG.",),
    ("SK",),
    ("shp",),
    ("_v1_",),
    ("hv",),
    (".atlasv1.",),
    (".",),
    (":A",),
    ("eyJ",),
    ("ATATT3",),
    ("lin_api_",),
    ("PMAK-",),
    ("dapi",),
    ("glc_", "glsa_"),
    ("sbp_",),
    ("dp.",),
    ("gsk_",),
    ("xai-",),
    ("r8_",),
    ("pplx-",),
    ("ntn_", "secret_"),
    ("key-",),
    ("sq0",),
    ("LTAI",),
    ("fo1_", "fm1", "fm2"),
    ("sntr",),
    ("pscale_",),
    ("rubygems_",),
    ("ops_eyJ",),
    ("hooks.slack.com/",),
    ("/api/webhooks/",),
    ("://",),
]
_FORMATS = [
    (kind, needles, re.compile(pattern))
    for (kind, pattern), needles in zip(_RULES, _NEEDLES, strict=True)
]

# Generic prefixes ("sk-", "xoxb-") also start ordinary hyphenated words: their body must
# look random, as real keys always do.
_RANDOM_BODY = {"API key", "Slack token", "Discord token", "Grafana token"}


def token_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Where ``text`` holds a token of a known format: (start, end, kind) of the part to
    hide (a URL's or webhook's secret part only), in the order of the rules."""
    for kind, needles, pattern in _FORMATS:
        for needle in needles:  # a loop, not any(): no generator for each of fifty rules
            if needle in text:
                break
        else:
            continue
        for match in pattern.finditer(text):
            group = "s" if "s" in pattern.groupindex else 0
            start, end = match.span(group)
            if kind in _RANDOM_BODY and not random_token(match.group(0)):
                continue
            if group == "s" and placeholder(match.group("s")):
                continue
            yield start, end, kind
