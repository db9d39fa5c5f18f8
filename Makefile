# Drover's build. `make dev` and `make test` are the two commands a newcomer needs.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
BIN := bin/drover
VERSION ?= 0.1.0-dev
LDFLAGS := -X github.com/drover-io/drover/version.GitCommit=$(shell git rev-parse --short HEAD 2>/dev/null)

.PHONY: all deps build dev test test-compat bench lint clean

all: build

## deps: install what the build and tests need from Debian and the Go proxy.
deps:
	@bash scripts/install-deps.sh

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
## count permission checks, in a build that counts them.
test: deps lint
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 30m $$(grep -vxFf <($(GO) list $(RACE_PKGS)) <($(GO) list ./...))
	$(GO) test -count=1 -run '^TestSupervisor_Footprint$$' ./drivers/rawexec
	$(GO) test -count=1 -tags drover_authcount -run 'CheckedOnce|^TestAdd_counts|^TestRoutes_everyRouteChecksItsCapability$$' ./internal/authcount ./nomad/... ./command/...

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
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@out=$$($(GO) tool deadcode -test ./...) || exit 1; if [ -n "$$out" ]; then echo "deadcode: unreachable functions:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin
