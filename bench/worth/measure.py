"""The worth of hybrid's hand-set numbers on the shipped encoder: each changed, beside it as shipped.

Not part of the package: the record of one measurement (bench/ranking.md, "What the hand numbers are
worth"), to run again. One ingest of each conversation, every variant asking every question
(``hippograph_bench.locomo.evaluate`` with the variants as its methods), against the configured Neo4j and
model (all-mpnet-base-v2 by default):

    python bench/worth/measure.py OUT.json --data FILE [--data FILE ...] [--conversations N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from hippograph.config import Settings
from hippograph.memory.recall.profiles import HYBRID
from hippograph.operations.services import open_services
from hippograph_bench import data, locomo

# Each hand number at a value below and above the shipped one (bench/ranking.md, rows 26, 33, 34, 36).
VARIANTS = {
    "hybrid": HYBRID,
    "keyword_k_100": dataclasses.replace(HYBRID, keyword=dataclasses.replace(HYBRID.keyword, k=100)),
    "keyword_k_1000": dataclasses.replace(HYBRID, keyword=dataclasses.replace(HYBRID.keyword, k=1000)),
    "mention_share_0": dataclasses.replace(HYBRID, relation=dataclasses.replace(HYBRID.relation, mention_share=0.0)),
    "mention_share_1": dataclasses.replace(HYBRID, relation=dataclasses.replace(HYBRID.relation, mention_share=1.0)),
    "seed_k_0": dataclasses.replace(HYBRID, neighbours=dataclasses.replace(HYBRID.neighbours, seed_k=0)),
    "seed_k_10": dataclasses.replace(HYBRID, neighbours=dataclasses.replace(HYBRID.neighbours, seed_k=10)),
    "summary_above_0": dataclasses.replace(HYBRID, gates=dataclasses.replace(HYBRID.gates, summary_above=0.0)),
    "summary_above_0.2": dataclasses.replace(HYBRID, gates=dataclasses.replace(HYBRID.gates, summary_above=0.2)),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--data", action="append", required=True)
    parser.add_argument("--conversations", type=int, default=None)
    args = parser.parse_args()
    profiles = {name: dataclasses.replace(profile, name=name) for name, profile in VARIANTS.items()}
    with open_services(Settings.from_env()) as services:
        result = locomo.evaluate(services, data.load_sets(args.data, args.conversations), profiles)
    keep = ("recall@10", "hit@1", "ndcg@5")
    table = {
        name: {method: {m: scores[m] for m in keep} for method, scores in summary["results"].items()}
        for name, summary in result["sets"].items()
    }
    Path(args.out).write_text(json.dumps({"encoding": result["encoding"], "sets": table}, indent=1) + "\n")


if __name__ == "__main__":
    main()
