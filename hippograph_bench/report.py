"""Markdown reports with plots for the benchmark results.

Each command's result gets ``<name>.md`` (and a ``<name>.png`` plot) beside its
JSON; ``REPORT.md`` in the same folder gathers every result found there
(``locomo.json``, ``fit.json``, ``latency.json``). Its first line names the models the results were
measured with, and the default model when that is not one of them; ``hippograph bench report FOLDER``
writes it again (a test holds every committed one to what it writes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippograph.config import DEFAULT_MODEL
from hippograph_bench import branches
from hippograph_bench.metrics import METRICS

CITATION = (
    "LoCoMo: A. Maharana, D.-H. Lee, S. Tulyakov, M. Bansal, F. Barbieri, Y. Fang, "
    "*Evaluating Very Long-Term Conversational Memory of LLM Agents*, ACL 2024. "
    "Data licensed CC BY-NC 4.0, used here for evaluation only. "
    "LongMemEval: D. Wu, H. Wang, W. Yu, Y. Zhang, K.-W. Chang, D. Yu, *LongMemEval: Benchmarking Chat "
    "Assistants on Long-Term Interactive Memory*, ICLR 2025; MIT licence. "
    "LoCoMo-Plus (xjtuleeyf/Locomo-Plus): no licence stated, used for evaluation only."
)
SECTIONS = (("locomo", "locomo.json"), ("fit", "fit.json"), ("latency", "latency.json"))
# Pages that write their own markdown (hippograph_bench.writes, .api, .lifecycle, .seed), the million-memory
# latency page (that store measured on its own, `--sizes 1000000`), the ranking page (what shapes hybrid's
# ranking, written by hand from `bench/fit.md`) and the encoders page (each encoder candidate's quality
# and clock, written by hand from the pages it names): included as they are.
PAGES = ("seed.md", "latency-1m.md", "lifecycle.md", "writes.md", "api.md", "ranking.md", "encoders.md", "langgraph.md")
# The latency results whose statement parts are set beside what each signal earns.
LATENCIES = ("latency.json", "latency-1m.json")
# A branch of the recall statement, the signal the fit's ablation leaves out with it, and the statement
# parts (``branches.PARTS``) that are its time; the boosts and recency are read in scoring, at no branch's cost.
BRANCH_SIGNALS = (
    ("vector", "vector", ("vector_search", "scoring")),
    ("keyword", "keyword", ("keyword",)),
    ("relation traversal", "relation", ("relation",)),
    ("session neighbours", None, ("neighbours",)),
    ("time boost (in scoring)", "time", ()),
    ("period boost (in scoring)", "period", ()),
    ("recency (in scoring)", "recency", ()),
)
# A fit over more folds than this (LongMemEval: one a haystack) does not list them.
LISTED_FOLDS = 20


def write(out: Path, kind: str, result: dict[str, Any]) -> list[Path]:
    """Write the result's report (and plot) beside ``out``, then refresh REPORT.md there."""
    written = []
    plot = out.with_suffix(".png")
    if kind == "locomo":
        _locomo_plot(result, plot)
        written.append(plot)
    elif kind == "latency":
        _latency_plot(result, plot)
        written.append(plot)
    elif kind == "fit" and "without" in result:
        _ablation_plot(result, plot)
        written.append(plot)
    page = out.with_suffix(".md")
    page.write_text(f"# {kind}\n\n" + section(kind, result, plot.name if plot in written else None))
    written.append(page)
    written.append(gather(out.parent))
    return written


def models(folder: Path) -> list[str]:
    """The models the folder's results were measured with (each result's ``model``; other JSON, a data set
    beside them, names none)."""
    found = (json.loads(path.read_text()) for path in sorted(folder.glob("*.json")))
    return sorted(
        {result["model"] for result in found if isinstance(result, dict) and isinstance(result.get("model"), str)}
    )


def title(folder: Path) -> str:
    measured = models(folder)
    named = ", ".join(measured) or "no recorded model"
    default = "" if DEFAULT_MODEL in measured else f" (the default model is {DEFAULT_MODEL})"
    return f"# hippograph benchmarks: {named}{default}\n"


def gather(folder: Path) -> Path:
    parts = [
        title(folder),
        "Produced by `hippograph bench …`; every number below is read from the JSON next to this file.\n",
    ]
    for kind, name in SECTIONS:
        path = folder / name
        if path.exists():
            plot = path.with_suffix(".png")
            parts.append(section(kind, json.loads(path.read_text()), plot.name if plot.exists() else None))
    for name in PAGES:
        page = folder / name
        if page.exists():
            parts.append("\n".join(page.read_text().splitlines()[1:]).replace("\n# ", "\n## "))
    fit, latencies = folder / "fit.json", [folder / name for name in LATENCIES if (folder / name).exists()]
    if fit.exists() and latencies and "without" in (ablation := json.loads(fit.read_text())):
        parts.append(_worth_section(ablation, [json.loads(path.read_text()) for path in latencies]))
    parts.append(f"\n## Data\n\n{CITATION}\n")
    report = folder / "REPORT.md"
    report.write_text("\n".join(parts))
    return report


def section(kind: str, result: dict[str, Any], plot: str | None) -> str:
    if kind == "locomo":
        return _locomo_section(result, plot)
    if kind == "fit":
        return _fit_section(result, plot)
    return _latency_section(result, plot)


def _against(result: dict[str, Any], first: str, second: str, ratio: str) -> list[list[Any]]:
    """Per size and class that measured ``second``: ``first``, ``second`` and their ``ratio``, p50 then p95."""
    return [
        [size, name, *(c[key][p] for p in ("p50", "p95") for key in (first, second, ratio))]
        for size in result["sizes"]
        for name in result["classes"]
        if second in (c := result["by_size"][str(size)]["classes"][name])
    ]


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def encoding(result: dict[str, Any]) -> str:
    """What encoded, as it ran (``Embedder.running``): a sentence for a page; empty for a result made before
    it was recorded."""
    ran = result.get("encoding")
    if not ran:
        return ""
    return (
        f"Memories encoded in {ran['memory_encoding']}, queries in {ran['query_encoding']}, on a CPU whose torch "
        f"capability is {ran['cpu_capability']}. "
    )


def _locomo_section(result: dict[str, Any], plot: str | None) -> str:
    methods = list(result["results"])
    sets = result.get("sets", {})
    text = [
        "## Recall quality\n",
        f"{result['questions']} questions (those with evidence, adversarial ones left out) over "
        f"{len(sets) or 1} set(s); embedding model `{result['model']}`. {encoding(result)}"
        "Each conversation is one user (of this run "
        "alone, forgotten when it ends), each session a session, turns stamped with their session's date (a turn "
        "longer than a memory holds stored as its parts, each standing for the turn); a question is asked at its "
        "own date (LongMemEval's `question_date`), else a day after the last session.\n",
        "Rank metrics are computed on each method's own ranking (`RecallResult.ranking`: after the method's floor, "
        "before the priority budget, which would cut every list to 3 items). A ranked memory is mapped back to its "
        "turn's `dia_id` and matched against the question's evidence (`\"D8:6; D9:17\"` split into two ids; a turn "
        "found through several parts counts once; evidence ids that name no turn are kept, and count as not "
        "found). On LongMemEval's sets, `recall_any@k` is LongMemEval's session-level figure: the question counts "
        "when an evidence session (the `D<session>` part of its evidence ids) is among the first k distinct "
        "sessions of the ranking.\n",
    ]
    if len(sets) != 1:
        text += ["### Every set together\n" if sets else "", *_quality(result, methods)]
        if plot:
            text.append(f"![recall quality]({plot})\n")
    for name, summary in sets.items():
        text += [f"### {name}\n", *_quality(summary, methods)]
        if plot and len(sets) == 1:
            text.append(f"![recall quality]({plot})\n")
    if "latency_ms" in result:
        text.append("Recall timings during this run, every set (ms; the machine's 2 cores were shared):\n")
        text.append(
            _table(
                ["method", "embed mean", "query mean", "query p95"],
                [[m, v["embed_mean"], v["query_mean"], v["query_p95"]] for m, v in result["latency_ms"].items()],
            )
        )
    if "profiles" in result:
        text.append("Profiles as run:\n\n```json\n" + json.dumps(result["profiles"], indent=1) + "\n```\n")
    return "\n".join(text)


def _quality(summary: dict[str, Any], methods: list[str]) -> list[str]:
    """The tables of one set (or of all together): by method, by question type, the low word overlap
    slice, what each priority delivers, and by conversation where there are few."""
    names = summary.get("metrics", list(METRICS))
    conversations = summary.get("conversations")
    text = [
        f"{summary['questions']} questions over "
        f"{conversations if isinstance(conversations, int) else len(conversations or [])} "
        f"conversations ({summary.get('turns', '?')} turns).\n",
        _table(["method", *names], [[m, *(summary["results"][m][k] for k in names)] for m in methods]),
    ]
    types = summary.get("per_type") or summary.get("per_category")
    if types:
        shown = [k for k in ("recall@10", "recall_any@5") if k in names]
        for metric in shown:
            text.append(f"{metric} by question type:\n")
            text.append(
                _table(
                    ["method", *(f"{c} ({v['questions']})" for c, v in types.items())],
                    [[m, *(types[c]["results"][m][metric] for c in types)] for m in methods],
                )
            )
    if "low_overlap" in summary:
        low = summary["low_overlap"]
        text.append(
            f"The low word overlap slice: {low['questions']} of {summary['questions']} questions share no "
            "content word with their evidence (no keyword of the question, speakers' names left out, has the "
            "first five letters of a keyword of an evidence turn). Only meaning finds these:\n"
        )
        text.append(_table(["method", *METRICS], [[m, *(low["results"][m][k] for k in METRICS)] for m in methods]))
    if "delivered" in summary:
        text.append(
            "What reaches the agent — the set each priority's budget delivers (gates and budget applied to "
            "the same ranking): precision is relevant items over items delivered, pooled; recall is relevant "
            "items delivered over the question's evidence; coverage the questions given at least one item; "
            "hit those given at least one relevant item.\n"
        )
        for priority, per_method in summary["delivered"].items():
            text.append(f"`{priority}`:\n")
            text.append(
                _table(
                    ["method", "items", "tokens", "precision", "recall", "coverage", "hit"],
                    [
                        [m, d["items"], d["tokens"], d["precision"], d["recall"], d["coverage"], d["hit"]]
                        for m, d in per_method.items()
                    ],
                )
            )
    if "delivered_by_count" in summary:
        text.append(
            "Do the gates give a weak question fewer, better items? At `critical`, questions by the number of "
            "items delivered, and the precision there (questions / precision):\n"
        )
        by_count = summary["delivered_by_count"]
        counts = sorted({n for per in by_count.values() for n in per}, key=int)
        text.append(
            _table(
                ["method", *(f"{n} items" for n in counts)],
                [[m, *(_count_cell(per.get(n)) for n in counts)] for m, per in by_count.items()],
            )
        )
    if "gated" in summary:
        gated = _gated(summary)
        text.append(
            f"The gate as it moves, `{gated[0]}` at `critical`: an item scoring under this share of the first item's "
            "score is not delivered (`Gates.of_top`; 0 delivers the whole budget):\n"
        )
        text.append(
            _table(
                ["share of the first", "items", "precision", "recall", "coverage", "hit"],
                [
                    [share, d["items"], d["precision"], d["recall"], d["coverage"], d["hit"]]
                    for share, d in gated[1].items()
                ],
            )
        )
    if "per_conversation" in summary:
        text.append("Recall@10 by conversation:\n")
        convs = summary["per_conversation"]
        text.append(
            _table(["method", *convs], [[m, *(convs[c]["results"][m]["recall@10"] for c in convs)] for m in methods])
        )
    return text


def _gated(summary: dict[str, Any]) -> tuple[str, dict[str, dict[str, float]]]:
    """The method whose gate is shown (hybrid, when it ran) and its delivery at each share."""
    method = "hybrid" if "hybrid" in summary["gated"] else next(iter(summary["gated"]))
    return method, summary["gated"][method]


def _count_cell(cell: dict[str, float] | None) -> str:
    """questions / precision, or questions alone where nothing was delivered."""
    if cell is None:
        return "0"
    return f"{cell['questions']} / {cell['precision']:.3f}" if "precision" in cell else str(cell["questions"])


def _fit_section(result: dict[str, Any], plot: str | None) -> str:
    w = result["weights"]
    folds = result.get("folds", [])
    text = [
        "## Fitting the hybrid weights\n",
        f"Fitted on {result['questions']} development questions ({', '.join(result.get('data', [])) or 'LoCoMo'}) — "
        "where the table above reports the same data, its hybrid row is in-sample. Method: every question asked "
        "once through the recall "
        "statement with the hybrid profile's candidate sources (300 rows, no floor); a grid — weights over the "
        f"simplex (step {result['grid_step']}) times the time boosts "
        f"{', '.join(str(b) for b in result['time_boosts'])} times the period boosts "
        f"{', '.join(str(b) for b in result['period_boosts'])} — re-ranks those rows by the weighted sum, times "
        "1 + the time boost for a memory that says when if the question asks when, times 1 + the period boost "
        "for a memory written in a day, month or year the question names, and keeps the best "
        f"{result['objective']}.\n",
        f"Fitted weights: {', '.join(f'{signal} **{weight}**' for signal, weight in w.items())}; "
        f"time boost **{result['time_boost']}**; period boost "
        f"**{result['period_boost']}**.\n",
        "Held-out check, leave one conversation out (weights fitted on the other conversations, scored on the one "
        "left out, pooled over questions; a conversation two sets hold is left out of both), against the in-sample "
        "fit, both with the profile's floor:\n",
        _table(
            ["fit", *METRICS],
            [
                ["in-sample", *(result["in_sample"][k] for k in METRICS)],
                ["leave-one-conversation-out", *(result["leave_one_conversation_out"][k] for k in METRICS)],
            ],
        ),
    ]
    if len(result.get("sets", {})) > 1:
        text.append("Each set apart, the same fit (in-sample) and the same held-out check:\n")
        text.append(
            _table(
                ["set", "questions", "fit", *METRICS],
                [
                    [name, per["questions"], fit, *(per[key][k] for k in METRICS)]
                    for name, per in result["sets"].items()
                    for fit, key in (("in-sample", "in_sample"), ("held out", "leave_one_conversation_out"))
                ],
            )
        )
    if 0 < len(folds) <= LISTED_FOLDS:
        text.append(
            _table(
                [
                    "held out",
                    "questions",
                    "weights (v, k, rec, rel)",
                    "time boost",
                    "period boost",
                    "recall@10",
                    "hit@1",
                ],
                [
                    [
                        f["held_out"],
                        f["questions"],
                        ", ".join(str(v) for v in f["weights"].values()),
                        f["time_boost"],
                        f["period_boost"],
                        f["results"]["recall@10"],
                        f["results"]["hit@1"],
                    ]
                    for f in folds
                ],
            )
        )
    if "reliability" in result:
        text.append(
            "What a hybrid score means: held out (each fold's weights fitted on the other conversations), "
            "per band of the score, how many candidates scored in it and the share of them that were "
            "relevant. The gates read a score above 0.5 as worth the full entry and above 0.3 as worth its "
            "summary; a share far under the band is a score that is not a probability:\n"
        )
        text.append(
            _table(
                ["hybrid score", "candidates", "share relevant"],
                [[f"{b['from']}–{b['to']}", b["candidates"], b["relevant"]] for b in result["reliability"]],
            )
        )
    if "without" in result:
        held = result["leave_one_conversation_out"]
        text.append(
            "What each signal earns: the same held-out check with that signal left out (time, period: "
            "its boost 0) and the rest refitted; the change is what leaving it out costs (negative: the signal "
            "helps):\n"
        )
        text.append(
            _table(
                ["left out", *METRICS, "change in recall@10", "in hit@1", "in ndcg@5"],
                [
                    [
                        signal,
                        *(scores[k] for k in METRICS),
                        *(round(scores[k] - held[k], 4) for k in ("recall@10", "hit@1", "ndcg@5")),
                    ]
                    for signal, scores in result["without"].items()
                ],
            )
        )
        sets = result.get("sets", {})
        if len(sets) > 1:
            text.append(
                "The same, each set apart: the change in held-out recall@10 / hit@1 when the signal is left "
                "out and the rest refitted:\n"
            )
            text.append(
                _table(
                    ["left out", *sets],
                    [
                        [
                            signal,
                            *(
                                _change(per["without"][signal], per["leave_one_conversation_out"])
                                for per in sets.values()
                            ),
                        ]
                        for signal in result["without"]
                    ],
                )
            )
        if plot:
            text.append(f"![what each signal earns, held out]({plot})\n")
    sets = result.get("sets", {})
    if "relation_parts" in result:
        text.append(
            "Relation's two parts (relation is their mean): the held-out check, refitted at step "
            f"{result['relation_parts_step']}, with relation as served (both), as its entity part alone (as "
            "without neighbours) and as its neighbour part alone (as without entities); recall@10 / hit@1 / "
            "ndcg@5:\n"
        )
        names = list(result["relation_parts"])
        text.append(
            _table(
                ["set", *names],
                [[name, *(_three(per["relation_parts"][part]) for part in names)] for name, per in sets.items()],
            )
        )
    if "styles" in result:
        text.append(
            "Each style hybrid weighs its own way, fitted the same way on its own queries (grids as "
            "widened); held out, recall@10 / hit@1 / ndcg@5:\n"
        )
        text.append(
            _table(
                ["style", "queries", "weights", "time boost", "period boost", "carry", "held out"],
                [
                    [
                        name,
                        fitted["questions"],
                        ", ".join(str(v) for v in fitted["weights"].values()),
                        fitted["time_boost"],
                        fitted["period_boost"],
                        fitted["carry"],
                        _three(fitted["leave_one_conversation_out"]),
                    ]
                    for name, fitted in result["styles"].items()
                ],
            )
        )
    return "\n".join(text)


def _three(scores: dict[str, float]) -> str:
    return " / ".join(f"{scores[k]:.3f}" for k in ("recall@10", "hit@1", "ndcg@5"))


def _worth_section(fit: dict[str, Any], latencies: list[dict[str, Any]]) -> str:
    """Each branch's time in the statement (p50 per class at each measured size) beside what leaving its
    signal out costs held out (``bench fit``'s ablation): what costs more than it earns is what to cut."""
    held = fit["leave_one_conversation_out"]
    columns = [
        (size, name, result["by_size"][str(size)]["classes"][name]["parts_ms"])
        for result in latencies
        for size in result["sizes"]
        for name in result["classes"]
        if "parts_ms" in result["by_size"][str(size)]["classes"][name]
    ]
    rows = []
    for branch, signal, parts in BRANCH_SIGNALS:
        earns = (
            "—"
            if signal is None or signal not in fit["without"]
            else " / ".join(f"{held[k] - fit['without'][signal][k]:+.3f}" for k in ("recall@10", "hit@1", "ndcg@5"))
        )
        rows.append(
            [branch, earns, *(round(sum(ms[part] for part in parts), 2) if parts else "—" for _, _, ms in columns)]
        )
    return "\n".join(
        [
            "## What each branch costs against what it earns\n",
            "Per branch of the recall statement: what its signal earns held out (the hybrid's recall@10 / hit@1 / "
            f"ndcg@5 with it, less without it and the rest refitted: `bench fit` on {', '.join(fit.get('data', []))}) "
            "beside its time in the statement, p50 in ms per store size and tenant class (`bench latency`'s parts; "
            "the vector branch is the index search and the scoring). A branch whose time is large and whose signal "
            "earns little is the one to cut or make cheaper; the session neighbours are candidates, not a weight, "
            "so the ablation does not leave them out.\n",
            _table(
                ["branch", "earns (R@10 / Hit@1 / NDCG@5)", *(f"{size:,} {name}" for size, name, _ in columns)], rows
            ),
        ]
    )


def _latency_section(result: dict[str, Any], plot: str | None) -> str:
    # Named by its sizes: REPORT.md gathers the 100,000- and the million-memory runs, each a page of its own.
    sizes = " and ".join(f"{size:,}" for size in result["sizes"])
    text = [
        f"## Recall latency and exactness at {sizes} memories\n",
        result.get("method", "") + "\n",
        *([encoding(result) + "\n"] if encoding(result) else []),
    ]
    rows = []
    for size in result["sizes"]:
        measured = result["by_size"][str(size)]
        for name in result["classes"]:
            c = measured["classes"][name]
            rows.append(
                [
                    size,
                    name,
                    measured["tenants"][name],
                    measured["memories"][name],
                    c["recall_ms"]["p50"],
                    c["recall_ms"]["p95"],
                    c["recall_ms"]["p99"],
                    c["query_ms"]["p50"],
                    c["query_ms"]["p95"],
                    c["embed_ms"]["p95"],
                    c["profile"]["dbHits"],
                    c["exactness"]["overlap@10"],
                    c["exactness"]["min_overlap@10"],
                ]
            )
    text.append(
        _table(
            [
                "memories",
                "tenant class",
                "tenants",
                "their memories",
                "recall p50",
                "recall p95",
                "recall p99",
                "query p50",
                "query p95",
                "embed p95",
                "db hits",
                "exactness@10",
                "worst query",
            ],
            rows,
        )
    )
    if plot:
        text.append(f"![recall p95 and exactness against store size]({plot})\n")
    bare = _against(result, "query_ms", "two_index_ms", "query_over_two_index")
    if bare:
        text.append(
            "Recall's query part (embedding excluded) against the bare two-index query on the same tenant and "
            "question — one vector-index and one full-text search, each normalised by its best, the best 50 "
            "(neo4j-graphrag's hybrid retriever); the ratio is what the graph work costs (ms):\n"
        )
        text.append(
            _table(
                [
                    "memories",
                    "tenant class",
                    "recall query p50",
                    "two-index p50",
                    "ratio p50",
                    "recall query p95",
                    "two-index p95",
                    "ratio p95",
                ],
                bare,
            )
        )
    as_of = _against(result, "recall_ms", "as_of_recall_ms", "as_of_over_recall")
    if as_of:
        text.append(
            "Recall asked as of a moment (`asOf`: the store as it was then, here the moment it is read, so "
            "every memory counts) against the same recall without it, on the same tenant and question (ms):\n"
        )
        text.append(
            _table(
                [
                    "memories",
                    "tenant class",
                    "recall p50",
                    "asOf p50",
                    "ratio p50",
                    "recall p95",
                    "asOf p95",
                    "ratio p95",
                ],
                as_of,
            )
        )
    parts = [
        [size, name, c["query_ms"]["p50"], c["two_index_ms"]["p50"], *(c["parts_ms"][part] for part in branches.PARTS)]
        for size in result["sizes"]
        for name in result["classes"]
        if "parts_ms" in (c := result["by_size"][str(size)]["classes"][name])
    ]
    if parts:
        text.append(
            "Recall's statement part by part, p50 in ms (`hippograph_bench.branches`): the whole statement, "
            "the bare vector index search, the rest of the vector branch alone (the statement's fixed work "
            "and scoring), and what each other branch adds (the statement's time less its time without "
            "it), beside recall's query part and the bare two-index query:\n"
        )
        text.append(
            _table(
                [
                    "memories",
                    "tenant class",
                    "recall query",
                    "two-index",
                    "statement",
                    "vector search",
                    "scoring",
                    "keyword",
                    "relation",
                    "neighbours",
                ],
                parts,
            )
        )
    store_rows = []
    for size in result["sizes"]:
        store = result["by_size"][str(size)]["store"]
        built = result.get("build", {}).get(f"to_{size}", {})
        store_rows.append(
            [
                size,
                store.get("memories_in_store"),
                built.get("created"),
                built.get("seconds"),
                built.get("memories_per_second"),
                _gib(store.get("disk_bytes")),
                _gib(store.get("heapUsedBytes")),
                _gib(store.get("heapMaxBytes")),
                store.get("pageCache"),
            ]
        )
    text.append(
        _table(
            [
                "memories",
                "in the store, all users",
                "added",
                "build s",
                "memories/s",
                "store on disk GiB",
                "heap used GiB",
                "heap GiB",
                "page cache",
            ],
            store_rows,
        )
    )
    largest = str(max(result["sizes"]))
    for name in result["classes"]:
        prof = result["by_size"][largest]["classes"][name]["profile"]
        text.append(
            f"PROFILE of one hybrid recall at {largest} memories, a tenant of class {name}: {prof['dbHits']} db hits, "
            f"{prof['rows']} rows. Costliest operators:\n"
        )
        text.append(
            _table(
                ["operator", "db hits", "rows", "details"],
                [
                    [
                        op["operator"],
                        op["dbHits"],
                        op["rows"],
                        (op["details"] or "")[:90].replace("|", "/").replace("\n", " "),
                    ]
                    for op in prof["operators"][:5]
                ],
            )
        )
    return "\n".join(text)


def _gib(value: int | None) -> str:
    return "-" if value is None else f"{value / 2**30:.2f}"


def _pyplot() -> Any:
    """matplotlib's pyplot drawing into files (no display), imported only when a plot is made."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _grouped_bars(ax: Any, groups: list[str], series: dict[str, list[float]]) -> None:
    """One bar per series in each group, side by side."""
    import numpy as np

    x = np.arange(len(groups))
    width = 0.8 / max(len(series), 1)
    for i, (label, values) in enumerate(series.items()):
        ax.bar(x + i * width - 0.4 + width / 2, values, width, label=label)
    ax.set_xticks(x, groups)


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _pyplot().close(fig)


def _locomo_plot(result: dict[str, Any], path: Path) -> None:
    methods = list(result["results"])
    gated = "gated" in result
    fig, axes = _pyplot().subplots(
        1,
        2 if gated else 1,
        figsize=(14 if gated else 9, 4.2),
        gridspec_kw={"width_ratios": [9, 5]} if gated else None,
        squeeze=False,
    )
    ax = axes[0][0]
    _grouped_bars(ax, list(METRICS), {m: [result["results"][m][k] for k in METRICS] for m in methods})
    ax.set_ylim(0, 1)
    ax.set_ylabel("score")
    ax.set_title(f"LoCoMo recall quality ({result['questions']} questions, {result['model']})")
    ax.legend(ncol=len(methods), fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    if gated:
        _gate_plot(axes[0][1], result.get("sets") or {"all": result})
    _save(fig, path)


def _gate_plot(ax: Any, summaries: dict[str, dict[str, Any]]) -> None:
    """Precision against recall at critical as the gate's share of the first item's score moves, per set."""
    for name, summary in summaries.items():
        method, per_share = _gated(summary)
        shares = list(per_share)
        ax.plot(
            [per_share[s]["recall"] for s in shares],
            [per_share[s]["precision"] for s in shares],
            marker="o",
            label=name,
        )
        for share in (shares[0], shares[-1]):
            ax.annotate(share, (per_share[share]["recall"], per_share[share]["precision"]), fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("recall delivered")
    ax.set_ylabel("precision delivered")
    ax.set_title(f"{method} at critical as the gate moves")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def _ablation_plot(result: dict[str, Any], path: Path) -> None:
    held = result["leave_one_conversation_out"]
    signals = list(result["without"])
    fig, ax = _pyplot().subplots(figsize=(8, 4))
    _grouped_bars(
        ax,
        signals,
        {
            metric: [held[metric] - result["without"][signal][metric] for signal in signals]
            for metric in ("recall@10", "hit@1", "ndcg@5")
        },
    )
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("held-out score with it − without it")
    ax.set_title("What each hybrid signal earns (leave one conversation out)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)


def _latency_plot(result: dict[str, Any], path: Path) -> None:
    sizes = result["sizes"]
    fig, (left, right) = _pyplot().subplots(1, 2, figsize=(10, 4))
    for name in result["classes"]:
        classes = [result["by_size"][str(s)]["classes"][name] for s in sizes]
        left.plot(sizes, [c["recall_ms"]["p95"] for c in classes], "-o", label=f"{name} tenants")
        right.plot(sizes, [c["exactness"]["overlap@10"] for c in classes], "-o", label=f"{name} tenants")
    left.axhline(30, color="grey", lw=0.8, ls="--")
    left.axhline(50, color="grey", lw=0.8, ls=":")
    left.set(
        xscale="log",
        xlabel="memories in the store",
        ylabel="recall p95, ms (embedding included)",
        title="Recall p95 (hybrid profile)",
    )
    right.axhline(0.99, color="grey", lw=0.8, ls="--")
    right.set(
        xscale="log",
        xlabel="memories in the store",
        ylabel="exactness@10",
        ylim=(0.9, 1.005),
        title="Top 10 against an exact scan",
    )
    for ax in (left, right):
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    _save(fig, path)


def _change(without: dict[str, float], held_out: dict[str, float]) -> str:
    """R@10 / Hit@1 with a signal left out, less the held-out fit's: what the signal earns (negative: it helps)."""
    return f"{without['recall@10'] - held_out['recall@10']:+.4f} / {without['hit@1'] - held_out['hit@1']:+.4f}"
