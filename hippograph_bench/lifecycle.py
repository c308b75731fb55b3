"""Recall quality after the session lifecycle, against the raw-turn store (``--lifecycle``).

Each conversation is played in order as one user with one project: every
session is started, its turns appended with ``append_turn`` (the transcript is
summarised past ``config.TRANSCRIPT_TRIGGER`` of its budget, facts going to project memory), the session
is ended (the remaining turns' facts are kept, the turns deleted), and
consolidation runs between sessions. Then the questions are asked as in the
raw-turn run, and a returned fact counts for the turns it was derived from
(``attributes.sourceRefs``: the turns' LoCoMo ``dia_id`` s), in order.

Also reported: the tokens the memory store holds at the end, against the tokens
of the raw turns (the raw-turn run stores every turn).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from hippograph.config import TRANSCRIPT_TRIGGER
from hippograph.memory.lifecycle.consolidation import consolidate
from hippograph.memory.lifecycle.sessions import end_session, start_session
from hippograph.memory.lifecycle.transcript import append_turn
from hippograph.memory.recall.profiles import RecallProfile
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.progress import Progress
from hippograph_bench import inspection
from hippograph_bench.data import Conversation, DataSet
from hippograph_bench.locomo import Asked, ask_all, bench_services, forgotten_after, methods, questions, summarise_sets

PROJECT = "locomo"
TRANSCRIPT_BUDGET = 1024


def play(services: Services, conversation: Conversation) -> dict[str, list[str]]:
    """Run the conversation through the lifecycle; memory id → the dia_ids it derives from."""
    user = conversation.user_id
    for session_id, turns in conversation.sessions.items():
        scope = Scope(user, PROJECT, session_id)
        start_session(services, scope, now=turns[0].at)
        # A turn with nothing said (LongMemEval has some) is no turn to a transcript: append_turn refuses it.
        for turn in (t for t in turns if t.text.strip()):
            append_turn(services, scope, turn.speaker, turn.text, at=turn.at, ref=turn.dia_id)
        end_session(services, user, session_id, now=turns[-1].at)
        consolidate(services, user, now=turns[-1].at)
    with services.driver.session(database=services.database) as session:
        rows = session.execute_read(inspection.active_memories, user)
    return {r["id"]: list(json.loads(r["attributes"] or "{}").get("sourceRefs", [])) for r in rows}


def stored_tokens(services: Services, user_id: str) -> int:
    with services.driver.session(database=services.database) as session:
        return sum(int(r["tokens"] or 0) for r in session.execute_read(inspection.active_memories, user_id))


def raw_tokens(services: Services, conversation: Conversation) -> int:
    return sum(services.tokens.count(t.content) for t in conversation.turns)


def evaluate(
    services: Services,
    sets: Sequence[DataSet],
    profiles: Mapping[str, RecallProfile] | None = None,
    transcript_budget: int = TRANSCRIPT_BUDGET,
) -> dict[str, Any]:
    services = bench_services(services)
    services = dataclasses.replace(
        services, settings=dataclasses.replace(services.settings, transcript_budget=transcript_budget)
    )
    profiles = dict(profiles or methods())
    asked: list[Asked] = []
    played_seconds = 0.0
    tokens = {"stored": 0, "raw": 0, "memories": 0}
    with Progress("bench locomo --lifecycle", questions(sets), "questions") as shown:
        for data in sets:
            for conversation in data.conversations:
                with forgotten_after(services, conversation):
                    started = time.perf_counter()
                    refs = play(services, conversation)
                    played_seconds += time.perf_counter() - started
                    tokens["stored"] += stored_tokens(services, conversation.user_id)
                    tokens["raw"] += raw_tokens(services, conversation)
                    tokens["memories"] += len(refs)
                    shown.write(
                        f"{data.name} {conversation.sample_id}: {len(refs)} memories after the lifecycle, "
                        f"{len(conversation.questions)} questions"
                    )
                    asked += ask_all(services, data, conversation, profiles, refs, shown)
    result = summarise_sets(asked, sets, profiles, services, played_seconds)
    result["lifecycle"] = {
        "transcript_budget": transcript_budget,
        "stored_tokens": tokens["stored"],
        "raw_turn_tokens": tokens["raw"],
        "stored_share": round(tokens["stored"] / tokens["raw"], 4) if tokens["raw"] else None,
        "memories": tokens["memories"],
        "played_seconds": round(played_seconds, 1),
    }
    return result


def page(result: dict[str, Any], raw: dict[str, Any] | None) -> str:
    """The lifecycle run beside the raw-turn run (``locomo.json`` in the same folder, when present), set by
    set: the raw run may hold other sets, and its pooled figures are theirs too."""
    life = result["lifecycle"]
    lines = [
        "# lifecycle",
        "",
        "## Recall after the session lifecycle",
        "",
        f"Each conversation played through `append_turn` (transcript budget {life['transcript_budget']} tokens: "
        f"past {TRANSCRIPT_TRIGGER:.0%} the oldest third is summarised and its facts kept), "
        "session ends and consolidation; "
        "a returned fact "
        "counts for the turns it derives from. "
        f"Stored at the end: {life['stored_tokens']} tokens in {life['memories']} memories, "
        f"{life['stored_share']:.1%} of the {life['raw_turn_tokens']} tokens of the raw turns.",
    ]
    for name, measured in result["sets"].items():
        before = ((raw or {}).get("sets") or {}).get(name, {}).get("results", {})
        lines += [
            "",
            f"### {name} ({measured['questions']} questions)",
            "",
            "| method | run | recall@5 | recall@10 | recall@20 | hit@1 | ndcg@5 |",
            "|---|---|---|---|---|---|---|",
        ]
        for method, scores in measured["results"].items():
            runs = [("lifecycle", scores)] + ([("raw turns", before[method])] if method in before else [])
            for run, values in runs:
                lines.append(
                    f"| {method} | {run} | "
                    + " | ".join(f"{values[m]:.3f}" for m in ("recall@5", "recall@10", "recall@20", "hit@1", "ndcg@5"))
                    + " |"
                )
    return "\n".join(lines) + "\n"
