"""Entity names: how they are normalised (deduplication) and found in text (mentions).

Deduplication is deterministic and comes first: the same type and normalised
name within a scope is the same node, whatever the embeddings say.
"""

from __future__ import annotations

import re
import unicodedata
from hippograph.graph.vocabulary import EntityType
from hippograph.memory.errors import InvalidInput


# Scope key of entities that belong to the user across projects (long-term memory).
USER_SCOPE = "~user"

MAX_NAME_LENGTH = 200

# Well-known technologies recognised in free text; matched on word boundaries, case-insensitively.
TECHNOLOGIES = (
    "PostgreSQL", "Postgres", "MySQL", "SQLite", "MongoDB", "Redis", "Neo4j", "Elasticsearch", "Kafka", "RabbitMQ",
    "Docker", "Kubernetes", "Terraform", "AWS", "GCP", "Azure", "Laravel", "Django", "Flask", "FastAPI", "Rails",
    "Spring", "React", "Vue", "Angular", "Svelte", "Next.js", "Node.js", "TypeScript", "JavaScript", "Python",
    "Java", "Kotlin", "Go", "Rust", "PHP", "Ruby", "Tailwind", "GraphQL", "gRPC", "REST", "JWT", "OAuth", "Pest",
    "Cypress", "Jest", "pytest", "Playwright", "Nginx", "Linux", "Git", "GitHub", "Vault", "Celery", "Pandas",
    "PyTorch", "TensorFlow", "OpenAI", "Cypher", "Lucene", "Starlette", "Strawberry", "uvicorn",
)
_TECH_PATTERN = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(t) for t in sorted(TECHNOLOGIES, key=len, reverse=True)) + r")(?![\w])",
    re.IGNORECASE,
)
_CANONICAL_TECH = {t.lower(): t for t in TECHNOLOGIES}

# Capitalised words and phrases ("Caroline", "Event Sourcing", "LGBTQ") that are not sentence openers.
# A word of a name is at most 40 letters long: a longer capitalised run (a base64 blob, a hash, a key pasted
# into a turn) names nothing, and would pass the name's length limit and refuse the write it came from.
_NAME_WORD = r"[A-Z][a-zA-Z0-9'&-]{1,39}(?![a-zA-Z0-9'&-])"
_PROPER = re.compile(rf"\b({_NAME_WORD}(?:\s+(?:of\s+|the\s+)?{_NAME_WORD}){{0,3}})")
_STOP = frozenset(
    "I I'm I've I'll I'd A An The This That These Those It It's Its We We're Our You You're Your He She They Them "
    "My Me Hi Hey Hello Thanks Thank Yes No Oh Ok Okay So But And Or If When What Why How Where Who Which Wow "
    "Also Just Well Sure Great Good Nice Cool Awesome Really Yeah Yep Nope Please Sorry Let Let's There Here "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Tomorrow Yesterday Use Used Using Do Don't "
    "Did Is Are Was Were Be Been Have Has Had Can Could Would Should Will Might Must Maybe Not Now Then".split()
)


def normalise_name(name: str) -> str:
    """The dedup key of a name: NFKC, case-folded, inner whitespace collapsed, outer punctuation dropped."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = re.sub(r"\s+", " ", folded).strip()
    return folded.strip(" .,;:!?\"'`()[]{}")


def clean_name(name: str) -> str:
    """The display form: trimmed, whitespace collapsed, bounded."""
    cleaned = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip()
    if not cleaned or not normalise_name(cleaned):
        raise InvalidInput("an entity name must contain a letter or digit")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidInput(f"an entity name has at most {MAX_NAME_LENGTH} characters")
    return cleaned


def extract_mentions(text: str, limit: int = 12) -> list[tuple[EntityType, str]]:
    """Technologies and proper names mentioned in ``text``, deduplicated, in order of appearance."""
    found: dict[tuple[EntityType, str], str] = {}
    for match in _TECH_PATTERN.finditer(text):
        name = _CANONICAL_TECH[match.group(1).lower()]
        found.setdefault((EntityType.TECHNOLOGY, normalise_name(name)), name)
    tech_names = {key[1] for key in found}
    for match in _PROPER.finditer(text):
        words = match.group(1).split()
        while words and words[0].removesuffix("'s") in _STOP:
            words = words[1:]
        if not words:
            continue
        phrase = " ".join(words).removesuffix("'s")
        if len(phrase) < 2 or normalise_name(phrase) in tech_names:
            continue
        found.setdefault((EntityType.CONCEPT, normalise_name(phrase)), phrase)
        if len(found) >= limit:
            break
    return [(kind, name) for (kind, _), name in found.items()][:limit]
