"""Spawn-and-exit latency of asyncio's create_subprocess_exec, the peer of dev.loop.bench.SpawnLatency.

    python3 loop-bench/src/main/python/spawn_bench.py [--n 200] [--rounds 3]

Each round starts `true` N times one after another and awaits its exit, once with stdin, stdout and
stderr piped (as Processes.exec's default) and once inheriting them (asyncio's default), and prints
the median and p99 per child in microseconds, in the same format as the Java side.
"""
import argparse
import asyncio
import subprocess
import time


async def one(piped):
    if piped:
        p = await asyncio.create_subprocess_exec(
            "true", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        await p.communicate()
    else:
        p = await asyncio.create_subprocess_exec("true")
        await p.wait()


async def measure(n, piped):
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        await one(piped)
        times.append(time.perf_counter_ns() - t0)
    times.sort()
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    for r in range(a.rounds):
        for piped in (True, False):
            t = asyncio.run(measure(a.n, piped))
            name = "asyncio create_subprocess_exec, " + ("3 pipes" if piped else "inherited")
            print(f"round {r} {name:48s} median {t[len(t) // 2] / 1000:8.0f} us  p99 {t[len(t) * 99 // 100] / 1000:8.0f} us")


if __name__ == "__main__":
    main()
