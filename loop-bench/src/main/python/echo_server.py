"""Echo server for the comparison command: asyncio or uvloop, asyncio.Protocol style.

usage: python3 echo_server.py --loop asyncio|uvloop [--port P]

Prints "LISTENING <port>" when it accepts connections ("UNSUPPORTED <why>" and exit status 3 if
the loop cannot be imported) and exits when its standard input ends. Protocol style
(data_received -> transport.write) is the faster of asyncio's two APIs; asyncio and uvloop both
set TCP_NODELAY on TCP connections.
"""
import argparse
import asyncio
import os
import sys


class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.transport.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", choices=["asyncio", "uvloop"], required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args()
    if args.loop == "uvloop":
        try:
            import uvloop
        except ImportError as e:
            print("UNSUPPORTED uvloop is not installed (%s)" % e, flush=True)
            sys.exit(3)
        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(loop.create_server(Echo, args.host, args.port, backlog=1024))
    print("LISTENING %d" % server.sockets[0].getsockname()[1], flush=True)

    def stdin_ready():
        if not os.read(0, 4096):
            loop.stop()

    loop.add_reader(0, stdin_ready)
    loop.run_forever()


if __name__ == "__main__":
    main()
