#!/usr/bin/env bash
# Installs pgvector into the machine's PostgreSQL (the newest under /usr/lib/postgresql, the one the
# dev stack and the tests start), so `make dev` and `make test` can search by meaning.
#
# Debian 12 does not package pgvector; Debian 13's source package builds against Debian 12's server.
# The source comes from Debian's own mirror through a private apt configuration under .tools/ (the
# system's sources are left as they are), is checked against the digest below, built once and cached
# in .tools/, and installed with `make install` (root, or sudo).
#
# Where this cannot be done (no root, another distribution), the service still runs and searches by
# keyword; point DATABASE_URL / TEST_DATABASE_URL at a PostgreSQL that has the extension instead.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.8.0
DEBIAN_REVISION=1
SOURCE_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
CACHE="$PWD/.tools/pgvector"

log() { echo "[pgvector] $*"; }

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -n 1 || true)
if [ -z "$pg_bin" ]; then
  log "no PostgreSQL under /usr/lib/postgresql: nothing to install into (DATABASE_URL names yours)"
  exit 0
fi
major=$(basename "$(dirname "$pg_bin")")
if [ -f "/usr/share/postgresql/$major/extension/vector.control" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo"
  else
    log "not installed: root or sudo is needed to install into PostgreSQL $major; the service searches by keyword without it"
    exit 0
  fi
fi

if [ ! -f "/usr/include/postgresql/$major/server/postgres.h" ]; then
  log "installing postgresql-server-dev-$major (headers to build against)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "postgresql-server-dev-$major" make gcc >/dev/null
fi

src="$CACHE/pgvector-$VERSION"
if [ ! -f "$src/vector.so" ]; then
  mkdir -p "$CACHE/apt/lists/partial"
  tarball="$CACHE/pgvector_$VERSION.orig.tar.gz"
  if [ ! -f "$tarball" ] || ! echo "$SOURCE_SHA256  $tarball" | sha256sum -c --status; then
    log "fetching the source package pgvector $VERSION-$DEBIAN_REVISION from Debian 13"
    echo "deb-src http://deb.debian.org/debian trixie main" >"$CACHE/apt/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$CACHE/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$CACHE/apt/lists" -o APT::Get::List-Cleanup=0 -o Acquire::Languages=none)
    apt-get "${apt_opts[@]}" update -qq
    (cd "$CACHE" && apt-get "${apt_opts[@]}" source --download-only -qq "pgvector=$VERSION-$DEBIAN_REVISION" 2>/dev/null)
    echo "$SOURCE_SHA256  $tarball" | sha256sum -c --status || {
      log "the source's sha256 is not $SOURCE_SHA256: refusing to build it"
      exit 1
    }
  fi
  rm -rf "$src"
  tar -xzf "$tarball" -C "$CACHE"
  log "building against PostgreSQL $major"
  # No LLVM bitcode (the server runs with jit off) and no -march=native, as Debian builds it.
  make -s -C "$src" with_llvm=no OPTFLAGS="" PG_CONFIG="$pg_bin/pg_config" >/dev/null
fi
$SUDO make -s -C "$src" with_llvm=no OPTFLAGS="" PG_CONFIG="$pg_bin/pg_config" install >/dev/null
log "installed pgvector $VERSION into PostgreSQL $major"
