#!/usr/bin/env bash
# Renders a fixed set of pages, charts and tables from the demo's
# database into a folder, to check that a change which should alter no
# output alters none:
#
#   scripts/snapshot-outputs.sh BINARY_BEFORE /tmp/before
#   scripts/snapshot-outputs.sh BINARY_AFTER /tmp/after
#   diff -r /tmp/before /tmp/after
#
# Each binary builds its own demo database from fixtures/, so the two
# hold the same submissions in the same order.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=$(realpath "${1:?usage: snapshot-outputs.sh BINARY OUT_DIR}")
out=${2:?usage: snapshot-outputs.sh BINARY OUT_DIR}
mkdir -p "$out"
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
# The text outputs link back to the server by the Host it was asked as:
# one fixed name, so that two runs (on two random ports) give the same
# bytes.
HOST="Host: snapshot.invalid"
(cd "$work" && exec "$binary" demo --listen "127.0.0.1:$port" --static-dir "$OLDPWD/static" \
    --fixtures "$OLDPWD/fixtures" >"$work/demo.log" 2>&1) &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do
    curl -sf "$base/healthz" >/dev/null && break
    sleep 0.5
done
curl -sf "$base/healthz" >/dev/null || { cat "$work/demo.log"; exit 1; }

queries=(
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib"
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&baseline=ULE+%2F+libthr"
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&baseline=ULE+%2F+libthr&y=relative"
    "tool=super-smack&item=select_index&metric=q_per_s"
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&scale=log&by=author"
    "tool=sql-bench&metric=wallclock_s&by=os_version"
    "tool=sql-bench&metric=wallclock_s&by=os_version&baseline=2.4.0"
    "tool=sql-bench&test=run-all-tests&metric=wallclock_s&x=none&by=os_version&scale=log"
    "tool=sysbench&metric=qps&item=total&by=variant&baseline=Original"
    "tool=sysbench&metric=qps&item=total&by=variant&baseline=Original&y=relative"
    "tool=sysbench&metric=tps&x=threads&by=label"
    "tool=bonnie&metric=kb_per_s&by=machine"
    "tool=bonnie&metric=kb_per_s&x=none&by=machine&baseline=amd64SMP"
    "tool=diskinfo&metric=ms&x=none&by=ident"
    "tool=diskinfo&metric=iops&x=none"
)
n=0
for q in "${queries[@]}"; do
    n=$((n + 1))
    for ext in "" .svg .png .csv .json .txt; do
        curl -s -H "$HOST" -o "$out/q$n$ext.out" "$base/compare$ext?$q" || true
    done
done
for page in / /submissions /runs "/runs?tool=bonnie" /threads /submissions/1 /submissions/20 /submissions/150; do
    name=$(echo "$page" | tr '/?=' '___')
    curl -s -H "$HOST" -o "$out/page$name.out" "$base$page" || true
done
# The pinned links name the newest submission; a page's ETag is the data's.
sed -i -E "s/asof=[0-9]+//g; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}/TIME/g" "$out"/*.out
ls "$out" | wc -l
