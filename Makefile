# Operator and developer entry points. Everything runs the real stage binaries.
#   make demo      build, index the embedded sample (no network), serve it
#   make reindex   all stages against the real sites (or GII_BASE_URL=<mirror>), publish
#   make serve     serve data/CURRENT
#   make test      the test suite (installs the Python MCP SDK venvs and the Node MCP peers it needs)
#   make bench     release build + benchmarks (figures on stdout and in bench-results/)
#   make bench-scale N=100000   the pipeline and the server at N synthetic decisions (bench-results/scale-N.txt)

DATA ?= data
DEMO_DATA ?= data-demo
ADDR ?= 127.0.0.1:8080
GII_BASE_URL ?= https://www.gesetze-im-internet.de
RII_BASE_URL ?= https://www.rechtsprechung-im-internet.de
PROFILE ?= debug
CARGO_FLAGS := $(if $(filter release,$(PROFILE)),--release,)
BIN := target/$(PROFILE)

.PHONY: build demo reindex serve gc test peers venv bench bench-load bench-scale lint fmt clean-demo

build:
	cargo build --workspace $(CARGO_FLAGS)

demo: build
	@scripts/demo.sh "$(BIN)" "$(DEMO_DATA)" "$(ADDR)"

reindex: build
	@scripts/reindex.sh "$(BIN)" "$(DATA)" "$(GII_BASE_URL)" "$(RII_BASE_URL)"

serve: build
	$(BIN)/serve --data-dir "$(DATA)" --addr "$(ADDR)"

gc: build
	$(BIN)/index --data-dir "$(DATA)" gc --keep 3

venv: .venv-mcp1/bin/python .venv-mcp2/bin/python

.venv-mcp1/bin/python:
	python3 -m venv .venv-mcp1 && .venv-mcp1/bin/pip install -q 'mcp==1.30.0'

.venv-mcp2/bin/python:
	python3 -m venv .venv-mcp2 && .venv-mcp2/bin/pip install -q 'mcp==2.3.0'

# One build of everything, then all tests in parallel (nextest when present; then no token may
# appear in any test's captured output), then the Node MCP peers (conformance suite, TypeScript
# clients, Inspector --strict) when npm is there.
test: venv
	cargo build --workspace --all-targets
	@if cargo nextest --version >/dev/null 2>&1; then \
		cargo nextest run --workspace --no-fail-fast && scripts/no-tokens-in-logs.sh target/nextest/default/junit.xml; \
	else \
		cargo test --workspace --no-fail-fast; \
	fi
	@$(MAKE) --no-print-directory peers

# The real Node MCP peers against the sample: conformance suite (2026-07-28 and 2025-11-25), the
# TypeScript clients 1.x/2.x, Inspector 2.x --strict (installs Node 22 from npm into ~/.cache).
peers:
	@if command -v npm >/dev/null 2>&1; then \
		scripts/mcp-peers.sh "$(BIN)"; \
	else \
		echo "SKIPPED: the Node MCP peers (conformance suite, TypeScript clients, Inspector): npm is not installed"; \
	fi

bench: venv
	cargo build --workspace --release
	cargo build --release -p serve --example search_timing
	@scripts/bench.sh

# Only the server load test of `make bench` (mixed load during publishes, slow clients,
# oversized batches): cheap-call p99 and peak RSS.
bench-load:
	cargo build --workspace --release
	@mkdir -p bench-results && : > bench-results/load.txt && scripts/bench-load.sh target/release bench-results/load.txt

N ?= 10000
bench-scale:
	cargo build --workspace --release
	@scripts/bench-scale.sh "$(N)"

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

clean-demo:
	rm -rf "$(DEMO_DATA)"
