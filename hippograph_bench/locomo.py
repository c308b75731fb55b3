"""Recall quality on conversation sets: LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0), LoCoMo-Plus
and LongMemEval (Wu et al., ICLR 2025; MIT), read by ``hippograph_bench.data``.

Each conversation becomes one user of this run alone, forgotten when its questions are asked; each
session a session whose turns are SESSION memories stamped with the session's date (plus one
second per turn, to keep their order), with tier capacities large enough to hold a whole
conversation, so that ranking is what is measured. A turn longer than a memory holds is stored as
its parts (``bulk_import``), each standing for the turn. Every question is asked as that user at its
own date (LongMemEval's ``question_date``), or else a day after the last session, and the ranked
memory ids are mapped back to turn ``dia_id`` s and scored against the question's evidence
(``"D8:6; D9:17"`` holds two ids; a turn found through several parts counts once, at its best).
Methods, side by side, all through ``hippograph.memory.recall.query.recall`` and its one Cypher
statement:

* ``bm25`` — full-text candidates ranked by BM25 alone;
* ``vector`` — vector candidates ranked by cosine alone;
* ``izanagi``, ``hanzo``, ``hybrid`` — the scoring profiles.

Rank metrics (Recall@5/10/20, Hit@1, NDCG@5) are computed on ``RecallResult.ranking``:
the method's own ranking, after its floor and before the priority budget, which
would otherwise cut every list to at most 3 items. On LongMemEval's sets also LongMemEval's
session-level recall_any@5 and @10 (``metrics.recall_any_at``). Each set (file) is reported
apart — by question type too: LongMemEval's ``question_type``, LoCoMo-Plus's relation, LoCoMo's
category — and all of them together.

What reaches an agent is the budget, so the ``delivered`` set is scored too, per
priority, from the same ranking through recall's own selection (gates and budget):
precision (relevant items over items delivered, pooled over questions), recall
(relevant items delivered over the question's evidence, per question), coverage
(questions with at least one item delivered), and how precision moves with the
number of items delivered — gates doing their job give a weak question fewer,
better items.

The ``low_overlap`` slice holds the questions that share no content word with
their evidence: no keyword of the question (``lucene.keywords``, the speakers' names
left out — every turn carries one) has the first ``STEM`` letters of a keyword of an
evidence turn's text. There, only meaning can find the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from hippograph.graph.recall import RelationBranch
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.lucene import keywords
from hippograph.memory.recall.profiles import PROFILES, Gates, Priority, RecallProfile, Source, Weights
from hippograph.memory.recall.query import RecallResult, recall, select
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.forget import forget_user
from hippograph.memory.writing.store import bulk_import
from hippograph.progress import Progress
from hippograph_bench import metrics
from hippograph_bench.data import Conversation, DataSet, Question, session_of

LARGE_CAPACITY = 10_000_000
# Words compare on their first five letters: "volunteering" meets "volunteered", "stress" "stressed".
STEM = 5
# The priorities whose budget delivers anything.
DELIVERING = (Priority.CRITICAL, Priority.HIGH, Priority.MEDIUM)
# The gate's shares of the first item's score (``Gates.of_top``) at which CRITICAL's delivery is measured.
GATE_SHARES = (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
# A set of more conversations than this (LongMemEval: one haystack a question) is not listed by conversation.
LISTED_CONVERSATIONS = 20

# The two baselines, as profiles of the same recall statement: one signal, no floor.
BM25 = RecallProfile(
    name="bm25",
    weights=Weights(keyword=1.0),
    sources=frozenset({Source.KEYWORD}),
    relation=RelationBranch(anchor_k=0),
    gates=Gates(full_above=-1.0, summary_above=-1.0),
)
VECTOR = RecallProfile(
    name="vector",
    weights=Weights(vector=1.0),
    sources=frozenset({Source.VECTOR}),
    relation=RelationBranch(anchor_k=0),
    gates=Gates(full_above=-1.0, summary_above=-1.0),
)


def methods() -> dict[str, RecallProfile]:
    return {"bm25": BM25, "vector": VECTOR, **{name: PROFILES[name] for name in ("izanagi", "hanzo", "hybrid")}}


@contextmanager
def forgotten_after(services: Services, conversation: Conversation) -> Iterator[None]:
    """Forget the conversation's user when the block ends, however it ends: a run leaves no memories behind."""
    try:
        yield
    finally:
        forget_user(services, conversation.user_id)


def shared_words(conversation: Conversation) -> list[int]:
    """Per question, how many content words it shares with its evidence turns (see ``low_overlap``)."""
    turns = {turn.dia_id: turn for turn in conversation.turns}
    names = {word for turn in turns.values() for word in keywords(turn.speaker)}

    def shared(question: Question) -> int:
        asked = {word[:STEM] for word in keywords(question.text) if word not in names}
        said = {word[:STEM] for dia_id in question.evidence if dia_id in turns for word in keywords(turns[dia_id].text)}
        return len(asked & said)

    return [shared(question) for question in conversation.questions]


def ingest(services: Services, conversation: Conversation) -> dict[str, list[str]]:
    """Store the conversation as its user's memories; memory id → the dia_ids of the turns it stands
    for: a long turn is stored as its parts, each standing for it, and a turn said again word for word
    in its session is the memory already there (``bulk_import`` keeps one), standing for both."""
    dia_ids: dict[str, list[str]] = {}
    for session_id, turns in conversation.sessions.items():
        scope = Scope(conversation.user_id, None, session_id)
        items = [
            MemoryInput(
                content=turn.content,
                tier=Tier.SESSION,
                kind="turn",
                created_at=turn.at,
                attributes={"dia_id": turn.dia_id, "speaker": turn.speaker},
            )
            for turn in turns
        ]
        for stored, turn in zip(bulk_import(services, scope, items), turns):
            for memory_id in stored:
                dia_ids.setdefault(memory_id, []).append(turn.dia_id)
    return dia_ids


def bench_services(services: Services) -> Services:
    """The services with tier capacities large enough to hold a whole conversation."""
    settings = replace(
        services.settings,
        session_capacity=LARGE_CAPACITY,
        project_capacity=LARGE_CAPACITY,
        long_term_capacity=LARGE_CAPACITY,
    )
    return replace(services, settings=settings)


@dataclass(frozen=True)
class Delivered:
    """What one priority's budget delivered for one question."""

    items: int
    relevant: int
    tokens: int
    evidence: int


@dataclass
class Asked:
    """One question asked of one method: what it ranked, what each priority's budget delivered."""

    dataset: str
    conversation: str
    kind: str
    method: str
    scores: dict[str, float]
    delivered: dict[Priority, Delivered]
    # What CRITICAL's budget delivers at each of ``GATE_SHARES``.
    gated: dict[float, Delivered]
    low_overlap: bool
    embed_ms: float
    query_ms: float


def ask(services: Services, conversation: Conversation, question: Question, profile: RecallProfile) -> RecallResult:
    """Recall for one question, as the conversation's user, at the question's date."""
    return recall(
        services,
        question.text,
        Scope(conversation.user_id),
        Priority.CRITICAL,
        profile,
        now=conversation.asked_at(question),
        record_access=False,
    )


def ask_all(
    services: Services,
    data: DataSet,
    conversation: Conversation,
    profiles: Mapping[str, RecallProfile],
    refs: Mapping[str, Sequence[str]],
    shown: Progress,
) -> list[Asked]:
    """Every question of the conversation asked of every method, scored; ``refs`` maps a memory to the
    turns it stands for (a turn or a part of one for itself, a fact for those it came from), in order."""
    asked = []
    # Each profile with its gate at each share, made once for every question.
    gates = {name: {share: profile.with_(of_top=share) for share in GATE_SHARES} for name, profile in profiles.items()}
    for question, shared in zip(conversation.questions, shared_words(conversation)):
        by_session = (session_of, set(question.sessions)) if data.sessions_scored else None
        for name, profile in profiles.items():
            result = ask(services, conversation, question, profile)
            ranked = [ref for c in result.ranking for ref in refs.get(c.id, ())]
            asked.append(
                Asked(
                    data.name,
                    conversation.sample_id,
                    question.kind,
                    name,
                    metrics.score_question(ranked, set(question.evidence), by_session),
                    deliveries(services, result, profile, refs, question),
                    {
                        share: delivered(services, result, gated, Priority.CRITICAL, refs, question)
                        for share, gated in gates[name].items()
                    },
                    shared == 0,
                    result.timings.embed_ms if result.timings else 0.0,
                    result.timings.query_ms if result.timings else 0.0,
                )
            )
        shown.advance(1)
    return asked


def evaluate(
    services: Services,
    sets: Sequence[DataSet],
    profiles: Mapping[str, RecallProfile] | None = None,
) -> dict[str, Any]:
    """Ingest each conversation, ask every question of every method, and aggregate per set and together;
    progress on stderr, a line for each conversation."""
    services = bench_services(services)
    profiles = dict(profiles or methods())
    asked: list[Asked] = []
    ingest_seconds = 0.0
    with Progress("bench locomo", questions(sets), "questions") as shown:
        for data in sets:
            for n, conversation in enumerate(data.conversations, 1):
                with forgotten_after(services, conversation):
                    started = time.perf_counter()
                    dia_ids = ingest(services, conversation)
                    ingest_seconds += time.perf_counter() - started
                    asked += ask_all(services, data, conversation, profiles, dia_ids, shown)
                shown.write(
                    f"{data.name} {n}/{len(data.conversations)} {conversation.sample_id}: {len(dia_ids)} "
                    f"memories of {len(conversation.turns)} turns, {len(conversation.questions)} questions"
                )
    return summarise_sets(asked, sets, profiles, services, ingest_seconds)


def questions(sets: Sequence[DataSet]) -> int:
    return sum(len(conversation.questions) for data in sets for conversation in data.conversations)


def deliveries(
    services: Services,
    result: RecallResult,
    profile: RecallProfile,
    refs: Mapping[str, Sequence[str]],
    question: Question,
) -> dict[Priority, Delivered]:
    """What each priority's budget delivers from the ranking."""
    return {priority: delivered(services, result, profile, priority, refs, question) for priority in DELIVERING}


def delivered(
    services: Services,
    result: RecallResult,
    profile: RecallProfile,
    priority: Priority,
    refs: Mapping[str, Sequence[str]],
    question: Question,
) -> Delivered:
    """What ``priority``'s budget delivers from the ranking: recall's own selection, without asking again;
    a memory counts for the turns it stands for (``refs``)."""
    items = select(result.ranking, profile, profile.gates.budgets[priority], services.tokens)
    returned = {ref for item in items for ref in refs.get(item.id, ())}
    return Delivered(
        len(items), len(question.evidence & returned), sum(item.tokens for item in items), len(question.evidence)
    )


def delivered_scores(delivered: Sequence[Delivered]) -> dict[str, float]:
    """Precision pooled over the items delivered, recall and coverage averaged over questions."""
    items = sum(d.items for d in delivered)
    return {
        "items": _mean([d.items for d in delivered]),
        "tokens": _mean([d.tokens for d in delivered]),
        "precision": sum(d.relevant for d in delivered) / items if items else 0.0,
        "recall": _mean([d.relevant / d.evidence for d in delivered]),
        "coverage": _mean([1.0 if d.items else 0.0 for d in delivered]),
        "hit": _mean([1.0 if d.relevant else 0.0 for d in delivered]),
    }


def precision_by_count(delivered: Sequence[Delivered]) -> dict[str, dict[str, float]]:
    """Per number of items delivered: how many questions got that many, and the precision there."""
    by_count: dict[str, dict[str, float]] = {}
    for n in sorted({d.items for d in delivered}):
        same = [d for d in delivered if d.items == n]
        by_count[str(n)] = {"questions": len(same)}
        if n:
            by_count[str(n)]["precision"] = round(sum(d.relevant for d in same) / (n * len(same)), 4)
    return by_count


def summarise_sets(
    asked: Sequence[Asked],
    sets: Sequence[DataSet],
    profiles: Mapping[str, RecallProfile],
    services: Services,
    seconds: float,
) -> dict[str, Any]:
    """Every set together (the top level), each set apart (``sets``), and how the run was made."""
    conversations = [c for data in sets for c in data.conversations]
    return {
        **summarise(asked, conversations, profiles),
        "sets": {
            data.name: summarise(
                [a for a in asked if a.dataset == data.name],
                data.conversations,
                profiles,
                data.sessions_scored,
                listed=len(data.conversations) <= LISTED_CONVERSATIONS,
            )
            for data in sets
        },
        "model": services.embedder.name,
        "encoding": services.embedder.running(),
        "profiles": {name: describe(profile) for name, profile in profiles.items()},
        "ingest_seconds": round(seconds, 1),
    }


def summarise(
    asked: Sequence[Asked],
    conversations: Sequence[Conversation],
    profiles: Mapping[str, RecallProfile],
    sessions: bool = False,
    listed: bool = False,
) -> dict[str, Any]:
    """The scores of ``asked`` by method, and by slice: question type, low word overlap, and with
    ``listed`` conversation; with ``sessions``, LongMemEval's session-level metrics beside the rank metrics."""
    names = (*metrics.METRICS, *metrics.SESSION_METRICS) if sessions else metrics.METRICS

    def by(predicate: Callable[[Asked], bool]) -> dict[str, dict[str, float]]:
        return {
            name: _round(metrics.mean_scores([a.scores for a in asked if a.method == name and predicate(a)], names))
            for name in profiles
        }

    def given(name: str, priority: Priority) -> list[Delivered]:
        return [a.delivered[priority] for a in asked if a.method == name]

    first = next(iter(profiles))
    kinds = sorted({q.kind for c in conversations for q in c.questions})
    summary: dict[str, Any] = {
        "questions": sum(len(c.questions) for c in conversations),
        "metrics": list(names),
        "results": by(lambda a: True),
        "delivered": {
            priority.value: {name: _round(delivered_scores(given(name, priority))) for name in profiles}
            for priority in DELIVERING
        },
        "delivered_by_count": {name: precision_by_count(given(name, Priority.CRITICAL)) for name in profiles},
        "gated": {
            name: {
                str(share): _round(delivered_scores([a.gated[share] for a in asked if a.method == name]))
                for share in GATE_SHARES
            }
            for name in profiles
        },
        "low_overlap": {
            "questions": sum(1 for a in asked if a.low_overlap and a.method == first),
            "results": by(lambda a: a.low_overlap),
        },
        "latency_ms": {
            name: _round(
                {
                    "embed_mean": _mean([a.embed_ms for a in asked if a.method == name]),
                    "query_mean": _mean([a.query_ms for a in asked if a.method == name]),
                    "query_p95": metrics.percentile([a.query_ms for a in asked if a.method == name], 95)
                    if asked
                    else 0.0,
                }
            )
            for name in profiles
        },
        "per_type": {
            kind: {
                "questions": sum(1 for c in conversations for q in c.questions if q.kind == kind),
                "results": by(partial(_of_kind, kind)),
            }
            for kind in kinds
        },
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
    }
    if listed:
        summary["per_conversation"] = {
            c.sample_id: {"questions": len(c.questions), "results": by(partial(_of_conversation, c.sample_id))}
            for c in conversations
        }
    return summary


def _of_kind(kind: str, asked: Asked) -> bool:
    return asked.kind == kind


def _of_conversation(sample_id: str, asked: Asked) -> bool:
    return asked.conversation == sample_id


def describe(profile: RecallProfile) -> dict[str, Any]:
    return {
        "weights": profile.weights.as_params(),
        "sources": sorted(s.value for s in profile.sources),
        "selection": profile.gates.selection.value,
        "full_above": profile.gates.full_above,
        "summary_above": profile.gates.summary_above,
        "of_top": profile.gates.of_top,
        "max_hops": profile.relation.max_hops,
        "half_life_days": profile.recency.half_life_days,
        "vector_k": profile.vector.k,
        "keyword_k": profile.keyword.k,
        "candidates": profile.gates.candidates,
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _round(values: Mapping[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}
