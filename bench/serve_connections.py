#!/usr/bin/env python3
"""Many idle clients of `agentbox serve`: the goal of issue #12, point 5.

    python3 bench/serve_connections.py [--agentbox build/agentbox] [--connections 10000]
        [--peers 20] [--probes 2000] [--hold 10]

Starts `agentbox serve` on a loopback TCP port (a private AGENTBOX_STATE_DIR, --insecure-no-auth:
no sandbox is made) and opens --connections keep-alive connections, spread over --peers source
addresses 127.0.0.1, 127.0.0.2, ... All of them are this one local user, which is one peer
(max_connections_per_peer, 1024 by default), so the config raises that cap above --connections. Each sends one GET /healthz, reads the answer, and then stays
connected and idle. With all of them held, it measures:

  rss      serve's VmRSS and VmHWM (peak) from /proc, and its thread count;
  healthz  --probes GET /healthz, each on a new connection from another address, one at a time:
           latency from connect to the end of the answer, p50 / p99 / max;
  again    the same on one keep-alive connection.

Goal: RSS under 300 MB and /healthz p99 under 50 ms at 10,000 connections, on the 2-core
development machine. Prints the figures and "goal met" or "goal missed"; exits 1 when missed.
Not a timed test: the machine is shared, so the figures vary with its load.
"""

import argparse
import asyncio
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
ANSWER_END = b"ok\n"


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def kib(text):
    return int(text.split()[0])


async def hold_one(port, source, held, errors):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        writer.write(HEALTHZ)
        await writer.drain()
        data = b""
        while not data.endswith(ANSWER_END):
            chunk = await reader.read(4096)
            if not chunk:
                raise ConnectionError("closed before the answer")
            data += chunk
        if not data.startswith(b"HTTP/1.1 200"):
            raise ConnectionError(data[:40].decode(errors="replace"))
        held.append((reader, writer))
    except Exception as e:  # noqa: BLE001 - every failure is counted, the run goes on
        errors.append(f"{type(e).__name__}: {e}")


async def open_all(port, count, peers):
    held, errors = [], []
    batch = 500  # connects in flight at once: the listen backlog is 512
    for start in range(0, count, batch):
        await asyncio.gather(*(hold_one(port, f"127.0.0.{2 + (i % peers)}", held, errors)
                               for i in range(start, min(start + batch, count))))
    return held, errors


def probe_new_connections(port, count, source):
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        s.sendall(HEALTHZ)
        data = b""
        while not data.endswith(ANSWER_END):
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        times.append(time.perf_counter() - t0)
        s.close()
    return times


def probe_keep_alive(port, count, source):
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        s.sendall(HEALTHZ)
        data = b""
        while not data.endswith(ANSWER_END):
            data += s.recv(4096)
        times.append(time.perf_counter() - t0)
    s.close()
    return times


def summary(times):
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return statistics.median(ms), p99, ms[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agentbox", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                       "agentbox"))
    ap.add_argument("--connections", type=int, default=10000)
    ap.add_argument("--peers", type=int, default=20)
    ap.add_argument("--probes", type=int, default=2000)
    ap.add_argument("--hold", type=float, default=10, help="seconds to hold before measuring")
    ap.add_argument("--serve-args", default=None,
                    help="serve's flags instead of the default (e.g. for a serve that predates "
                         "--insecure-no-auth and --config: \"--max-connections 10000\")")
    args = ap.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 256
    if hard < need:
        sys.exit(f"the hard open-file limit ({hard}) is below the {need} fds this needs")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))

    state = tempfile.mkdtemp(prefix="ab-bench-conns-")
    config = os.path.join(state, "config.json")
    with open(config, "w") as f:
        # Held longer than the default 60 s, on purpose; every client is this user: one peer.
        f.write('{"idle_timeout": 600, "max_connections_per_peer": %d}\n'
                % (args.connections + args.probes + 64))
    env = dict(os.environ, AGENTBOX_STATE_DIR=state)
    flags = (args.serve_args.split() if args.serve_args is not None
             else ["--insecure-no-auth", "--config", config])
    server = subprocess.Popen([args.agentbox, "serve", "--listen", "tcp:127.0.0.1:0", *flags],
                              env=env, stderr=subprocess.PIPE, text=True)
    port = None
    for line in server.stderr:
        m = re.search(r"listening on tcp:.*:(\d+)$", line.strip())
        if m:
            port = int(m.group(1))
            break
    if port is None:
        sys.exit("agentbox serve did not start")
    try:
        base = proc_status(server.pid)
        t0 = time.monotonic()
        loop = asyncio.new_event_loop()
        held, errors = loop.run_until_complete(open_all(port, args.connections, args.peers))
        opened = time.monotonic() - t0
        time.sleep(args.hold)
        status = proc_status(server.pid)
        new_conn = probe_new_connections(port, args.probes, "127.0.0.1")
        keep = probe_keep_alive(port, args.probes, "127.0.0.1")
        after = proc_status(server.pid)
        still = sum(1 for _, w in held if not w.is_closing())
        rss_mb = kib(status["VmRSS"]) / 1024
        hwm_mb = kib(after["VmHWM"]) / 1024
        p50_new, p99_new, max_new = summary(new_conn)
        p50_ka, p99_ka, max_ka = summary(keep)
        print(f"serve: {args.agentbox}, load average {os.getloadavg()[0]:.1f}, "
              f"{os.cpu_count()} CPUs")
        print(f"connections held: {len(held)} of {args.connections} "
              f"(opened in {opened:.1f} s from {args.peers} addresses; {len(errors)} errors"
              f"{': ' + errors[0] if errors else ''})")
        print(f"serve at start: RSS {kib(base['VmRSS']) / 1024:.1f} MB, "
              f"threads {base['Threads']}")
        print(f"serve holding them: RSS {rss_mb:.1f} MB, peak RSS {hwm_mb:.1f} MB, "
              f"threads {status['Threads']}")
        print(f"/healthz, new connection each ({args.probes}): p50 {p50_new:.2f} ms, "
              f"p99 {p99_new:.2f} ms, max {max_new:.2f} ms")
        print(f"/healthz, one keep-alive connection ({args.probes}): p50 {p50_ka:.2f} ms, "
              f"p99 {p99_ka:.2f} ms, max {max_ka:.2f} ms")
        print(f"still connected after the probes: {still}")
        met = (len(held) == args.connections and hwm_mb < 300 and p99_new < 50 and p99_ka < 50)
        print("goal met" if met else "goal missed",
              "(RSS < 300 MB, /healthz p99 < 50 ms, every connection held)")
        for _, w in held:
            w.close()
        loop.close()
        return 0 if met else 1
    finally:
        server.terminate()
        server.wait(timeout=30)
        subprocess.run(["rm", "-rf", state], check=False)


if __name__ == "__main__":
    sys.exit(main())
