"""The development sets as the benchmarks read them: files in LoCoMo's JSON format, one set each.

A file is a list of samples, each a conversation (``session_N`` lists of turns ``{speaker, dia_id,
text}``, ``session_N_date_time``) with its questions (``qa``: ``question``, ``category``,
``evidence`` dia_ids). ``.json.xz`` files are read through ``lzma`` as they are. Three shapes
of it are told apart by what their questions carry, never by the file's name:

* LoCoMo (Maharana et al., ACL 2024): categories 1-4 named multi-hop, temporal, open-domain,
  single-hop; category 5 (adversarial, unanswerable) is left out.
* LoCoMo-Plus: a question is a statement (the trigger), its ``relation_type`` its kind.
* LongMemEval (Wu et al., ICLR 2025): each sample one question over a haystack of sessions,
  asked at its own ``question_date`` (``2023/03/27 (Mon) 23:35``), its ``question_type`` its kind;
  its evidence sessions (the ``D<session>`` part of its evidence ids) are scored too
  (``hippograph_bench.metrics.recall_any_at``).

Every conversation becomes a user of this load alone (``Conversation.user_id`` holds the load's
token), so that two benchmarks sharing a store never ingest into, or forget, each other's users.
"""

from __future__ import annotations

import json
import lzma
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, UTC
from pathlib import Path
from typing import Any

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DATE_FORMAT = "%I:%M %p on %d %B, %Y"
QUESTION_DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"


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
    # What the set calls this kind of question: LongMemEval's question_type, LoCoMo-Plus's
    # relation_type, else LoCoMo's category name.
    kind: str
    # When it is asked (LongMemEval's question_date); None: a day after the conversation's last turn.
    asked_at: datetime | None = None

    @property
    def sessions(self) -> frozenset[str]:
        """The evidence's sessions: the ``D<session>`` part of each evidence id."""
        return frozenset(session_of(dia_id) for dia_id in self.evidence)


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: Mapping[str, Sequence[Turn]]
    questions: Sequence[Question]
    # The load that read it: its user is this load's alone.
    run: str

    @property
    def user_id(self) -> str:
        return f"locomo-{self.run}-" + re.sub(r"[^A-Za-z0-9._:@/-]", "-", self.sample_id)

    @property
    def turns(self) -> list[Turn]:
        return [turn for turns in self.sessions.values() for turn in turns]

    @property
    def now(self) -> datetime:
        """When a question without a date of its own is asked: a day after the last turn."""
        return max(turn.at for turn in self.turns) + timedelta(days=1)

    def asked_at(self, question: Question) -> datetime:
        return question.asked_at or self.now


@dataclass(frozen=True)
class DataSet:
    """One file's conversations, reported apart under ``name`` (the file's name without its suffixes)."""

    name: str
    conversations: Sequence[Conversation]

    @property
    def questions(self) -> int:
        return sum(len(c.questions) for c in self.conversations)

    @property
    def sessions_scored(self) -> bool:
        """LongMemEval's shape: every question asked at its own date, its evidence sessions scored too."""
        return any(q.asked_at is not None for c in self.conversations for q in c.questions)


def session_of(dia_id: str) -> str:
    """``D12:3`` → ``D12``."""
    return dia_id.split(":", 1)[0]


def read_json(path: str | Path) -> Any:
    """A JSON file, or its xz-compressed copy (``.xz``)."""
    path = Path(path)
    if path.suffix == ".xz":
        with lzma.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    return json.loads(path.read_text(encoding="utf-8"))


def set_name(path: str | Path) -> str:
    name = Path(path).name
    for suffix in (".xz", ".json"):
        name = name.removesuffix(suffix)
    return name


def load_sets(paths: Iterable[str | Path], conversations: int | None = None) -> list[DataSet]:
    """Each file a set, its conversations users of this load alone; ``conversations``: at most that
    many of each file, evenly spread over it (first and last included). Questions without evidence,
    and adversarial ones (category 5), are left out."""
    run = uuid.uuid4().hex[:8]
    sets: list[DataSet] = []
    for path in paths:
        samples = read_json(path)
        if not isinstance(samples, list):
            raise ValueError(f"{path}: not a LoCoMo-format file (a list of samples)")
        name = set_name(path)
        if any(s.name == name for s in sets):
            name = f"{name}-{len(sets) + 1}"
        chosen = spread(samples, conversations)
        # Each set's users apart too: two sets may hold one conversation.
        sets.append(DataSet(name, [_conversation(sample, f"{run}{len(sets)}") for sample in chosen]))
    return sets


def load(paths: Iterable[str | Path], conversations: int | None = None) -> list[Conversation]:
    """Every conversation of the files, in order."""
    return [c for data in load_sets(paths, conversations) for c in data.conversations]


def spread(items: Sequence[Any], most: int | None) -> list[Any]:
    """At most ``most`` of ``items``, evenly spaced, in order (all of them for None)."""
    if most is None or most >= len(items):
        return list(items)
    if most < 1:
        raise ValueError("--conversations must be at least 1")
    if most == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (most - 1))] for i in range(most)]


def _conversation(sample: Mapping[str, Any], run: str) -> Conversation:
    raw = sample["conversation"]
    sessions: dict[str, list[Turn]] = {}
    numbers = sorted(int(m.group(1)) for key in raw if (m := re.fullmatch(r"session_(\d+)", key)))
    for n in numbers:
        turns = raw.get(f"session_{n}") or []
        stamp = raw.get(f"session_{n}_date_time")
        if not turns or not stamp:
            continue
        start = datetime.strptime(stamp.strip(), DATE_FORMAT).replace(tzinfo=UTC)
        sessions[f"session-{n}"] = [
            Turn(t["dia_id"], t["speaker"], _text(t), start + timedelta(seconds=i)) for i, t in enumerate(turns)
        ]
    questions = []
    for qa in sample.get("qa", []):
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = frozenset(
            part.strip() for item in qa.get("evidence", []) for part in str(item).split(";") if part.strip()
        )
        if evidence:
            category = int(qa["category"])
            kind = qa.get("question_type") or qa.get("relation_type") or CATEGORY_NAMES[category]
            asked = qa.get("question_date")
            at = datetime.strptime(asked.strip(), QUESTION_DATE_FORMAT).replace(tzinfo=UTC) if asked else None
            questions.append(Question(str(qa["question"]), category, evidence, str(kind), at))
    return Conversation(str(sample.get("sample_id", f"sample-{uuid.uuid4().hex[:8]}")), sessions, questions, run)


def _text(turn: Mapping[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    # A shared photo is part of what was said; LoCoMo gives its caption.
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text
