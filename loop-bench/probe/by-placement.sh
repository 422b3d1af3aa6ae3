#!/usr/bin/env bash
# Runs JMH benchmarks while round-trip.c samples what a cache line costs between CPU 0 and 1,
# and sorts every measured iteration by the placement it ran in: "near" if every sample of its
# second stayed under 200 ns round trip, "far" if every one was over 300 ns, "mixed" otherwise.
# Prints, per label and placement, the count and median of the iterations (M ops/s).
#
# usage: loop-bench/probe/by-placement.sh ROUNDS "label|JMH arguments" ...
#   e.g. loop-bench/probe/by-placement.sh 3 \
#          "netty|-p transport=nio CallSoonForeignBenchmark.nettyExecute1Producer$" \
#          "ours|-p backend=epoll -p timers=heap CallSoonForeignBenchmark.loopCallSoon1Producer$"
# Each label runs `-f 3 -wi 4 -w 1s -i 5 -r 1s` in turn, ROUNDS times; the same JDK run.sh finds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds=$1
shift
work=$(mktemp -d)
trap 'kill "$probe" 2>/dev/null || true; rm -rf "$work"' EXIT
cc -O2 -pthread -o "$work/round-trip" "$here/round-trip.c"
"$work/round-trip" 100000 250 > "$work/probe" &
probe=$!
for r in $(seq 1 "$rounds"); do
    for spec in "$@"; do
        label=${spec%%|*}
        read -r -a args <<< "${spec#*|}"
        "$here/../run.sh" -f 3 -wi 4 -w 1s -i 5 -r 1s "${args[@]}" 2>/dev/null \
            | while IFS= read -r line; do
                case "$line" in Iteration*) echo "$(date +%s.%N) $label $line" ;; esac
            done >> "$work/iterations"
    done
done
kill "$probe"
# Both files are in time order: walk them together.
awk -v probe="$work/probe" '
    BEGIN { while ((getline l < probe) > 0) { split(l, f, " "); n++; pt[n] = f[1]; pr[n] = f[2] } i = 1 }
    {
        t = $1; while (i <= n && pt[i] < t - 1.0) i++
        lo = 1e9; hi = 0; k = 0
        for (j = i; j <= n && pt[j] <= t; j++) { k++; if (pr[j] < lo) lo = pr[j]; if (pr[j] > hi) hi = pr[j] }
        if (k == 0) next
        where = hi < 200 ? "near" : lo > 300 ? "far" : "mixed"
        print $2, where, $5 / 1e6
    }' "$work/iterations" | sort -k1,1 -k2,2 -k3,3n | awk '
    function flush() { if (c) printf "%-10s %-5s n=%3d median %6.1f M ops/s (%6.1f-%6.1f)\n", key1, key2, c, v[int((c + 1) / 2)], v[1], v[c] }
    { if ($1 != key1 || $2 != key2) { flush(); key1 = $1; key2 = $2; c = 0 } v[++c] = $3 }
    END { flush() }'
