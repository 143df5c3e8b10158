#!/usr/bin/env bash
# `make bench-scale N=…`: the pipeline and the server at N synthetic decisions (gen-corpus,
# recombined from the shared records) plus all statutes of the shared mirror, release
# binaries, loopback only. Prints one table (wall, CPU, peak RSS per stage; disk; the nightly
# runs; serve start and RSS; tool latencies) and writes it to bench-results/scale-N.txt.
#   usage: bench-scale.sh N [SEED]
set -euo pipefail
# Load from one address: no anonymous request limit unless the caller sets one.
export LEGAL_ANONYMOUS_PER_HOUR=${LEGAL_ANONYMOUS_PER_HOUR:-0}
n=${1:?usage: bench-scale.sh N [SEED]}
seed=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release
shared=${LEGAL_SHARED_DIR:-$root/../shared}
out=$root/bench-results
mkdir -p "$out"
work=${BENCH_SCALE_DIR:-$(mktemp -d)}
mkdir -p "$work"
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${BENCH_SCALE_KEEP:-}" ] || rm -rf "$work"' EXIT
if [ ! -x /usr/bin/time ]; then
	apt-get install -y -qq time >/dev/null 2>&1 || { echo "bench-scale: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
fi
table=$work/table.md
: > "$table"
row() { echo "| $* |" >> "$table"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# A stage under GNU time: one table row with wall s, CPU s (user + sys), peak RSS MiB, and
# the stage's own summary lines kept in the log.
stage() {
	local label=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" > "$work/stage.out" 2>"$work/stage.err" || {
		echo "bench-scale: $label failed:" >&2; cat "$work/stage.err" >&2; exit 1; }
	cat "$work/stage.out" >> "$work/stages.log"
	read -r wall user sys rss_kib < <(tail -1 "$work/time.txt")
	row "$label | $wall | $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') | $((rss_kib / 1024))"
	echo "$label: wall $wall s, peak RSS $((rss_kib / 1024)) MiB" >&2
}

echo "bench-scale: N=$n seed=$seed in $work" >&2
dump=$work/corpus.jsonl.gz
t0=$(now)
"$bin/gen-corpus" --n "$n" --seed "$seed" --out "$dump"
gen_s=$(secs "$t0" "$(now)")

"$bin/mirror" --root "$shared/data/gii" --url-file "$work/mirror.url" >/dev/null &
for _ in $(seq 100); do [ -s "$work/mirror.url" ] && break; sleep 0.1; done
mirror=$(cat "$work/mirror.url")
data=$work/data
run_stages() {
	local what=$1
	stage "$what ingest" "$bin/ingest" --data-dir "$data" --sources gii --gii-base-url "$mirror" --oldp-dump "$dump" --rate 0 --concurrency 8
	stage "$what extract" "$bin/extract" --data-dir "$data"
	stage "$what resolve" "$bin/resolve" --data-dir "$data"
	stage "$what index" "$bin/index" --data-dir "$data"
}

{
	echo "## bench-scale: $n decisions (seed $seed) + all statutes, $(nproc) cores, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo
	echo "generated in $gen_s s: $(du -h "$dump" | cut -f1) gzip"
	echo
	echo "| stage | wall s | CPU s | peak RSS MiB |"
	echo "|---|---|---|---|"
} > "$out/scale-$n.txt"
t0=$(now)
run_stages full
full_s=$(secs "$t0" "$(now)")
row "**full reindex, all stages** | $full_s | | "
gen_dir=$data/generations/$(cat "$data/CURRENT")
gen_bytes=$(du -sb "$gen_dir" | cut -f1)
t0=$(now)
run_stages "no change:"
row "**nightly, no change** | $(secs "$t0" "$(now)") | | "
"$bin/gen-corpus" --n "$n" --seed "$seed" --change-fraction 0.01 --out "$dump" 2>> "$work/stages.log"
t0=$(now)
run_stages "1% changed:"
row "**nightly, 1% changed** | $(secs "$t0" "$(now)") | | "
two_gens=$(du -sb "$data/generations" | cut -f1)
# A second night: another 1% of the decisions changes (the first night's changes stay).
"$bin/gen-corpus" --n "$n" --seed "$seed" --change-fraction 0.01 --nights 2 --out "$dump" 2>> "$work/stages.log"
t0=$(now)
run_stages "night 2, 1% more changed:"
row "**nightly, second night** | $(secs "$t0" "$(now)") | | "
three_gens=$(du -sb "$data/generations" | cut -f1)
cat "$table" >> "$out/scale-$n.txt"
{
	echo
	echo "disk (du, a hard-linked file counted once): one generation $(awk -v b="$gen_bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }'); two generations (after the 1% run) $(awk -v b="$two_gens" 'BEGIN { printf "%.2f GB", b / 1e9 }'); three generations (after the second night) $(awk -v b="$three_gens" -v o="$gen_bytes" 'BEGIN { printf "%.2f GB = %.2f x one", b / 1e9, b / o }'); data dir $(du -sb "$data" | awk '{ printf "%.2f GB", $1 / 1e9 }'); the decisions' parts $(du -sb "$data/work/extract/decisions/parts" | awk '{ printf "%.2f GB", $1 / 1e9 }'); the record cache $(du -sb "$data/work/extract/decisions/records" | awk '{ printf "%.2f GB", $1 / 1e9 }') in $(find "$data/work/extract/decisions/records" -type f | wc -l) files"
	echo
	echo "stage summaries:"
	sed 's/^/    /' "$work/stages.log"
} >> "$out/scale-$n.txt"

# --- serve: start, tool latencies at concurrency 8, RSS ----------------------------------
t0=$(now)
"$bin/serve" --data-dir "$data" --addr 127.0.0.1:0 > "$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 600); do grep -q 'listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
base=$(sed -n 's/^serve: listening on \(http[^ ]*\).*/\1/p' "$work/serve.out")
for _ in $(seq 2000); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ] && break; sleep 0.01; done
ready_s=$(secs "$t0" "$(now)")
# A generation opened on its stamp is served at once and re-hashed in the background at low
# priority; the tool latencies are measured after that, as a server runs once it settled.
rehash=$(python3 - "$base" <<'PY'
import json, sys, time, urllib.request
for _ in range(12000):
    d = json.load(urllib.request.urlopen(sys.argv[1] + "/healthz"))["detail"].get("background_verification")
    if not d or d["state"] != "hashing":
        break
    time.sleep(0.05)
print("not run (hashed before serving)" if not d else "%s in %.1f s" % (d["state"], d["seconds"] or 0))
PY
)
specs=$work/specs
mkdir -p "$specs"
PYTHONPATH="$root/scripts" python3 - "$data" "$base" "$specs" <<'PY'
import json, sys, random
from parted_lines import decision_lines
data, base, out = sys.argv[1:4]
random.seed(1)
ids, eclis, fns, texts = [], [], [], []
for i, line in enumerate(decision_lines(data)):
    if i % 97:
        continue
    d = json.loads(line)
    ids.append(d["id"])
    m = d["doc"]["meta"]
    if m.get("ecli"):
        eclis.append(m["ecli"])
    if m.get("file_numbers"):
        fns.append(m["file_numbers"][0])
    # check_citations refuses text that is not German legal writing (the synthetic corpus
    # recombines EU judgments in English too): a text counts when its first 5,000
    # characters cite a §, as what a user sends does.
    if len(d["doc"]["text"]) >= 20000 and "§" in d["doc"]["text"][:5000]:
        texts.append(d["doc"]["text"])
    if len(ids) >= 400:
        break
def tool(name, args):
    return "POST %s/api/tools/%s %s" % (base, name, json.dumps(args, ensure_ascii=False))
specs = {
    "get_cases_for_law (IFG 3, most_cited)": [tool("get_cases_for_law", {"book": "IFG", "section": s, "sort": "most_cited"}) for s in ["3", "2", "6", "1"]],
    "get_case_statistics": [tool("get_case_statistics", {})] + [tool("get_case_statistics", {"court": c}) for c in ["BVerwG", "VG Berlin"]],
    "corpus_coverage": [tool("corpus_coverage", {})],
    "get_decision by id": [tool("get_decision", {"id": i, "length": 2000}) for i in ids[:200]],
    "get_decision by ECLI": [tool("get_decision", {"id": e, "length": 2000}) for e in eclis[:200]],
    "get_decision by file number": [tool("get_decision", {"id": f, "length": 2000}) for f in fns[:200]],
    "filter_cases": [tool("filter_cases", {"court": c, "limit": 20}) for c in ["BVerwG", "VG Berlin", "OVG Berlin-Brandenburg"]] + [tool("filter_cases", {"date_from": "2010-01-01", "limit": 20})],
    "search_decisions": [tool("search_decisions", {"query": q}) for q in ["Informationsfreiheit", "Betriebsgeheimnis", "Akteneinsicht Behörde", "Umweltinformation"]],
    # Sorted with words: every matching decision is read to sort them (it grows with N).
    "search_decisions sorted by date": [tool("search_decisions", {"query": q, "sort": "date"}) for q in ["Informationsfreiheit", "Betriebsgeheimnis", "Akteneinsicht Behörde", "Umweltinformation"]],
    "search_laws": [tool("search_laws", {"query": q}) for q in ["Notwehr", "Kündigung", "Schadensersatz", "Datenschutz"]],
    "get_law_section": [tool("get_law_section", {"book": b, "section": s}) for b, s in [("BGB", "823"), ("StGB", "32"), ("IFG", "3"), ("VwGO", "80")]],
    "check_citations (5,000 chars)": [tool("check_citations", {"text": t[:5000]}) for t in texts[:20]],
    "check_citations (20,000 chars)": [tool("check_citations", {"text": t[:20000]}) for t in texts[:20]],
}
for i, (label, lines) in enumerate(specs.items()):
    with open("%s/%02d.spec" % (out, i), "w") as f:
        f.write(label + "\n" + "\n".join(lines) + "\n")
PY
{
	echo
	echo "serve: ready in $ready_s s (listening and /readyz 200); background re-hash of every file: $rehash (tools measured after it)"
	echo
	echo "| tool (concurrency 8) | requests | req/s | p50 ms | p99 ms |"
	echo "|---|---|---|---|---|"
} >> "$out/scale-$n.txt"
for spec in "$specs"/*.spec; do
	label=$(head -1 "$spec")
	tail -n +2 "$spec" > "$spec.lines"
	"$bin/loadgen" --spec "$spec.lines" --concurrency 8 --requests 50 --label warmup >/dev/null || true
	line=$("$bin/loadgen" --spec "$spec.lines" --concurrency 8 --requests 800 --label "$label" || true)
	echo "$line" >&2
	echo "$line" | sed -n 's/^\(.*\): \([0-9]*\) requests at concurrency [0-9]* in [0-9.]* s: \([0-9]*\) req\/s, p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*failures \([0-9]*\)$/| \1 | \2 (failures \6) | \3 | \4 | \5 |/p' >> "$out/scale-$n.txt"
done
echo >> "$out/scale-$n.txt"
awk '/VmRSS|VmHWM/ { printf "serve %s %.0f MiB; ", $1, $2 / 1024 } END { print "" }' "/proc/$serve_pid/status" >> "$out/scale-$n.txt"
kill "$serve_pid" 2>/dev/null || true
cat "$out/scale-$n.txt"
