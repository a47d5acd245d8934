#!/usr/bin/env bash
# Rebuild models/diarization/3dspeaker-campplus-zh-en-common.int8.onnx from the float CAM++ model
# beside it (see docs/speakers.md). Not part of `make models`: the result is committed. Needs PyPI for
# onnx and onnxruntime (no torch) and the Debian package pocketsphinx-testdata (calibration speech).
#   VENV    the Python venv to make or reuse (default /tmp/mi-diarization-quantize-venv)
#   PYTHON  the interpreter to build it with (default python3; 3.10 to 3.12)
#   DIR     the models folder (default models/diarization)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${VENV:-/tmp/mi-diarization-quantize-venv}"
PYTHON="${PYTHON:-python3}"
DIR="${DIR:-$ROOT/models/diarization}"

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/quantize-diarization-requirements.txt"
"$VENV/bin/python" "$HERE/quantize-diarization.py" --dir "$DIR"
