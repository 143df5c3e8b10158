#!/usr/bin/env bash
# All stages, then publish. For cron: one summary line per stage, exit 0 only when every stage
# succeeded. An ingest that lost some documents (exit 3) or the whole source (exit 2) still
# lets the later stages run on the last good copies, and the run then exits with that code
# (2 before 3).
set -uo pipefail
bin=$1 data=$2 gii=$3 rii=${4:-https://www.rechtsprechung-im-internet.de}
# OLDP_DUMP (a path or URL of an Open Legal Data case dump) is read by ingest from the environment.
commit=$(git -C "$(dirname "$0")/.." rev-parse HEAD 2>/dev/null || true)
export LEGAL_GIT_COMMIT=${LEGAL_GIT_COMMIT:-$commit}
started=$(date +%s.%N)
"$bin/ingest" --data-dir "$data" --gii-base-url "$gii" --rii-base-url "$rii"
ingest_rc=$?
if [ $ingest_rc -ne 0 ] && [ $ingest_rc -ne 2 ] && [ $ingest_rc -ne 3 ]; then
	echo "reindex: ingest failed (exit $ingest_rc); nothing published" >&2
	exit $ingest_rc
fi
# extract exits 3 when some laws have no record or lost text (each a row in the catalog's
# problems); the rest is written, so resolve and index still run and the run exits 3.
rc=$ingest_rc
for stage in extract resolve index; do
	"$bin/$stage" --data-dir "$data"
	stage_rc=$?
	if [ "$stage" = extract ] && [ $stage_rc -eq 3 ]; then
		[ "$rc" -eq 0 ] && rc=3
	elif [ $stage_rc -ne 0 ]; then
		echo "reindex: $stage failed (exit $stage_rc); CURRENT unchanged" >&2
		exit $stage_rc
	fi
done
awk -v a="$started" -v b="$(date +%s.%N)" -v rc="$ingest_rc" -v out="$rc" 'BEGIN { printf "reindex: done in %.1f s (ingest exit %d, run exit %d)\n", b - a, rc, out }'
exit $rc
