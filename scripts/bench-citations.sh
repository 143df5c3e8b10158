#!/usr/bin/env bash
# Citation-extraction benchmark: scores the scanner (extract/src/citations) on refex-dev,
# refex-test (refex's conventions) and ler-dev (LER's conventions) with the shared scorer, and
# measures throughput in MB/s of plain text on one core. When the refex package is importable
# (REFEX_PYTHON, default python3) it runs refex-baseline.py on the same files side by side.
#
#   scripts/bench-citations.sh              all three sets (report refex-test; never tune on it)
#   DEV_ONLY=1 scripts/bench-citations.sh   the two dev sets only (for development)
#   REFEX_VENV=1 scripts/bench-citations.sh also pip-installs legal-reference-extraction==0.5.5
#                                           into /tmp/venv-refex for the side-by-side run
#
# Predictions and score tables go to bench-results/citations/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${LEGAL_SHARED_DIR:-$root/../shared}
bench=$shared/benchmarks
out=$root/bench-results/citations
mkdir -p "$out"
: > "$out/latest.txt"
log() { echo "$*" | tee -a "$out/latest.txt"; }

cargo build --release -q -p extract --bin predict-citations --manifest-path "$root/Cargo.toml"
bin=$root/target/release/predict-citations
# One core: the figure is per core; taskset only where it exists.
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi

sets=("refex-dev:refex" "ler-dev:ler")
if [ -z "${DEV_ONLY:-}" ]; then sets=("refex-dev:refex" "refex-test:refex" "ler-dev:ler"); fi

py=${REFEX_PYTHON:-python3}
if [ -n "${REFEX_VENV:-}" ] && ! "$py" -c 'import refex' 2>/dev/null; then
    if [ ! -x /tmp/venv-refex/bin/python ]; then
        python3 -m venv /tmp/venv-refex && /tmp/venv-refex/bin/pip install -q 'legal-reference-extraction==0.5.5'
    fi
    py=/tmp/venv-refex/bin/python
fi
have_refex=0
if "$py" -c 'import refex' 2>/dev/null; then have_refex=1; fi

log "citation benchmark $(date -u +%FT%TZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
for s in "${sets[@]}"; do
    name=${s%%:*}
    conv=${s##*:}
    gold=$bench/$name.jsonl
    pred=$out/$name.pred.jsonl
    log ""
    log "== $name ($conv conventions) =="
    # Enough passes for the 10 ms CPU-time ticks to average out on the small refex files.
    reps=10
    if [ "$conv" = refex ]; then reps=100; fi
    "${pin[@]}" "$bin" --gold "$gold" --convention "$conv" --out "$pred" --repeat "$reps" | tee -a "$out/latest.txt"
    python3 "$bench/refex-score.py" "$gold" "$pred" | tee -a "$out/latest.txt"
    if [ "$have_refex" = 1 ]; then
        log "-- refex 0.5.5 (markers API) on the same texts --"
        "${pin[@]}" "$py" "$bench/refex-baseline.py" "$gold" "$out/$name.refex.pred.jsonl" --repeat 3 2>&1 | tail -3 | tee -a "$out/latest.txt"
        python3 "$bench/refex-score.py" "$gold" "$out/$name.refex.pred.jsonl" | tee -a "$out/latest.txt"
    fi
done
# Throughput on real decisions: the plain-text records of the decision corpus (no gold; the
# predictions are discarded).
corpus=$shared/data/decisions/corpus.oldp.jsonl.gz
if [ -f "$corpus" ]; then
    python3 - "$corpus" "$out/corpus-plain.jsonl" <<'PY'
import gzip, json, sys
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as o:
    for line in f:
        d = json.loads(line)
        if (d.get("content_format") or "").startswith("text/plain") and d.get("content"):
            o.write(json.dumps({"id": str(d["id"]), "text": d["content"], "spans": []}, ensure_ascii=False) + "\n")
PY
    log ""
    log "== decision corpus, plain-text records (throughput only) =="
    "${pin[@]}" "$bin" --gold "$out/corpus-plain.jsonl" --convention refex --out "$out/corpus-plain.pred.jsonl" --repeat 3 | tee -a "$out/latest.txt"
fi
if [ "$have_refex" = 0 ]; then
    log ""
    log "(refex not importable: set REFEX_PYTHON or REFEX_VENV=1 for the side-by-side run)"
fi
