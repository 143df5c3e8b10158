#!/usr/bin/env bash
# Fails when the captured output of a test run (nextest's junit report, which stores every
# test's stdout and stderr, the servers' logs among them) holds an API token (`ldt_<id>_<64 hex>`)
# or a signed JWT (header.payload.signature, base64url JSON). Tokens must never be logged.
set -euo pipefail
report="${1:-target/nextest/default/junit.xml}"
if [ ! -s "$report" ]; then
    echo "no-tokens-in-logs: no report at $report" >&2
    exit 1
fi
pattern='ldt_[0-9]+_[0-9a-f]{64}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}'
if hits=$(grep -oE "$pattern" "$report"); then
    echo "no-tokens-in-logs: FAIL: $(echo "$hits" | wc -l) token(s) in the captured test output of $report" >&2
    echo "$hits" | cut -c1-12 | sed 's/$/… (cut)/' >&2
    exit 1
fi
echo "no-tokens-in-logs: no API token or JWT in $(wc -c <"$report") bytes of captured test output"
