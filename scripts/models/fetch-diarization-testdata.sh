#!/usr/bin/env bash
# Caches the diarization test data: pyannote's sample.wav (30 s, two speakers, telephone quality) and
# its reference sample.rttm, from the pinned `pyannote-audio` wheel on PyPI (MIT). Tests read the cache
# and never download; run this once (`make models` can call it). Idempotent: does nothing when the files
# are there with the pinned sha256.
#   OUT     the cache folder (default .test-data/diarization at the repository root)
#   PYTHON  a Python with pip (default python3)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${OUT:-$ROOT/.test-data/diarization}"
PYTHON="${PYTHON:-python3}"

pin() { "$PYTHON" -c "import json; print(json.load(open('$HERE/diarization-pins.json'))['pyannote-audio']['$1'])"; }
check() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

wav_sha="$(pin sample_wav_sha256)"
rttm_sha="$(pin sample_rttm_sha256)"
if check "$OUT/sample.wav" "$wav_sha" && check "$OUT/sample.rttm" "$rttm_sha"; then exit 0; fi

dl="$(mktemp -d)"
trap 'rm -rf "$dl"' EXIT
"$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  "pyannote-audio==$(pin version)" -d "$dl"
wheel="$dl/$(pin wheel)"
got="$(sha256sum "$wheel" | cut -d' ' -f1)"
[ "$got" = "$(pin wheel_sha256)" ] || { echo "$wheel: sha256 $got, expected $(pin wheel_sha256)" >&2; exit 1; }
mkdir -p "$OUT"
"$PYTHON" - "$wheel" "$OUT" <<'PY'
import sys, zipfile, pathlib
wheel, out = sys.argv[1], pathlib.Path(sys.argv[2])
with zipfile.ZipFile(wheel) as z:
    for name in ("sample.wav", "sample.rttm"):
        (out / name).write_bytes(z.read(f"pyannote/audio/sample/{name}"))
PY
check "$OUT/sample.wav" "$wav_sha" || { echo "sample.wav: sha256 differs from the pin" >&2; exit 1; }
check "$OUT/sample.rttm" "$rttm_sha" || { echo "sample.rttm: sha256 differs from the pin" >&2; exit 1; }
echo "diarization test data in $OUT"
