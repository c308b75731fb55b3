"""Secret scrubbing: nothing that looks like a credential is ever stored.

The Izanagi rule is "never store secrets, passwords or API keys". Every text on
the write path goes through :func:`enforce`, which either redacts each secret
in place (``[REDACTED:<kind>]``) or rejects the write, naming the kinds found
and never the secret.

Two detectors run over a text. Our own patterns know where each secret starts
and ends and what kind it is: PEM private keys, credentials inside URLs,
provider key formats, JWTs, bearer headers, and ``name = value`` assignments or
"my password is …" sentences whose name says the value is secret. The plugins
of detect-secrets then catch the provider formats we have no pattern for
(GitLab, npm, PyPI, SendGrid, Twilio, Discord, Telegram, Mailchimp, Azure …)
and quoted high-entropy strings; they report values, not positions, so each
value is located in its line and widened to the whole token it sits in.

Saying *password* or *API key* is not a secret: a value is only taken when it
is assigned to such a name, or stands where a credential would, and does not
look like a placeholder or a reference to where the secret is kept.

A structured input (a memory's attributes) goes through :func:`enforce_data`
whole: every key and every string, each string seen after its key, since
``{"db_password": "S3cr3t!"}`` names its secret in the key. An id is never
redacted: ``hippograph.memory.ids`` refuses one that :func:`scrub` finds a secret in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from detect_secrets.filters.heuristic import (
    is_potential_uuid,
    is_sequential_string,
    is_templated_secret,
)
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import BasePlugin
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import KeywordDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

KINDS = ("private_key", "connection_string", "api_key", "token", "password")
POLICIES = ("redact", "reject")

# When two findings overlap they become one, of the most specific kind.
_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}

MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")


@dataclass(frozen=True)
class Finding:
    """One secret: its kind and its span ``[start, end)`` in the original text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Scrubbed:
    """A text with every secret replaced by ``[REDACTED:<kind>]``, and what was replaced."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def kinds(self) -> list[str]:
        return sorted({f.kind for f in self.findings})


class SecretRejected(ValueError):
    """A text holds secrets and the policy is to reject it; ``kinds`` says which kinds (never the values)."""

    def __init__(self, kinds: list[str]) -> None:
        self.kinds = list(kinds)
        super().__init__(
            f"refused to store a text containing secrets ({', '.join(self.kinds)}); "
            "remove them, or store where the secret is kept instead of the secret itself"
        )


def scrub(text: str) -> Scrubbed:
    """Replace every secret in ``text`` with ``[REDACTED:<kind>]``; findings keep offsets into ``text``."""
    findings = _merge(_find(text))
    # A redaction changes what its neighbours see ("-----sk-…" becomes "[REDACTED:…]sk-…"),
    # so the result is scanned again until nothing new turns up: scrubbing twice
    # then changes nothing.
    for _ in range(_MAX_ROUNDS):
        if not findings:
            break
        extra = list(_find(_redact(text, findings)))
        if not extra:
            break
        findings = _merge([*findings, *(_in_original(f, findings) for f in extra)])
    return Scrubbed(_redact(text, findings), tuple(findings))


def scrub_labelled(label: str, value: str) -> tuple[Scrubbed, Scrubbed]:
    """Scrub ``value`` seen after its name, as ``label: value`` ("hunter2" is a word, after "password" a
    secret); returns the label and the value, each with its own redactions and offsets."""
    joined = scrub(f"{label}{_LABEL_SEPARATOR}{value}").findings
    return _part(label, joined, 0), _part(value, joined, len(label) + len(_LABEL_SEPARATOR))


def enforce(text: str, policy: str, label: str | None = None) -> Scrubbed:
    """Apply the secret policy: ``redact`` scrubs; ``reject`` raises :class:`SecretRejected` if anything is found.

    With ``label`` the text is the value of that name and is seen after it (:func:`scrub_labelled`).
    """
    _check_policy(policy)
    scrubbed = scrub(text) if label is None else scrub_labelled(label, text)[1]
    if policy == "reject":
        if scrubbed.findings:
            raise SecretRejected(scrubbed.kinds)
        return Scrubbed(text, ())
    return scrubbed


@dataclass(frozen=True)
class ScrubbedData:
    """A JSON-like value with the secrets in its keys and strings redacted, and the kinds that were."""

    value: Any
    kinds: list[str]


def enforce_data(value: Any, policy: str) -> ScrubbedData:
    """Apply the secret policy to a whole JSON-like value: every key and every string of every object and
    list inside it, each string under a key seen after that key."""
    _check_policy(policy)
    kinds: set[str] = set()
    scrubbed = _scrub_data(value, kinds)
    if kinds and policy == "reject":
        raise SecretRejected(sorted(kinds))
    return ScrubbedData(scrubbed, sorted(kinds))


_MAX_ROUNDS = 8
_LABEL_SEPARATOR = ": "


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"secret policy must be 'redact' or 'reject', got {policy!r}")


def _part(text: str, findings: tuple[Finding, ...], offset: int) -> Scrubbed:
    """The findings of a joined text that fall in ``text`` (which starts at ``offset``), cut to it."""
    end = offset + len(text)
    own = [
        Finding(f.kind, max(f.start, offset) - offset, min(f.end, end) - offset)
        for f in findings
        if f.start < end and f.end > offset
    ]
    return Scrubbed(_redact(text, own), tuple(own))


def _scrub_data(value: Any, kinds: set[str]) -> Any:
    if isinstance(value, str):
        scrubbed = scrub(value)
        kinds.update(scrubbed.kinds)
        return scrubbed.text
    if isinstance(value, (list, tuple)):
        return [_scrub_data(item, kinds) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, str):
            name, text = scrub_labelled(key, item)
            kinds.update(name.kinds + text.kinds)
            key, item = name.text, text.text
        else:
            key, item = _scrub_data(key, kinds), _scrub_data(item, kinds)
        if key in result:
            # Two keys that differ only in their secrets would become one; neither value may be lost silently.
            raise SecretRejected(sorted(kinds))
        result[key] = item
    return result


def _redact(text: str, findings: list[Finding]) -> str:
    parts: list[str] = []
    position = 0
    for finding in findings:
        parts.append(text[position : finding.start])
        parts.append(f"[REDACTED:{finding.kind}]")
        position = finding.end
    parts.append(text[position:])
    return "".join(parts)


def _in_original(found: Finding, findings: list[Finding]) -> Finding:
    """Map a finding in the redacted text (never inside a marker) back to the original text."""
    shift = 0
    for finding in findings:
        marker = len(f"[REDACTED:{finding.kind}]")
        if finding.start + shift + marker > found.start:
            break
        shift += marker - (finding.end - finding.start)
    return Finding(found.kind, found.start - shift, found.end - shift)


# --- our own patterns ---------------------------------------------------------

_PEM = re.compile(
    r"-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
    r"(?:.*?-{4,5} ?END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
    # A key pasted without its END line: take the header lines and the base64 body.
    r"|(?:[ \t]*(?:\r?\n|\\n)[ \t]*(?:[A-Za-z-]+:[^\n]*|[A-Za-z0-9+/=]+))*)",
    re.DOTALL,
)
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:.*?Private-MAC:[ \t]*[0-9A-Fa-f]+", re.DOTALL)

# scheme://user:password@host — only the password goes; the rest stays useful.
# The password may hold an unencoded "@": the last "@" before the host ends it.
_URL_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@\"'<>]*:(?P<secret>[^\s/\"'<>]+)@(?=[^\s/?#@\"'<>]+)"
)

_PROVIDER_KEYS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        # OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-api03-): long, and random enough to hold a digit.
        ("api_key", r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}"),
        ("api_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}(?![A-Za-z0-9])"),
        (
            "api_key",
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])",
        ),
        ("api_key", r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"),
        ("api_key", r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
        ("api_key", r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("api_key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
        ("api_key", r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])"),
        ("api_key", r"(?<![A-Za-z0-9_-])gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{20,}"),
        ("token", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    )
)

# An AWS secret access key is 40 base64 characters, recognisable only by its label.
_AWS_SECRET = re.compile(
    r"(?i:aws[\w .-]{0,20}?(?:secret|key)[\w .-]{0,20}?)[\s:=>\"'`]{1,6}(?:is[ \t]+)?[\"'`]?"
    r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)

# Authorization headers, and a bare "Bearer <token>" when the token looks like one.
_AUTH_HEADER = re.compile(
    r"(?i:(?P<header>authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token|digest)?[ \t]*|\bbearer[ \t]+)"
    r"(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)"
)

# A name that says its value is secret, as a whole name or the end of one
# (DB_PASSWORD, clientSecret, x-api-key); the kind follows the name.
_KEY_NAMES = (
    r"api[_.-]?key|access[_.-]?key|secret[_.-]?key|auth[_.-]?key|client[_.-]?key|service[_.-]?key|"
    r"account[_.-]?key|subscription[_.-]?key|private[_.-]?key"
)
_TOKEN_NAMES = r"token|secret"
_PASSWORD_NAMES = r"password|passwd|passphrase|passcode|pwd|(?<=[_.-])pass|(?<=[_.-])pw|contrase[ñn]a"
_NAME = rf"(?i:(?P<key>{_KEY_NAMES})|(?P<tok>{_TOKEN_NAMES})|(?P<pw>{_PASSWORD_NAMES}))"

_QUOTED = r"(?P<q>[\"'`])(?P<quoted>(?:(?!(?P=q))[^\n]){1,256})(?P=q)"
# An unquoted value; one that starts with an escape ("\n{...}") is source code, not a value.
_BARE = r"(?P<bare>(?!\\[nrt])[^\s\"'`,;]{1,256})"

# name = value, name: value, name := value, name => value ("==" is a comparison, not an assignment).
# The value is matched in a lookahead so that the scan resumes right after the
# operator: "a=PASSWORD: x" must find "PASSWORD: x" whatever became of "a=".
_ASSIGNMENT = re.compile(
    # (every name starts with one of these letters: checking that first is much faster)
    rf"(?=[ACPSTacpst]){_NAME}(?![A-Za-z0-9])[\"'\]]?[ \t]*(?P<op>:=|=>|=(?!=)|:)[ \t]*(?=(?:{_QUOTED}|{_BARE}))"
)

# "my password is X", "the password for the router is X", "our API key was: X"
_SENTENCE = re.compile(
    r"(?i:(?P<pw>password|passwd|passphrase|passcode|pin code)|(?P<key>api[ -]?key|access key|secret key)"
    r"|(?P<tok>token))"
    r"(?:s)?(?:[ \t]+(?i:for|to|of|on|at)(?:[ \t]+[^\s.!?,;:]+){1,5}?)?"
    rf"[ \t]+(?i:is|was)[ \t]*:?[ \t]*(?=(?:{_QUOTED}|{_BARE}))"
)

# Sentence punctuation after an unquoted value, when a space or the end follows it.
_TRAILING = ".,:)]}>"

# Every provider key, JWT and high-entropy string is a run of at least this many key characters.
_KEY_RUN = re.compile(r"[A-Za-z0-9_\-+/=.:~]{15,}")

# Every name-based pattern needs one of these words; most texts have none and skip them all.
_NAMED_SECRET = re.compile(r"(?i)pass|pwd|pw\b|secret|token|key|contrase|pin code")

_PLACEHOLDER = re.compile(
    r"""(?ix)^(?:
        \$.* | %\w+% | \{.*\} | <.*> | \[.*\] | \(.*\)    # ${VAR}, %VAR%, {{ x }}, <your-key>, [hidden]
      | [*xX•.#_-]{3,} | …                                # ****, xxxx, ...
      | (?:your|my)[_-]?(?:[a-z]+[_-]?)*?(?:key|token|secret|password|pass|pwd|here)   # your_api_key, my-token
      | true | false | null | none | nil | undefined | n/?a | empty | required | optional
      | redacted | hidden | masked | secret | password | passwd | pass | pwd | token | key | apikey | api[_-]?key
      | change[_-]?it | change[_-]?me | placeholder | example | dummy | todo | tbd | string | str | bytes | int
    )$"""
)
# name = os.environ["X"], = get_secret(), = config.db.password, = settings.API_KEY,
# = db_password, = DB_PASSWORD: code that says where the secret is, not the secret.
_REFERENCE = re.compile(
    r"^(?:[A-Za-z_][\w.]*\s*[\[(].*|(?i:os\.environ|process\.env|env|settings|config|secrets|vault)\b.*"
    r"|[A-Za-z_]\w*\.[A-Za-z_][\w.]*|[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z0-9]+)+)$"
)
# secret = PREFIX + suffix: the value is an operand of an expression.
_OPERATOR_FOLLOWS = re.compile(r"[ \t]+[-+*/%|&?][ \t]")

# A credential-like value: six or more characters mixing letters with digits or symbols.
_SYMBOLS = set("!@#$%^&*+=_~/\\|<>?")

# Words that follow "my password is" in conversation without being a password.
_NOT_A_PASSWORD = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "it",
        "its",
        "mine",
        "yours",
        "his",
        "hers",
        "ours",
        "theirs",
        "what",
        "which",
        "who",
        "here",
        "there",
        "below",
        "above",
        "attached",
        "not",
        "too",
        "so",
        "very",
        "really",
        "still",
        "also",
        "just",
        "now",
        "never",
        "always",
        "again",
        "only",
        "same",
        "different",
        "new",
        "old",
        "weak",
        "strong",
        "secure",
        "insecure",
        "safe",
        "unsafe",
        "long",
        "short",
        "simple",
        "complex",
        "easy",
        "hard",
        "wrong",
        "right",
        "correct",
        "incorrect",
        "invalid",
        "valid",
        "expired",
        "required",
        "mandatory",
        "optional",
        "needed",
        "necessary",
        "important",
        "private",
        "secret",
        "hidden",
        "protected",
        "encrypted",
        "hashed",
        "saved",
        "stored",
        "set",
        "unset",
        "empty",
        "blank",
        "missing",
        "lost",
        "forgotten",
        "compromised",
        "leaked",
        "stolen",
        "changed",
        "reset",
        "updated",
        "working",
        "broken",
        "fine",
        "ok",
        "okay",
        "good",
        "bad",
        "great",
        "terrible",
        "awful",
        "unique",
        "random",
        "generated",
        "temporary",
        "permanent",
        "personal",
        "shared",
        "known",
        "unknown",
        "obvious",
        "guessable",
        "memorable",
        "complicated",
        "out",
        "in",
        "on",
        "off",
        "up",
        "down",
        "gone",
        "done",
        "over",
        "there",
        "case-sensitive",
        "something",
        "nothing",
        "anything",
        "everything",
    ]
)
_ENGLISH_SUFFIX = re.compile(r"(?i)(?:ed|ing|ly|ous|ive|ful|less|able|ible|ent|ant|ness|ment|tion|sion)$")


def _find(text: str) -> Iterator[Finding]:
    markers = [(m.start(), m.end()) for m in MARKER.finditer(text)]
    if not markers:
        yield from (f for f in _candidates(text) if f.end > f.start)
        return
    # Text already scrubbed stays as it is: a marker is never a secret, nor part
    # of one, and the name in it ("[REDACTED:api_key]") names nothing. Markers are
    # blanked out (same length, so offsets hold) before scanning.
    blanked = MARKER.sub(lambda m: "\0" * len(m.group()), text)
    for finding in _candidates(blanked):
        if finding.end > finding.start and not any(s < finding.end and finding.start < e for s, e in markers):
            yield finding


def _candidates(text: str) -> Iterator[Finding]:
    # Each detector runs only if the text holds what it cannot match without:
    # most memories are prose and skip nearly all of them.
    lower = text.lower()
    if "private key" in lower:
        for match in _PEM.finditer(text):
            yield Finding("private_key", match.start(), match.end())
    if "PuTTY-User-Key-File" in text:
        for match in _PUTTY.finditer(text):
            yield Finding("private_key", match.start(), match.end())
    if "://" in text:
        for match in _URL_CREDENTIALS.finditer(text):
            if not _is_placeholder(match.group("secret")):
                yield Finding("connection_string", match.start("secret"), match.end("secret"))
    keylike = bool(_KEY_RUN.search(text))
    if keylike:
        for kind, pattern in _PROVIDER_KEYS:
            for match in pattern.finditer(text):
                yield Finding(kind, match.start(), match.end())
    if "bearer" in lower or "authorization" in lower:
        for match in _AUTH_HEADER.finditer(text):
            value = match.group("secret")
            if match.group("header") or _credential_like(value) or len(value) >= 20:
                yield Finding("token", match.start("secret"), match.end("secret"))
    named = bool(_NAMED_SECRET.search(text))
    if named:
        if "aws" in lower:
            for match in _AWS_SECRET.finditer(text):
                yield Finding("api_key", match.start("secret"), match.end("secret"))
        if ":" in text or "=" in text:
            for match in _ASSIGNMENT.finditer(text):
                yield from _assigned(text, match)
        for match in _SENTENCE.finditer(text):
            yield from _stated(text, match)
    if keylike or named:
        yield from _detect_secrets(text, named)


def _name_kind(match: re.Match[str]) -> str:
    if match.group("pw"):
        return "password"
    if match.group("key"):
        return "private_key" if match.group("key").lower().startswith("private") else "api_key"
    return "token"


def _value_span(text: str, match: re.Match[str]) -> tuple[str, int, int]:
    if match.group("quoted") is not None:
        return match.group("quoted"), match.start("quoted"), match.end("quoted")
    value, start, end = match.group("bare"), match.start("bare"), match.end("bare")
    if _is_placeholder(value):
        return "", start, start
    if end == len(text) or text[end].isspace():
        value = value.rstrip(_TRAILING)
    return value, start, start + len(value)


def _assigned(text: str, match: re.Match[str]) -> Iterator[Finding]:
    value, start, end = _value_span(text, match)
    if not value.strip() or _is_placeholder(value) or _REFERENCE.match(value):
        return
    quoted = match.group("quoted") is not None
    if not quoted and re.fullmatch(r"[A-Za-z_]\w*", value) and _OPERATOR_FOLLOWS.match(text, end):
        return
    # "Password: reset it via the email link" is prose; a config line's value stands alone.
    if match.group("op") == ":" and not quoted and not _credential_like(value) and not _stands_alone(text, end):
        return
    yield Finding(_name_kind(match), start, end)


def _stated(text: str, match: re.Match[str]) -> Iterator[Finding]:
    value, start, end = _value_span(text, match)
    if not value.strip() or _is_placeholder(value) or _REFERENCE.match(value):
        return
    kind = _name_kind(match)
    if match.group("quoted") is not None or _credential_like(value):
        yield Finding(kind, start, end)
    elif kind == "password" and _ends_sentence(text, end) and _could_be_a_password(value):
        # "my password is swordfish." — a lone word closing the sentence.
        yield Finding(kind, start, end)


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value)) or is_templated_secret(value)


def _credential_like(value: str) -> bool:
    if len(value) < 6 or any(c.isspace() for c in value):
        return False
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(c in _SYMBOLS for c in value)
    return has_letter and (has_digit or has_symbol)


def _could_be_a_password(value: str) -> bool:
    word = value.lower()
    if word in _NOT_A_PASSWORD:
        return False
    if value.isalpha() and (len(value) < 4 or _ENGLISH_SUFFIX.search(value)):
        return False
    return len(value) >= 4


def _stands_alone(text: str, end: int) -> bool:
    rest = text[end:].split("\n", 1)[0].strip(" \t\r")
    return rest in ("", ".") or rest[0] in ",;)}]#"


def _ends_sentence(text: str, end: int) -> bool:
    rest = text[end:].lstrip(" \t")
    return rest == "" or rest[0] in "\r\n" or (rest[0] in ".!?,;" and (len(rest) == 1 or rest[1].isspace()))


# --- detect-secrets -----------------------------------------------------------

# Plugins are instantiated once and called directly: detect-secrets' own entry
# point (scan_line inside transient_settings) swaps a process-wide settings
# singleton and clears caches on every call, which is neither thread-safe nor fast.
_PLUGINS: tuple[tuple[str, BasePlugin], ...] = (
    ("api_key", AWSKeyDetector()),
    ("api_key", AzureStorageKeyDetector()),
    ("api_key", DiscordBotTokenDetector()),
    ("api_key", GitLabTokenDetector()),
    ("token", JwtTokenDetector()),
    ("api_key", MailchimpDetector()),
    ("api_key", NpmDetector()),
    ("api_key", OpenAIDetector()),
    ("api_key", PypiTokenDetector()),
    ("api_key", SendGridDetector()),
    ("api_key", SlackDetector()),
    ("api_key", SquareOAuthDetector()),
    ("api_key", StripeDetector()),
    ("api_key", TelegramBotTokenDetector()),
    ("api_key", TwilioKeyDetector()),
)
_KEYWORD = KeywordDetector()
# Only quoted base64-looking strings are tested; hex is left out on purpose:
# commit ids and content hashes are common in technical memories and are not secrets.
_BASE64 = Base64HighEntropyString(limit=4.5)

# A plugin reports a value, not where it is: it is found in its line and widened
# to the whole run of key characters around it. Short values are left to our
# own patterns: they come from regex groups that hold only a prefix ("glpat")
# and would be found inside unrelated words.
_MIN_LOCATED = 8
_KEY_CHAR = re.compile(r"[A-Za-z0-9_\-+/=.~]")
_CALL_OR_INDEX_BEFORE = re.compile(r"[\w.-]+[ \t]*[\[(][ \t]*[\"'`]$")
_KEYWORD_KIND = re.compile(rf"(?i:{_PASSWORD_NAMES})|(?P<key>(?i:key))|(?P<tok>(?i:token|secret))")


def _detect_secrets(text: str, named: bool) -> Iterator[Finding]:
    offset = 0
    for line in text.splitlines(keepends=True):
        keylike = bool(_KEY_RUN.search(line))
        if keylike:
            for kind, plugin in _PLUGINS:
                for value in plugin.analyze_string(line):
                    yield from _located(line, offset, value, kind, widen=True)
        # The keyword plugin's patterns (quotes required) all need a quote.
        if named and ('"' in line or "'" in line or "`" in line):
            values = [
                v for v in _KEYWORD.analyze_string(line) if v and not _is_placeholder(v) and not is_sequential_string(v)
            ]
            for value in values:
                if not _is_argument(line, value):
                    yield from _located(line, offset, value, _keyword_kind(line, value), widen=False)
        for value in _BASE64.analyze_string(line) if keylike else ():
            if (
                _BASE64.calculate_shannon_entropy(value) > _BASE64.entropy_limit
                and not is_sequential_string(value)
                and not is_potential_uuid(value)
            ):
                yield from _located(line, offset, value, "token", widen=False)
        offset += len(line)


def _located(line: str, offset: int, value: str, kind: str, widen: bool) -> Iterator[Finding]:
    if len(value.strip()) < _MIN_LOCATED:
        return
    found = line.find(value)
    while found != -1:
        start, end = found, found + len(value)
        if widen:
            while start > 0 and _KEY_CHAR.match(line[start - 1]):
                start -= 1
            while end < len(line) and _KEY_CHAR.match(line[end]):
                end += 1
            while end > start and line[end - 1] in _TRAILING:
                end -= 1
        yield Finding(kind, offset + start, offset + end)
        found = line.find(value, found + len(value))


def _is_argument(line: str, value: str) -> bool:
    # headers['x-api-key'], get_secret("db"): the string names a secret, it is not one.
    # (detect-secrets' own is_indirect_reference does this over the whole line in quadratic time.)
    at = line.find(value)
    return at > 0 and bool(_CALL_OR_INDEX_BEFORE.search(line, max(0, at - 100), at))


def _keyword_kind(line: str, value: str) -> str:
    names = list(_KEYWORD_KIND.finditer(line, 0, max(line.find(value), 0)))
    if not names:
        return "password"
    last = names[-1]
    return "api_key" if last.group("key") else "token" if last.group("tok") else "password"


def _merge(findings: Iterable[Finding]) -> list[Finding]:
    merged: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            kind = min(last.kind, finding.kind, key=_PRIORITY.__getitem__)
            merged[-1] = Finding(kind, last.start, max(last.end, finding.end))
        else:
            merged.append(finding)
    return merged
