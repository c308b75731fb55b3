"""The Cypher an analyst runs in Neo4j Browser, by hand: the queries of the Browser guide.

They are not run by the service; ``hippograph.api.browser_guide`` shows them, one click each,
in the guide Browser opens with ``:play``. Each is scoped by ``$user`` (and ``$project``,
``$memory``, ``$entity`` or ``$asOf``), parameters the guide's first slide sets with ``:param``. What
changed when is read from the record times ``hippograph.graph.history`` describes.
"""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.graph.vocabulary import DERIVED_FROM, MENTIONS, RECORDS, EdgeType, EntityType, Tier


@dataclass(frozen=True)
class AnalystQuery:
    title: str
    why: str
    cypher: str


CHAINS = AnalystQuery(
    "Decision → error → fix chains of a project",
    "Which decision caused which error, and what solved it: the path, drawn as a graph.",
    f"""MATCH path = (decision:Entity:{EntityType.DECISION.value} {{userId: $user}})
      -[:{EdgeType.CAUSED.value}]->(error:Entity:{EntityType.ERROR.value} {{userId: $user, scopeKey: $project}})
OPTIONAL MATCH fixed = (error)-[:{EdgeType.SOLVED_BY.value}]->(fix:Entity {{userId: $user}})
RETURN path, fixed""",
)

CHAINS_AS_OF = AnalystQuery(
    "The chains as of a date, and what changed since",
    "Each error of the project as the store knew it at $asOf — known then or not, its decision open or closed "
    "then, its fix then — and what was recorded after: the error itself, its cause, its fix, the decision's closing.",
    f"""MATCH (error:Entity:{EntityType.ERROR.value} {{userId: $user, scopeKey: $project}})
OPTIONAL MATCH (decision:Entity:{EntityType.DECISION.value} {{userId: $user}})-[caused:{EdgeType.CAUSED.value}]->(error)
OPTIONAL MATCH (error)-[solved:{EdgeType.SOLVED_BY.value}]->(fix:Entity {{userId: $user}})
WITH error, decision, caused, solved, fix, coalesce(error.recordedAt, error.createdAt) <= $asOf AS knownThen,
     caused.createdAt <= $asOf AS causeThen
ORDER BY error.createdAt, error.id
RETURN error.name AS error, knownThen,
       CASE WHEN causeThen THEN decision.name END AS decisionThen,
       CASE WHEN NOT causeThen OR decision IS NULL THEN null
            WHEN coalesce(decision.closedAt, decision.validUntil) <= $asOf THEN 'closed' ELSE 'open'
       END AS decisionStateThen,
       CASE WHEN solved.createdAt <= $asOf THEN fix.name END AS fixThen,
       [change IN [CASE WHEN NOT knownThen THEN 'error recorded' END,
                   CASE WHEN caused.createdAt > $asOf THEN 'traced to ' + decision.name END,
                   CASE WHEN solved.createdAt > $asOf THEN 'fixed by ' + fix.name END,
                   CASE WHEN coalesce(decision.closedAt, decision.validUntil) > $asOf THEN 'decision closed' END]
        WHERE change IS NOT NULL] AS changedSince""",
)

CLOSED_DECISIONS = AnalystQuery(
    "What closed a decision, and when",
    "Superseded decisions of the project, the newer decision that conflicts with each, and the moment it closed.",
    f"""MATCH (old:Entity:{EntityType.DECISION.value} {{userId: $user, scopeKey: $project}})
WHERE old.validUntil IS NOT NULL
OPTIONAL MATCH (newer:Entity:{EntityType.DECISION.value} {{userId: $user}})-[:{EdgeType.CONFLICTS_WITH.value}]->(old)
RETURN old.name AS decision, old.validFrom AS taken, old.validUntil AS closed, collect(newer.name) AS closedBy
ORDER BY closed DESC""",
)

PROVENANCE = AnalystQuery(
    "What a fact or summary was derived from",
    "Its provenance: the memories and turns it came from, as a graph while they exist, and the sessions and "
    "turns it names once they are gone (set $memory to its id).",
    f"""MATCH (m:Memory {{userId: $user, id: $memory}})
OPTIONAL MATCH path = (m)-[:{DERIVED_FROM}*1..3]->(source)
RETURN m.content AS memory, m.sourceSessions AS sessions, m.sourceTurns AS turns, collect(path) AS paths""",
)

TIER_FILL = AnalystQuery(
    "A user's tiers, filled against capacity",
    "Tokens held per tier and scope (summaries counted at their size), against the tier's capacity.",
    f"""MATCH (m:Memory {{userId: $user}})
WHERE m.archived = false
WITH m.tier AS tier, coalesce(m.sessionId, m.projectId, 'user') AS scope,
     sum(coalesce(m.summaryTokens, m.tokens)) AS tokens, count(m) AS memories
WITH tier, scope, tokens, memories,
     CASE tier WHEN '{Tier.SESSION.value}' THEN $capacities.session
               WHEN '{Tier.PROJECT.value}' THEN $capacities.project
               ELSE $capacities.longTerm END AS capacity
RETURN tier, scope, memories, tokens, capacity, round(100.0 * tokens / capacity, 1) AS percentFull
ORDER BY tier, scope""",
)

MENTIONED_IN = AnalystQuery(
    "The memories that mention an entity",
    "Every memory naming it, with the entity (set $entity to a name, any case).",
    f"""MATCH (e:Entity {{userId: $user}})
WHERE e.normName = toLower(trim($entity))
MATCH (m:Memory {{userId: $user}})-[r:{MENTIONS}|{RECORDS}]->(e)
RETURN m, r, e""",
)

AUDIT_TRAIL = AnalystQuery(
    "The audit trail of one memory",
    "Every read and write that touched it, oldest first (set $memory).",
    """MATCH (a:AuditEvent {userId: $user})
WHERE $memory IN a.ids
RETURN a.at AS at, a.operation AS operation, a.detail AS detail
ORDER BY at""",
)

GUIDE = (CHAINS, CHAINS_AS_OF, CLOSED_DECISIONS, PROVENANCE, TIER_FILL, MENTIONED_IN, AUDIT_TRAIL)
