"""A query's vector from ONNX Runtime in int8: all-mpnet-base-v2's query at a fifth of PyTorch's cost.

A recall embeds its query before anything else, and all-mpnet-base-v2 in PyTorch took 65 ms of CPU for
it (float32, one thread, bench/clock), twice the read the Izanagi spec allows. Exported to ONNX and
run by ONNX Runtime with every linear layer in dynamic int8 (weights per output channel, activations
scaled per call), it took 14 ms, its vectors at cosine 0.94 of the float32 ones (mean, 60 LoCoMo
questions), and hybrid recall kept its quality (LoCoMo dev, held out: 0.817 / 0.525 against 0.822 /
0.522 R@10 / Hit@1 with float32 queries; through `hippograph bench locomo` on two dev conversations 0.834 /
0.515 against 0.837 / 0.515; bench/clock/README.md). PyTorch's own dynamic int8 of the same layers lay at
cosine 0.79 and was no faster (hippograph/encoding/encoder.py).

``hippograph model install`` makes the file (``install``): the transformer exported with PyTorch's
TorchScript exporter (inputs ``input_ids`` and ``attention_mask``, its last hidden states out), quantized by
``onnxruntime.quantization`` (weights in 7 bits: ``export`` says why), into a folder beside the model's own
(``folder``) with a manifest: the file's SHA-256, the SHA-256 of the weights it was made from, and the versions
that made it. Mean pooling and normalisation stay in Python, as sentence-transformers does them.

Before it encodes a query, the file is verified (``OnnxQueryEncoder``): its SHA-256 must be the manifest's,
the manifest's weights those of the model being served, and its vectors of ``PROBES`` within ``LEAST_COSINE``
(each) and ``MEAN_COSINE`` (on average) of the float32 model's, computed then. Anything else is refused with
the remedy: a query vector comes from this file, so a changed file would change every recall unseen. The
manifest is written on the machine that exports, not pinned in the package: exporting twice gave the same
bytes, but those depend on the versions of PyTorch, ONNX and ONNX Runtime installed, which the package does
not pin; the probe check is what holds whatever made the file.

A query is encoded alone, one per call: int8 scales its activations by what a call holds, so a query's
vector depends on its text only.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hippograph.encoding import models

log = logging.getLogger(__name__)

# The name of the encoding, in HIPPOGRAPH_QUERY_ENCODER, serverInfo's queryEncoding and every benchmark record.
ENCODING = "onnx-int8"
FILE = "model.onnx"
MANIFEST = "manifest.json"
OPSET = 17
# The models ``hippograph model install`` exports (the pinned model's weights are what the manifest names).
EXPORTED = ("all-mpnet-base-v2",)
# What the check at load encodes, in ONNX Runtime and in float32: questions as recall gets them, short and long,
# with names, numbers, a typo and text outside English.
PROBES = (
    "When did Priya start her pottery class?",
    "What did Tomas cook for the party?",
    "Which database does the orders service use?",
    "How long has Omar kept bees?",
    "What did research?",
    "What is the user's favourite programming language and why did they switch from Java?",
    "deploy failed on friday, what was teh cause",
    "Where did we decide to host the 2027 offsite, Lisbon or Porto?",
    "ok",
    "Quelle est la date de la réunion?",
    "Which books did Ines recommend to Marco after her trip to Norway last summer?",
    "API key rotation policy",
)
# Measured on PROBES (all-mpnet-base-v2, onnxruntime 1.32): least 0.846 ("ok"), mean 0.911 with full-range weights on
# AVX-512 VNNI; least 0.818, mean 0.911 with 7-bit weights on AVX2 (bench/clock/README.md). The floors leave room for
# another CPU's kernels and another ONNX Runtime's rounding; a damaged file falls far below.
LEAST_COSINE = 0.80
MEAN_COSINE = 0.88


class OnnxQueryError(models.ModelError):
    """The exported query encoder is missing, changed, or does not give the model's vectors; the message says why."""


def folder(name: str) -> Path:
    """Where ``hippograph model install`` puts ``name``'s exported query encoder: beside the model's own folder,
    whose files are pinned and must stay exactly those."""
    return models.MODELS / f"{name}.{ENCODING}"


def install(name: str, location: Path) -> tuple[Path, bool]:
    """The verified query encoder of ``name`` (whose verified folder is ``location``) and whether it was made now."""
    from sentence_transformers import SentenceTransformer

    # As the service loads it (hippograph.encoding.embedding): offline, without progress bars.
    for variable, value in (
        ("HF_HUB_OFFLINE", "1"),
        ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
        ("TRANSFORMERS_VERBOSITY", "error"),
    ):
        os.environ.setdefault(variable, value)
    sentence_model = SentenceTransformer(
        str(location), device="cpu", local_files_only=True, model_kwargs={"use_safetensors": True}
    )
    target = folder(name)
    try:
        OnnxQueryEncoder(name, sentence_model, target, threads=1)
        return target, False
    except OnnxQueryError as exc:
        if target.exists():
            log.warning("%s; exporting it again", exc)
            shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as work:
        made = Path(work) / target.name
        export(name, sentence_model, made)
        OnnxQueryEncoder(name, sentence_model, made, threads=1)
        made.rename(target)
    return target, True


def export(name: str, sentence_model: Any, target: Path) -> None:
    """``sentence_model``'s transformer exported to ONNX and quantized to int8 in ``target``, with its manifest."""
    import onnx
    import onnxruntime
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.mkdir(parents=True)
    transformer = sentence_model[0].auto_model.eval()
    return_dict = transformer.config.return_dict
    sample = sentence_model.tokenizer([PROBES[0]], return_tensors="pt")
    plain = target / "float32.onnx"
    try:
        transformer.config.return_dict = False
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings(), _quiet_logs():
            # The TorchScript exporter warns of every Python branch it records and of its own deprecation; the
            # probe check, not a warning, says whether the file gives the model's vectors.
            warnings.simplefilter("ignore")
            torch.onnx.export(
                transformer,
                (sample["input_ids"], sample["attention_mask"]),
                str(plain),
                input_names=["input_ids", "attention_mask"],
                output_names=["hidden"],
                dynamo=False,
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "tokens"},
                    "attention_mask": {0: "batch", 1: "tokens"},
                    "hidden": {0: "batch", 1: "tokens"},
                },
                opset_version=OPSET,
            )
            # Weights in 7 bits (reduce_range): without VNNI, ONNX Runtime multiplies u8 activations by s8 weights
            # with VPMADDUBSW, whose 16-bit pair sums saturate on full-range weights. On an AVX2-only host the
            # full-range file's probe vectors lay at cosine 0.05 (mean) of the float32 ones, the 7-bit file's at
            # 0.911 (bench/clock/README.md: the query on an AVX2-only host).
            quantize_dynamic(
                str(plain), str(target / FILE), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True
            )
    finally:
        transformer.config.return_dict = return_dict
        plain.unlink(missing_ok=True)
    manifest = {
        "model": name,
        "encoding": ENCODING,
        "sha256": models.sha256(target / FILE),
        "weights_sha256": _weights_digest(name),
        "made_with": {
            "torch": torch.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
            "opset": OPSET,
        },
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


class OnnxQueryEncoder:
    """A query's mean-pooled, L2-normalised vector from ``name``'s exported int8 encoder in ``location``,
    verified before use (the module's docstring says how); one text per ONNX Runtime call."""

    quantized = True
    bfloat16 = False

    def __init__(self, name: str, sentence_model: Any, location: Path, threads: int) -> None:
        file, manifest = location / FILE, location / MANIFEST
        if not file.is_file() or not manifest.is_file():
            raise OnnxQueryError(f"no ONNX query encoder of {name!r} at {location}: {_remedy(name)}")
        try:
            stated = json.loads(manifest.read_text(encoding="utf-8"))
            digest, weights = str(stated["sha256"]), str(stated["weights_sha256"])
        except (ValueError, KeyError, TypeError):
            raise OnnxQueryError(f"{manifest} is not a query encoder's manifest: {_remedy(name)}") from None
        if (found := models.sha256(file)) != digest:
            raise OnnxQueryError(
                f"{file} has SHA-256 {found}, not the {digest} it was exported with: the file is "
                f"damaged or not the export; {_remedy(name)}"
            )
        if weights != (served := _weights_digest(name)):
            raise OnnxQueryError(
                f"{file} was exported from weights {weights}, not the served model's {served}: {_remedy(name)}"
            )
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # As torch's threads (HIPPOGRAPH_EMBEDDING_THREADS): one per inference on a small machine shared with Neo4j.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = onnxruntime.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own kinds for a file it cannot read
            raise OnnxQueryError(f"ONNX Runtime cannot load {file} ({exc}): {_remedy(name)}") from None
        self._tokenizer = sentence_model.tokenizer
        self._max_length = int(sentence_model.max_seq_length)
        self.cosines = self._check(name, sentence_model)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimension) float32 array, each text encoded alone (its vector depends on its text only)."""
        return np.stack([self._one(text) for text in texts])

    def _one(self, text: str) -> np.ndarray:
        ids = np.array(
            [self._tokenizer(text, truncation=True, max_length=self._max_length)["input_ids"]], dtype=np.int64
        )
        hidden = self._session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
        mean = hidden.astype(np.float32, copy=False).mean(axis=0)
        vector: np.ndarray = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return vector

    def _check(self, name: str, sentence_model: Any) -> tuple[float, float]:
        """(least, mean) cosine of PROBES' vectors here to the float32 model's; refused under the floors."""
        exact = sentence_model.encode(
            list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        try:
            vectors = self.encode(PROBES)
        except Exception as exc:  # a graph of other inputs or outputs than the export's
            raise OnnxQueryError(f"the ONNX query encoder of {name!r} does not run ({exc}): {_remedy(name)}") from None
        if vectors.shape != exact.shape:
            raise OnnxQueryError(
                f"the ONNX query encoder of {name!r} gives vectors of {vectors.shape[1]} dimensions, "
                f"the model {exact.shape[1]}: {_remedy(name)}"
            )
        cosines = (vectors * exact).sum(axis=1)
        least, mean = round(float(cosines.min()), 4), round(float(cosines.mean()), 4)
        if least < LEAST_COSINE or mean < MEAN_COSINE:
            raise OnnxQueryError(
                f"the ONNX query encoder of {name!r} is not the model's: its vectors of the probe "
                f"questions lie at cosine {least} (least) / {mean} (mean) of the float32 ones, under "
                f"{LEAST_COSINE} / {MEAN_COSINE}; {_remedy(name)}"
            )
        return least, mean


def _weights_digest(name: str) -> str:
    """The SHA-256 of the weights the served model loaded: its pinned one, verified when it was loaded."""
    return models.pinned(name)["model.safetensors"]


def _remedy(name: str) -> str:
    return f"remove {folder(name)} and run `hippograph model install {name}`, or set HIPPOGRAPH_QUERY_ENCODER=torch"


@contextlib.contextmanager
def _quiet_logs() -> Any:
    """The quantizer logs advice about pre-processing on the root logger; it is not the service's to show."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))
    try:
        yield
    finally:
        root.setLevel(level)
