#!/usr/bin/env python3
"""HTTP exec vs CLI exec: N concurrent clients run /bin/true in one sandbox for a bounded time.

Usage: bench/http_exec.py [--agentbox build/agentbox] [--clients 8] [--seconds 10]
                          [--results FILE] [--no-report]

Starts `agentbox serve` on a private unix socket (its own AGENTBOX_STATE_DIR), creates one
sandbox through the API, then:
  - HTTP: each client keeps one HTTP/1.1 keep-alive connection and POSTs
    {"argv":["/bin/true"]} to /v1/sandboxes/ID/exec as fast as answers come back;
  - CLI: each client runs `agentbox exec ID -- /bin/true` in a loop (a process per exec).
Round trips are written as a hyperfine-style JSON (so bench/report.py makes the table) and
execs/s go in the note of docs/performance.md "## HTTP exec".
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def http_client(sock, sandbox, deadline, out):
    conn = UnixConnection(sock)
    body = json.dumps({"argv": ["/bin/true"]})
    headers = {"Content-Type": "application/json"}
    while time.monotonic() < deadline:
        start = time.perf_counter()
        conn.request("POST", f"/v1/sandboxes/{sandbox}/exec", body, headers)
        resp = conn.getresponse()
        data = resp.read()
        took = time.perf_counter() - start
        if resp.status != 200 or json.loads(data)["exit_code"] != 0:
            raise SystemExit(f"exec failed: {resp.status} {data[:200]}")
        out.append(took)


def healthz_client(sock, deadline, out):
    """The server's own cost: a round trip that runs no command."""
    conn = UnixConnection(sock)
    while time.monotonic() < deadline:
        start = time.perf_counter()
        conn.request("GET", "/healthz")
        conn.getresponse().read()
        out.append(time.perf_counter() - start)


def cli_client(agentbox, sandbox, deadline, out, env):
    while time.monotonic() < deadline:
        start = time.perf_counter()
        rc = subprocess.call([agentbox, "exec", sandbox, "--", "/bin/true"], env=env)
        took = time.perf_counter() - start
        if rc != 0:
            raise SystemExit(f"agentbox exec failed: {rc}")
        out.append(took)


def run_clients(target, args, clients, seconds):
    """HTTP clients as threads: each blocks in socket I/O, so the GIL is not the bottleneck."""
    results = [[] for _ in range(clients)]
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=target, args=args + (deadline, results[i]))
               for i in range(clients)]
    begin = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - begin
    times = [x for r in results for x in r]
    return times, len(times) / wall


def start_server(agentbox, env, sock):
    server = subprocess.Popen([agentbox, "serve", "--listen", "unix:" + sock], env=env,
                              stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock):
            return server
        time.sleep(0.02)
    server.kill()
    raise SystemExit("agentbox serve did not start")


def hyperfine_entry(name, times):
    return {"command": name, "times": times, "median": statistics.median(times),
            "mean": statistics.mean(times), "stddev": statistics.pstdev(times),
            "min": min(times), "max": max(times)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--agentbox", default="build/agentbox")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--results", default=os.path.join(tempfile.gettempdir(), "agentbox-http-exec.json"))
    p.add_argument("--no-report", action="store_true")
    args = p.parse_args()
    agentbox = os.path.abspath(args.agentbox)
    state = tempfile.mkdtemp(prefix="ab-bench-http.")
    env = dict(os.environ, AGENTBOX_STATE_DIR=state)
    sock = os.path.join(state, "bench.sock")
    server = start_server(agentbox, env, sock)
    sandbox = None
    try:
        conn = UnixConnection(sock)
        conn.request("POST", "/v1/sandboxes", json.dumps({"pids": 1024}))
        resp = conn.getresponse()
        sandbox = json.loads(resp.read())["id"]
        run_clients(http_client, (sock, sandbox), args.clients, 1)  # warm-up
        http_times, http_rate = run_clients(http_client, (sock, sandbox), args.clients,
                                            args.seconds)
        cli_times, cli_rate = run_cli(agentbox, sandbox, env, args)
        health_times, health_rate = run_clients(healthz_client, (sock,), args.clients,
                                                min(args.seconds, 3))
    finally:
        if sandbox:
            subprocess.call([agentbox, "rm", "-f", sandbox], env=env, stdout=subprocess.DEVNULL)
        server.terminate()
        server.wait()
    report(args, (http_times, http_rate), (cli_times, cli_rate), (health_times, health_rate))


def run_cli(agentbox, sandbox, env, args):
    results = [[] for _ in range(args.clients)]
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=cli_client, args=(agentbox, sandbox, deadline, results[i], env))
               for i in range(args.clients)]
    begin = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - begin
    times = [x for r in results for x in r]
    return times, len(times) / wall


def report(args, http, cli, health):
    (http_times, http_rate), (cli_times, cli_rate), (health_times, health_rate) = http, cli, health
    http_name = f"HTTP POST exec /bin/true ({args.clients} clients, keep-alive)"
    cli_name = f"agentbox exec ID -- /bin/true ({args.clients} clients)"
    health_name = f"HTTP GET /healthz ({args.clients} clients, keep-alive)"
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as f:
        json.dump({"results": [hyperfine_entry(http_name, http_times),
                               hyperfine_entry(cli_name, cli_times),
                               hyperfine_entry(health_name, health_times)]}, f)
    note = (f"Throughput over {args.seconds:g} s with {args.clients} concurrent clients on "
            f"{os.cpu_count()} CPUs: HTTP {http_rate:.0f} execs/s, CLI {cli_rate:.0f} execs/s "
            f"({http_rate / cli_rate:.1f}x); GET /healthz (no command: the server's own cost) "
            f"{health_rate:.0f} requests/s. Times are full round trips as the client sees them "
            f"(python3 http.client over the unix socket; the CLI's include its process start). "
            f"Targets: >= 500 execs/s, median <= 2 ms. Command: bench/http_exec.py "
            f"--clients {args.clients} --seconds {args.seconds:g}")
    print(f"HTTP: {http_rate:.0f} execs/s, median {statistics.median(http_times) * 1000:.2f} ms")
    print(f"CLI:  {cli_rate:.0f} execs/s, median {statistics.median(cli_times) * 1000:.2f} ms")
    print(f"healthz: {health_rate:.0f} req/s, median {statistics.median(health_times) * 1000:.2f} ms")
    if not args.no_report:
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.check_call([sys.executable, os.path.join(here, "report.py"), "--json",
                               args.results, "--section", "HTTP exec",
                               "--ratio-vs", cli_name, "--note", note])


if __name__ == "__main__":
    main()
