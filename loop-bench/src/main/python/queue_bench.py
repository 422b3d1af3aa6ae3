"""asyncio.Queue(maxsize=128) between one producer and one consumer task, for the comparison command.

usage: python3 queue_bench.py --loop asyncio|uvloop --warmup S --iterations N --iteration S
       python3 queue_bench.py --loop asyncio|uvloop --serve

Rounds of 100,000 items run until each window is over; prints "ITER <items/s>" per measured
window, then "DONE". Prints "UNSUPPORTED <why>" and exits with status 3 if the loop is missing.

With --serve it takes turns with the other contenders, as the comparison drives them: prints
"READY", then for each line "RUN <ms>" on standard input measures one window and prints
"RESULT <items> <nanoseconds>"; "QUIT" or the end of input ends it.
"""
import argparse
import asyncio
import sys
import time

ITEMS = 100_000


async def round_trip(n):
    q = asyncio.Queue(maxsize=128)

    async def producer():
        for i in range(n):
            await q.put(i)

    async def consumer():
        for _ in range(n):
            await q.get()

    await asyncio.gather(producer(), consumer())


async def measure(seconds):
    items = 0
    start = time.perf_counter()
    while True:
        await round_trip(ITEMS)
        items += ITEMS
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return items, elapsed


async def window(seconds):
    items, elapsed = await measure(seconds)
    return items / elapsed


async def serve():
    print("READY", flush=True)
    for line in sys.stdin:
        f = line.split()
        if f and f[0] == "RUN" and len(f) == 2:
            items, elapsed = await measure(int(f[1]) / 1000.0)
            print("RESULT %d %d" % (items, int(elapsed * 1e9)), flush=True)
        elif f and f[0] == "QUIT":
            return
        else:
            print("ERROR unknown command: %s" % line.strip(), flush=True)


async def main(args):
    await window(args.warmup)
    for _ in range(args.iterations):
        print("ITER %.1f" % await window(args.iteration), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", choices=["asyncio", "uvloop"], required=True)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--iteration", type=float, default=1.0)
    ap.add_argument("--serve", action="store_true")
    a = ap.parse_args()
    if a.loop == "uvloop":
        try:
            import uvloop
        except ImportError as e:
            print("UNSUPPORTED uvloop is not installed (%s)" % e, flush=True)
            sys.exit(3)
        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.run_until_complete(serve() if a.serve else main(a))
