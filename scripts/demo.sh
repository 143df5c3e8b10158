#!/usr/bin/env bash
# Index the embedded sample (sample/gii) through a loopback mirror with the real crawler, then
# serve it. No network is used: the mirror binds to 127.0.0.1.
set -euo pipefail
bin=$1 data=$2 addr=$3
root=$(cd "$(dirname "$0")/.." && pwd)
url_file=$(mktemp)
"$bin/mirror" --root "$root/sample/gii" --root "$root/sample/rii" --url-file "$url_file" >/dev/null &
mirror_pid=$!
trap 'kill $mirror_pid 2>/dev/null || true; rm -f "$url_file"' EXIT
for _ in $(seq 50); do [ -s "$url_file" ] && break; sleep 0.1; done
base=$(cat "$url_file")
echo "demo: sample mirror on $base (stands in for gesetze-im-internet.de and rechtsprechung-im-internet.de)"
"$bin/ingest" --data-dir "$data" --sources gii,rii --gii-base-url "$base" --rii-base-url "$base" \
	--oldp-dump "$root/sample/decisions/oldp-sample.jsonl.gz" --rate 0 --concurrency 8
"$bin/extract" --data-dir "$data"
"$bin/resolve" --data-dir "$data"
"$bin/index" --data-dir "$data"
kill $mirror_pid 2>/dev/null || true
echo "demo: MCP endpoint http://$addr/mcp  REST http://$addr/api/openapi.json  (Ctrl-C stops)"
echo "demo: try  curl 'http://$addr/api/search/laws?q=Notwehr&book_code=StGB'"
echo "demo:      curl 'http://$addr/api/search/decisions?q=Geschäftsgeheimnis&court=BVerwG'"
exec "$bin/serve" --data-dir "$data" --addr "$addr"
