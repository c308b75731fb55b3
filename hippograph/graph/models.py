"""The graph's node and relationship classes (neomodel).

They declare, in the names of ``hippograph.graph.vocabulary``, what Neo4j Browser
shows and what the migrations must provide: ``tests/integration/test_models_match_migrations.py``
checks that every index and constraint declared here exists. Reads and writes run the named Cypher of
``hippograph.graph`` modules; these classes are the schema, not a query layer.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    FulltextIndex,
    IntegerProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    BooleanProperty,
    VectorIndex,
    ZeroOrMore,
)

from hippograph.graph.vocabulary import DERIVED_FROM, MENTIONS, EdgeType, EntityType, Tier



class Edge(StructuredRel):
    """A knowledge-graph edge; ``userId`` ties it to its owner (edges never cross users)."""

    userId = StringProperty(required=True)
    createdAt = DateTimeNeo4jFormatProperty(default_now=True)
    note = StringProperty()


class User(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    createdAt = DateTimeNeo4jFormatProperty(default_now=True)


class Project(StructuredNode):
    uid = StringProperty(db_property="id", required=True)
    userId = StringProperty(required=True)
    type = StringProperty()
    lastUpdated = StringProperty()


class Session(StructuredNode):
    uid = StringProperty(db_property="id", required=True)
    userId = StringProperty(required=True)
    projectId = StringProperty()
    startedAt = StringProperty()
    endedAt = StringProperty()
    turns = RelationshipTo("Turn", "HAS_TURN", cardinality=ZeroOrMore)


class Turn(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    userId = StringProperty(required=True)
    sessionId = StringProperty(required=True)
    role = StringProperty()
    content = StringProperty()
    position = IntegerProperty()
    at = DateTimeNeo4jFormatProperty()
    tokens = IntegerProperty()


class Memory(StructuredNode):
    """The memory tuple (k, v, e, t, s, ρ) with its scope and bookkeeping."""

    uid = StringProperty(db_property="id", unique_index=True, required=True)
    content = StringProperty(required=True, fulltext_index=FulltextIndex(analyzer="english"))
    summary = StringProperty(fulltext_index=FulltextIndex(analyzer="english"))
    # The text said right before it in its session, kept by REFRESH_PRECEDING (graph/memories.py).
    preceding = StringProperty(fulltext_index=FulltextIndex(analyzer="english"))
    embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex(similarity_function="cosine"))
    createdAt = DateTimeNeo4jFormatProperty(index=True)
    tier = StringProperty(choices={t.value: t.value for t in Tier}, index=True)
    # Also in memory_text, so that full-text search can stay in one user's memories.
    userId = StringProperty(required=True, index=True, fulltext_index=FulltextIndex(analyzer="english"))
    projectId = StringProperty(index=True)
    sessionId = StringProperty(index=True)
    relevance = FloatProperty(default=1.0)
    accessCount = IntegerProperty(default=0)
    lastAccessedAt = DateTimeNeo4jFormatProperty()
    tokens = IntegerProperty()
    summaryTokens = IntegerProperty()
    archived = BooleanProperty(default=False)
    kind = StringProperty()
    validFrom = DateTimeNeo4jFormatProperty()
    validUntil = DateTimeNeo4jFormatProperty()
    contentHash = StringProperty(index=True)
    # JSON text: structured fields of imported documents, kept so they export unchanged.
    attributes = StringProperty()
    # Who said it, as lower-case words (from attributes.speaker); recall matches it against the query.
    speaker = StringProperty()
    # Where it was said, outliving the turns: session ids, and "<session>#<position>" of its turns.
    sourceSessions = ArrayProperty(StringProperty())
    sourceTurns = ArrayProperty(StringProperty())
    # Record time (hippograph.graph.history): first held, current text recorded, closure recorded, archived.
    recordedAt = DateTimeNeo4jFormatProperty()
    updatedAt = DateTimeNeo4jFormatProperty()
    closedAt = DateTimeNeo4jFormatProperty()
    archivedAt = DateTimeNeo4jFormatProperty()

    mentions = RelationshipTo("Entity", MENTIONS, cardinality=ZeroOrMore)
    versions = RelationshipTo("MemoryVersion", "HAD_VERSION", cardinality=ZeroOrMore)
    derived_from = RelationshipTo("Memory", DERIVED_FROM, cardinality=ZeroOrMore)
    derived_from_turn = RelationshipTo("Turn", DERIVED_FROM, cardinality=ZeroOrMore)


class MemoryVersion(StructuredNode):
    """A memory's text as it read before an edit, from ``recordedAt`` until ``supersededAt``
    (``hippograph.graph.history``); in no vector or full-text index."""

    uid = StringProperty(db_property="id", required=True)
    userId = StringProperty(required=True)
    content = StringProperty()
    summary = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    recordedAt = DateTimeNeo4jFormatProperty()
    supersededAt = DateTimeNeo4jFormatProperty()


class Entity(StructuredNode):
    """A named thing; its type is also a label (``:Entity:Technology``) for Browser."""

    uid = StringProperty(db_property="id", unique_index=True, required=True)
    name = StringProperty(required=True, fulltext_index=FulltextIndex(analyzer="standard-no-stop-words"))
    normName = StringProperty(required=True)
    type = StringProperty(choices={t.value: t.value for t in EntityType}, required=True)
    userId = StringProperty(required=True, index=True, fulltext_index=FulltextIndex(analyzer="standard-no-stop-words"))
    scopeKey = StringProperty(required=True)
    mentioned_by = RelationshipFrom("Memory", MENTIONS, cardinality=ZeroOrMore)
    led_to = RelationshipTo("Entity", EdgeType.LED_TO.value, model=Edge)
    caused = RelationshipTo("Entity", EdgeType.CAUSED.value, model=Edge)
    solved_by = RelationshipTo("Entity", EdgeType.SOLVED_BY.value, model=Edge)
    related_to = RelationshipTo("Entity", EdgeType.RELATED_TO.value, model=Edge)
    uses = RelationshipTo("Entity", EdgeType.USES.value, model=Edge)
    conflicts_with = RelationshipTo("Entity", EdgeType.CONFLICTS_WITH.value, model=Edge)


class AuditEvent(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    at = DateTimeNeo4jFormatProperty(index=True)
    userId = StringProperty()
    operation = StringProperty(index=True)
    ids = ArrayProperty(StringProperty())


class ApiKey(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    hash = StringProperty(unique_index=True, required=True)
    userId = StringProperty(required=True)
    role = StringProperty(default="user")
    revoked = BooleanProperty(default=False)
