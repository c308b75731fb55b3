"""nomic-embed-text-v1.5 as the encoder of questions, measured on the fit's rows of LoCoMo dev.

Not part of the package: the record of one measurement (bench/nomic/README.md), to run again.
It needs the ``gguf`` package (``pip install gguf``, to read the model file), the GGUF file (README
there: how it is taken from PyPI), and rows kept by ``hippograph bench fit --rows ROWS.npz`` on
all-mpnet-base-v2 over LoCoMo dev, its audited labels, LoCoMo-Plus dev and LongMemEval_S dev (40
haystacks), in that order, as ``bench/fit.md`` was made.

How: every LoCoMo dev turn is embedded by nomic as the service embeds a memory (the mean of its
passages, each behind ``search_document: ``), every question as the service embeds one (behind
``search_query: ``, blended with its form without the speakers it names). Each row's vector column
(the cosine, at least 0) is replaced by nomic's; the other columns are the recall statement's own.
Then ``hippograph_bench.fit.fit_style`` (the questions' fusion) on LoCoMo dev and its audited labels, once with mpnet's column and
once with nomic's: the weights fitted with one conversation held out at a time, as the product's fit.
The candidates are the 300 the recall statement gave on mpnet (of some 550 turns a conversation), so a
turn only nomic would bring is missed.

    python bench/nomic/measure.py GGUF ROWS.npz LOCOMO_DEV LOCOMO_AUDITED LOCOMO_PLUS LONGMEMEVAL OUT.json
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np
import torch
import torch.nn.functional as fn
from gguf import GGUFReader
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from hippograph.encoding.embedding import passages
from hippograph.memory.recall import names
from hippograph_bench import fit
from hippograph_bench.data import load_sets

WIDTH, HEADS, LAYERS, ROPE_BASE, EPS = 768, 12, 12, 1000.0, 1e-12
LOCOMO = ("locomo-dev", "locomo-dev-audited")


class NomicBert:
    """nomic-bert's forward pass over the GGUF's tensors (f16 read as float32): post-norm BERT layers with
    rotary positions (NeoX halves, base 1000), a fused QKV without bias and a SwiGLU feed-forward; mean
    pooled, L2-normalised. Checked against llama-cpp-python 0.3.36 on the same file: cosine 1.000000."""

    def __init__(self, path: str) -> None:
        reader = GGUFReader(path)
        field = reader.fields["tokenizer.ggml.tokens"]
        tokens = [bytes(field.parts[i]).decode() for i in field.data]
        # llama.cpp writes WordPiece's vocabulary with "▁" before a word's start and no "##" before a piece.
        vocab: dict[str, int] = {}
        for i, token in enumerate(tokens):
            word = token if token.startswith("[") and token.endswith("]") else (
                token[1:] if token.startswith("\u2581") else "##" + token)
            vocab.setdefault(word, i)
        self.tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
        self.tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
        self.tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        self.tokenizer.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 101), ("[SEP]", 102)])
        # GGUF lists a tensor's shape innermost first.
        self.w = {t.name: torch.from_numpy(np.array(t.data).reshape(tuple(int(n) for n in reversed(t.shape.tolist())))
                                           .astype(np.float32)) for t in reader.tensors}
        half = WIDTH // HEADS
        self.inverse = 1.0 / ROPE_BASE ** (torch.arange(0, half, 2, dtype=torch.float32) / half)

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        w, (batch, length) = self.w, ids.shape
        x = fn.layer_norm(w["token_embd.weight"][ids] + w["token_types.weight"][0], (WIDTH,),
                          w["token_embd_norm.weight"], w["token_embd_norm.bias"], EPS)
        angles = torch.outer(torch.arange(length, dtype=torch.float32), self.inverse)
        angles = torch.cat([angles, angles], -1)
        cos, sin = angles.cos()[None, None], angles.sin()[None, None]

        def rotate(t: torch.Tensor) -> torch.Tensor:
            h = t.shape[-1] // 2
            return t * cos + torch.cat([-t[..., h:], t[..., :h]], -1) * sin

        attend = mask.bool()[:, None, None, :]
        for layer in range(LAYERS):
            p = f"blk.{layer}."
            q, k, v = (x @ w[p + "attn_qkv.weight"].T).view(batch, length, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
            a = fn.scaled_dot_product_attention(rotate(q), rotate(k), v, attn_mask=attend)
            a = a.transpose(1, 2).reshape(batch, length, WIDTH) @ w[p + "attn_output.weight"].T
            x = fn.layer_norm(a + x, (WIDTH,), w[p + "attn_output_norm.weight"], w[p + "attn_output_norm.bias"], EPS)
            y = (fn.silu(x @ w[p + "ffn_gate.weight"].T) * (x @ w[p + "ffn_up.weight"].T)) @ w[p + "ffn_down.weight"].T
            x = fn.layer_norm(y + x, (WIDTH,), w[p + "layer_output_norm.weight"], w[p + "layer_output_norm.bias"], EPS)
        kept = mask[..., None].float()
        return fn.normalize((x * kept).sum(1) / kept.sum(1), dim=-1)

    @torch.inference_mode()
    def encode(self, texts: list[str], prefix: str, batch: int = 32, longest: int = 512) -> np.ndarray:
        """Unit vectors of ``texts``, each behind ``prefix``, in batches of similar length."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            encoded = self.tokenizer.encode_batch([prefix + texts[i] for i in chunk])
            length = min(longest, max(len(e.ids) for e in encoded))
            ids = torch.zeros(len(chunk), length, dtype=torch.long)
            mask = torch.zeros(len(chunk), length, dtype=torch.long)
            for j, e in enumerate(encoded):
                n = min(length, len(e.ids))
                ids[j, :n], mask[j, :n] = torch.tensor(e.ids[:n]), 1
            out[chunk] = self._forward(ids, mask).numpy()
        return out


def main(gguf: str, rows_path: str, *paths_and_out: str) -> None:
    *paths, out = paths_and_out
    rows = fit.load(rows_path, "all-mpnet-base-v2")
    sets = load_sets(paths, 40)
    asked = [(data.name, conversation, question) for data in sets for conversation in data.conversations
             for question in conversation.questions]
    if len(asked) != len(rows):
        raise SystemExit(f"{len(asked)} questions in the files, {len(rows)} rows: not the files the rows were made of")
    model = NomicBert(gguf)
    documents: dict[tuple[str, str], np.ndarray] = {}
    queries: dict[tuple[str, str], np.ndarray] = {}
    started = time.perf_counter()
    for conversation in next(data for data in sets if data.name == LOCOMO[0]).conversations:
        turns = [turn for session in conversation.sessions.values() for turn in session]
        split = [passages(turn.content) for turn in turns]
        encoded = model.encode([p for parts in split for p in parts], "search_document: ")
        at = 0
        for turn, parts in zip(turns, split):
            mean = encoded[at:at + len(parts)].mean(0)
            documents[conversation.sample_id, turn.dia_id] = mean / np.linalg.norm(mean)
            at += len(parts)
        speakers = sorted({turn.speaker.lower() for turn in turns})
        for question in conversation.questions:
            named = [s for s in speakers if s in question.text.lower()]
            unnamed = names.without(question.text, named) if named else ""
            vectors = model.encode([question.text, unnamed] if unnamed else [question.text], "search_query: ")
            queries[conversation.sample_id, question.text] = names.blend(*vectors) if unnamed else vectors[0]
        print(f"{conversation.sample_id}: {len(encoded)} passages, {time.perf_counter() - started:.0f} s", flush=True)
    mpnet, nomic = [], []
    for (name, conversation, question), row in zip(asked, rows):
        if name not in LOCOMO:
            continue
        mpnet.append(row)
        features = row.features.copy()
        query = queries[conversation.sample_id, question.text]
        features[:, 0] = [max(0.0, float(documents[conversation.sample_id, d] @ query)) for d in row.dia_ids]
        nomic.append(fit.Rows(row.conversation, row.evidence, row.dia_ids, features, row.dataset, row.style,
                              row.kind, row.parts))
    result: dict[str, Any] = {}
    for label, chosen in (("all-mpnet-base-v2", mpnet), ("nomic-embed-text-v1.5", nomic)):
        alone = fit.Table([r for r in chosen if r.dataset == LOCOMO[0]])
        fitted = fit.fit_style(chosen, fit.DEFAULT_FIT, floor=float("-inf"))
        result[label] = {
            "vector_alone": fit.mean(alone.per_question(fit.Point((1.0, 0.0, 0.0), 0.0, 0.0))),
            "point": {k: fitted[k] for k in ("weights", "time_boost", "period_boost")},
            "sets": {name: {"leave_one_conversation_out": s["leave_one_conversation_out"],
                            "kinds": {kind: k["leave_one_conversation_out"] for kind, k in s["kinds"].items()}}
                     for name, s in fitted["sets"].items()},
        }
        print(label, json.dumps(result[label]["point"]), json.dumps(result[label]["vector_alone"]), flush=True)
    with open(out, "w") as sink:
        json.dump(result, sink, indent=1)


if __name__ == "__main__":
    torch.set_num_threads(2)
    main(*sys.argv[1:])
