"""Recall quality on LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0).

Each conversation becomes one user of this run alone (``Conversation.user_id`` holds the run's
token, so that two benchmarks sharing a store never ingest into, or forget, each other's users;
they are forgotten when the run ends); each LoCoMo session a session whose turns
are SESSION memories stamped with the session's ``session_N_date_time`` (plus
one second per turn, to keep their order), with tier capacities large enough to
hold a whole conversation, so that ranking is what is measured. Every question
of categories 1-4 (category 5 is adversarial, unanswerable) is asked as that
user, "now" being a day after the last session, and the ranked memory ids are
mapped back to turn ``dia_id`` s and scored against the question's evidence
(``"D8:6; D9:17"`` holds two ids). Methods, side by side, all through
``hippograph.memory.recall.query.recall`` and its one Cypher statement:

* ``bm25`` — full-text candidates ranked by BM25 alone;
* ``vector`` — vector candidates ranked by cosine alone;
* ``izanagi``, ``hanzo``, ``hybrid`` — the scoring profiles.

Rank metrics (Recall@5/10/20, Hit@1, NDCG@5) are computed on ``RecallResult.ranking``:
the method's own ranking, after its floor and before the priority budget, which
would otherwise cut every list to at most 3 items.

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

import json
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hippograph.bench import metrics
from hippograph.memory.writing.forget import forget_user
from hippograph.graph.recall import RelationBranch
from hippograph.memory.recall.lucene import keywords
from hippograph.memory.recall.profiles import PROFILES, Gates, Priority, RecallProfile, Source, Weights
from hippograph.memory.recall.query import RecallResult, recall, select
from hippograph.memory.writing.store import MemoryInput, bulk_import
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DATE_FORMAT = "%I:%M %p on %d %B, %Y"
LARGE_CAPACITY = 10_000_000
# Words compare on their first five letters: "volunteering" meets "volunteered", "stress" "stressed".
STEM = 5
# The priorities whose budget delivers anything.
DELIVERING = (Priority.CRITICAL, Priority.HIGH, Priority.MEDIUM)

# The two baselines, as profiles of the same recall statement: one signal, no floor.
BM25 = RecallProfile(
    name="bm25", weights=Weights(keyword=1.0), sources=frozenset({Source.KEYWORD}),
    relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0),
)
VECTOR = RecallProfile(
    name="vector", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
    relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0),
)


def methods() -> dict[str, RecallProfile]:
    return {"bm25": BM25, "vector": VECTOR, **{name: PROFILES[name] for name in ("izanagi", "hanzo", "hybrid")}}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: datetime

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: Mapping[str, Sequence[Turn]]
    questions: Sequence[Question]
    # The load that read it: its user is this run's alone.
    run: str

    @property
    def user_id(self) -> str:
        return f"locomo-{self.run}-" + re.sub(r"[^A-Za-z0-9._:@/-]", "-", self.sample_id)

    @property
    def now(self) -> datetime:
        """When the questions are asked: a day after the last turn."""
        return max(turn.at for turns in self.sessions.values() for turn in turns) + timedelta(days=1)


def load(paths: Iterable[str | Path]) -> list[Conversation]:
    """Conversations of LoCoMo-format files, as users of a run of their own; questions without
    evidence are left out."""
    run = uuid.uuid4().hex[:8]
    conversations = []
    for path in paths:
        for sample in json.loads(Path(path).read_text()):
            conversations.append(_conversation(sample, run))
    return conversations


@contextmanager
def forgotten_after(services: Services, conversation: Conversation) -> Iterator[None]:
    """Forget the conversation's user when the block ends, however it ends: a run leaves no memories behind."""
    try:
        yield
    finally:
        forget_user(services, conversation.user_id)


def _conversation(sample: Mapping[str, Any], run: str) -> Conversation:
    raw = sample["conversation"]
    sessions: dict[str, list[Turn]] = {}
    numbers = sorted(int(m.group(1)) for key in raw if (m := re.fullmatch(r"session_(\d+)", key)))
    for n in numbers:
        turns = raw.get(f"session_{n}") or []
        stamp = raw.get(f"session_{n}_date_time")
        if not turns or not stamp:
            continue
        start = datetime.strptime(stamp.strip(), DATE_FORMAT).replace(tzinfo=timezone.utc)
        sessions[f"session-{n}"] = [
            Turn(t["dia_id"], t["speaker"], _text(t), start + timedelta(seconds=i)) for i, t in enumerate(turns)
        ]
    questions = []
    for qa in sample.get("qa", []):
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = frozenset(part.strip() for item in qa.get("evidence", []) for part in str(item).split(";") if part.strip())
        if evidence:
            questions.append(Question(str(qa["question"]), int(qa["category"]), evidence))
    return Conversation(str(sample.get("sample_id", f"sample-{uuid.uuid4().hex[:8]}")), sessions, questions, run)


def _text(turn: Mapping[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    # A shared photo is part of what was said; LoCoMo gives its caption.
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def shared_words(conversation: Conversation) -> list[int]:
    """Per question, how many content words it shares with its evidence turns (see ``low_overlap``)."""
    turns = {turn.dia_id: turn for turns in conversation.sessions.values() for turn in turns}
    names = {word for turn in turns.values() for word in keywords(turn.speaker)}

    def shared(question: Question) -> int:
        asked = {word[:STEM] for word in keywords(question.text) if word not in names}
        said = {word[:STEM] for dia_id in question.evidence if dia_id in turns for word in keywords(turns[dia_id].text)}
        return len(asked & said)

    return [shared(question) for question in conversation.questions]


def ingest(services: Services, conversation: Conversation) -> dict[str, str]:
    """Store the conversation as its user's memories (a long turn as its parts); memory id → dia_id."""
    dia_ids: dict[str, str] = {}
    for session_id, turns in conversation.sessions.items():
        scope = Scope(conversation.user_id, None, session_id)
        items = [
            MemoryInput(
                content=turn.content, tier=Tier.SESSION, kind="turn", created_at=turn.at,
                attributes={"dia_id": turn.dia_id, "speaker": turn.speaker},
            )
            for turn in turns
        ]
        for stored, turn in zip(store_memories(services, scope, items), turns):
            dia_ids.update((memory_id, turn.dia_id) for memory_id in stored)
    return dia_ids


def store_memories(services: Services, scope: Scope, items: Sequence[MemoryInput]) -> list[tuple[str, ...]]:
    """The ingest's one write: the service's own bulk import (batched embedding, mentions, audit)."""
    return bulk_import(services, scope, items)


def bench_services(services: Services) -> Services:
    """The services with tier capacities large enough to hold a whole conversation."""
    settings = replace(
        services.settings, session_capacity=LARGE_CAPACITY, project_capacity=LARGE_CAPACITY,
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

    conversation: str
    category: int
    method: str
    scores: dict[str, float]
    delivered: dict[Priority, Delivered]
    low_overlap: bool
    embed_ms: float
    query_ms: float


def ask(
    services: Services, conversation: Conversation, dia_ids: Mapping[str, str], question: Question,
    profile: RecallProfile, priority: Priority = Priority.CRITICAL,
) -> tuple[RecallResult, list[str]]:
    """Recall for one question; the result and its ranking as dia_ids."""
    result = recall(
        services, question.text, Scope(conversation.user_id), priority, profile,
        now=conversation.now, record_access=False,
    )
    return result, [dia_ids[c.id] for c in result.ranking if c.id in dia_ids]


def evaluate(
    services: Services,
    conversations: Sequence[Conversation],
    profiles: Mapping[str, RecallProfile] | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Ingest each conversation, ask every question of every method, and aggregate."""
    services = bench_services(services)
    profiles = dict(profiles or methods())
    asked: list[Asked] = []
    ingest_seconds = 0.0
    for conversation in conversations:
        with forgotten_after(services, conversation):
            started = time.perf_counter()
            dia_ids = ingest(services, conversation)
            ingest_seconds += time.perf_counter() - started
            progress(f"{conversation.sample_id}: {len(dia_ids)} turns stored, {len(conversation.questions)} questions")
            refs = {memory_id: (dia_id,) for memory_id, dia_id in dia_ids.items()}
            for question, shared in zip(conversation.questions, shared_words(conversation)):
                for name, profile in profiles.items():
                    result, ranked = ask(services, conversation, dia_ids, question, profile)
                    asked.append(Asked(
                        conversation.sample_id, question.category, name, metrics.score_question(ranked, set(question.evidence)),
                        deliveries(services, result, profile, refs, question), shared == 0,
                        result.timings.embed_ms if result.timings else 0.0, result.timings.query_ms if result.timings else 0.0,
                    ))
    return summarise(asked, conversations, profiles, services, ingest_seconds)


def deliveries(
    services: Services, result: RecallResult, profile: RecallProfile, refs: Mapping[str, Sequence[str]],
    question: Question,
) -> dict[Priority, Delivered]:
    """What each priority's budget delivers from the ranking: recall's own selection, without asking again;
    a memory counts for the turns it stands for (``refs``: a turn for itself, a fact for those it came from)."""
    found = {}
    for priority in DELIVERING:
        items = select(result.ranking, profile, profile.gates.budgets[priority], services.tokens)
        returned = {ref for item in items for ref in refs.get(item.id, ())}
        found[priority] = Delivered(len(items), len(question.evidence & returned), sum(item.tokens for item in items),
                                    len(question.evidence))
    return found


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


def summarise(
    asked: Sequence[Asked], conversations: Sequence[Conversation], profiles: Mapping[str, RecallProfile],
    services: Services, ingest_seconds: float,
) -> dict[str, Any]:
    def by(predicate: Callable[[Asked], bool]) -> dict[str, dict[str, float]]:
        return {
            name: _round(metrics.mean_scores([a.scores for a in asked if a.method == name and predicate(a)]))
            for name in profiles
        }

    def delivered(name: str, priority: Priority) -> list[Delivered]:
        return [a.delivered[priority] for a in asked if a.method == name]

    questions = sum(len(c.questions) for c in conversations)
    return {
        "questions": questions,
        "model": services.embedder.name,
        "results": by(lambda a: True),
        "delivered": {
            priority.value: {name: _round(delivered_scores(delivered(name, priority))) for name in profiles}
            for priority in DELIVERING
        },
        "delivered_by_count": {name: precision_by_count(delivered(name, Priority.CRITICAL)) for name in profiles},
        "low_overlap": {
            "questions": sum(1 for a in asked if a.low_overlap and a.method == next(iter(profiles))),
            "results": by(lambda a: a.low_overlap),
        },
        "latency_ms": {
            name: _round({
                "embed_mean": _mean([a.embed_ms for a in asked if a.method == name]),
                "query_mean": _mean([a.query_ms for a in asked if a.method == name]),
                "query_p95": metrics.percentile([a.query_ms for a in asked if a.method == name], 95) if asked else 0.0,
            })
            for name in profiles
        },
        "per_category": {
            CATEGORY_NAMES.get(cat, str(cat)): {
                "questions": sum(1 for c in conversations for q in c.questions if q.category == cat),
                "results": by(lambda a, cat=cat: a.category == cat),
            }
            for cat in CATEGORIES
        },
        "per_conversation": {
            c.sample_id: {"questions": len(c.questions), "results": by(lambda a, s=c.sample_id: a.conversation == s)}
            for c in conversations
        },
        "profiles": {name: describe(profile) for name, profile in profiles.items()},
        "conversations": [c.sample_id for c in conversations],
        "turns": sum(len(t) for c in conversations for t in c.sessions.values()),
        "ingest_seconds": round(ingest_seconds, 1),
    }


def describe(profile: RecallProfile) -> dict[str, Any]:
    return {
        "weights": profile.weights.as_params(),
        "sources": sorted(s.value for s in profile.sources),
        "selection": profile.gates.selection.value,
        "full_above": profile.gates.full_above,
        "summary_above": profile.gates.summary_above,
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
