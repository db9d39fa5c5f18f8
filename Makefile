# Drover's build. `make dev` and `make test` are the two commands a newcomer needs.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
BIN := bin/drover
VERSION ?= 0.1.0-dev
LDFLAGS := -X github.com/drover-io/drover/version.GitCommit=$(shell git rev-parse --short HEAD 2>/dev/null)

.PHONY: all deps test-deps build dev test test-pkg test-compat bench lint clean

all: build

## deps: fetch what building and running the agent needs (Go's modules).
deps:
	@bash scripts/install-deps.sh

## test-deps: install what the tests need besides, from Debian (as root):
## gcc for the race detector, Chromium, Prometheus, iproute2.
test-deps:
	@bash scripts/install-deps.sh test

## build: compile bin/drover. A static (cgo-free) binary keeps the per-task
## raw_exec supervisor, a re-exec of this binary, small.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) .

## dev: build and start the agent in dev mode, saying what it does on the
## way (the first run downloads the modules and compiles them, a minute or
## two). ARGS are added to the agent's command line:
##   make dev ARGS="-bind 127.0.0.2 -http-port 5646"
ARGS ?=
dev: deps
	@echo "==> building $(BIN) (the first build compiles every dependency: a minute or two)"
	@$(MAKE) --no-print-directory build
	@echo "==> starting the agent in dev mode (Ctrl-C stops it): ./$(BIN) agent -dev $(ARGS)"
	@./$(BIN) agent -dev $(ARGS)

## The packages that run goroutines of their own are tested under the race
## detector, which needs cgo (gcc); the others run without it, faster.
RACE_PKGS := ./client/... ./drivers/... ./nomad/... ./scheduler/...

## test: lint, then run every test, including fuzz seed corpora (no
## fuzzing): the race detector's packages with -race, then the rest, then
## the memory footprint test that -race would inflate, then the tests that
## count permission checks, in a build that counts them. Each step says
## what it runs and how long it took (on two idle cores: lint 1 min, race
## 4 min, the rest 3 min, the last two under a minute).
STEP := @bash scripts/step.sh
test: test-deps lint
	$(STEP) "tests under the race detector: $(RACE_PKGS)" \
		env CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)
	$(STEP) "the other packages' tests (command, e2e, jobspec2, website, ...)" \
		bash -c '$(GO) test -count=1 -timeout 30m $$(grep -vxFf <($(GO) list $(RACE_PKGS)) <($(GO) list ./...))'
	$(STEP) "the raw_exec supervisor's memory footprint" \
		$(GO) test -count=1 -run '^TestSupervisor_Footprint$$' ./drivers/rawexec
	$(STEP) "permission checks counted (build tag drover_authcount)" \
		$(GO) test -count=1 -tags drover_authcount -run 'CheckedOnce|^TestAdd_counts|^TestRoutes_everyRouteChecksItsCapability$$' ./internal/authcount ./nomad/... ./command/...

## test-pkg: run one area's tests, under the race detector where make test
## runs them so: make test-pkg PKG=./scheduler/...  (RUN=regexp narrows it)
PKG ?=
RUN ?= .
test-pkg:
	@if [ -z "$(PKG)" ]; then echo "test-pkg: name the packages, as in make test-pkg PKG=./scheduler/..." >&2; exit 2; fi
	@race=; for p in $(RACE_PKGS); do case "$(PKG)" in $${p%...}*) race=-race;; esac; done; \
		echo "==> go test $$race -count=1 -run '$(RUN)' $(PKG)"; \
		CGO_ENABLED=1 $(GO) test $$race -count=1 -run '$(RUN)' $(PKG)

## test-compat: run the test suite of Nomad's client module
## (github.com/hashicorp/nomad/api, the version in go.mod) against
## bin/drover, on PATH as `nomad`, and hold the outcome to the tests
## e2e/compat/expected-failures.txt expects to fail, each with its reason.
test-compat: build
	$(GO) run ./e2e/compat -drover $(BIN)

## bench: run the benchmarks in bench/ and print their figures.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./bench/...

## lint: gofmt, go vet, staticcheck and deadcode (both pinned in go.mod's
## tool block), all with no findings.
lint:
	$(STEP) "gofmt" bash -c 'out=$$(gofmt -l $$(git ls-files "*.go")); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi'
	$(STEP) "go vet" $(GO) vet ./...
	$(STEP) "staticcheck (cached in ~/.cache/staticcheck: later runs are faster)" $(GO) tool staticcheck ./...
	$(STEP) "deadcode" bash -c 'out=$$($(GO) tool deadcode -test ./...) || exit 1; if [ -n "$$out" ]; then echo "deadcode: unreachable functions:"; echo "$$out"; exit 1; fi'

clean:
	rm -rf bin
