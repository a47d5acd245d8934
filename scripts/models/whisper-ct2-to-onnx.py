#!/usr/bin/env python3
"""Whisper in CTranslate2 form (model.bin, vocabulary.txt) -> sherpa-onnx's Whisper layout.

sherpa-onnx runs a Whisper model as two ONNX graphs with fixed names and metadata:

- the encoder takes `mel` [batch, n_mels, frames] and returns, for every decoder layer, the keys and
  values of its cross-attention over the audio: `n_layer_cross_k`, `n_layer_cross_v`
  [layers, batch, audio_ctx, state];
- the decoder takes `tokens` [batch, n], the self-attention caches `in_n_layer_self_k_cache` /
  `in_n_layer_self_v_cache` [layers, batch, text_ctx, state], the cross keys and values and `offset`
  (the position of the first token), and returns `logits` [batch, n, vocab] and the caches with the n
  new positions written at `offset`.

The graphs are built here node by node from the tensors of model.bin (numpy and onnx only, no torch).
Every matrix product with a weight is quantised to int8 (per output column, symmetric) and computed
with MatMulInteger on inputs quantised at run time (DynamicQuantizeLinear), which is what ONNX
Runtime's dynamic quantisation produces; the token embedding stays float because the decoder both
looks tokens up in it and scores the vocabulary with it.

Usage: whisper-ct2-to-onnx.py <ct2 dir with model.bin, vocabulary.txt, tokenizer.json, config.json> <out dir>
Writes encoder.int8.onnx, decoder.int8.onnx and tokens.txt (base64 of each token's bytes, its id).
"""
import base64
import json
import re
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
# CTranslate2's binary data types, by their code in model.bin.
CT2_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(path):
    """The named tensors of a CTranslate2 model.bin (format version 6), as float32 or integer arrays."""
    data = Path(path).read_bytes()
    at = 0

    def take(fmt):
        nonlocal at
        values = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
        return values

    def text():
        nonlocal at
        (n,) = take("<H")
        s = data[at : at + n].rstrip(b"\0").decode()
        at += n
        return s

    (version,) = take("<I")
    if version != 6:
        raise SystemExit(f"model.bin: format version {version}, this converter reads version 6")
    text()  # the spec's name
    take("<I")  # its revision
    (count,) = take("<I")
    tensors = {}
    for _ in range(count):
        name = text()
        (rank,) = take("<B")
        dims = take(f"<{rank}I")
        (dtype,) = take("<B")
        (size,) = take("<I")
        array = np.frombuffer(data, dtype=CT2_DTYPES[dtype], count=size // np.dtype(CT2_DTYPES[dtype]).itemsize, offset=at)
        at += size
        array = array.reshape(dims)
        tensors[name] = array.astype(np.float32) if array.dtype == np.float16 else array
    (aliases,) = take("<I")
    for _ in range(aliases):
        alias, target = text(), text()
        tensors[alias] = tensors[target]
    return tensors


class Graph:
    """Nodes and initialisers of one ONNX graph, with unique names."""

    def __init__(self, weights, quantise):
        self.w = weights
        self.quantise = quantise
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, array, hint="c"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, kind, inputs, hint=None, outputs=1, **attrs):
        outs = [self.name(hint or kind) for _ in range(outputs)]
        self.nodes.append(helper.make_node(kind, inputs, outs, **attrs))
        return outs[0] if outputs == 1 else outs

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64), "shape")

    def matmul_weight(self, x, w, quantised=None):
        """x @ w for a constant w [in, out]: int8 per output column when quantising, else float.
        `quantised` gives the names of w's int8 matrix and scales when they are initialisers already."""
        if not self.quantise:
            return self.op("MatMul", [x, self.const(w.astype(np.float32), "w")])
        q, scale = quantised or self.quantised(w)
        xq, xs, xz = self.op("DynamicQuantizeLinear", [x], outputs=3)
        acc = self.op("MatMulInteger", [xq, q, xz, self.const(np.int8(0), "wz")])
        both = self.op("Mul", [xs, scale])
        return self.op("Mul", [self.op("Cast", [acc], to=TensorProto.FLOAT), both])

    def quantised(self, w):
        """w [in, out] as int8 per output column (symmetric) and its scales, as initialisers."""
        scale = np.maximum(np.abs(w).max(axis=0), 1e-8) / 127.0
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        return self.const(q, "wq"), self.const(scale.astype(np.float32), "ws")

    def linear(self, x, prefix, rows=None):
        """x @ W^T + b of a CTranslate2 linear layer (W [out, in]); `rows` takes a slice of the outputs."""
        w = self.w[f"{prefix}/weight"]
        b = self.w.get(f"{prefix}/bias")
        if rows is not None:
            w = w[rows]
            b = b[rows] if b is not None else None
        y = self.matmul_weight(x, np.ascontiguousarray(w.T))
        return self.op("Add", [y, self.const(b.astype(np.float32), "b")]) if b is not None else y

    def norm(self, x, prefix):
        return self.op(
            "LayerNormalization",
            [x, self.const(self.w[f"{prefix}/gamma"], "g"), self.const(self.w[f"{prefix}/beta"], "beta")],
            axis=-1,
            epsilon=1e-5,
        )

    def gelu(self, x):
        # The exact GELU Whisper uses: x/2 (1 + erf(x / sqrt 2)).
        e = self.op("Erf", [self.op("Mul", [x, self.const(np.float32(1 / np.sqrt(2)))])])
        return self.op("Mul", [self.op("Mul", [x, self.const(np.float32(0.5))]), self.op("Add", [e, self.const(np.float32(1))])])

    def heads(self, x, n_head, transpose_k=False):
        """[b, t, state] -> [b, heads, t, d] (keys: [b, heads, d, t])."""
        x = self.op("Reshape", [x, self.ints([0, 0, n_head, -1])])
        return self.op("Transpose", [x], perm=[0, 2, 3, 1] if transpose_k else [0, 2, 1, 3])

    def attend(self, q, k, v, n_head, state, mask=None):
        """Scaled dot-product attention of q over k, v ([b, t, state] each); [b, t, state] out."""
        scale = np.float32(1 / np.sqrt(state // n_head))
        scores = self.op("MatMul", [self.heads(q, n_head), self.heads(k, n_head, transpose_k=True)])
        scores = self.op("Mul", [scores, self.const(scale)])
        if mask is not None:
            scores = self.op("Add", [scores, mask])
        probs = self.op("Softmax", [scores], axis=-1)
        out = self.op("Transpose", [self.op("MatMul", [probs, self.heads(v, n_head)])], perm=[0, 2, 1, 3])
        return self.op("Reshape", [out, self.ints([0, 0, state])])

    def ffn(self, x, prefix):
        h = self.norm(x, f"{prefix}/layer_norm")
        h = self.gelu(self.linear(h, f"{prefix}/linear_0"))
        return self.op("Add", [x, self.linear(h, f"{prefix}/linear_1")])

    def model(self, inputs, outputs, metadata):
        graph = helper.make_graph(self.nodes, "whisper", inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        for k, v in metadata.items():
            entry = model.metadata_props.add()
            entry.key, entry.value = k, str(v)
        return model


def dims(w):
    def layers(side):
        return len({k.split("/")[1] for k in w if re.match(rf"{side}/layer_\d+/", k)})

    n_text_layer, n_audio_layer = layers("decoder"), layers("encoder")
    state = w["decoder/embeddings/weight"].shape[1]
    return {
        "n_mels": w["encoder/conv1/weight"].shape[1],
        "n_audio_ctx": w["encoder/position_encodings/encodings"].shape[0],
        "n_audio_state": w["encoder/conv1/weight"].shape[0],
        "n_audio_head": int(w["encoder/num_heads"]),
        "n_audio_layer": n_audio_layer,
        "n_vocab": w["decoder/embeddings/weight"].shape[0],
        "n_text_ctx": w["decoder/position_encodings/encodings"].shape[0],
        "n_text_state": state,
        "n_text_head": int(w["decoder/num_heads"]),
        "n_text_layer": n_text_layer,
    }


def encoder(w, d, quantise, metadata):
    g = Graph(w, quantise)
    state, n_head = d["n_audio_state"], d["n_audio_head"]
    mel = helper.make_tensor_value_info("mel", TensorProto.FLOAT, ["n_audio", d["n_mels"], "n_frames"])
    x = mel.name
    for conv, stride in (("conv1", 1), ("conv2", 2)):
        x = g.op("Conv", [x, g.const(w[f"encoder/{conv}/weight"]), g.const(w[f"encoder/{conv}/bias"])], pads=[1, 1], strides=[stride])
        x = g.gelu(x)
    x = g.op("Transpose", [x], perm=[0, 2, 1])  # [b, audio_ctx, state]
    length = g.op("Slice", [g.op("Shape", [x]), g.ints([1]), g.ints([2])])
    pos = g.op("Slice", [g.const(w["encoder/position_encodings/encodings"], "pos"), g.ints([0]), length, g.ints([0])])
    x = g.op("Add", [x, pos])
    for i in range(d["n_audio_layer"]):
        p = f"encoder/layer_{i}"
        h = g.norm(x, f"{p}/self_attention/layer_norm")
        q, k, v = (g.linear(h, f"{p}/self_attention/linear_0", slice(j * state, (j + 1) * state)) for j in range(3))
        x = g.op("Add", [x, g.linear(g.attend(q, k, v, n_head, state), f"{p}/self_attention/linear_1")])
        x = g.ffn(x, f"{p}/ffn")
    audio = g.norm(x, "encoder/layer_norm")
    ks, vs = [], []
    for i in range(d["n_text_layer"]):
        p = f"decoder/layer_{i}/attention/linear_1"
        ks.append(g.op("Unsqueeze", [g.linear(audio, p, slice(0, state)), g.ints([0])]))
        vs.append(g.op("Unsqueeze", [g.linear(audio, p, slice(state, 2 * state)), g.ints([0])]))
    g.nodes.append(helper.make_node("Concat", ks, ["n_layer_cross_k"], axis=0))
    g.nodes.append(helper.make_node("Concat", vs, ["n_layer_cross_v"], axis=0))
    cross = ["n_text_layer", "n_audio", "n_audio_ctx", d["n_text_state"]]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, cross) for n in ("n_layer_cross_k", "n_layer_cross_v")]
    return g.model([mel], outs, metadata)


def decoder(w, d, quantise):
    g = Graph(w, quantise)
    state, n_head, layers, ctx = d["n_text_state"], d["n_text_head"], d["n_text_layer"], d["n_text_ctx"]
    cache = [layers, "n_audio", ctx, state]
    cross = [layers, "n_audio", "n_audio_ctx", state]
    inputs = [
        helper.make_tensor_value_info("tokens", TensorProto.INT64, ["n_audio", "n_tokens"]),
        helper.make_tensor_value_info("in_n_layer_self_k_cache", TensorProto.FLOAT, cache),
        helper.make_tensor_value_info("in_n_layer_self_v_cache", TensorProto.FLOAT, cache),
        helper.make_tensor_value_info("n_layer_cross_k", TensorProto.FLOAT, cross),
        helper.make_tensor_value_info("n_layer_cross_v", TensorProto.FLOAT, cross),
        helper.make_tensor_value_info("offset", TensorProto.INT64, [1]),
    ]
    # The token embedding serves twice: looked up for the input tokens and, transposed, scoring the
    # vocabulary. It is stored once, transposed ([state, vocab]); quantised, one scale per token.
    table = np.ascontiguousarray(w["decoder/embeddings/weight"].T)
    if quantise:
        emb_q, emb_scale = g.quantised(table)
        rows = g.op("Gather", [emb_q, "tokens"], axis=1)  # [state, b, n] int8
        looked_up = g.op("Transpose", [g.op("Cast", [rows], to=TensorProto.FLOAT)], perm=[1, 2, 0])
        scales = g.op("Unsqueeze", [g.op("Gather", [emb_scale, "tokens"], axis=0), g.ints([2])])
        x = g.op("Mul", [looked_up, scales])
    else:
        emb = g.const(table, "embedding")
        x = g.op("Transpose", [g.op("Gather", [emb, "tokens"], axis=1)], perm=[1, 2, 0])
    n_tokens = g.op("Slice", [g.op("Shape", ["tokens"]), g.ints([1]), g.ints([2])])
    end = g.op("Add", ["offset", n_tokens])  # [1]: one past the last new position
    pos = g.op("Slice", [g.const(w["decoder/position_encodings/encodings"], "pos"), "offset", end, g.ints([0])])
    x = g.op("Add", [x, pos])
    # A new token at position offset+i sees every position up to its own.
    zero = g.const(np.int64(0))
    one = g.const(np.int64(1))
    start_s = g.op("Squeeze", ["offset", g.ints([0])])
    end_s = g.op("Squeeze", [end, g.ints([0])])
    rows = g.op("Unsqueeze", [g.op("Range", [start_s, end_s, one]), g.ints([1])])
    cols = g.op("Unsqueeze", [g.op("Range", [zero, end_s, one]), g.ints([0])])
    mask = g.op("Where", [g.op("Greater", [cols, rows]), g.const(np.float32(-1e9)), g.const(np.float32(0))])
    big = g.ints([2**62])
    k_out, v_out = [], []
    for i in range(layers):
        p = f"decoder/layer_{i}"
        layer = g.const(np.int64(i))
        h = g.norm(x, f"{p}/self_attention/layer_norm")
        q, k, v = (g.linear(h, f"{p}/self_attention/linear_0", slice(j * state, (j + 1) * state)) for j in range(3))
        seen = []
        for new, cache_in, out in ((k, "in_n_layer_self_k_cache", k_out), (v, "in_n_layer_self_v_cache", v_out)):
            old = g.op("Gather", [cache_in, layer], axis=0)  # [b, ctx, state]
            before = g.op("Slice", [old, g.ints([0]), "offset", g.ints([1])])
            after = g.op("Slice", [old, end, big, g.ints([1])])
            full = g.op("Concat", [before, new, after], axis=1)
            out.append(g.op("Unsqueeze", [full, g.ints([0])]))
            seen.append(g.op("Slice", [full, g.ints([0]), end, g.ints([1])]))
        x = g.op("Add", [x, g.linear(g.attend(q, seen[0], seen[1], n_head, state, mask), f"{p}/self_attention/linear_1")])
        h = g.norm(x, f"{p}/attention/layer_norm")
        q = g.linear(h, f"{p}/attention/linear_0")
        ck = g.op("Gather", ["n_layer_cross_k", layer], axis=0)
        cv = g.op("Gather", ["n_layer_cross_v", layer], axis=0)
        x = g.op("Add", [x, g.linear(g.attend(q, ck, cv, n_head, state), f"{p}/attention/linear_2")])
        x = g.ffn(x, f"{p}/ffn")
    x = g.norm(x, "decoder/layer_norm")
    logits = g.matmul_weight(x, table, (emb_q, emb_scale)) if quantise else g.op("MatMul", [x, emb])
    g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    g.nodes.append(helper.make_node("Concat", k_out, ["out_n_layer_self_k_cache"], axis=0))
    g.nodes.append(helper.make_node("Concat", v_out, ["out_n_layer_self_v_cache"], axis=0))
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n_audio", "n_tokens", d["n_vocab"]]),
        helper.make_tensor_value_info("out_n_layer_self_k_cache", TensorProto.FLOAT, cache),
        helper.make_tensor_value_info("out_n_layer_self_v_cache", TensorProto.FLOAT, cache),
    ]
    return g.model(inputs, outputs, {})


def vocabulary(src):
    """Token strings by id (vocabulary.txt: byte-level BPE pieces, then the special tokens)."""
    return (src / "vocabulary.txt").read_text(encoding="utf-8").split("\n")[:-1]


def byte_decoder():
    """GPT-2's byte-level alphabet back to bytes (printable bytes stand for themselves, the rest shifted)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(keep, chars)}


def metadata(w, d, vocab, config):
    ids = {t: i for i, t in enumerate(vocab)}
    lang_ids = config["lang_ids"]
    codes = [vocab[i][2:-2] for i in lang_ids]
    sot = ids["<|startoftranscript|>"]
    return {
        "model_type": "whisper-base",
        "version": "1",
        "maintainer": "meeting-intelligence scripts/models/whisper-ct2-to-onnx.py",
        **d,
        "sot_sequence": f"{sot},{ids['<|en|>']},{ids['<|transcribe|>']}",
        "all_language_tokens": ",".join(map(str, lang_ids)),
        "all_language_codes": ",".join(codes),
        "sot": sot,
        "sot_index": 0,
        "eot": ids["<|endoftext|>"],
        "blank_id": ids["Ġ"],
        "is_multilingual": 1,
        "no_speech": ids["<|nocaptions|>"],
        "non_speech_tokens": ",".join(map(str, config["suppress_ids"])),
        "transcribe": ids["<|transcribe|>"],
        "translate": ids["<|translate|>"],
        "sot_prev": ids["<|startofprev|>"],
        "sot_lm": ids["<|startoflm|>"],
        "no_timestamps": ids["<|notimestamps|>"],
    }


def main():
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    quantise = "--float" not in sys.argv
    out.mkdir(parents=True, exist_ok=True)
    w = read_ct2(src / "model.bin")
    d = dims(w)
    vocab = vocabulary(src)
    config = json.loads((src / "config.json").read_text())
    suffix = "int8" if quantise else "float"
    onnx.save(encoder(w, d, quantise, metadata(w, d, vocab, config)), out / f"encoder.{suffix}.onnx")
    onnx.save(decoder(w, d, quantise), out / f"decoder.{suffix}.onnx")
    to_bytes = byte_decoder()
    with open(out / "tokens.txt", "w", encoding="utf-8") as f:
        for i, token in enumerate(vocab):
            if not token:
                continue  # an unused id with no text: sherpa-onnx reads a line as "<text> <id>"
            raw = token.encode() if token.startswith("<|") else bytes(to_bytes[c] for c in token)
            f.write(f"{base64.b64encode(raw).decode()} {i}\n")


if __name__ == "__main__":
    main()
