# The two commands a newcomer needs: `make dev` and `make test`. Everything else supports them.
SHELL := /bin/bash
TOOLS := $(CURDIR)/.tools/bin
TEMPORAL_CLI := github.com/temporalio/cli/cmd/temporal@v1.5.1
HELM_MODULE := helm.sh/helm/v3/cmd/helm@v3.19.0
KUSTOMIZE_MODULE := sigs.k8s.io/kustomize/kustomize/v5@v5.7.1
export PATH := $(TOOLS):$(PATH)

.PHONY: dev test bench install tools build typecheck clean-dev help

help:
	@echo "make dev    run the whole service locally with a demo team (PostgreSQL + Temporal started for you)"
	@echo "make test   run the test suite against real PostgreSQL and Temporal"
	@echo "make bench  run the benchmarks in test/bench (not part of make test)"

install: node_modules/.install-stamp

# `npm install` rather than `npm ci`: the lock file lists optional binaries of other platforms that
# some registry mirrors do not carry, which `npm ci` treats as fatal. The lock file is still honoured.
node_modules/.install-stamp: package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

tools: $(TOOLS)/temporal $(TOOLS)/helm $(TOOLS)/kustomize

$(TOOLS)/temporal:
	@command -v temporal >/dev/null 2>&1 && ln -sf "$$(command -v temporal)" $@ || GOBIN=$(TOOLS) go install $(TEMPORAL_CLI)

$(TOOLS)/helm:
	@command -v helm >/dev/null 2>&1 && ln -sf "$$(command -v helm)" $@ || GOBIN=$(TOOLS) go install $(HELM_MODULE)

$(TOOLS)/kustomize:
	@command -v kustomize >/dev/null 2>&1 && ln -sf "$$(command -v kustomize)" $@ || GOBIN=$(TOOLS) go install $(KUSTOMIZE_MODULE)

dev: install
	@exec node --require tsx/cjs services/devstack/dev.ts

typecheck: install
	npx tsc --noEmit -p tsconfig.json

build: install
	npm run build

test: install tools typecheck
	@mkdir -p .test-data
	npx jest --json --outputFile=.test-data/jest-results.json

bench: install $(TOOLS)/temporal
	@for b in test/bench/*.bench.ts; do echo "== $$b"; npx tsx $$b || exit 1; done

clean-dev:
	rm -rf .dev
