#!/usr/bin/env bash
# The server under abuse (part of `make bench`): 20,000 mixed MCP and REST requests at
# concurrency 16 while CURRENT is switched 10 times, 200 slow clients trickle headers, and 4
# oversized JSON-RPC batches (49 check_citations each, just under the 1 MiB body limit) arrive.
# A separate stream of cheap calls (get_law_section) runs throughout; its p99 and the server's
# peak RSS are the figures. Loopback only.   usage: bench-load.sh BIN_DIR OUT_FILE
set -euo pipefail
# Load from one address: no anonymous request limit unless the caller sets one.
export LEGAL_ANONYMOUS_PER_HOUR=${LEGAL_ANONYMOUS_PER_HOUR:-0}
bin=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${LEGAL_SHARED_DIR:-$root/../shared}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
log() { echo "$*" | tee -a "$out"; }

# Sample statutes, plus the shared decision corpus when it is there.
dump=$shared/data/decisions/corpus.oldp.jsonl.gz
[ -f "$dump" ] || dump=$root/sample/decisions/oldp-sample.jsonl.gz
data=$work/data
"$root/scripts/index-sample.sh" "$bin" "$data" "$dump" >/dev/null
gen_a=$(cat "$data/CURRENT")
"$bin/index" --data-dir "$data" build --force >/dev/null
gen_b=$(cat "$data/CURRENT")

"$bin/serve" --data-dir "$data" --addr 127.0.0.1:0 --poll-ms 100 > "$work/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^serve: listening on \(http[^ ]*\).*/\1/p' "$work/serve.out")
addr=${base#http://}

# The mixed requests: every tool family, both transports, only calls that succeed.
mcp() { echo "POST $base/mcp {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}"; }
text=$(python3 -c 'print(("Der Anspruch folgt aus § 823 Abs. 1 BGB; vgl. BVerwG, Urteil vom 29.10.2009 - 7 C 22.08 -, und Art. 20 Abs. 3 GG. " * 20)[:2000])')
id=$(curl -s "$base/api/tools/filter_cases" -H 'content-type: application/json' -d '{"limit":1}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
{
	echo "GET $base/api/search/laws?q=Notwehr&limit=10"
	echo "GET $base/api/laws/BGB/sections/823"
	echo "GET $base/api/search/decisions?q=Informationszugang&limit=10"
	echo "GET $base/api/decisions/$id"
	echo "GET $base/api/citations/validate?citation=%C2%A7%20823%20Abs.%201%20BGB"
	echo "POST $base/mcp {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"
	mcp search_laws '{"query":"Schadensersatz","book":"BGB"}'
	mcp get_law_section '{"book":"GG","section":"Art. 20"}'
	mcp filter_cases '{"court":"BVerwG","limit":20}'
	mcp get_citation_graph "{\"id\":\"$id\",\"depth\":2}"
	mcp get_case_statistics '{}'
	mcp list_facets '{"field":"cited_norms","limit":20}'
	mcp check_citations "$(python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}, ensure_ascii=False))' "$text")"
	mcp cross_type_search '{"query":"Auskunft"}'
} > "$work/mixed.spec"
echo "GET $base/api/laws/BGB/sections/823" > "$work/cheap.spec"
"$bin/loadgen" --spec "$work/mixed.spec" --concurrency 16 --requests 1000 --label warmup >/dev/null

# 200 slow clients: each sends one header byte per second and reconnects when cut off.
python3 - "$addr" 200 > "$work/slow.out" 2>&1 <<'PY' &
import asyncio, sys
host, port = sys.argv[1].rsplit(":", 1)
cut = 0
async def client():
    global cut
    while True:
        try:
            r, w = await asyncio.open_connection(host, int(port))
            for b in b"GET /api/laws/BGB/sections/823 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000:
                w.write(bytes([b])); await w.drain(); await asyncio.sleep(1)
        except (ConnectionError, OSError):
            cut += 1
            await asyncio.sleep(0.1)
async def main():
    tasks = [asyncio.create_task(client()) for _ in range(int(sys.argv[2]))]
    while True:
        await asyncio.sleep(1)
        print(f"slow clients cut so far: {cut}", flush=True)
asyncio.run(main())
PY
slow_pid=$!
sleep 2

# 4 oversized batches of check_citations on 20,000-character texts of distinct citations: two of 49 messages
# (~1 MiB, over the 32-message cap) and two of 32 (the most a batch may hold, ~650 KB).
python3 - "$work" <<'PY'
import json, sys
text = "".join(f"Nach § {i} BGB und § {i + 1} ZPO; vgl. BVerwG, Urteil vom 29.10.2009 - 7 C {i}.08 -. " for i in range(1, 400))[:20000]
for i, n in ((1, 49), (2, 32), (3, 49), (4, 32)):
    batch = [{"jsonrpc": "2.0", "id": k, "method": "tools/call", "params": {"name": "check_citations", "arguments": {"text": text}}} for k in range(n)]
    open(f"{sys.argv[1]}/batch{i}.json", "w").write(json.dumps(batch, ensure_ascii=False))
PY
batch_pids=()
for i in 1 2 3 4; do
	curl -s -o "$work/batch$i.out" -w "%{http_code} %{size_download} %{time_total}\n" "$base/mcp" -H 'content-type: application/json' \
		-H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2025-03-26' --data-binary "@$work/batch$i.json" > "$work/batch$i.status" &
	batch_pids+=($!)
done

rm -f "$work/stop"
"$bin/loadgen" --spec "$work/cheap.spec" --concurrency 1 --requests 100000000 --stop-file "$work/stop" --label "cheap calls (get_law_section REST, concurrency 1) during the storm [goal p99 < 50 ms]" > "$work/cheap.out" &
cheap_pid=$!
"$bin/loadgen" --spec "$work/mixed.spec" --concurrency 16 --requests 20000 --label "mixed MCP+REST, 14 kinds, during 10 publishes, 200 slow clients, 4 oversized batches" > "$work/mixed.out" &
mixed_pid=$!
for i in $(seq 10); do
	sleep 1
	if [ $((i % 2)) -eq 1 ]; then next=$gen_a; else next=$gen_b; fi
	echo "$next" > "$data/CURRENT.tmp" && mv "$data/CURRENT.tmp" "$data/CURRENT"
done
mixed_rc=0
wait $mixed_pid || mixed_rc=$?
touch "$work/stop"
cheap_rc=0
wait $cheap_pid || cheap_rc=$?
wait "${batch_pids[@]}" || true
kill $slow_pid 2>/dev/null || true
tee -a "$out" < "$work/mixed.out"
tee -a "$out" < "$work/cheap.out"
[ "$mixed_rc" = 0 ] || log "mixed run: FAILED requests (exit $mixed_rc)"
[ "$cheap_rc" = 0 ] || log "cheap stream: FAILED requests (exit $cheap_rc)"
for i in 1 2 3 4; do
	read -r code size secs < "$work/batch$i.status" || true
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/batch$i.json")
	summary=$(python3 - "$work/batch$i.out" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    print("no JSON answer"); sys.exit()
if isinstance(r, dict):
    print("refused as a whole: " + r.get("error", {}).get("message", "?")); sys.exit()
ran = sum(1 for x in r if "result" in x)
timed_out = sum(1 for x in r if x.get("result", {}).get("structuredContent", {}).get("error_code") == "timeout")
not_run = [x for x in r if x.get("error", {}).get("code") == -32001]
why = not_run[0]["error"]["message"] if not_run else ""
print(f"{ran} answered ({timed_out} of them timeout), {len(not_run)} not run (-32001: {why})")
PY
)
	log "oversized batch $i ($n check_citations): HTTP $code, $size bytes in $secs s; $summary"
done
log "$(tail -1 "$work/slow.out") (200 slow clients, header timeout 10 s)"
peak=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$serve_pid/status")
log "serve peak RSS (VmHWM) over the whole load test: $peak MiB [goal < 300 MiB]"
served=$(curl -s "$base/readyz")
log "after the storm: $served"
