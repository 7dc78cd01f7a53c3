#!/usr/bin/env bash
# A run's page (/runs/{id}) on the scale database (60,000 runs, 1,080,000
# results: examples/gen_scale_db) against the bare SQL of its statements
# in the sqlite3 shell (.timer on), as a ratio measured in one run
# (docs/performance.md, "A page per run"). Serves a copy from a release
# build; for N super-smack runs spread over the database: the first
# request of each run's page (nothing kept: curl's time_total) and a
# second (kept); then wrk on one page; then the same statements the page
# runs, with the same values, in one sqlite3 shell session, summed per run.
#
#   scripts/bench-run-page.sh          # N=21
#   BENCH_N=41 scripts/bench-run-page.sh
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_N:-21}
RUNS=${BENCH_RUNS:-60000}
PORT=${BENCH_PORT:-18933}
TARGET=${CARGO_TARGET_DIR:-target}
DIR=$TARGET/bench-scale
DB=${BENCH_DB:-$DIR/scale-$RUNS.db}
BASE=http://127.0.0.1:$PORT

cargo build --release --quiet --bin benchlog --example gen_scale_db
mkdir -p "$DIR"
[ -f "$DB" ] || "$TARGET/release/examples/gen_scale_db" "$DB" "$RUNS"
SERVED=$DIR/run-page.db
rm -f "$SERVED" "$SERVED-wal" "$SERVED-shm"
cp "$DB" "$SERVED"
"$TARGET/release/benchlog" serve --db "$SERVED" --listen "127.0.0.1:$PORT" \
    --static-dir static --uploads-per-minute 0 2>"$DIR/run-page-serve.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 600); do
    curl -fs "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done

# N super-smack runs, evenly spread over the ids.
mapfile -t IDS < <(sqlite3 "$SERVED" "
    WITH s AS (SELECT id, row_number() OVER (ORDER BY id) AS k, count(*) OVER () AS c
               FROM runs WHERE tool = 'super-smack')
    SELECT id FROM s WHERE (k - 1) % (c / $N) = 0 LIMIT $N")
echo "runs: ${IDS[*]}" >&2

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
first=() kept=()
for id in "${IDS[@]}"; do
    first+=("$(curl -fs -o /dev/null -w '%{time_total}' "$BASE/runs/$id")")
    kept+=("$(curl -fs -o /dev/null -w '%{time_total}' "$BASE/runs/$id")")
done
curl -fs "$BASE/runs/${IDS[0]}" | grep -o 'data-run="[0-9]*"' | wc -l | sed 's/^/runs like it listed on one page: /' >&2
FIRST_MS=$(printf '%s\n' "${first[@]}" | median | awk '{printf "%.2f", $1 * 1000}')
KEPT_MS=$(printf '%s\n' "${kept[@]}" | median | awk '{printf "%.2f", $1 * 1000}')
WRK=$(wrk -t2 -c8 -d5s "$BASE/runs/${IDS[0]}" | awk '/Requests\/sec/ {print $2}')

# The page's statements, with the values it binds, per run.
SQL=$DIR/run-page.sql
python3 - "$SERVED" "${IDS[@]}" >"$SQL" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(".timer on")
print(".output /dev/null")
for run in map(int, sys.argv[2:]):
    sid, tool, test = db.execute("SELECT submission_id, tool, test FROM runs WHERE id = ?", (run,)).fetchone()
    item, metric = db.execute(
        "SELECT item, metric FROM results WHERE run_id = ? AND item <> 'connect' ORDER BY id LIMIT 1",
        (run,)).fetchone()
    points = db.execute(
        """SELECT p.first_results FROM point_sums p JOIN configs c ON c.id = p.config_id
           WHERE p.tool = ? AND p.metric = ? AND p.item = ? AND p.test = ?
           ORDER BY p.config_id DESC LIMIT 2001""", (tool, metric, item, test or "")).fetchall()
    ids = [int(i) for (text,) in points for i in text.split(",") if i][:21]
    q = lambda s: "'" + str(s).replace("'", "''") + "'"
    print(f".output stdout\n.print run {run}\n.output /dev/null")
    print(f"""SELECT r.submission_id, r.id, r.idx, r.message_idx, r.tool, r.test, r.label, r.threads,
 r.quote_depth, r.author, r.command, r.first_line, r.last_line FROM runs r WHERE r.id = {run};
SELECT run_id, key, value FROM run_attrs WHERE run_id IN ({run});
SELECT run_id, item, metric, value, unit, line, estimated FROM results WHERE run_id IN ({run}) ORDER BY id;
SELECT s.id, s.source_name, s.author, s.date, s.subject, s.created_at FROM submissions s WHERE s.id = {sid};
SELECT thread_id FROM mails WHERE submission_id = {sid};
SELECT text FROM submissions WHERE id = {sid};
SELECT (SELECT through FROM sums_through WHERE id = 1) >= (SELECT coalesce(max(id), 0) FROM runs);
SELECT config_id FROM run_configs WHERE run_id = {run};
SELECT p.config_id, c.attrs, p.threads, p.n, p.first_results FROM point_sums p JOIN configs c ON c.id = p.config_id
 WHERE p.tool = {q(tool)} AND p.metric = {q(metric)} AND p.item = {q(item)} AND p.test = {q(test or '')}
 ORDER BY p.config_id DESC LIMIT 2001;
SELECT r.submission_id, r.id, r.idx, r.message_idx, r.tool, r.test, r.label, r.threads, r.quote_depth,
 r.author, r.command, r.first_line, r.last_line FROM runs r
 WHERE r.id IN (SELECT run_id FROM results WHERE id IN (SELECT value FROM json_each({q(json.dumps(ids))})));
SELECT run_id, key, value FROM run_attrs WHERE run_id IN (SELECT run_id FROM results WHERE id IN ({','.join(map(str, ids)) or 'NULL'}));
SELECT run_id, item, metric, value, unit, line, estimated FROM results
 WHERE run_id IN (SELECT run_id FROM results WHERE id IN ({','.join(map(str, ids)) or 'NULL'})) ORDER BY id;""")
PY
# One shell session, as the server keeps its connections: the CPU time
# of each run's statements summed ("Run Time: real S user S sys S"; real
# is printed in whole milliseconds, user and sys in microseconds).
BARE_MS=$(sqlite3 "$SERVED" <"$SQL" 2>&1 | awk '
    /^run / { if (n) print sum * 1000; sum = 0; n++ ; next }
    /^Run Time: real/ { sum += $6 + $8 }
    END { print sum * 1000 }' | median)
# And as wall time: the session of every run's statements against an
# empty one (hyperfine), per run.
hyperfine -N --warmup 3 --runs 20 --export-json "$DIR/run-page-sql.json" \
    "sqlite3 $SERVED '.read $SQL'" "sqlite3 $SERVED .quit" >/dev/null 2>&1 || true
SESSION_MS=$(python3 -c "
import json; r = json.load(open('$DIR/run-page-sql.json'))['results']
print('%.3f' % ((r[0]['median'] - r[1]['median']) * 1000 / $N))")
POINTS=$(sqlite3 "$SERVED" "SELECT count(*) FROM point_sums")
echo "point_sums rows: $POINTS" >&2
printf 'first /runs/{id}: %s ms (median of %d)  kept: %s ms  wrk (kept, 8 connections): %s req/s\n' \
    "$FIRST_MS" "$N" "$KEPT_MS" "$WRK"
printf 'bare SQL of its statements: %.3f ms CPU (.timer), %s ms wall (hyperfine, per run)\n' "$BARE_MS" "$SESSION_MS"
printf 'page / bare: %.2fx (CPU), %.2fx (wall)\n' "$(echo "$FIRST_MS / $BARE_MS" | bc -l)" \
    "$(echo "$FIRST_MS / $SESSION_MS" | bc -l)"
