"""Write-path speed: one ``remember`` at a time, and ``bulk_import`` against raw embedding.

Three numbers from one run, same model, same machine, same texts (LoCoMo turns):

* ``remember`` latency p50/p95/p99 — the whole write path of one memory:
  scrub, embed, count, capacity check, store with mentions, audit line (with
  ``HIPPOGRAPH_WRITE_VECTORS=after`` the embedding comes after the answer: then also the longest a
  memory waited for its vector, and how long after the last answer every vector was written);
* raw embedding throughput — ``Embedder.embed_documents`` (the memory vectors the write path
  makes: the mean of each text's passages) over the texts in batches, nothing else;
* bulk import throughput — ``bulk_import`` of the same texts, and its ratio to the raw figure.

Everything is written as a throwaway user that is deleted afterwards.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.operations.services import open_embedder
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.forget import forget_user
from hippograph.memory.writing.store import bulk_import, remember
from hippograph.progress import Progress
from hippograph_bench import metrics
from hippograph_bench.report import encoding
from hippograph_bench.data import load

LARGE = 100_000_000
# The raw embedding is timed in chunks this large, each a progress step: far above the model's own batch.
EMBED_CHUNK = 512


def locomo_texts(paths: Sequence[Path], limit: int) -> list[str]:
    """Distinct turn texts of LoCoMo files, as the recall benchmark stores them, in file order."""
    texts = list(dict.fromkeys(turn.content for conversation in load(paths) for turn in conversation.turns))
    if len(texts) < limit:
        raise ValueError(f"the data holds {len(texts)} distinct turns, fewer than the {limit} asked for")
    return texts[:limit]


def run(services: Services, data: Sequence[Path], singles: int = 300, bulk: int = 3000) -> dict[str, Any]:
    roomy = dataclasses.replace(
        services,
        settings=dataclasses.replace(
            services.settings, session_capacity=LARGE, project_capacity=LARGE, long_term_capacity=LARGE
        ),
    )
    texts = locomo_texts(data, singles + bulk)
    user = f"bench-writes-{uuid.uuid4().hex[:8]}"
    try:
        # Warm the model and the driver's pool so the first sample is not a cold start.
        remember(roomy, Scope(user, "warmup"), MemoryInput("warm-up memory", Tier.PROJECT))
        latencies = []
        with Progress("bench writes: one at a time", singles, "memories") as shown:
            for text in texts[:singles]:
                started = time.perf_counter()
                remember(roomy, Scope(user, "singles"), MemoryInput(text, Tier.PROJECT))
                latencies.append((time.perf_counter() - started) * 1000)
                shown.advance(1)
        late = services.writer.late  # HIPPOGRAPH_WRITE_VECTORS=after: the vectors come after the answers
        last_answer = time.perf_counter()
        if late is not None:
            services.writer.settle(user)
        settled_ms = (time.perf_counter() - last_answer) * 1000

        bulk_texts = texts[singles:]
        # An embedder of its own: the service's keeps the vectors it made, and would hand them to the import.
        print(
            f"bench writes: loading an embedder of its own ({services.settings.embedding_model})",
            file=sys.stderr,
            flush=True,
        )
        raw = open_embedder(services.settings)
        raw.embed_documents(bulk_texts[:64])
        timed = bulk_texts[64:]
        with Progress("bench writes: raw embedding", len(timed), "texts") as shown:
            started = time.perf_counter()
            for start in range(0, len(timed), EMBED_CHUNK):
                raw.embed_documents(timed[start : start + EMBED_CHUNK])
                shown.advance(len(timed[start : start + EMBED_CHUNK]))
            embed_rate = len(timed) / (time.perf_counter() - started)

        items = [MemoryInput(text, Tier.PROJECT) for text in bulk_texts]
        with Progress("bench writes: bulk import", len(items), "memories") as shown:
            started = time.perf_counter()
            ids = [
                memory_id
                for stored in bulk_import(roomy, Scope(user, "bulk"), items, progress=shown)
                for memory_id in stored
            ]
            import_seconds = time.perf_counter() - started
        assert len(set(ids)) == len(items)
    finally:
        forget_user(services, user)

    import_rate = len(bulk_texts) / import_seconds
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "model": services.embedder.name,
        "encoding": services.embedder.running(),
        "remember": {
            "samples": len(latencies),
            "p50_ms": round(statistics.median(latencies), 2),
            "p95_ms": round(metrics.percentile(latencies, 95), 2),
            "p99_ms": round(metrics.percentile(latencies, 99), 2),
            "mean_ms": round(statistics.fmean(latencies), 2),
            **(
                {
                    "vectors": "after",
                    "slowest_vector_ms": round(late.slowest * 1000, 1),
                    "settled_after_last_ms": round(settled_ms, 1),
                }
                if late is not None
                else {}
            ),
        },
        "bulk": {
            "memories": len(bulk_texts),
            "raw_embedding_per_s": round(embed_rate, 1),
            "bulk_import_per_s": round(import_rate, 1),
            "ratio": round(import_rate / embed_rate, 3),
        },
    }


def report(result: dict[str, Any]) -> str:
    single, bulk = result["remember"], result["bulk"]
    after = single.get("vectors") == "after"
    return "\n".join(
        [
            "# writes",
            "",
            "## The write path",
            "",
            f"Measured {result['when']} with `{result['model']}` on this machine (`hippograph bench writes`). "
            f"{encoding(result)}",
            "",
            "| measure | value |",
            "|---|---|",
            f"| `remember` p50 "
            f"({'its vector after the answer, HIPPOGRAPH_WRITE_VECTORS=after' if after else 'embedding included'})"
            f" | {single['p50_ms']} ms |",
            f"| `remember` p95 | {single['p95_ms']} ms |",
            f"| `remember` p99 | {single['p99_ms']} ms |",
            *(
                [
                    f"| the longest a memory waited for its vector after its answer | "
                    f"{single['slowest_vector_ms']} ms |",
                    f"| every vector written, after the last answer | {single['settled_after_last_ms']} ms |",
                ]
                if after
                else []
            ),
            f"| raw embedding throughput | {bulk['raw_embedding_per_s']} texts/s |",
            f"| `bulk_import` throughput | {bulk['bulk_import_per_s']} memories/s |",
            f"| bulk import / raw embedding | {bulk['ratio']} |",
            "",
            f"{single['samples']} single writes and {bulk['memories']} bulk memories, LoCoMo turns as text "
            "(Maharana et al., ACL 2024, CC BY-NC 4.0).",
            "",
        ]
    )
