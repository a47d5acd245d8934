#!/usr/bin/env python3
"""Quantise the CAM++ speaker-embedding model (models/diarization/3dspeaker-campplus-zh-en-common.onnx,
the output of convert-diarization.py) to 8-bit integers, the model diarization runs.

Embedding every local speaker of every segmentation window is most of diarization's CPU, and CAM++ is
convolutions: onnxruntime's static quantisation (weights int8 per output channel, activations uint8
with ranges calibrated on real speech, at a percentile of the values seen) turns them into
QLinearConv, which ONNX Runtime's CPU kernels run much faster than the float model. (Dynamic
quantisation was tried: it makes ConvInteger nodes, slower than the float model.)

Calibration audio: the LibriVox utterances of Debian's pocketsphinx-testdata
(/usr/share/pocketsphinx/test/data/librivox, read English speech, public domain), in pieces of 3
seconds, as Kaldi fbank features computed here the way sherpa-onnx feeds the model (25 ms Povey
windows every 10 ms, 80 mel bins, samples in [-1, 1], minus the mean over time). Neither the
diarization tests' conversations nor pyannote's sample are used.

The input's sha256 is checked against scripts/models/diarization-pins.json; the metadata sherpa-onnx reads is kept.

Usage: scripts/models/quantize-diarization.sh (a small venv with onnx and onnxruntime, no torch).
"""

import argparse
import hashlib
import json
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

FLOAT_MODEL = "3dspeaker-campplus-zh-en-common.onnx"
INT8_MODEL = "3dspeaker-campplus-zh-en-common.int8.onnx"
PINS = json.loads((Path(__file__).parent / "diarization-pins.json").read_text())
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
SAMPLE_RATE = 16000
# Calibration pieces: the length of one fbank batch (the calibrator stacks them, so all are equal).
PIECE_SECONDS = 3.0
# Activation ranges cover this percentile of the values seen, not the extremes: a few outliers would
# otherwise spread the 256 levels too thinly (plain min-max kept the embeddings visibly further from
# the float model's).
PERCENTILE = 99.99


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path)) as w:
        if w.getframerate() != SAMPLE_RATE or w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16 kHz mono 16-bit PCM")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768


def mel_banks(num_bins: int, fft_size: int, low: float, high: float) -> np.ndarray:
    mel = lambda f: 1127.0 * np.log(1.0 + f / 700.0)  # noqa: E731
    edges = np.linspace(mel(low), mel(high), num_bins + 2)
    freqs = mel(np.arange(fft_size // 2 + 1) * SAMPLE_RATE / fft_size)
    banks = np.zeros((num_bins, fft_size // 2 + 1), dtype=np.float32)
    for b in range(num_bins):
        left, centre, right = edges[b], edges[b + 1], edges[b + 2]
        up = (freqs - left) / (centre - left)
        down = (right - freqs) / (right - centre)
        banks[b] = np.clip(np.minimum(up, down), 0, None)
    return banks


def fbank(samples: np.ndarray) -> np.ndarray:
    """Kaldi-style log mel filterbank (80 bins, 25 ms frames every 10 ms, Povey window, pre-emphasis
    0.97, DC removed, no dither), minus its mean over time: what the 3D-Speaker models take."""
    length, shift, fft_size = 400, 160, 512
    count = 1 + (len(samples) - length) // shift
    frames = np.stack([samples[i * shift : i * shift + length] for i in range(count)]).astype(np.float64)
    frames -= frames.mean(axis=1, keepdims=True)
    frames = np.concatenate([frames[:, :1] * 0.03, frames[:, 1:] - 0.97 * frames[:, :-1]], axis=1)
    frames *= (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(length) / (length - 1))) ** 0.85
    power = np.abs(np.fft.rfft(frames, n=fft_size)) ** 2
    feats = np.log(np.maximum(power @ mel_banks(80, fft_size, 20.0, SAMPLE_RATE / 2).T, np.finfo(np.float32).eps))
    return (feats - feats.mean(axis=0, keepdims=True)).astype(np.float32)


class Calibration(CalibrationDataReader):
    def __init__(self, pieces: list[np.ndarray]):
        self.items = iter([{"x": fbank(p)[None]} for p in pieces])

    def get_next(self):
        return next(self.items, None)


def calibration_pieces() -> list[np.ndarray]:
    files = sorted(LIBRIVOX.glob("*.wav"))
    if not files:
        sys.exit(f"{LIBRIVOX}: no WAV files; install the Debian package pocketsphinx-testdata")
    speech = np.concatenate([read_wav(f) for f in files])
    size = int(PIECE_SECONDS * SAMPLE_RATE)
    return [speech[start : start + size] for start in range(0, len(speech) - size + 1, size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, help="models/diarization")
    args = parser.parse_args()
    source = args.dir / FLOAT_MODEL
    digest = sha256(source.read_bytes())
    if digest != PINS["campplus_onnx_sha256"]:
        sys.exit(f"{source}: sha256 {digest}, expected {PINS['campplus_onnx_sha256']} (convert-diarization.sh)")
    out = args.dir / INT8_MODEL
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(out),
            Calibration(calibration_pieces()),
            quant_format=QuantFormat.QOperator,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.Percentile,
            extra_options={"CalibPercentile": PERCENTILE},
        )
    # Keep exactly the float model's metadata (sherpa-onnx reads it), noting the quantisation.
    model = onnx.load(str(out))
    del model.metadata_props[:]
    for entry in onnx.load(str(source)).metadata_props:
        model.metadata_props.add(key=entry.key, value=entry.value)
    model.metadata_props.add(
        key="quantization",
        value="onnxruntime static int8 (QOperator, per-channel weights), calibrated on pocketsphinx-testdata LibriVox",
    )
    onnx.save(model, str(out))
    json.dump({INT8_MODEL: sha256(out.read_bytes()), "bytes": out.stat().st_size}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
