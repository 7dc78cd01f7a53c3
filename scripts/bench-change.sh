# Sourced by the benchmarks that serve a database (bench-scale.sh,
# bench-compare-sql.sh, bench-large-answer.sh, bench-replica.sh). change: one new small submission to the server at
# $BASE, a new data generation, so every page kept in memory is stale; the
# time in it keeps each one new.
change() {
    local log="super-smack -d mysql select-key.smack 10 10000
Query Barrel Report for client smacker1
connect: max=4ms min=1ms avg= 2ms from 10 clients
Query_type num_queries max_time min_time q_per_s
select_index 200000 0 0 2$((RANDOM % 1000)).25
== ULE + libthr ==
measured at $(date +%s.%N)
"
    curl -fs -o /dev/null --data-urlencode "text=$log" "$BASE/upload"
}

# wait_for URL: until URL answers 2xx (30 s at most, else the script
# ends).
wait_for() {
    for _ in $(seq 300); do
        curl -fs "$1" >/dev/null 2>&1 && return
        sleep 0.1
    done
    echo "no answer from $1" >&2
    exit 1
}
