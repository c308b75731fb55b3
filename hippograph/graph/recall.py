"""The recall query: one Cypher statement that finds, measures and ranks a caller's memories.

It runs in one read transaction and, in order:

1. reads how many memories the caller owns: the degree of their ``User`` node, one
   ``REMEMBERS`` per memory, in constant time;
2. **vector candidates** — for a caller owning at most ``exactScanLimit`` memories,
   a scan of every in-scope memory (reached through ``memory_user``), each scored by the exact
   ``vector.similarity.cosine``; for a larger one, the vector index of the store's slot
   (``memory_embedding``, or the other: ``hippograph.graph.store_model``) searched with the scope
   as its filter (``SEARCH … WHERE m.userId = $userId AND m.tier IN …``: the index holds those
   properties; tiers whose scope reads alike share a search, and a per-tier profile searches each
   tier alone; each search asks for at least ``indexK``, which a wide tenant needs for its exact
   nearest). Then per tier the top ``tierK[tier]`` above ``minCosine[tier]``, and overall the top
   ``vectorK``;
3. **keyword candidates** — the ``memory_text`` full-text index asked, one keyword at a
   time and within the caller's nodes (the queries are built in
   ``hippograph.memory.recall.lucene``), which of the caller's memories hold the keyword — in their
   own text or, with ``KeywordBranch.preceding``, in the text said right before a session memory; its idf
   comes from that count over the caller's memory count, a keyword held by more than
   ``termLimit`` of them is left out, and a memory's BM25 is the sum of the idfs of the
   keywords it holds: no statistic of another tenant's enters a score. The best
   ``keywordK`` in scope are kept; a memory's keyword component is its BM25 over the sum of
   the idfs of the keywords some memory holds (its share of the query's keywords, by weight);
4. **relation depth**, to what the query reaches: the entities the query names
   (``entity_name`` index, the caller's, still valid, those naming most keywords first) are anchors, and every in-scope
   memory within ``maxHops`` of one, over mentions, knowledge-graph edges and
   provenance, gets its shortest distance (the nearest ``graphK`` become candidates);
   with ``speakerMatch``, a memory whose ``speaker`` the query names counts as nearest
   of all, and a distance then scores ``mentionShare`` of what it would;
   and the neighbouring memories of the strongest direct matches — the ``seedK``
   best vector and keyword hits — in their session's timeline (the memory right
   after a match, and at ``precedingShare`` of its strength the one right before),
   found through the ``memory_session_timeline`` index;
5. the union, per memory: components in [0, 1] (see ``hippograph.memory.recall.profiles``),
   the weighted score (times ``1 + timeBoost`` for a memory that says when, if the query asks
   when, and times ``1 + periodBoost`` for a memory written in a period the query names), the
   floor, and the ranking.

Only memories of ``$userId`` that are in scope, not archived and not closed
(``validUntil`` unset) are ever read as candidates. With ``$asOf`` (``hippograph.graph.history``) the
statement reads the store as it was then: the memories in use then, each edited since scored on its
version of then (for a larger owner, found by index searches that keep what is out of use now and
then drop what was not in use then, and by a scan of the versions current then, which no index
holds). Every value comes in as a
parameter. The one thing Cypher cannot take as a parameter is the bound of a path
pattern, so ``max_hops`` — a whole number from the profile, checked to lie in
1..6, never user text — is written into the statement: the traversal is really
bounded by the setting, and each bound gets its own cached plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from neo4j import ManagedTransaction

from hippograph.graph import history, scope, store_model
from hippograph.graph.store_model import SLOTS, VectorSlot
from hippograph.graph.vocabulary import RELATION_TYPES, Tier

MAX_HOPS_LIMIT = 6

# The caller's scope, for a memory `m` already matched on userId (``hippograph.graph.scope``: a user
# alone sees all their memories, a project adds that project's, a session narrows the SESSION tier
# to itself). Archived memories and closed facts never count.
# As of $asOf (``hippograph.graph.history``): what was in use then; without it, what is now.
IN_SCOPE = f"{history.visible('m')} AND m.tier IN $tiers AND {scope.SEEN}"

# 1. how many memories the caller owns: every memory hangs from its user by one REMEMBERS, so this is
# the user node's degree, read in constant time however large the owner (it picks the vector path).
OWNED = """
CALL () {
  OPTIONAL MATCH (user:User {id: $userId})
  RETURN coalesce(COUNT { (user)-[:REMEMBERS]->() }, 0) AS owned
}
"""

# 2. vector candidates: an exact scan for a small owner, the vector index for a large one.
VECTOR_BRANCH = """
CALL (owned) {
  CALL (owned) {
    // WHEN, not a WHERE on the parameters: the planner may move a WHERE past the scan it guards.
    WHEN $embedding IS NOT NULL AND owned <= $exactScanLimit THEN {
      MATCH (m:Memory {userId: $userId}) USING INDEX m:Memory(userId)
      WHERE __IN_SCOPE__
      RETURN m, vector.similarity.cosine(m.__VECTORS__, $embedding) * 2.0 - 1.0 AS cosine
    }
    WHEN $embedding IS NOT NULL AND $asOf IS NULL THEN {
      CALL () {
__INDEX_SEARCHES__
      }
      RETURN m, cosine
    }
    // As of a moment: twice as many of every memory of the scope, in use now or not, kept if in use
    // then, and the versions current then (an edited memory's old vector is in no index).
    WHEN $embedding IS NOT NULL THEN {
      CALL () {
__AS_OF_SEARCHES__
        UNION ALL
        MATCH (version:MemoryVersion {userId: $userId})
        WHERE version.recordedAt <= $asOf AND version.supersededAt > $asOf AND version.__VECTORS__ IS NOT NULL
        MATCH (m:Memory)-[:HAD_VERSION]->(version)
        RETURN m, vector.similarity.cosine(version.__VECTORS__, $embedding) * 2.0 - 1.0 AS cosine
      }
      WITH m, max(cosine) AS cosine WHERE __IN_SCOPE__
      RETURN m, cosine
    }
  }
  WITH m, cosine WHERE cosine > $minCosine[m.tier]
  ORDER BY cosine DESC
  WITH m.tier AS tier, collect({m: m, cosine: cosine}) AS ranked
  UNWIND ranked[..$tierK[tier]] AS hit
  WITH hit ORDER BY hit.cosine DESC LIMIT $vectorK
  RETURN collect({m: hit.m, cosine: hit.cosine, source: 'vector'}) AS vectorHits
}
"""

# 2. (cont.) for a larger owner, searches of memory_embedding with the caller's scope as the filter:
# the index holds the scope properties, so each returns the caller's own top k of the tiers it
# covers, with no filter after it. A filter is a conjunction of fixed properties, so tiers whose scope
# reads alike share one search, and a per-tier profile searches each tier alone. __IN_USE__: the filter
# on what is in use now, or (as of a moment) nothing.
INDEX_SEARCH = """
        CALL () {
          WHEN any(tier IN __TIERS__ WHERE tier IN $tiers) THEN {
            MATCH (m:Memory)
              SEARCH m IN (VECTOR INDEX __VECTOR_INDEX__ FOR $embedding
                           WHERE m.userId = $userId
                             AND m.tier IN [tier IN __TIERS__ WHERE tier IN $tiers]__SCOPE____IN_USE__
                           LIMIT __LIMIT__) SCORE AS score
            RETURN m, score * 2.0 - 1.0 AS cosine
          }
        }
        RETURN m, cosine
"""

# 3. keyword candidates, scored with the caller's own statistics.
KEYWORD_BRANCH = """
CALL (owned) {
  CALL (owned) {
    // Each keyword alone, within the caller's nodes: its hits are the caller's memories that hold
    // it, so its document frequency — and every keyword score — is the caller's alone. Lucene's own
    // scores are not used: their statistics span every tenant of the index.
    WITH owned AS mine WHERE size($memoryTextQueries) > 0 AND $keywordK > 0
    UNWIND $memoryTextQueries AS termQuery
    CALL (termQuery) {
      CALL db.index.fulltext.queryNodes('memory_text', termQuery) YIELD node AS m
      WITH m WHERE m.userId = $userId
      WITH m LIMIT $termLimit + 1
      RETURN collect(m) AS holding
    }
    // A word held by more than termLimit of the caller's memories tells next to nothing apart.
    WITH mine, holding WHERE size(holding) <= $termLimit
    WITH collect({holding: holding, idf: log(1.0 + (mine - size(holding) + 0.5) / (size(holding) + 0.5))}) AS terms
    // What a memory holding every keyword that some memory holds would score: a memory's keyword
    // component is its share of that, so a query whose keywords found little lends little.
    WITH terms,
         reduce(total = 0.0, term IN terms | total + CASE WHEN size(term.holding) > 0 THEN term.idf ELSE 0.0 END)
           AS coverage
    UNWIND terms AS term
    UNWIND term.holding AS m
    WITH m, term.idf AS idf, coverage WHERE __IN_SCOPE__
    // BM25 with saturated term frequency: the idf of each keyword the memory holds.
    WITH m, sum(idf) AS bm25, coverage
    RETURN m, bm25, coverage ORDER BY bm25 DESC, m.createdAt DESC, m.id LIMIT $keywordK
  }
  RETURN collect({m: m, bm25: bm25, source: 'keyword'}) AS keywordHits, max(bm25) AS topBm25, max(coverage) AS coverage
}
"""

# 4. relation depth from the entities the query names.
RELATION_BRANCH = """
CALL () {
  CALL () {
    // The caller's entities the keywords name, those naming most keywords first.
    WITH 1 AS go WHERE $anchorK > 0
    UNWIND $entityNameQueries AS termQuery
    CALL (termQuery) {
      CALL db.index.fulltext.queryNodes('entity_name', termQuery) YIELD node AS anchor
      WITH anchor WHERE anchor.userId = $userId AND __ANCHOR_VISIBLE__
      WITH anchor LIMIT $termLimit + 1
      RETURN collect(anchor) AS named
    }
    WITH named WHERE size(named) <= $termLimit
    UNWIND named AS anchor
    WITH anchor, count(*) AS words
    RETURN anchor ORDER BY words DESC, anchor.name, anchor.id LIMIT $anchorK
  }
  MATCH path = ANY SHORTEST (anchor)-[:__RELATIONS__]-{1,__MAX_HOPS__}(m)
  WITH m, length(path) AS hops WHERE m:Memory AND m.userId = $userId AND __IN_SCOPE__
  WITH m, min(hops) AS hops
  ORDER BY hops, m.createdAt DESC
  WITH collect({m: m, hops: hops}) AS reached
  // Every reached memory keeps its distance; only the nearest graphK are candidates on that ground alone.
  RETURN [i IN range(0, size(reached) - 1) |
          {m: reached[i].m, hops: reached[i].hops,
           source: CASE WHEN i < $graphK THEN 'graph' ELSE 'reached' END}] AS graphHits
}
"""

# 4. (cont.) the session-timeline neighbours of the strongest direct matches.
NEIGHBOUR_BRANCH = """
CALL (vectorHits, keywordHits, topBm25) {
  // The memories right before and after the strongest direct matches in their session's timeline:
  // an answer follows its question, a decision its discussion.
  // A match's strength is its own branch's score (cosine, or BM25 over the best), not the profile's
  // weights: what counts as a strong match does not move while the weights are being fitted.
  UNWIND [hit IN vectorHits[..$seedK] | {m: hit.m, strength: hit.cosine}]
       + [hit IN keywordHits[..$seedK] | {m: hit.m, strength: hit.bm25 / topBm25}] AS direct
  WITH direct.m AS seed, max(direct.strength) AS strength
  // Session turns, and facts kept from them (a fact carries its session and its turn's time).
  WHERE strength > 0 AND seed.sessionId IS NOT NULL
  // Ordered as memory_session_timeline is (user, session, time): the planner reads one entry, not the session.
  CALL (seed) {
      MATCH (m:Memory {userId: $userId, sessionId: seed.sessionId})
      WHERE m.createdAt > seed.createdAt
      WITH m ORDER BY m.userId, m.sessionId, m.createdAt LIMIT 1
      RETURN m, 1.0 AS share
    UNION
      MATCH (m:Memory {userId: $userId, sessionId: seed.sessionId})
      WHERE m.createdAt < seed.createdAt
      WITH m ORDER BY m.userId DESC, m.sessionId DESC, m.createdAt DESC LIMIT 1
      RETURN m, $precedingShare AS share
  }
  WITH m, max(strength * share) AS strength WHERE __IN_SCOPE__
  RETURN collect({m: m, neighbour: strength, source: 'neighbour'}) AS neighbourHits, max(strength) AS topNeighbour
}
"""

# A memory's recency: 1 when written at $now or after, halved every $halfLifeDays before it.
RECENCY = """CASE WHEN m.createdAt IS NULL THEN 0.0
          WHEN duration.inSeconds(m.createdAt, $now).seconds <= 0 THEN 1.0
          ELSE 0.5 ^ (duration.inSeconds(m.createdAt, $now).seconds / 86400.0 / $halfLifeDays) END"""

# 5. the union, per memory: components, the weighted score, the floor and the ranking.
SCORING = """
UNWIND vectorHits + keywordHits + graphHits + neighbourHits AS hit
WITH hit.m AS m, max(hit.cosine) AS cosine, max(hit.bm25) AS bm25, min(hit.hops) AS hops,
     max(hit.neighbour) AS neighbour, collect(hit.source) AS sources, coverage, topNeighbour
WHERE any(source IN sources WHERE source IN $sources)
__AS_OF__
WITH m, sources,
     CASE WHEN cosine IS NOT NULL THEN cosine
          WHEN $embedding IS NULL THEN null
          ELSE vector.similarity.cosine(m.__VECTORS__, $embedding) * 2.0 - 1.0 END AS cosine,
     CASE WHEN bm25 IS NULL OR coverage IS NULL OR coverage <= 0 THEN 0.0 ELSE bm25 / coverage END AS keyword,
     // A memory said by someone the query names is as close as a memory gets to an entity;
     // one that mentions what the query names scores its distance, times mentionShare.
     CASE WHEN $speakerMatch AND m.speaker IS NOT NULL AND all(word IN split(m.speaker, ' ') WHERE word IN $queryWords)
          THEN 1.0
          WHEN hops IS NULL OR hops > $maxHops THEN 0.0
          ELSE $mentionShare * (1.0 - (hops - 1) / toFloat($maxHops)) END AS entityRelation,
     CASE WHEN neighbour IS NULL OR topNeighbour IS NULL OR topNeighbour <= 0 THEN 0.0
          ELSE neighbour / topNeighbour END AS neighbour,
     // A style that carries ($carry) scores a strong match's neighbour at least $carry times that match's
     // strength: a candidate in its own right, not only a share of relation (a cue and the turn after it).
     CASE WHEN neighbour IS NULL THEN 0.0 ELSE $carry * neighbour END AS carried,
     // The match's strength a neighbour would carry at a carry of 1 (what bench fit fits a carry on).
     coalesce(neighbour, 0.0) AS strength
WITH m, sources, cosine, keyword, entityRelation, neighbour, carried, strength,
     // With neighbours on, relation is the mean of its two parts (a hub entity must not drown the timeline).
     CASE WHEN $seedK > 0 THEN (entityRelation + neighbour) / 2.0 ELSE entityRelation END AS relation,
     CASE WHEN cosine IS NULL THEN null WHEN cosine < 0 THEN 0.0 ELSE cosine END AS vector,
     // A memory's age is read only where the style weighs it; a returned row's is read at the end.
     CASE WHEN $weights.recency > 0 THEN __RECENCY__ ELSE 0.0 END AS recency
WITH m, sources, cosine, vector, keyword, relation, entityRelation, neighbour, carried, strength,
     $weights.vector * coalesce(vector, 0.0) + $weights.keyword * keyword
       + $weights.recency * recency + $weights.relation * relation AS weighted
// Asked when ($saysWhen set), a memory that says when scores (1 + timeBoost) times its weighted sum; one
// written in a period the query names ($periods), (1 + periodBoost) times. Both are read only where that
// can change what comes back: a memory whose score can be at most its sum boosted all it can be
// ($mostBoost) or what it carries, and that is under the floor or under the limit-th best of what the
// scores are at least (which the result's last score is at least), is left out.
WITH m, sources, cosine, vector, keyword, relation, entityRelation, neighbour, carried, strength, weighted,
     CASE WHEN carried > weighted * $mostBoost THEN carried ELSE weighted * $mostBoost END AS most,
     CASE WHEN carried > weighted THEN carried ELSE weighted END AS least
WHERE most > $floor
WITH collect({m: m, sources: sources, cosine: cosine, vector: vector, keyword: keyword,
              relation: relation, entityRelation: entityRelation, neighbour: neighbour, carried: carried,
              strength: strength, weighted: weighted, most: most, least: least}) AS rows
CALL (rows) {
  UNWIND rows AS row
  WITH row.least AS least ORDER BY least DESC LIMIT $limit
  // With tiers first the result is not the best sums: every memory may come back.
  RETURN CASE WHEN $tierFirst OR count(*) < $limit THEN null ELSE min(least) END AS cut
}
UNWIND rows AS row
WITH row, cut WHERE cut IS NULL OR row.most >= cut
WITH row.m AS m, row.sources AS sources, row.cosine AS cosine, row.vector AS vector, row.keyword AS keyword,
     row.relation AS relation, row.entityRelation AS entityRelation,
     row.neighbour AS neighbour, row.carried AS carried, row.strength AS strength, row.weighted AS weighted,
     CASE WHEN $saysWhen IS NOT NULL AND row.m.content =~ $saysWhen THEN 1.0 ELSE 0.0 END AS time,
     CASE WHEN any(period IN $periods WHERE period.start <= row.m.createdAt < period.end) THEN 1.0 ELSE 0.0
     END AS period
WITH m, sources, cosine, vector, keyword, relation, entityRelation, neighbour, time, period, carried, strength,
     weighted * (1.0 + $timeBoost * time) * (1.0 + $periodBoost * period) AS boosted
WITH m, sources, cosine, vector, keyword, relation, entityRelation, neighbour, time, period, carried, strength,
     CASE WHEN carried > boosted THEN carried ELSE boosted END AS score
WHERE score > $floor
ORDER BY CASE WHEN $tierFirst THEN $tierRank[m.tier] ELSE 0 END, score DESC, m.createdAt DESC, m.id
LIMIT $limit
WITH m, sources, cosine, vector, keyword, relation, entityRelation, neighbour, time, period, carried, strength, score,
     __RECENCY__ AS recency
RETURN m.id AS id, m.content AS content, m.summary AS summary, m.tier AS tier, m.createdAt AS createdAt,
       cosine, entityRelation, neighbour, strength, score, sources, __COMPONENTS__
"""


@dataclass(frozen=True)
class Components:
    """The score's parts as ``SCORING`` returns them, each in [0, 1] — declared once, here: the statement
    returns a column for each field, in this order, and recall's items, the GraphQL ``ScoreComponents``
    and the MCP answer are made from these fields (a description is what GraphQL shows for the field)."""

    vector: float | None
    keyword: float
    recency: float
    relation: float
    time: float = field(
        metadata={
            "description": (
                "1 when the query asks when and the memory says when (a time expression): the weighted sum is then "
                "multiplied by 1 + the profile's time boost; else 0."
            )
        }
    )
    period: float = field(
        metadata={
            "description": (
                '1 when the memory was written in a day, month or year the query names ("in December 2023", '
                '"on October 13, 2023"): the weighted sum is then multiplied by 1 + the profile\'s period boost; '
                "else 0."
            )
        }
    )
    carried: float = field(
        default=0.0,
        metadata={
            "description": (
                "What the memory carries from a strong match it follows (or, at the profile's preceding share, "
                "precedes) in its session: the weights' carry times that match's strength (its cosine, or its "
                "keyword score over "
                "the best). The score is the larger of this and the boosted weighted sum; 0 when the query's style "
                "carries nothing (only statements do)."
            )
        },
    )

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Components:
        """The components of one row of the statement."""
        parts: dict[str, Any] = {
            part.name: None if row[part.name] is None else float(row[part.name]) for part in fields(cls)
        }
        return cls(**parts)


COMPONENTS = tuple(part.name for part in fields(Components))

# Before the query is embedded: which of its phrases (runs of one to three of its words) name someone
# who speaks in the caller's memories. One memory_speaker index entry settles each phrase.
NAMED_SPEAKERS = """
UNWIND $phrases AS phrase
WITH DISTINCT phrase
WHERE EXISTS { MATCH (m:Memory {userId: $userId, speaker: phrase}) }
RETURN collect(phrase) AS named
"""

# 5. (before scoring) as of $asOf, a memory edited since reads as its version of then: that text, that
# vector (its cosine taken again); without $asOf, or unedited since, the memory itself.
AS_OF = (
    history.VERSION_THEN
    + """
WITH coalesce(version, m) AS m, CASE WHEN version IS NULL THEN cosine END AS cosine, bm25, hops, neighbour,
     sources, coverage, topNeighbour
"""
)

# The one statement, branch by branch, in Cypher 25 (SEARCH is a Cypher 25 clause).
RECALL_TEMPLATE = "CYPHER 25\n" + OWNED + VECTOR_BRANCH + KEYWORD_BRANCH + RELATION_BRANCH + NEIGHBOUR_BRANCH + SCORING


@dataclass(frozen=True)
class TierSearch:
    """Hanzo's per-tier retrieval: the top ``k`` by cosine, above ``min_cosine``."""

    k: int
    min_cosine: float


@dataclass(frozen=True)
class VectorBranch:
    """``VECTOR_BRANCH``: the best ``k`` in scope by cosine, or per tier (``tiers``) the top k above a
    floor. A caller owning at most ``exact_scan_limit`` memories gets an exact scan; a larger one the vector
    index, filtered inside it to the caller's scope, asked for at least ``index_k`` so that the top k
    of each tier it keeps are the exact ones."""

    k: int = 60
    tiers: Mapping[Tier, TierSearch] | None = None
    # Below about a hundred memories a scan and a filtered search are both exact and cheap; above, the
    # search is as fast or faster (docs/operations.md, "Sizing, measured").
    exact_scan_limit: int = 100
    # The filtered search finds a tenant's nearest by walking the index's graph: the wider the walk the more
    # it asks for, and how wide a walk must be depends on what else the index holds. 200 is the least that
    # found 0.99 of every tenant class's exact top 10 at 100,000 and at a million memories
    # (docs/operations.md, "Sizing, measured": the exactness and latency at each setting).
    index_k: int = 200
    # The query's vector as the mean of the query's and the query's said without the people it names
    # who speak in the caller's memories (``NAMED_SPEAKERS``): "When did Caroline…" is answered by her
    # own turns, which never say her name, while turns addressed to her do.
    unnamed_query: bool = False

    def parameters(self) -> dict[str, Any]:
        tiers = self.tiers or {tier: TierSearch(self.k, -2.0) for tier in Tier}
        return {
            "vectorK": self.k,
            "tierK": {tier.value: search.k for tier, search in tiers.items()},
            "indexK": max(self.k, self.index_k),
            "tierIndexK": {tier.value: max(search.k, self.index_k) for tier, search in tiers.items()},
            "minCosine": {tier.value: search.min_cosine for tier, search in tiers.items()},
            "exactScanLimit": self.exact_scan_limit,
        }


@dataclass(frozen=True)
class KeywordBranch:
    """``KEYWORD_BRANCH``: the best ``k`` in scope; a keyword held by more than ``term_limit`` of the
    caller's memories is left out; with ``preceding`` a session memory holds the keywords of the text
    said right before it too (memory_text's ``preceding`` field)."""

    k: int = 100
    term_limit: int = 1000
    preceding: bool = False

    def parameters(self) -> dict[str, Any]:
        return {"keywordK": self.k, "termLimit": self.term_limit}


@dataclass(frozen=True)
class RelationBranch:
    """``RELATION_BRANCH``: the ``anchor_k`` entities the query names, every in-scope memory within
    ``max_hops`` of one (the nearest ``graph_k`` as candidates); with ``speaker_match`` a memory said
    by someone the query names is nearest of all, and a distance scores ``mention_share`` of itself."""

    anchor_k: int = 8
    graph_k: int = 20
    max_hops: int = 2
    speaker_match: bool = False
    mention_share: float = 1.0

    def parameters(self) -> dict[str, Any]:
        return {
            "anchorK": self.anchor_k,
            "graphK": self.graph_k,
            "maxHops": self.max_hops,
            "speakerMatch": self.speaker_match,
            "mentionShare": float(self.mention_share),
        }


@dataclass(frozen=True)
class NeighbourBranch:
    """``NEIGHBOUR_BRANCH``: the ``seed_k`` best vector and keyword hits lend relation to the memory
    right after them in their session (in full) and right before (``preceding_share``); 0 = off."""

    seed_k: int = 0
    preceding_share: float = 0.5

    def parameters(self) -> dict[str, Any]:
        return {"seedK": self.seed_k, "precedingShare": float(self.preceding_share)}


@dataclass(frozen=True)
class Recency:
    """``SCORING``'s recency: ``0.5 ** (age_days / half_life_days)``."""

    half_life_days: float = 30.0

    def parameters(self) -> dict[str, Any]:
        return {"halfLifeDays": float(self.half_life_days)}


@dataclass(frozen=True)
class TimeMatch:
    """``SCORING``'s time: when the query asks when, a memory whose content matches the query's
    ``says_when`` pattern scores ``1 + time_boost`` times its weighted sum; a memory written
    (``createdAt``) in one of the query's ``periods`` scores ``1 + period_boost`` times it; 0 = off."""

    time_boost: float = 0.0
    period_boost: float = 0.0

    def parameters(self) -> dict[str, Any]:
        return {"timeBoost": float(self.time_boost), "periodBoost": float(self.period_boost)}


@dataclass(frozen=True)
class RecallQuery:
    """Everything the recall statement needs: the caller's scope and query, and each branch's settings."""

    user_id: str
    project_id: str | None
    session_id: str | None
    tiers: Sequence[str]
    embedding: Sequence[float] | None
    # One Lucene query per keyword, within the caller's nodes, for memory_text and entity_name
    # (none when the query has no keyword; built in hippograph.memory.recall.lucene).
    memory_text_queries: Sequence[str]
    entity_name_queries: Sequence[str]
    now: datetime
    weights: Mapping[str, float]
    sources: Sequence[str]
    vector: VectorBranch
    keyword: KeywordBranch
    relation: RelationBranch
    neighbours: NeighbourBranch
    recency: Recency
    time: TimeMatch
    floor: float
    tier_first: bool
    limit: int
    query_words: Sequence[str] = ()
    # The pattern (Cypher's =~) of a memory that says when, for a query that asks when; else None.
    says_when: str | None = None
    # The periods the query names, each [start, end): a memory written in one is boosted.
    periods: Sequence[tuple[datetime, datetime]] = ()
    # The store as it was at this moment (``now`` is then this moment too); None: as it is.
    as_of: datetime | None = None
    # A strong match's session neighbour scores at least this times the match's strength (``Components.carried``).
    carry: float = 0.0

    @property
    def most_boost(self) -> float:
        """The most a weighted sum can be multiplied by, for this query."""
        return (1.0 + self.time.time_boost if self.says_when is not None else 1.0) * (
            1.0 + self.time.period_boost if self.periods else 1.0
        )

    def statement(self, vectors: VectorSlot = SLOTS[0]) -> str:
        return recall_statement(
            self.relation.max_hops,
            self.project_id is not None,
            self.session_id is not None,
            self.vector.tiers is not None,
            vectors,
        )

    def parameters(self) -> dict[str, Any]:
        return {
            "userId": self.user_id,
            "projectId": self.project_id,
            "sessionId": self.session_id,
            "tiers": list(self.tiers),
            "embedding": list(self.embedding) if self.embedding is not None else None,
            "memoryTextQueries": list(self.memory_text_queries),
            "entityNameQueries": list(self.entity_name_queries),
            "queryWords": list(self.query_words),
            "saysWhen": self.says_when,
            "periods": [{"start": start, "end": end} for start, end in self.periods],
            "mostBoost": self.most_boost,
            "now": self.now,
            "asOf": self.as_of,
            "weights": dict(self.weights),
            "carry": float(self.carry),
            "sources": list(self.sources),
            "floor": float(self.floor),
            "tierFirst": self.tier_first,
            "tierRank": {tier.value: rank for rank, tier in enumerate(Tier)},
            "limit": self.limit,
            **self.vector.parameters(),
            **self.keyword.parameters(),
            **self.relation.parameters(),
            **self.neighbours.parameters(),
            **self.recency.parameters(),
            **self.time.parameters(),
        }


IN_USE_NOW = "\n                             AND m.archived = false AND m.validUntil IS NULL"


def index_searches(project: bool, session: bool, per_tier: bool, as_of: bool = False) -> str:
    """The index searches of a scope: what ``IN_SCOPE`` asks of each tier as a filter, tiers that ask
    the same searched together (unless ``per_tier``), each for its own top k; ``as_of``: for twice k
    of everything in the scope, in use now or not."""
    named = [name for name, given in zip(scope.SCOPE_IDS, (project, session)) if given]
    filters = {tier: scope.index_filter(tier, named) for tier in scope.PLACED_BY}
    groups: dict[str, list[Tier]] = {}
    for tier, condition in filters.items():
        if condition is not None:
            groups.setdefault(f"{tier.value}{condition}" if per_tier else condition, []).append(tier)
    searches = []
    for tiers in groups.values():
        names = "[" + ", ".join(f"'{tier.value}'" for tier in tiers) + "]"
        limit = f"$tierIndexK['{tiers[0].value}']" if per_tier else "$indexK"
        searches.append(
            INDEX_SEARCH.replace("__TIERS__", names)
            .replace("__SCOPE__", cast(str, filters[tiers[0]]))  # grouped: not None
            .replace("__IN_USE__", "" if as_of else IN_USE_NOW)
            .replace("__LIMIT__", f"{limit} * 2" if as_of else limit)
        )
    return "        UNION ALL\n".join(searches)


@lru_cache(maxsize=16 * MAX_HOPS_LIMIT)
def recall_statement(
    max_hops: int, project: bool = False, session: bool = False, per_tier: bool = False, vectors: VectorSlot = SLOTS[0]
) -> str:
    """The recall statement with its traversal bounded by ``max_hops`` (1..6), for a scope that
    names a project or not and a session or not, with the vector pool per tier or not, reading the
    vectors of the slot ``vectors`` (``hippograph.graph.store_model``: an allowed name, never user text)."""
    if not isinstance(max_hops, int) or isinstance(max_hops, bool) or not 1 <= max_hops <= MAX_HOPS_LIMIT:
        raise ValueError(f"max_hops must be a whole number from 1 to {MAX_HOPS_LIMIT}, got {max_hops!r}")
    return (
        RECALL_TEMPLATE.replace("__INDEX_SEARCHES__", index_searches(project, session, per_tier))
        .replace("__AS_OF_SEARCHES__", index_searches(project, session, per_tier, as_of=True))
        .replace("__IN_SCOPE__", IN_SCOPE.strip())
        .replace("__ANCHOR_VISIBLE__", history.visible("anchor"))
        .replace("__AS_OF__", AS_OF.strip())
        .replace("__RELATIONS__", "|".join(RELATION_TYPES))
        .replace("__MAX_HOPS__", str(max_hops))
        .replace("__COMPONENTS__", ", ".join(COMPONENTS))
        .replace("__RECENCY__", RECENCY)
        .replace("__VECTOR_INDEX__", vectors.index)
        .replace("__VECTORS__", vectors.property)
    )


def named_speakers(tx: ManagedTransaction, user_id: str, phrases: Sequence[str]) -> list[str]:
    """The ``phrases`` that are the ``speaker`` of at least one of the caller's memories."""
    return list(tx.run(NAMED_SPEAKERS, userId=user_id, phrases=list(phrases)).single(strict=True)["named"])


def recall_candidates(tx: ManagedTransaction, query: RecallQuery) -> list[dict[str, Any]]:
    """The ranked candidate rows, best first, each with its score components."""
    # The store's slot is read in the same transaction, so a reembed's switch never splits a recall.
    statement = query.statement(store_model.current_vectors(tx))
    # dict(record), not record.data(): the values are plain already, and data() copies each one again (~1 ms).
    return [dict(record) for record in tx.run(statement, query.parameters())]
