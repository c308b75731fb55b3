"""Ids: a caller's ids (of scopes, requests, refs, keys…) are stored and logged as given, never redacted —
a redacted id would name something else — so :func:`check_id` refuses one that holds a secret, whatever the
secret policy: what the scrubber finds in it, one of the common passwords of zxcvbn's frequency list, or a
password policy's shape.
"""

from __future__ import annotations

import re
import uuid
from functools import lru_cache

from zxcvbn.frequency_lists import FREQUENCY_LISTS
from zxcvbn.matching import L33T_TABLE, build_ranked_dict, l33t_match

from hippograph.memory.errors import InvalidInput
from hippograph.memory.writing.scrubbing import KINDS, scrub


def check_id(
    what: str,
    value: str,
    error: type[InvalidInput] = InvalidInput,
    *,
    common_passwords: bool = True,
) -> str:
    """``value`` when it holds no secret; else ``error``, under either policy, naming ``what`` and never the value.

    ``common_passwords=False`` for a user id, an account's name given by an operator (the CLI, an admin's
    ``createApiKey``): the breach lists are full of account names ("admin1", "michael1")."""
    kinds = _id_kinds(value, common_passwords)
    if kinds:
        raise error(f"{what} looks like a secret ({', '.join(kinds)}); an id is never redacted, so use another")
    return value


# Scopes are checked whenever one is made, over and over with the same few ids: each is scanned once.
@lru_cache(maxsize=4096)
def _id_kinds(value: str, common_passwords: bool) -> tuple[str, ...]:
    kinds = set(scrub(value).kinds)
    if _policy_shaped(value) or (common_passwords and not _uuid(value) and _common_password(value)):
        kinds.add("password")
    return tuple(sorted(kinds, key=KINDS.index))


# A bare password is a word to a scan of prose; in an id it is told by zxcvbn's frequency list of the
# passwords of breaches, most common first, and its l33t table (bench/passwords measures the rule).
COMMON_PASSWORDS = 10_000
_PASSWORDS = {"passwords": build_ranked_dict(FREQUENCY_LISTS["passwords"][:COMMON_PASSWORDS])}
# Every word zxcvbn knows (its passwords, English words, names, surnames, film and TV words).
_WORDS = {"words": build_ranked_dict(sorted({word for words in FREQUENCY_LISTS.values() for word in words}))}
# zxcvbn's l33t table, kept to the stand-ins an id is made of: each further symbol multiplies the
# spellings it tries, and with brackets and bars a long id took seconds.
_L33T = {
    letter: kept for letter, subs in L33T_TABLE.items() if (kept := [c for c in subs if c.isdigit() or c in "@$!"])
}
# A word this long spelled with stand-ins is a password inside any id ("Sw0rdf1sh3fa9c21b"); shorter
# ones turn up by chance in names ("l10n" reads "lion", "editor5" "editors").
_SPELLED_WORD = 7
# The parts of an id between its separators. One longer than a password with a short tail
# ("Sw0rdf1sh3fa9c21b" has 17 characters) is not searched for spelled words: the search grows with
# the square of its length, and a crafted part of 36 characters took a tenth of a second.
_ID_PART = re.compile(r"[^\s._:/-]+")
_LONGEST_PART = 24
# Symbols a password policy asks for and an id, a version or a URL has no use for.
_POLICY_SYMBOL = re.compile(r"[!$%^*~|]")


def _uuid(value: str) -> bool:
    """A UUID in its canonical form, as the service mints a turn's or a memory's id and most clients mint
    theirs. Its hex reads as spelled words by chance ("5ca1ab1e" is "scalable"; 6 of 20,000 random
    UUIDs): such a word in it is no password, and refusing it refused the service's own ids."""
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def _common_password(value: str) -> bool:
    """One of the 10,000 most common passwords in any case ("qwerty", "Hunter2", "abc123"), or a word of
    seven letters or more spelled with digits or symbols for letters anywhere in the id ("P@ssw0rd",
    "Sw0rdf1sh3fa9c21b", "C0rrectH0rse")."""
    if value.lower() in _PASSWORDS["passwords"]:
        return True
    return any(
        match["j"] + 1 - match["i"] >= _SPELLED_WORD
        for part in _ID_PART.findall(value)
        if len(part) <= _LONGEST_PART
        for match in l33t_match(part, _WORDS, _L33T)
    )


def _policy_shaped(value: str) -> bool:
    """Letters, digits and one of ``! $ % ^ * ~ |`` in one word ("Summer2024!", "Xk9#mQ2$vL7p"): a
    password policy's shape, which no id, version or URL has."""
    return any(
        _POLICY_SYMBOL.search(word) and any(c.isalpha() for c in word) and any(c.isdigit() for c in word)
        for word in value.split()
    )
