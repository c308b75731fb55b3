"""Tiers and scopes: where a memory lives, how much each may hold, when it compresses.

From the Izanagi memory manager: Session (volatile, 1024 tokens, compress above
80 %), Project (4096, above 70 %) and Long Term (8192, above 60 %); after any
compression a tier is at or under 80 % (the spec's storage metric).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction

from hippograph.config import Settings, env_of
from hippograph.graph import capacities as capacity_cypher
from hippograph.graph import scope as scope_rules
from hippograph.graph.vocabulary import Tier
from hippograph.memory.ids import check_id
from hippograph.memory.errors import InvalidInput

# Ids callers choose (scopes, requests) travel in Cypher parameters only, but a bounded,
# printable form keeps logs, Browser captions and exports sane. They are stored as given,
# so one that holds a secret is refused (hippograph.memory.ids).
CALLER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$")


# Fraction of a tier's capacity above which it is compressed before a write.
TRIGGER = {Tier.SESSION: 0.80, Tier.PROJECT: 0.70, Tier.LONG_TERM: 0.60}


def trigger(tier: Tier) -> float:
    return TRIGGER[tier]


def persistent(tier: Tier) -> bool:
    """Whether the tier outlives its session (a raw transcript is refused there)."""
    return tier is not Tier.SESSION


class ScopeError(InvalidInput):
    """A scope id or tier/scope combination is not acceptable; the message says which."""


def check_caller_id(kind: str, value: str | None, error: type[InvalidInput] = ScopeError) -> str | None:
    """``value``, an id the caller chose (a project's, a request's …), when it has the form and holds no secret."""
    if value is None:
        return None
    if isinstance(value, str):
        # First, so that refusing the form below never repeats a secret back.
        check_id(f"{kind} id", value, error, common_passwords=kind != "user")
    if not isinstance(value, str) or not CALLER_ID.match(value):
        raise error(
            f"{kind} id {value!r} is not valid: 1-128 characters, letters, digits and . _ : @ / -, "
            "starting with a letter or digit"
        )
    return value


@dataclass(frozen=True)
class Scope:
    """Whose memory: a user, optionally narrowed to a project and a session."""

    user_id: str
    project_id: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        check_caller_id("user", self.user_id)
        check_caller_id("project", self.project_id)
        check_caller_id("session", self.session_id)

    def for_tier(self, tier: Tier) -> Scope:
        """The part of the scope a memory of ``tier`` is placed in (``hippograph.graph.scope``): long term
        is per user, project per project, session per session."""
        ids = {"projectId": self.project_id, "sessionId": self.session_id}
        key = scope_rules.tier_key(tier)
        if key is not None and ids[key] is None:
            raise ScopeError(f"a {tier.value} memory needs a {scope_rules.SCOPE_IDS[key]} id")
        kept = scope_rules.tier_ids(tier, ids)
        return Scope(self.user_id, kept["projectId"], kept["sessionId"])


# The setting that holds each tier's capacity.
CAPACITIES = {Tier.SESSION: "session_capacity", Tier.PROJECT: "project_capacity", Tier.LONG_TERM: "long_term_capacity"}


def capacity(settings: Settings, tier: Tier) -> int:
    return int(getattr(settings, CAPACITIES[tier]))


def capacity_setting(tier: Tier) -> str:
    """The environment variable of the tier's capacity, as a refusal names it."""
    return env_of(CAPACITIES[tier])


def kept_capacities(settings: Settings, tx: ManagedTransaction) -> Settings:
    """``settings`` with each capacity the store keeps (``hippograph capacity``) in place of the environment's:
    read at each write, so a capacity set while a server runs is the server's at its next write."""
    kept: dict[str, Any] = capacity_cypher.read(tx)
    return dataclasses.replace(settings, **kept) if kept else settings


def keep_capacity(tx: ManagedTransaction, tier: Tier, tokens: int | None) -> None:
    """Keep ``tokens`` as the tier's capacity in the store (None: the environment's again)."""
    if tokens is not None and tokens < 1:
        raise InvalidInput(f"a {tier.value} capacity is a number of tokens of at least 1, got {tokens}")
    capacity_cypher.set_capacity(tx, CAPACITIES[tier], tokens)
