#!/usr/bin/env bash
# Index the embedded sample (sample/gii, sample/rii, the sample Open Legal Data dump) into
# DATA through a loopback mirror with the real crawler and stage binaries. No network is used:
# the mirror binds to 127.0.0.1.   usage: index-sample.sh BIN_DIR DATA_DIR [OLDP_DUMP]
# (OLDP_DUMP: another Open Legal Data dump instead of the sample's, e.g. the shared corpus)
set -euo pipefail
bin=$1 data=$2
root=$(cd "$(dirname "$0")/.." && pwd)
dump=${3:-$root/sample/decisions/oldp-sample.jsonl.gz}
url_file=$(mktemp)
"$bin/mirror" --root "$root/sample/gii" --root "$root/sample/rii" --url-file "$url_file" >/dev/null &
mirror_pid=$!
trap 'kill $mirror_pid 2>/dev/null || true; rm -f "$url_file"' EXIT
for _ in $(seq 50); do [ -s "$url_file" ] && break; sleep 0.1; done
base=$(cat "$url_file")
echo "sample: mirror on $base (stands in for gesetze-im-internet.de and rechtsprechung-im-internet.de)"
"$bin/ingest" --data-dir "$data" --sources gii,rii --gii-base-url "$base" --rii-base-url "$base" \
	--oldp-dump "$dump" --rate 0 --concurrency 8
"$bin/extract" --data-dir "$data"
"$bin/resolve" --data-dir "$data"
"$bin/index" --data-dir "$data"
