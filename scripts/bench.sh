#!/usr/bin/env bash
# `make bench`: release binaries against loopback only. Prints the figures and writes them to
# bench-results/latest.txt. Timing goals live here, never in test assertions.
set -euo pipefail
# Load from one address: no anonymous request limit unless the caller sets one.
export LEGAL_ANONYMOUS_PER_HOUR=${LEGAL_ANONYMOUS_PER_HOUR:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release
shared=${LEGAL_SHARED_DIR:-$root/../shared}
out=$root/bench-results
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
log() { echo "$*" | tee -a "$out/latest.txt"; }
: > "$out/latest.txt"
log "bench $(date -u +%FT%TZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) on $(nproc) cores"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# --- 1. Full statute reindex from the loopback mirror ------------------------------------
"$bin/mirror" --root "$shared/data/gii" --url-file "$work/mirror.url" >/dev/null &
for _ in $(seq 50); do [ -s "$work/mirror.url" ] && break; sleep 0.1; done
mirror=$(cat "$work/mirror.url")
data=$work/data
xml_bytes=$(awk -F'\t' 'NR > 1 { s += $7 } END { print s }' "$shared/data/gii/manifest.tsv")
t0=$(now)
"$bin/ingest" --data-dir "$data" --sources gii --gii-base-url "$mirror" --rate 0 --concurrency 8 | tee -a "$out/latest.txt"
t1=$(now)
"$bin/extract" --data-dir "$data" | tee -a "$out/latest.txt"
t2=$(now)
"$bin/resolve" --data-dir "$data" | tee -a "$out/latest.txt"
"$bin/index" --data-dir "$data" | tee -a "$out/latest.txt"
t3=$(now)
total=$(secs "$t0" "$t3")
statutes_index_s=$(secs "$t2" "$t3")
log "statutes full reindex: $total s wall (ingest $(secs "$t0" "$t1") s, extract $(secs "$t1" "$t2") s, resolve+index $(secs "$t2" "$t3") s); $(awk -v b="$xml_bytes" -v s="$total" 'BEGIN { printf "%.1f MB/s of XML end to end (%.1f MB)", b / 1e6 / s, b / 1e6 }') [goal: under 180 s]"

# --- 2. No-change nightly run ---------------------------------------------------------
t0=$(now)
"$bin/ingest" --data-dir "$data" --sources gii --gii-base-url "$mirror" --rate 0 --concurrency 8 >/dev/null
"$bin/extract" --data-dir "$data" >/dev/null
"$bin/resolve" --data-dir "$data" >/dev/null
"$bin/index" --data-dir "$data" | tee -a "$out/latest.txt"
log "no-change nightly run (all stages): $(secs "$t0" "$(now)") s wall [goal: under 10 s]"

# --- 3. Tool latency over loopback HTTP at concurrency 8 -----------------------------
"$bin/serve" --data-dir "$data" --addr 127.0.0.1:0 > "$work/serve.out" &
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^serve: listening on \(http[^ ]*\).*/\1/p' "$work/serve.out")
queries=(Notwehr Kündigung Schadensersatz Mietvertrag Eigentum Umsatzsteuer Datenschutz Versammlungsfreiheit Verjährung Testament Kaufvertrag Insolvenz)
books=(StGB BGB BGB BGB "" UStG BDSG GG BGB BGB "" InsO)
: > "$work/search.rest"; : > "$work/search.mcp"
for i in "${!queries[@]}"; do
	q=${queries[$i]} b=${books[$i]}
	echo "GET $base/api/search/laws?q=$q${b:+&book=$b}&limit=10" >> "$work/search.rest"
	args="{\"query\":\"$q\"${b:+,\"book\":\"$b\"},\"limit\":10}"
	echo "POST $base/mcp {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search_laws\",\"arguments\":$args}}" >> "$work/search.mcp"
done
: > "$work/section.rest"; : > "$work/section.mcp"
for bs in "BGB 823" "BGB 573" "StGB 32" "GG Art.%2020" "ZPO 286" "AO 1" "HGB 343" "SGB%20V 5" "VwGO 80" "StPO 136a" "EStG 2" "InsO 17"; do
	set -- $bs
	echo "GET $base/api/laws/$1/sections/$2" >> "$work/section.rest"
	b=${1//%20/ } s=${2//%20/ }
	echo "POST $base/mcp {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_law_section\",\"arguments\":{\"book\":\"$b\",\"section\":\"$s\"}}}" >> "$work/section.mcp"
done
for spec in search.rest search.mcp section.rest section.mcp; do
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 200 --label warmup >/dev/null
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 4000 --label "$spec (goal p99 < 10 ms)" | tee -a "$out/latest.txt"
done
serve_pid=$(pgrep -f "$bin/serve --data-dir $data" | head -1)
rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$serve_pid/status"; }
log "serve RSS with one full-corpus generation: $(rss) MiB"

# --- 4. Hot swap under load ------------------------------------------------------------
# Two full-corpus generations exist; CURRENT flips between them 10 times while loadgen runs.
# Each swap re-verifies the generation (sha256 of every file, store + index open, probe query)
# off the request path, so the figures include that work competing for the 2 cores.
gen_a=$(cat "$data/CURRENT")
"$bin/index" --data-dir "$data" build --force >/dev/null
gen_b=$(cat "$data/CURRENT")
wait_gen() { for _ in $(seq 2000); do curl -s "$base/readyz" | grep -q "\"$1\"" && return 0; sleep 0.005; done; return 1; }
wait_gen "$gen_b"
"$bin/loadgen" --spec "$work/section.rest" --concurrency 8 --requests 6000 --label "steady state, get_law_section REST" | tee -a "$out/latest.txt"
# The access layer's cost (issue 18): the same calls with the anonymous limiter counting
# (a limit no run reaches), with an API token looked up on every request, and with an OAuth
# access token (RS256 JWT of the loopback test issuer) verified on every request.
python="${MCP_PYTHON_1:-$root/.venv-mcp1/bin/python}"
"$python" "$root/tests/python/oauth_issuer.py" > "$work/issuer.out" 2>&1 &
issuer_pid=$!
for _ in $(seq 100); do grep -q '^issuer: ' "$work/issuer.out" 2>/dev/null && break; sleep 0.1; done
issuer=$(sed -n 's/^issuer: //p' "$work/issuer.out")
"$bin/serve" --data-dir "$data" --addr 127.0.0.1:0 --anonymous-per-hour 1000000000 --token-per-hour 1000000000 \
	--oauth-issuer "$issuer" > "$work/serve-limited.out" 2>&1 &
limited_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/serve-limited.out" 2>/dev/null && break; sleep 0.1; done
lbase=$(sed -n 's/^serve: listening on \(http[^ ]*\).*/\1/p' "$work/serve-limited.out")
sed "s#$base#$lbase#" "$work/section.rest" > "$work/section-limited.rest"
token=$("$bin/serve" --data-dir "$data" token create --name bench --abilities read --per-hour 1000000000 2>/dev/null)
"$bin/loadgen" --spec "$work/section-limited.rest" --concurrency 8 --requests 500 --label warmup >/dev/null
"$bin/loadgen" --spec "$work/section-limited.rest" --concurrency 8 --requests 6000 --label "steady state, get_law_section REST, anonymous limiter counting (access-layer overhead vs the line above)" | tee -a "$out/latest.txt"
"$bin/loadgen" --spec "$work/section-limited.rest" --concurrency 8 --requests 6000 --bearer "$token" --label "steady state, get_law_section REST, API token looked up per request" | tee -a "$out/latest.txt"
jwt=$(curl -s -X POST -H 'content-type: application/json' -d "{\"aud\":\"$lbase/mcp\",\"scope\":\"legal:read\",\"exp_in\":3600}" "$issuer/mint" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')
"$bin/loadgen" --spec "$work/section-limited.rest" --concurrency 8 --requests 6000 --bearer "$jwt" --label "steady state, get_law_section REST, OAuth access token (RS256 JWT) verified per request" | tee -a "$out/latest.txt"
kill "$limited_pid" "$issuer_pid" 2>/dev/null || true
"$bin/loadgen" --spec "$work/section.rest" --concurrency 8 --requests 30000 --label "during 10 swaps, get_law_section REST (goal p99 within 2x steady)" > "$work/swapload.txt" &
load_pid=$!
max_rss=$(rss)
swap_ms=()
for i in $(seq 10); do
	sleep 0.5
	if [ $((i % 2)) -eq 1 ]; then next=$gen_a; else next=$gen_b; fi
	t0=$(now)
	echo "$next" > "$data/CURRENT.tmp" && mv "$data/CURRENT.tmp" "$data/CURRENT"
	for _ in $(seq 4000); do
		r=$(rss); [ "$r" -gt "$max_rss" ] && max_rss=$r
		curl -s "$base/readyz" | grep -q "\"$next\"" && break
		sleep 0.002
	done
	swap_ms+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", (b - a) * 1000 }')")
done
wait $load_pid
tee -a "$out/latest.txt" < "$work/swapload.txt"
log "swap time, CURRENT renamed -> first answer from the new generation (ms, 10 swaps): ${swap_ms[*]}"
log "serve RSS: $(rss) MiB after the swaps, peak sampled during swaps (two generations open): $max_rss MiB"
kill "$serve_pid" 2>/dev/null || true

# --- 5. Decisions: normalisation, whole-corpus reindex, tool latency -------------------
"$bin/bench-normalise" 20 "$shared/data/decisions/corpus.oldp.jsonl.gz" | tee -a "$out/latest.txt"
ddata=$work/ddata
t0=$(now)
"$bin/ingest" --data-dir "$ddata" --sources gii --gii-base-url "$mirror" --oldp-dump "$shared/data/decisions/corpus.oldp.jsonl.gz" --rate 0 --concurrency 8 >/dev/null
"$bin/extract" --data-dir "$ddata" >/dev/null
t1=$(now)
rm -rf "$ddata/work/extract/decisions"
t2=$(now)
"$bin/extract" --data-dir "$ddata" | grep decisions | tee -a "$out/latest.txt"
t3=$(now)
"$bin/resolve" --data-dir "$ddata" >/dev/null
"$bin/index" --data-dir "$ddata" build --force | tee -a "$out/latest.txt"
t4=$(now)
n=$(python3 -c "import json; print(json.load(open('$ddata/work/extract/decisions/current.json'))['records_read'])")
# The index step also rebuilds the statutes; their share is the statutes-only index time of step 1.
dsecs=$(awk -v a="$t2" -v b="$t3" -v c="$t4" -v s="$(secs "$t2" "$t3")" -v st="$statutes_index_s" 'BEGIN { d = (c - b) - st; if (d < 0) d = 0; printf "%.2f", (b - a) + d }')
log "decision reindex (normalise $(secs "$t2" "$t3") s + index beyond the statutes' $statutes_index_s s): $dsecs s for $n records; extrapolated to 500,000 decisions: $(awk -v s="$dsecs" -v n="$n" 'BEGIN { printf "%.2f h", s / n * 500000 / 3600 }') [goal: under 1 h; Open Legal Data: ~28 h for 424,000]"
"$bin/serve" --data-dir "$ddata" --addr 127.0.0.1:0 > "$work/dserve.out" &
for _ in $(seq 100); do grep -q 'listening on' "$work/dserve.out" 2>/dev/null && break; sleep 0.1; done
dbase=$(sed -n 's/^serve: listening on \(http[^ ]*\).*/\1/p' "$work/dserve.out")
: > "$work/dsearch.rest"; : > "$work/dget.rest"
for q in Betriebsgeheimnis Informationsfreiheitsgesetz "Akteneinsicht%20Behörde" Umweltinformation Verwaltungsakt Datenschutz "Geschäftsgeheimnis&court=BVerwG" "Auskunft&branch=verwaltung&sort=date" "Presse&date_from=2010" Kostenentscheidung; do
	echo "GET $dbase/api/search/decisions?q=$q&limit=10" >> "$work/dsearch.rest"
done
for id in "2%20BvQ%2053%2F18" "7%20C%2012.13" "7%20C%2018.08" "oldp-1" "oldp-2" "20%20F%201.10?date=2010-01-21" "7%20C%2031.15?rn_from=10&rn_to=20" "7%20C%2012.13?offset=1000&length=2000"; do
	echo "GET $dbase/api/decisions/$id" >> "$work/dget.rest"
done
# Lay search (issue 17): everyday-language questions -> the § that answers them, on all statutes
# with the decision corpus's citation prior; with the dictionary and without it (expand_query=false).
# Baseline before the query analysis (BM25 only, 2026-12-03): recall@1 15.0%, recall@5 25.0%, MRR@10 0.200.
log "lay search (lay-dev, full statutes), with the legal-register dictionary: $(python3 "$shared/benchmarks/lay-score.py" "$shared/benchmarks/lay-dev.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@1 15.0, recall@5 25.0, mrr@10 0.200]"
# Our own questions of the same kind (tests/fixtures/): a set the dictionary and the word forms
# were tuned on, and one written afterwards and not tuned on. First measured 2026-12-05 before
# that tuning: own-dev recall@1 30.0, recall@5 46.0, MRR@10 0.373; own-heldout 29.4 / 44.1 / 0.355.
log "lay search, own questions tuned on (tests/fixtures/lay-own-dev.jsonl): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-dev.jsonl" "$dbase" --json) [before the tuning: recall@5 46.0, mrr@10 0.373]"
log "lay search, own questions held out (tests/fixtures/lay-own-heldout.jsonl): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before the tuning: recall@5 44.1, mrr@10 0.355]"
# Two more sets written 2026-12-05 (session 14) before that session's changes: heldout2 (70; its
# misses were read while working), heldout3 (49; only its scores were looked at until session 28 read its misses). Before
# (5feaeaf): heldout2 recall@1 15.7, recall@5 38.6, MRR@10 0.245; heldout3 8.2 / 22.4 / 0.133.
log "lay search, own questions held out 2 (tests/fixtures/lay-own-heldout2.jsonl, misses read): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout2.jsonl" "$dbase" --json) [before: recall@5 38.6, mrr@10 0.245]"
log "lay search, own questions held out 3 (tests/fixtures/lay-own-heldout3.jsonl, misses read in session 28): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout3.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 22.4, mrr@10 0.133]"
# Written 2026-12-06 (session 15) by a helper who saw no other question set nor the dictionary,
# before that session's search changes; only its scores were ever looked at. Before (86f2c12):
# recall@1 26.7, recall@5 50.0, MRR@10 0.364.
log "lay search, own questions held out 4 (tests/fixtures/lay-own-heldout4.jsonl, misses read in session 18): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout4.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 50.0, mrr@10 0.364]"
# Two sets written 2026-12-06 (session 18) by helpers who saw neither the code, the dictionary
# nor any other set but lay-dev (heldout6 also heldout5, to avoid its targets), before that
# session's changes. heldout5's misses were then read; heldout6 was never looked at beyond its
# scores. Before (16ccccc): heldout5 recall@1 13.3, recall@5 33.3, MRR@10 0.215; heldout6 10.0 /
# 16.7 / 0.132.
log "lay search, own questions held out 5 (tests/fixtures/lay-own-heldout5.jsonl, misses read): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout5.jsonl" "$dbase" --json) [before: recall@5 33.3, mrr@10 0.215]"
log "lay search, own questions held out 6 (tests/fixtures/lay-own-heldout6.jsonl, misses read in session 26): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout6.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 16.7, mrr@10 0.132]"
# Written 2026-12-07 (session 24) by a helper who saw neither the code, the dictionary nor any
# question set (lay-dev's format only), after that session's search changes; only its scores were
# ever looked at. Before those changes (79e4a6b): recall@1 26.7, recall@5 38.3, MRR@10 0.322.
log "lay search, own questions held out 7 (tests/fixtures/lay-own-heldout7.jsonl, misses read in session 26): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout7.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 38.3, mrr@10 0.322]"
# Written 2026-12-07 (session 26) by a helper who saw neither the code, the dictionary nor any
# question set, before that session's changes; only its scores were ever looked at. Before
# (be34a6e): recall@1 28.3, recall@5 46.7, MRR@10 0.368.
log "lay search, own questions held out 8 (tests/fixtures/lay-own-heldout8.jsonl, scores seen while choosing the dictionary lift): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout8.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 46.7, mrr@10 0.368]"
# Written 2026-12-07 (session 26) by a helper who saw neither the code, the dictionary nor any
# question set, while that session's changes were made; its misses were read in session 27 and
# named as examples of situations to the helpers who wrote entries. Before (be34a6e):
# recall@1 30.0, recall@5 50.0, MRR@10 0.375.
log "lay search, own questions held out 9 (tests/fixtures/lay-own-heldout9.jsonl, misses read in session 27): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout9.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 50.0, mrr@10 0.375]"
# Written 2026-12-07 (session 27) by a helper who saw neither the code, the dictionary nor any
# question set, before that session's changes; never read beyond its scores. Before (057cd90):
# recall@1 45.0, recall@5 55.0, MRR@10 0.497.
log "lay search, own questions held out 10 (tests/fixtures/lay-own-heldout10.jsonl, never read): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout10.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 55.0, mrr@10 0.497]"
# Written 2026-12-07 (session 29) by a helper who saw neither the code, the dictionary nor any
# question set, and read the statutes only section by section (no search), before the
# dictionary's votes were kept; only its scores were looked at (and three of its lines, quoted in
# the helper's report). Before (b822b58): recall@1 63.3, recall@5 80.0, MRR@10 0.713.
log "lay search, own questions held out 11 (tests/fixtures/lay-own-heldout11.jsonl, never read): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout11.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 80.0, mrr@10 0.713]"
# Written 2026-12-07 (session 30) by a helper who saw neither the code, the dictionary nor any
# question set and read the statutes only section by section, told to write as people type
# (colloquial, lower case, typos, the situation in their own words). Scored first after that
# session's dictionary entries; its misses were then read. At 04f780c: recall@1 36.7,
# recall@5 58.3, MRR@10 0.469.
log "lay search, own questions held out 12 (tests/fixtures/lay-own-heldout12.jsonl, misses read in session 30): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout12.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 58.3, mrr@10 0.469]"
# Written the same way by another helper in session 30, after heldout12; never read, scored
# before and after that session's ranking change. At 04f780c: recall@1 50.0, recall@5 61.7,
# MRR@10 0.538.
log "lay search, own questions held out 13 (tests/fixtures/lay-own-heldout13.jsonl, never read): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/lay-own-heldout13.jsonl" "$dbase" --json) [goal: recall@5 >= 80%, MRR@10 >= 0.60; before: recall@5 61.7, mrr@10 0.538]"
# A § asked for by its own heading (150 headings that name one § only, of 37 major laws;
# scripts/heading-questions.py wrote them from the shared statutes). Before the heading lift
# (79e4a6b, heading boost 3): recall@1 90.0, recall@5 98.7, MRR@10 0.939.
log "heading questions (tests/fixtures/heading-questions.jsonl): $(python3 "$shared/benchmarks/lay-score.py" "$root/tests/fixtures/heading-questions.jsonl" "$dbase" --json) [before: recall@1 90.0, recall@5 98.7, mrr@10 0.939]"
# Citation recommendation from the corpus's own graph: the words before a bound § citation in a
# held decision, the citation masked, must find that §. Before this benchmark existed (release of
# 2026-12-04 08:05, no decision-side analysis): recall@1 12.5%, recall@10 26.0%, MRR@10 0.159 (n=200).
log "citation recommendation (200 masked § citations of the corpus -> search_laws): $(python3 "$root/scripts/citation-recommend.py" "$ddata" "$dbase" --n 200 --json)"
python3 -c 'import json, sys, urllib.parse
for line in open(sys.argv[1]):
    print("GET " + sys.argv[2] + "/api/search/laws?q=" + urllib.parse.quote(json.loads(line)["query"]) + "&limit=10")' \
	"$shared/benchmarks/lay-dev.jsonl" "$dbase" > "$work/lsearch.rest"
"$bin/loadgen" --spec "$work/lsearch.rest" --concurrency 8 --requests 200 --label warmup >/dev/null
"$bin/loadgen" --spec "$work/lsearch.rest" --concurrency 8 --requests 4000 --label "lay-dev search_laws c8 (goal p99 < 10 ms)" | tee -a "$out/latest.txt"
# The same questions in-process, one thread, no HTTP (`serve/examples/search_timing.rs`): the
# figure to compare builds by, since the loaded server's throughput varies by about 10% here.
log "lay-dev search_laws in-process: $(LAWS=1 "$bin/examples/search_timing" "$ddata" "$shared/benchmarks/lay-dev.jsonl" | tail -1) [before the one walk (3e617a1): 1.19-1.33 ms]"
for spec in dsearch.rest dget.rest; do
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 200 --label warmup >/dev/null
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 4000 --label "$spec (goal p99 < 15 ms)" | tee -a "$out/latest.txt"
done

# --- 6. Citation graph and the citation checker over loopback -------------------------
: > "$work/graph.rest"
for id in "7%20C%2012.13" "7%20C%2018.08" "2%20BvQ%2053%2F18" "oldp-938" "7%20C%2020.12" "6%20C%2012.14"; do
	echo "GET $dbase/api/decisions/$id/graph?depth=2&max_nodes=100" >> "$work/graph.rest"
done
: > "$work/forlaw.rest"
for bs in "IFG 6" "IFG 3" "VwGO 99" "GG Art.%2012" "UIG 9" "VwGO 113"; do
	set -- $bs
	echo "GET $dbase/api/laws/$1/sections/$2/decisions?sort=most_cited&limit=20" >> "$work/forlaw.rest"
done
: > "$work/validate.rest"
for c in "%C2%A7%20823%20Abs.%201%20BGB" "%C2%A7%2032%20StGB" "Art.%2020%20GG" "7%20C%2012.13" "VIII%20ZR%20231%2F07" "%C2%A7%206%20IFG" "%C2%A7%2047%20BauO%20LSA" "%C2%A7%209999%20BGB"; do
	echo "GET $dbase/api/citations/validate?citation=$c" >> "$work/validate.rest"
done
# A 20,000-character decision text (the longest-cited corpus decisions, cut at 20,000 characters).
PYTHONPATH="$root/scripts" python3 - "$ddata" "$dbase" > "$work/check.rest" <<'PY'
import json, sys
from parted_lines import decision_lines
texts = []
for line in decision_lines(sys.argv[1]):
    t = json.loads(line)["doc"]["text"]
    if len(t) >= 20000:
        texts.append(t[:20000])
    if len(texts) == 5:
        break
for t in texts:
    print("POST", sys.argv[2] + "/api/tools/check_citations", json.dumps({"text": t}, ensure_ascii=False))
PY
for spec in graph.rest forlaw.rest; do
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 100 --label warmup >/dev/null
	"$bin/loadgen" --spec "$work/$spec" --concurrency 8 --requests 2000 --label "$spec" | tee -a "$out/latest.txt"
done
"$bin/loadgen" --spec "$work/validate.rest" --concurrency 8 --requests 200 --label warmup >/dev/null
"$bin/loadgen" --spec "$work/validate.rest" --concurrency 8 --requests 8000 --label "validate_citation (goal p99 < 5 ms)" | tee -a "$out/latest.txt"
"$bin/loadgen" --spec "$work/check.rest" --concurrency 2 --requests 20 --label warmup >/dev/null
"$bin/loadgen" --spec "$work/check.rest" --concurrency 2 --requests 400 --label "check_citations, 20,000-char texts, concurrency 2 (goal p99 < 50 ms)" | tee -a "$out/latest.txt"
"$bin/loadgen" --spec "$work/check.rest" --concurrency 1 --requests 200 --label "check_citations, one at a time" > "$work/check1.txt"
tee -a "$out/latest.txt" < "$work/check1.txt"
findings=$(python3 - "$work/check.rest" <<'PY'
import json, sys, urllib.request
total = n = 0
for line in open(sys.argv[1]):
    _, url, body = line.split(" ", 2)
    r = urllib.request.urlopen(urllib.request.Request(url, data=body.encode(), headers={"content-type": "application/json"}))
    total += len(json.load(r)["findings"]); n += 1
print(total / n)
PY
)
rps=$(sed -n 's/.* \([0-9.]*\) req\/s.*/\1/p' "$work/check1.txt")
log "check_citations: $findings findings per 20,000-char text; $(awk -v f="$findings" -v r="$rps" 'BEGIN { printf "%.0f", f * r }') citations checked per second, one request at a time (about one core)"

# --- 7. Citation extraction against refex ---------------------------------------------
if [ -x "$root/scripts/bench-citations.sh" ]; then
	REFEX_VENV=${REFEX_VENV:-1} "$root/scripts/bench-citations.sh" 2>&1 | tee -a "$out/latest.txt" || log "citation benchmark failed"
fi
# --- 8. The server under abuse: mixed load, publishes, slow clients, oversized batches ---
"$root/scripts/bench-load.sh" "$bin" "$out/latest.txt"

log "results in bench-results/latest.txt"
