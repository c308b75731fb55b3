"""Entity names: how they are normalised (deduplication) and found in text (mentions).

Deduplication is deterministic and comes first: the same type and normalised
name within a scope is the same node, whatever the embeddings say.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from hippograph.graph.vocabulary import EntityType
from hippograph.memory.errors import InvalidInput


# Scope key of entities that belong to the user across projects (long-term memory).
USER_SCOPE = "~user"

MAX_NAME_LENGTH = 200

# Well-known technologies recognised in free text; matched on word boundaries, case-insensitively.
TECHNOLOGIES = (
    "PostgreSQL",
    "Postgres",
    "MySQL",
    "SQLite",
    "MongoDB",
    "Redis",
    "Neo4j",
    "Elasticsearch",
    "Kafka",
    "RabbitMQ",
    "Docker",
    "Kubernetes",
    "Terraform",
    "AWS",
    "GCP",
    "Azure",
    "Laravel",
    "Django",
    "Flask",
    "FastAPI",
    "Rails",
    "Spring",
    "React",
    "Vue",
    "Angular",
    "Svelte",
    "Next.js",
    "Node.js",
    "TypeScript",
    "JavaScript",
    "Python",
    "Java",
    "Kotlin",
    "Go",
    "Rust",
    "PHP",
    "Ruby",
    "Tailwind",
    "GraphQL",
    "gRPC",
    "REST",
    "JWT",
    "OAuth",
    "Pest",
    "Cypress",
    "Jest",
    "pytest",
    "Playwright",
    "Nginx",
    "Linux",
    "Git",
    "GitHub",
    "Vault",
    "Celery",
    "Pandas",
    "PyTorch",
    "TensorFlow",
    "OpenAI",
    "Cypher",
    "Lucene",
    "Starlette",
    "Strawberry",
    "uvicorn",
)
_TECH_PATTERN = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(t) for t in sorted(TECHNOLOGIES, key=len, reverse=True)) + r")(?![\w])",
    re.IGNORECASE,
)
_CANONICAL_TECH = {t.lower(): t for t in TECHNOLOGIES}
# Technologies that are also everyday words ("let's go", "I need to rest", "a flask of tea", "spring"):
# one of these names the technology only as it is spelled there, and opening a sentence it is a
# ``Mention.opens`` ("Go for it!").
EVERYDAY_WORDS = frozenset(
    [
        "Go",
        "REST",
        "Spring",
        "Vault",
        "Rust",
        "Pest",
        "Celery",
        "Pandas",
        "Java",
        "Ruby",
        "Rails",
        "Jest",
        "Flask",
        "React",
        "Angular",
        "Strawberry",
        "Cypress",
    ]
)

# Capitalised words and phrases ("Caroline", "Event Sourcing", "LGBTQ").
# A word of a name is at most 40 letters long: a longer capitalised run (a base64 blob, a hash, a key pasted
# into a turn) names nothing, and would pass the name's length limit and refuse the write it came from.
_NAME_WORD = r"[A-Z][a-zA-Z0-9'&-]{1,39}(?![a-zA-Z0-9'&-])"
_PROPER = re.compile(rf"\b({_NAME_WORD}(?:\s+(?:of\s+|the\s+)?{_NAME_WORD}){{0,3}})")
_STOP = frozenset(
    [
        "I",
        "I'm",
        "I've",
        "I'll",
        "I'd",
        "A",
        "An",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "It's",
        "Its",
        "We",
        "We're",
        "Our",
        "You",
        "You're",
        "Your",
        "He",
        "She",
        "They",
        "Them",
        "My",
        "Me",
        "Hi",
        "Hey",
        "Hello",
        "Thanks",
        "Thank",
        "Yes",
        "No",
        "Oh",
        "Ok",
        "Okay",
        "So",
        "But",
        "And",
        "Or",
        "If",
        "When",
        "What",
        "Why",
        "How",
        "Where",
        "Who",
        "Which",
        "Wow",
        "Also",
        "Just",
        "Well",
        "Sure",
        "Great",
        "Good",
        "Nice",
        "Cool",
        "Awesome",
        "Really",
        "Yeah",
        "Yep",
        "Nope",
        "Please",
        "Sorry",
        "Let",
        "Let's",
        "There",
        "Here",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Today",
        "Tomorrow",
        "Yesterday",
        "Use",
        "Used",
        "Using",
        "Do",
        "Don't",
        "Did",
        "Is",
        "Are",
        "Was",
        "Were",
        "Be",
        "Been",
        "Have",
        "Has",
        "Had",
        "Can",
        "Could",
        "Would",
        "Should",
        "Will",
        "Might",
        "Must",
        "Maybe",
        "Not",
        "Now",
        "Then",
    ]
)
# What a sentence opens after, besides the text's start and a line break: a sentence's end or an opening quote.
_SENTENCE_BEFORE = frozenset('.!?"“(')
# How an error's memory says its fix (``record_error``, a project document's errors): the fix is a sentence of
# its own, so its first word ("— fixed by: Set maxmemory-policy …") is no name.
FIXED_BY = " — fixed by: "
# A speaker's label opening a line of a transcript ("Caroline: ", "Dr Smith: "), a word or two.
_LABEL = re.compile(r"[^\W\d_][\w'.-]*(?: [\w'.-]+)?:\s*")
_LOOK_BACK = 48


class Mention(NamedTuple):
    """An entity a text names."""

    kind: EntityType
    name: str
    # Named only where a sentence opens, after nothing but stop words ("Glad you came", "Hey Oliver!"): a
    # capital there marks the sentence, not a name. Measured on LoCoMo's turns, 536 of the 571 words found
    # there alone never came capitalised anywhere else ("Sounds", "Glad", "Anything"), while most of the 35 that
    # did were people and places. Such a mention links to an entity its user already has, and makes none.
    opens: bool = False


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


def _opens_sentence(text: str, start: int) -> bool:
    """Whether a sentence opens at ``start``, or a line after its speaker's label ("Caroline: Glad you
    came"); only the few characters before it are read, so a long text costs no more per name than a
    short one."""
    before = text[max(0, start - _LOOK_BACK) : start]
    said = before.rstrip()
    if not said or said[-1] in _SENTENCE_BEFORE or said.endswith(FIXED_BY.strip()) or "\n" in before[len(said) :]:
        return True
    line_start = before.rfind("\n") + 1
    return (line_start > 0 or start <= _LOOK_BACK) and _LABEL.fullmatch(before[line_start:]) is not None


def _keep(found: dict[tuple[EntityType, str], Mention], mention: Mention) -> None:
    """Keep the first spelling of each name; said anywhere but where a sentence opens, it is a name."""
    key = (mention.kind, normalise_name(mention.name))
    if key not in found:
        found[key] = mention
    elif found[key].opens and not mention.opens:
        found[key] = found[key]._replace(opens=False)


def extract_mentions(text: str, limit: int = 12, speaker: str | None = None) -> list[Mention]:
    """Technologies and proper names mentioned in ``text``, deduplicated, in order of appearance; a name
    said both where a sentence opens and elsewhere is a name (``Mention.opens`` false), and so is the
    name of the text's ``speaker`` (a transcript line's label, "Caroline: …", names who said it)."""
    found: dict[tuple[EntityType, str], Mention] = {}
    said_by = normalise_name(speaker) if speaker else None
    for match in _TECH_PATTERN.finditer(text):
        name = _CANONICAL_TECH[match.group(1).lower()]
        everyday = name in EVERYDAY_WORDS
        if everyday and match.group(1) != name:
            continue
        _keep(found, Mention(EntityType.TECHNOLOGY, name, everyday and _opens_sentence(text, match.start())))
    tech_names = {key[1] for key in found}
    for match in _PROPER.finditer(text):
        words = match.group(1).split()
        while words and words[0].removesuffix("'s") in _STOP:
            words = words[1:]
        if not words:
            continue
        phrase = " ".join(words).removesuffix("'s")
        normalised = normalise_name(phrase)
        if len(phrase) < 2 or normalised in tech_names:
            continue
        opens = normalised != said_by and _opens_sentence(text, match.start())
        _keep(found, Mention(EntityType.CONCEPT, phrase, opens))
        if len(found) >= limit:
            break
    return list(found.values())[:limit]
