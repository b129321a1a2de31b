# Two commands do all set-up on a fresh machine:
#   make run   build hermes-tools-mcp and serve MCP on stdio with embedded defaults
#   make test  install what the tests need (idempotently), then run every test layer
SHELL := /bin/bash
GO    ?= go
NPM   ?= npm
BIN   := bin
NPM_DIR   := .ci/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.hermes-installed
# Peers whose install scripts must not run (they download from the
# internet); .npmrc there says ignore-scripts, and so does the command.
NPM_NS_DIR   := .ci/npm-noscripts
NPM_NS_STAMP := $(NPM_NS_DIR)/node_modules/.hermes-installed

# Reproducible, static binaries; the version comes from git when there is one.
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

# Where `make install` puts the binaries; DESTDIR is prepended for staged
# installs (packaging).
PREFIX ?= /usr/local
BINDIR  = $(DESTDIR)$(PREFIX)/bin

# Tests run the real binaries as subprocesses (hermes-tools-mcp; the
# real-client tests in interop/realclients run hermes-migrate, which finds
# hermes-tools-mcp beside it); they are built once per run, here, with
# -race like the tests, into one directory, found through
# HERMES_TEST_BIN_DIR (internal/testkit/toolsbuild).
TEST_BIN := $(BIN)/test-race
CMDS     := ./cmd/hermes-tools-mcp ./cmd/hermes-migrate ./cmd/hermes
TEST_ENV := HERMES_TEST_BIN_DIR=$(CURDIR)/$(TEST_BIN)

.PHONY: all build dist install run test test-go test-bins test-clients deps deps-apt lint fuzz bench docs clean

all: build

# All binaries land in bin/: hermes-migrate and hermes find hermes-tools-mcp beside them.
# It says what it does on stderr (stdout belongs to `make run`'s protocol):
# a cold first build compiles every dependency, minutes of silence otherwise.
build:
	@if [ -x $(BIN)/hermes-tools-mcp ]; then \
	  echo "building hermes-tools-mcp, hermes-migrate and hermes $(VERSION) into $(BIN)/" >&2; \
	else \
	  echo "building hermes-tools-mcp, hermes-migrate and hermes $(VERSION) into $(BIN)/; the first build downloads and compiles every dependency, which takes several minutes (about 10 on 2 cores); later builds take seconds" >&2; \
	fi
	@CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ $(CMDS)
	@echo "built $(BIN)/hermes-tools-mcp, $(BIN)/hermes-migrate and $(BIN)/hermes" >&2

# Release archives: static binaries for every platform a release ships,
# one tar.gz per platform (Windows 10 and later unpack them with tar too),
# and SHA256SUMS over the archives.
DIST      := dist
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; name=hermes_$(VERSION)_$${os}_$${arch}; \
	  echo "building $$name (one platform of $(words $(PLATFORMS)); each takes a minute or more)" >&2; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DIST)/$$name/ $(CMDS); \
	  cp README.md $(DIST)/$$name/; \
	  tar -C $(DIST) -czf $(DIST)/$$name.tar.gz $$name; \
	  rm -rf $(DIST)/$$name; \
	done
	@cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS
	@echo "wrote $(words $(PLATFORMS)) archives and $(DIST)/SHA256SUMS" >&2

install: build
	@echo "installing into $(BINDIR)" >&2
	install -d '$(BINDIR)'
	install -m 0755 $(BIN)/hermes-tools-mcp $(BIN)/hermes-migrate $(BIN)/hermes '$(BINDIR)/'

# stdout is the protocol stream: make prints nothing there (recipes are
# silent, the banner goes to stderr; cmd/hermes's TestMakeRunStdoutIsProtocol
# holds it to that). Run it from this directory or with
# `make --no-print-directory -C DIR run`: a plain -C makes make itself print
# "Entering directory" on stdout, before this file is read.
run: build
	@echo "hermes-tools-mcp: serving MCP on stdio (HERMES_HOME=$${HERMES_HOME:-~/.hermes}); Ctrl+D to stop" >&2
	@./$(BIN)/hermes-tools-mcp

# Debian packages the tests drive for real: Chromium (browser toolset) and
# espeak-ng (keyless speech). Installed only when missing, and only where
# apt-get can run without a password prompt (root, or passwordless sudo).
# Elsewhere (no apt, a sudo that asks) the target says what to install and
# the tests that need them say they did not run; under CI=true that is an
# error, since nothing may be skipped there.
APT_PKGS := chromium espeak-ng

# npm ci only when the lock file changed since the last install.
deps: deps-apt $(NPM_STAMP) $(NPM_NS_STAMP)

deps-apt:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if ! command -v dpkg >/dev/null; then missing=" $(APT_PKGS)"; \
	  for b in chromium espeak-ng; do command -v $$b >/dev/null && missing=$${missing/ $$b/}; done; fi; \
	if [ -n "$$missing" ]; then \
	  sudo=none; \
	  if ! command -v apt-get >/dev/null; then :; \
	  elif [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=sudo; fi; \
	  if [ "$$sudo" = none ]; then \
	    echo "make deps: cannot install$$missing here (needs apt-get as root or passwordless sudo)." >&2; \
	    echo "  Install them yourself: Debian/Ubuntu: sudo apt-get install$$missing;" >&2; \
	    echo "  macOS: brew install --cask chromium && brew install espeak-ng; Fedora: sudo dnf install chromium espeak-ng." >&2; \
	    echo "  Tests that need them will say so and not run." >&2; \
	    if [ "$${CI:-}" = true ]; then exit 1; fi; \
	  else \
	    echo "installing$$missing" >&2; \
	    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	  fi; \
	fi

$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	@command -v $(NPM) >/dev/null || { echo "make deps: npm not found; install Node.js (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	$(NPM) ci --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error
	@touch $@

$(NPM_NS_STAMP): $(NPM_NS_DIR)/package.json $(NPM_NS_DIR)/package-lock.json
	@command -v $(NPM) >/dev/null || { echo "make deps: npm not found; install Node.js (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	$(NPM) ci --prefix $(NPM_NS_DIR) --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.ci/*')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	@# Build output is never committed: no tracked file may be a compiled
	@# program (ELF, Mach-O or PE by its first bytes).
	@bins=$$(git ls-files -z 2>/dev/null | xargs -0 -r sh -c 'for f; do [ -f "$$f" ] || continue; \
	    m=$$(head -c 4 "$$f" | od -An -tx1 | tr -d " \n"); \
	    case "$$m" in 7f454c46|cffaedfe|cefaedfe|feedface|feedfacf|cafebabe|4d5a*) echo "$$f";; esac; done' sh); \
	  if [ -n "$$bins" ]; then echo "compiled programs are tracked in git (git rm --cached them; .gitignore covers build output):"; echo "$$bins"; exit 1; fi
	$(GO) vet ./...
	@# Users run the binaries on macOS and Windows too (Claude Desktop):
	@# every package must build there, whatever this machine is.
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

test-bins:
	$(GO) build -race -o $(TEST_BIN)/ $(CMDS)

# -timeout 30m: the real-client package takes 2 minutes alone and over 10 on a
# machine loaded by other work; a hung test is still caught well inside CI's limit.
test: deps lint test-bins
	$(TEST_ENV) $(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime 15s -fuzzminimizetime 2s ./mcpserver/stdio

test-go: lint test-bins
	$(TEST_ENV) $(GO) test -race -count=1 -timeout 30m ./...

# Only the real-client tests: the real codex, Claude Code, Gemini CLI,
# OpenCode, MCPorter, Pi, Copilot CLI, Kilo, Cline, Kimi Code and Mastra
# Code load what the built hermes-migrate wrote (minutes; make test runs
# them too).
test-clients: deps test-bins
	$(TEST_ENV) $(GO) test -race -count=1 ./interop/...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime 5m -fuzzminimizetime 5s ./mcpserver/stdio

bench: build
	HERMES_TEST_BIN_DIR=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./cmd/hermes-tools-mcp
	HERMES_TEST_BIN_DIR=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchmem ./mcpserver/... ./toolsets/... ./configmigrate/... ./cmd/hermes-migrate ./internal/egress
	$(GO) test -run '^$$' -bench . -benchtime 200x ./bridge

# Regenerate every golden file (the README tool table, tool schema
# snapshots, wire transcripts, each package's testdata goldens) from the
# current output; review the diff before committing it. -update is defined
# once, in internal/testkit/golden, and a test binary that does not import it
# rejects the flag, so only the packages whose tests import it run; -run .
# because a golden file can hide in any of their tests.
docs:
	@pkgs=$$($(GO) list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... | \
	  awk '{for (i = 2; i <= NF; i++) if ($$i ~ /\/internal\/testkit\/golden$$/) {print $$1; next}}'); \
	$(GO) test -run . $$pkgs -update

clean:
	rm -rf $(BIN) $(DIST)
