#!/usr/bin/env bash
# Installs the Hunspell dictionaries of languages PostgreSQL ships no text search configuration for
# (Czech: Debian's hunspell-cs) into the machine's PostgreSQL (the newest under /usr/lib/postgresql,
# the one the dev stack and the tests start), as <name>.affix and <name>.dict in its tsearch_data.
# The service then creates the language's configuration at start (docs/search.md, "Languages"), so
# an inflected form of a word finds its sentence.
#
# Idempotent: a file already in place with the same content is left alone. Where this cannot be done
# (no root, another distribution), the service still runs and searches those languages word for word
# (`simple`).
set -euo pipefail

log() { echo "[text-dictionaries] $*"; }

# The language's configuration name, its Debian package and the package's files (without .aff/.dic).
DICTIONARIES=(
  "czech hunspell-cs /usr/share/hunspell/cs_CZ"
)

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -n 1 || true)
if [ -z "$pg_bin" ]; then
  log "no PostgreSQL under /usr/lib/postgresql: nothing to install into (DATABASE_URL names yours)"
  exit 0
fi
tsearch="$("$pg_bin/pg_config" --sharedir)/tsearch_data"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo"
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for entry in "${DICTIONARIES[@]}"; do
  read -r name package files <<<"$entry"
  if [ ! -f "$files.aff" ] || [ ! -f "$files.dic" ]; then
    if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
      log "$name not installed: root or sudo is needed to install $package; $name meetings are searched word for word"
      continue
    fi
    log "installing $package from Debian packages"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$package" >/dev/null
  fi
  # PostgreSQL reads the files as UTF-8; a Hunspell file names its own encoding on its SET line.
  charset=$(sed -n 's/^SET[[:space:]]\+\([^[:space:]]\+\).*/\1/p' "$files.aff" | head -n 1)
  charset=${charset:-UTF-8}
  iconv -f "$charset" -t UTF-8 "$files.aff" | sed '1,/^SET[[:space:]]/s/^SET[[:space:]].*/SET UTF-8/' >"$tmp/$name.affix"
  iconv -f "$charset" -t UTF-8 "$files.dic" >"$tmp/$name.dict"
  changed=""
  for f in "$name.affix" "$name.dict"; do
    cmp -s "$tmp/$f" "$tsearch/$f" || changed=1
  done
  if [ -n "$changed" ]; then
    if [ ! -w "$tsearch" ] && [ -z "$SUDO" ]; then
      log "$name not installed: $tsearch is not writable (root or sudo); $name meetings are searched word for word"
      continue
    fi
    $SUDO install -m 0644 "$tmp/$name.affix" "$tmp/$name.dict" "$tsearch/"
    log "installed the $name dictionary into $tsearch"
  fi
done
