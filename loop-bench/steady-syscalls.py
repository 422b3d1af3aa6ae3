#!/usr/bin/env python3
"""System calls per echoed message under continuous load, for one echo server of the comparison.

    loop-bench/steady-syscalls.py IMPL CONNECTIONS SECONDS [JVM flags for the server...]

IMPL is an EchoServerMain implementation (loop-io_uring, loop-epoll, netty-io_uring...). The
server runs pinned to CPU 0 and the comparison's load generator to CPU 1, 64-byte ping-pong on
CONNECTIONS connections. Two sessions: the first measures the rate and the server's CPU time per
message untraced; in the second, strace -c -f counts every system call of the server's threads
over a window in which the load never stops (the comparison's own trace is of a burst after an
idle server, where every socket wakes from a quiet spell). Needs the jar
(mvn -B -pl loop-bench -am package -DskipTests), taskset and strace; JAVA picks the java binary.
"""
import os, signal, subprocess, sys, time

impl, conns, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
jar = os.path.join(os.path.dirname(os.path.abspath(__file__)), "target", "benchmarks.jar")
java = [os.environ.get("JAVA", "java"), "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"]
server_cmd = ["taskset", "-c", "0"] + java + sys.argv[4:] + ["-cp", jar, "dev.loop.bench.compare.EchoServerMain", "--impl", impl]
srv = subprocess.Popen(server_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
port = srv.stdout.readline().split()[1]
gen = subprocess.Popen(["taskset", "-c", "1"] + java + ["-cp", jar, "dev.loop.bench.compare.LoadGenerator"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def command(c):
    gen.stdin.write(c + "\n")
    gen.stdin.flush()
    return gen.stdout.readline().strip()


def cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


window = str(int(secs * 1000))
command(f"RUN 127.0.0.1 {port} pingpong {conns} 64 1 3000 0")  # 3 s of load before the window
c0 = cpu_seconds(srv.pid)
r = command("GO " + window).split()
c1 = cpu_seconds(srv.pid)
messages, elapsed = int(r[1]), float(r[3])
print(f"{impl} {conns} conns: {messages / elapsed:.0f} msgs/s, server CPU/msg {(c1 - c0) / messages * 1e6:.2f} us, "
      f"p50 {float(r[5]) / 1e3:.0f} us")

out = f"/tmp/steady-syscalls-{impl}-{conns}-{os.getpid()}.txt"
command(f"RUN 127.0.0.1 {port} pingpong {conns} 64 1 2000 0")
strace = subprocess.Popen(["strace", "-c", "-f", "-o", out, "-p", str(srv.pid)], stderr=subprocess.DEVNULL)
time.sleep(1.0)  # attached to every thread before the window starts
messages = int(command("GO " + window).split()[1])
strace.send_signal(signal.SIGINT)
strace.wait()
calls = {}
for line in open(out):
    p = line.split()
    if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
        calls[p[-1]] = int(p[3])
top = sorted(calls.items(), key=lambda kv: -kv[1])[:5]
print(f"  traced: {messages} msgs; calls/msg {sum(calls.values()) / messages:.3f}: "
      + ", ".join(f"{k} {v / messages:.3f}" for k, v in top))
command("CLOSE")
gen.stdin.write("QUIT\n")
gen.stdin.flush()
srv.stdin.close()
srv.wait(10)
gen.wait(10)
