#!/usr/bin/env bash
# Index the embedded sample (scripts/index-sample.sh: a loopback mirror, no network), then
# serve it.   usage: demo.sh BIN_DIR DATA_DIR ADDR
set -euo pipefail
bin=$1 data=$2 addr=$3
"$(dirname "$0")/index-sample.sh" "$bin" "$data"
echo "demo: MCP endpoint http://$addr/mcp  REST http://$addr/api/openapi.json  (Ctrl-C stops)"
echo "demo: try  curl 'http://$addr/api/search/laws?q=Notwehr&book=StGB'"
echo "demo:      curl 'http://$addr/api/search/decisions?q=Geschäftsgeheimnis&court=BVerwG'"
exec "$bin/serve" --data-dir "$data" --addr "$addr"
