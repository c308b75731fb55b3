"""The encoder's forward pass, packed: many passages in one sequence, each attending only to itself.

The figures behind each choice below are in bench/encoder.md.

A memory's vector is the mean of its passages (``hippograph.encoding.embedding``). Encoding
them as a padded batch pads every passage to the longest; encoding them one call
at a time reads the model's weights once per passage. Packed, the passages of a
row sit end to end, each with its own [CLS]…[SEP], position ids restarting at 0
and a block-diagonal attention mask, so each token sees exactly what it would see
if its passage were encoded alone: the vectors are the same, for the cost of one
sequence of their total length, and faster than a padded batch.

The module is traced and frozen with TorchScript once at load, which takes the
Python dispatch of the eager model off every call, and checked against the eager
model before it is used. TorchScript keeps a frozen module's constants for the life of the
process, even once nothing refers to it (bench/encoder.md: all-mpnet-base-v2 held 1.6 GB more after
each load), so a process traces each model's module once and every later encoder of that model shares it.

A BERT query's encoder (``quantized=True``) has its linear layers quantized to int8 —
weights per output channel, activations per call (PyTorch dynamic quantization):
on this CPU a short sequence's cost is reading the weights, so a question encodes
several times faster, and its vectors retrieve as well as the full-precision ones.
An activation scale comes from the whole call, so a query is always encoded alone:
its vector depends on its text only. An MPNet's queries are not quantized here
(``for_queries``; ``hippograph.encoding.onnx_queries`` runs them in int8).
Memories are encoded in full precision or in bfloat16 (below);
in int8 only when ``HIPPOGRAPH_DOCUMENT_VECTORS=int8`` asks, one passage per call as queries are.

Memories may be encoded in bfloat16 (``bfloat16=True``, a setting, never chosen by ``auto``) where the CPU
multiplies it natively (AVX-512 BF16, AMX): the weights and activations are rounded to bfloat16, the
products summed in float32, the pooling done in float32, with vectors all but the float32 ones. It
once halved float32's time here and now takes longer. The eager module runs it: traced, bfloat16 was
slower still, and the trace check below is a float32 one.

Only a BERT or MPNet encoder followed by mean pooling takes this path (both shipped models);
``PackedEncoder.supports`` says whether a loaded sentence-transformers model is one.
"""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

# Tokens per packed row. Attention grows with the square of a row's length; at 256 it
# is a few per cent of the row's cost. A passage longer than the model's limit is cut
# to it, as sentence-transformers cuts it, so no passage needs more than one row.
ROW_TOKENS = 256
ROWS_PER_CALL = 16
TRACE_TOLERANCE = 1e-4
# The transformer classes packing takes: MiniLM-L6 is a BERT, all-mpnet-base-v2 an MPNet.
ENCODERS = ("BertModel", "MPNetModel")
# The modules this process has traced, by model folder and whether int8 was asked for, each with whether
# it was quantized (above: a traced module is never freed, so each is traced once).
_TRACED: dict[tuple[str, bool], tuple[Any, bool]] = {}


class PackedEncoder:
    """Mean-pooled, L2-normalised vectors of passages, packed into rows of at most ``ROW_TOKENS`` tokens."""

    def __init__(self, sentence_model: Any, quantized: bool = False, bfloat16: bool = False) -> None:
        import torch

        self._torch = torch
        self._tokenizer = sentence_model.tokenizer
        self._max_length = int(sentence_model.max_seq_length)
        self._row_tokens = max(ROW_TOKENS, self._max_length)
        loaded = sentence_model[0].auto_model
        # MPNet numbers positions after its padding index, as RoBERTa does, and takes no token types.
        self._mpnet = _is_mpnet(loaded)
        self._first_position = loaded.embeddings.padding_idx + 1 if self._mpnet else 0
        self.bfloat16 = bfloat16
        if bfloat16:
            # bfloat16 runs the eager module (below), which is freed with its encoder.
            self.quantized = False
            self._model = _eager(loaded).to(torch.bfloat16)
            return
        key = (str(loaded.config.name_or_path), quantized)
        if key not in _TRACED:
            eager = _eager(loaded)
            done = quantized and self._quantize(eager)
            _TRACED[key] = (self._traced(eager), done)
        self._model, self.quantized = _TRACED[key]

    @classmethod
    def for_queries(cls, sentence_model: Any) -> PackedEncoder:
        """A query's encoder: int8 for a BERT (above); an MPNet in full precision. In int8 (but its feed-forward
        outputs) MPNet lost Hit@1, and in bfloat16 it was slower than in float32 (bench/encoder.md)."""
        if _is_mpnet(sentence_model[0].auto_model):
            return cls(sentence_model)
        return cls(sentence_model, quantized=True)

    @staticmethod
    def supports(sentence_model: Any) -> bool:
        """A BERT or MPNet encoder, mean pooling, and nothing after it but normalisation."""
        modules = list(sentence_model)
        if len(modules) not in (2, 3) or type(modules[0]).__name__ != "Transformer":
            return False
        pooling = modules[1]
        if type(pooling).__name__ != "Pooling" or getattr(pooling, "pooling_mode", None) != "mean":
            return False
        if len(modules) == 3 and type(modules[2]).__name__ != "Normalize":
            return False
        return type(getattr(modules[0], "auto_model", None)).__name__ in ENCODERS

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimension) float32 array: each text encoded as if alone, mean-pooled and normalised."""
        torch = self._torch
        token_ids = self._tokenizer(list(texts), truncation=True, max_length=self._max_length)["input_ids"]
        rows = _pack([len(ids) for ids in token_ids], self._row_tokens)
        pooled: list[Any] = [None] * len(token_ids)
        with torch.inference_mode():
            for start in range(0, len(rows), ROWS_PER_CALL):
                batch = rows[start : start + ROWS_PER_CALL]
                hidden = self._model(*self._inputs(batch, token_ids))[0].float()
                for row_index, row in enumerate(batch):
                    offset = 0
                    for text_index in row:
                        length = len(token_ids[text_index])
                        pooled[text_index] = hidden[row_index, offset : offset + length].mean(dim=0)
                        offset += length
            vectors = torch.nn.functional.normalize(torch.stack(pooled), dim=1)
        array: np.ndarray = vectors.numpy().astype(np.float32, copy=False)
        return array

    def _inputs(self, rows: Sequence[Sequence[int]], token_ids: Sequence[Sequence[int]]) -> tuple[Any, ...]:
        """The forward's positional inputs for packed rows: input_ids, the block-diagonal attention mask,
        then token_type_ids and position_ids (BERT) or position_ids alone (MPNet)."""
        torch = self._torch
        width = max(sum(len(token_ids[i]) for i in row) for row in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        positions = torch.zeros_like(ids)
        # Padding is a passage of its own (-1): it attends to itself and nothing attends to it.
        passage = torch.full_like(ids, -1)
        for row_index, row in enumerate(rows):
            offset = 0
            for text_index in row:
                length = len(token_ids[text_index])
                ids[row_index, offset : offset + length] = torch.tensor(token_ids[text_index])
                positions[row_index, offset : offset + length] = torch.arange(length) + self._first_position
                passage[row_index, offset : offset + length] = text_index
                offset += length
        mask = (passage[:, :, None] == passage[:, None, :])[:, None]
        if self._mpnet:
            # MPNet adds its mask to the attention scores, so it takes one of 0 and -inf-like; its
            # relative-position bias reads distances within the row, inside a passage the passage's own.
            dtype = torch.bfloat16 if self.bfloat16 else torch.float32
            additive = torch.zeros(mask.shape, dtype=dtype).masked_fill_(~mask, torch.finfo(dtype).min)
            return ids, additive, positions
        return ids, mask, torch.zeros_like(ids), positions

    def _quantize(self, eager: Any) -> bool:
        """Quantize the linear layers of ``eager`` in place; False (and full precision) where PyTorch cannot."""
        torch = self._torch
        try:
            from torch.ao.quantization import quantize_dynamic

            with warnings.catch_warnings():
                # Deprecation notices about the torch.ao namespace; the check in _traced is what counts.
                warnings.simplefilter("ignore")
                quantize_dynamic(eager, self._quantizable(eager), dtype=torch.qint8, inplace=True)
        except Exception as exc:  # no quantized engine on this CPU, or a PyTorch without torch.ao
            log.warning("query encoder not quantized (%s); using full precision", exc)
            return False
        return True

    def _quantizable(self, eager: Any) -> dict[Any, Any]:
        """What ``quantize_dynamic`` quantizes (queries of a BERT, or int8 documents): every linear layer, but
        MPNet's feed-forward outputs. Their inputs (after GELU) have outliers that one activation scale per
        call flattens: with them in int8, MPNet's vectors lay at cosine 0.79 of the full-precision ones
        (mean, 60 LoCoMo questions); in full precision, at 0.97. MiniLM's lie at 0.98 all in int8.
        """
        from torch.ao.quantization import per_channel_dynamic_qconfig

        if not self._mpnet:
            return {self._torch.nn.Linear: per_channel_dynamic_qconfig}
        return {
            name: per_channel_dynamic_qconfig
            for name, module in eager.named_modules()
            if isinstance(module, self._torch.nn.Linear) and not name.endswith(".output.dense")
        }

    def _traced(self, eager: Any) -> Any:
        """The model traced and frozen, if it gives the eager model's output; else the eager model."""
        torch = self._torch
        probe = ["Caroline: I went to the support group yesterday.", "It was powerful!", "ok"]
        token_ids = self._tokenizer(probe, truncation=True, max_length=self._max_length)["input_ids"]
        # Two rows, one with two passages and padding: the trace must not bake in an all-true mask.
        inputs = self._inputs([[0, 1], [2]], token_ids)
        try:
            with torch.inference_mode(), warnings.catch_warnings():
                # The tracer warns about every Python branch it records; the check below is what counts.
                warnings.simplefilter("ignore")
                traced = torch.jit.optimize_for_inference(
                    torch.jit.freeze(torch.jit.trace(eager, inputs, strict=False).eval())
                )
                check = self._inputs([[2, 0], [1]], token_ids)
                difference = float((traced(*check)[0] - eager(*check)[0]).abs().max())
        except Exception as exc:  # tracing is best effort: the eager model is always right
            log.warning("encoder not traced (%s); using the eager model", exc)
            return eager
        if difference > TRACE_TOLERANCE:
            log.warning("traced encoder differs from the eager model by %.2g; using the eager model", difference)
            return eager
        return traced


def _eager(loaded: Any) -> Any:
    """A copy of the loaded transformer to trace or quantize, in inference mode, returning tuples."""
    eager = copy.deepcopy(loaded).eval()
    eager.config.return_dict = False
    return eager


def _is_mpnet(transformer: Any) -> bool:
    return type(transformer).__name__ == "MPNetModel"


def _pack(lengths: Sequence[int], capacity: int) -> list[list[int]]:
    """Indices of passages grouped into rows of at most ``capacity`` tokens, in order (next fit)."""
    rows: list[list[int]] = []
    used = capacity
    for index, length in enumerate(lengths):
        if used + length > capacity:
            rows.append([])
            used = 0
        rows[-1].append(index)
        used += length
    return rows
