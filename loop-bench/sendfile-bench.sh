#!/bin/sh
# Static files under wrk: the http-server example on each backend against nginx with `sendfile on`,
# side by side, a 1 MiB and a 100 MiB file. For each server and file it prints the bytes per second
# wrk received and the server's CPU time per byte (utime + stime of the server process from
# /proc/PID/stat around the window, so the JVM's compiler and GC threads count too), the median
# over ROUNDS interleaved rounds and its ratio to nginx's; then, under strace -c -f, the system
# calls for STRACE_REQUESTS files on one kept-alive connection.
#
#   loop-bench/sendfile-bench.sh          # all backends, 3 rounds of 10 s windows, 4 connections
#   ROUNDS=5 DURATION=5 CONNS=2 BACKENDS="epoll" loop-bench/sendfile-bench.sh
#
# The server is pinned to CPU 1 and wrk to CPU 0 (taskset) when there are two or more CPUs; nginx
# runs one process (master_process off), as the http-server runs one loop. Everything is written
# under loop-bench/target/sendfile (the files, nginx's prefix, the logs, results.txt).
# Needs: nginx, wrk, curl, strace, a JDK >= 21 (found as run.sh finds it), and the classes built:
# the script runs `mvn -o -pl loop-examples -am compile` itself to get the class path.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/target/sendfile"
DURATION=${DURATION:-10}
CONNS=${CONNS:-4}
BACKENDS=${BACKENDS:-"select epoll io_uring"}
STRACE_REQUESTS=${STRACE_REQUESTS:-10}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

for tool in wrk curl strace "$NGINX"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "sendfile-bench.sh: $tool not found" >&2; exit 1; }
done

# the newest JDK >= 21 under /usr/lib/jvm, or JAVA_HOME's
java_bin=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java_bin="$JAVA_HOME/bin/java"
else
    best=0
    for home in /usr/lib/jvm/*; do
        [ -x "$home/bin/java" ] || continue
        v=$("$home/bin/java" -XshowSettings:properties -version 2>&1 \
            | sed -n 's/^ *java\.specification\.version = \(.*\)$/\1/p' | sed 's/^1\.//' | head -n 1)
        if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best" ]; then
            best=$v
            java_bin="$home/bin/java"
        fi
    done
fi
[ -n "$java_bin" ] || { echo "sendfile-bench.sh: no JDK >= 21 found" >&2; exit 1; }

mkdir -p "$out/www" "$out/nginx/tmp"
[ -f "$out/www/1m.bin" ] || head -c 1048576 /dev/urandom > "$out/www/1m.bin"
[ -f "$out/www/100m.bin" ] || head -c 104857600 /dev/urandom > "$out/www/100m.bin"

(cd "$root" && mvn -B -q -o -pl loop-examples -am compile dependency:build-classpath \
    -Dmdep.outputFile="$out/classpath.txt" >"$out/mvn.log" 2>&1) \
    || { echo "sendfile-bench.sh: build failed, see $out/mvn.log" >&2; exit 1; }
cp="$(cat "$out/classpath.txt"):$root/loop-examples/target/classes"

if [ "$(nproc)" -ge 2 ]; then
    pin_server="taskset -c 1"
    pin_client="taskset -c 0"
else
    pin_server=""
    pin_client=""
fi

# wrk's exact figures on one line (its summary rounds): requests, bytes, duration in microseconds
cat > "$out/report.lua" <<'EOF'
done = function(summary, latency, requests)
   io.write(string.format("WRK requests=%d bytes=%d duration_us=%d errors=%d\n", summary.requests,
      summary.bytes, summary.duration, summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.status + summary.errors.timeout))
end
EOF

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

cpu_ticks() { # utime + stime of process $1, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

wait_for() { # until http://127.0.0.1:$1/1m.bin answers
    i=0
    until curl -s -o /dev/null "http://127.0.0.1:$1/1m.bin"; do
        i=$((i + 1))
        [ $i -lt 200 ] || { echo "sendfile-bench.sh: nothing answers on port $1" >&2; return 1; }
        sleep 0.1
    done
}

start_nginx() { # port
    cat > "$out/nginx/nginx.conf" <<EOF
# written by sendfile-bench.sh: one process serving the files with sendfile(2)
worker_processes 1;
master_process off;
daemon off;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000000;
    default_type application/octet-stream;
    client_body_temp_path $out/nginx/tmp;
    server {
        listen 127.0.0.1:$1;
        root $out/www;
    }
}
EOF
    $pin_server "$NGINX" -p "$out/nginx" -c "$out/nginx/nginx.conf" -e "$out/nginx/error.log" &
    server_pid=$!
}

start_loop() { # port backend
    $pin_server "$java_bin" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.loop.examples.Main http-server \
        --port "$1" --backend "$2" --dir "$out/www" >"$out/http-server-$2.log" 2>&1 &
    server_pid=$!
}

results="$out/results.txt"
: > "$results"
clk=$(getconf CLK_TCK)
ROUNDS=${ROUNDS:-3}

# Every server runs at once, each on its own port, all pinned to the server CPU; the measured
# windows are interleaved (round by round, file by file, server by server), so the load of a busy
# machine falls on all of them alike, and each window reads only its own server's CPU time.
servers=""
port=$(free_port)
start_nginx "$port"
servers="nginx:$port:$server_pid"
for b in $BACKENDS; do
    port=$(free_port)
    start_loop "$port" "$b"
    servers="$servers loop-$b:$port:$server_pid"
done
trap 'for s in $servers; do kill "${s##*:}" 2>/dev/null || true; done' EXIT

for s in $servers; do
    name=${s%%:*}; rest=${s#*:}; port=${rest%%:*}
    wait_for "$port"
    # warm-up: the JIT compiles the paths before the measured runs
    $pin_client wrk -t1 -c "$CONNS" -d5s "http://127.0.0.1:$port/1m.bin" >/dev/null 2>&1
    $pin_client wrk -t1 -c "$CONNS" -d5s --timeout 60s "http://127.0.0.1:$port/100m.bin" >/dev/null 2>&1
done

round=1
while [ $round -le "$ROUNDS" ]; do
    for file in 1m.bin 100m.bin; do
        for s in $servers; do
            name=${s%%:*}; rest=${s#*:}; port=${rest%%:*}; pid=${rest#*:}
            before=$(cpu_ticks "$pid")
            line=$($pin_client wrk -t1 -c "$CONNS" -d"${DURATION}s" --timeout 60s -s "$out/report.lua" \
                "http://127.0.0.1:$port/$file" | grep '^WRK')
            after=$(cpu_ticks "$pid")
            echo "$name $file $line cpu_ticks=$((after - before)) clk_tck=$clk round=$round" | tee -a "$results"
        done
    done
    round=$((round + 1))
done

for s in $servers; do
    name=${s%%:*}; rest=${s#*:}; port=${rest%%:*}; pid=${rest#*:}
    for file in 1m.bin 100m.bin; do
        trace="$out/strace-$name-$file.txt"
        strace -c -f -o "$trace" -p "$pid" 2>/dev/null &
        strace_pid=$!
        sleep 1
        # one curl, one kept-alive connection: the calls per file, not per connection
        set --
        n=0
        while [ $n -lt "$STRACE_REQUESTS" ]; do
            set -- "$@" -o /dev/null "http://127.0.0.1:$port/$file"
            n=$((n + 1))
        done
        curl -s "$@"
        kill -INT $strace_pid
        wait $strace_pid 2>/dev/null || true
        calls=$(awk '$NF == "sendfile" { print $4 }' "$trace")
        total=$(awk '$NF == "total" { print $4 }' "$trace")
        echo "$name $file strace requests=$STRACE_REQUESTS sendfile_calls=${calls:-0} all_calls=${total:-0}" \
            | tee -a "$results"
    done
done

echo
echo "median over $ROUNDS rounds of ${DURATION} s, $CONNS connections (machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "server file MiB/s cpu_ns_per_KiB vs_nginx_bytes vs_nginx_cpu"
awk '$3 == "WRK" {
    delete f
    for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    key = $1 " " $2
    n[key]++
    bps[key, n[key]] = f["bytes"] / (f["duration_us"] / 1e6) / 1048576
    cpu[key, n[key]] = (f["cpu_ticks"] / f["clk_tck"]) * 1e9 / (f["bytes"] / 1024)
    if (!(key in seen)) { seen[key] = 1; order[++keys] = key }
}
function median(arr, key, count,    i, j, t, v) {
    for (i = 1; i <= count; i++) v[i] = arr[key, i]
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
}
END {
    for (k = 1; k <= keys; k++) {
        key = order[k]; split(key, p, " ")
        mb[key] = median(bps, key, n[key]); mc[key] = median(cpu, key, n[key])
    }
    for (k = 1; k <= keys; k++) {
        key = order[k]; split(key, p, " ")
        ref = "nginx " p[2]
        printf "%s %.1f %.1f %.2fx %.2fx\n", key, mb[key], mc[key], mb[key] / mb[ref], mc[key] / mc[ref]
    }
}' "$results"
