#!/usr/bin/env python3
"""A 10 MB download through the egress proxy vs the same download direct, on loopback, in one run.

    python3 bench/egress_proxy.py [--agentbox build/agentbox] [--runs 20] [--no-report]

Serves a 10 MiB file and a 12-byte one from 127.0.0.1 (a thread of this process) and fetches
each --runs times with curl, reading curl's own `time_total` (the transfer, not curl's start):

  direct   on the host, `--noproxy '*'`;
  proxied  inside one `agentbox run --allow-host 127.0.0.1:PORT` (native backend), through the
           sandbox's egress proxy (curl reads http_proxy): CONNECT-less plain HTTP, the proxy
           resolving nothing (an IP literal), checking the address, relaying both ways.

The 10 MiB medians give the ratio (target: at most 1.3x); the 12-byte medians' difference is
what the proxy adds per connection (target: under 1 ms).

--runsc IMAGE adds the same under gVisor (docker --runtime runsc, IMAGE with python3: the test
images have no curl), where each byte also crosses the agent's relay inside the sandbox: a
python client (PY_CLIENT, one process timing each fetch) direct on the host vs inside
`agentbox run --backend docker --runtime runsc --allow-host 127.0.0.1:PORT`. That ratio holds
gVisor's own cost of the client's syscalls too. Writes the section
"## Egress proxy: a download through it vs direct" of docs/performance.md.
"""

import argparse
import functools
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import report as rep  # noqa: E402

SECTION = "Egress proxy: a download through it vs direct"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def loop(url, runs, proxied):
    # NO_PROXY names 127.0.0.1 (the sandbox's own loopback): the proxy is named explicitly.
    flag = "-x \"$HTTP_PROXY\" --noproxy ''" if proxied else "--noproxy '*'"
    return (f"for i in $(seq {runs}); do curl -s {flag} -o /dev/null -w '%{{time_total}}\\n' "
            f"{url} || echo fail; done")


# One process fetching URL RUNS times over plain HTTP, through $HTTP_PROXY when set, printing
# each fetch's seconds.
PY_CLIENT = r"""
import os, socket, sys, time
url, runs = sys.argv[1], int(sys.argv[2])
proxy = os.environ.get("HTTP_PROXY", "")
hostport = url.split("/")[2]
target = proxy.split("/")[2] if proxy else hostport
host, port = target.rsplit(":", 1)
path = url if proxy else "/" + url.split("/", 3)[3]
for _ in range(runs):
    t = time.perf_counter()
    s = socket.create_connection((host, int(port)))
    s.sendall(f"GET {path} HTTP/1.0\r\nHost: {hostport}\r\n\r\n".encode())
    while s.recv(1 << 16):
        pass
    s.close()
    print(time.perf_counter() - t)
"""


def runsc_rows(agentbox, image, port, runs):
    rows = {}
    for name in ("big.bin", "small.txt"):
        url = f"http://127.0.0.1:{port}/{name}"
        env = {k: v for k, v in os.environ.items() if k.lower() != "http_proxy"}
        direct = subprocess.run([sys.executable, "-c", PY_CLIENT, url, str(runs)], env=env,
                                capture_output=True, text=True, check=True).stdout
        proxied = subprocess.run(
            [agentbox, "run", "--backend", "docker", "--runtime", "runsc", "--image", image,
             "--timeout", "300", "--allow-host", f"127.0.0.1:{port}", "--",
             "python3", "-c", PY_CLIENT, url, str(runs)], capture_output=True, text=True)
        if proxied.returncode != 0:
            sys.exit(f"agentbox run (runsc) failed ({proxied.returncode}): {proxied.stderr[-500:]}")
        d, p = times(direct), times(proxied.stdout)
        rows[name] = (statistics.median(d) * 1000, statistics.median(p) * 1000,
                      min(d) * 1000, min(p) * 1000)
    return rows


def table_rows(results):
    big_direct, big_proxied, big_direct_min, big_proxied_min = results["big.bin"]
    small_direct, small_proxied, small_direct_min, small_proxied_min = results["small.txt"]
    return [f"| 10 MiB download | {big_direct:.2f} ({big_direct_min:.2f}) ms | "
            f"{big_proxied:.2f} ({big_proxied_min:.2f}) ms | {big_proxied / big_direct:.2f}x "
            f"({big_proxied_min / big_direct_min:.2f}x); target ≤ 1.3x |",
            f"| 12-byte request (a connection's cost) | {small_direct:.2f} "
            f"({small_direct_min:.2f}) ms | {small_proxied:.2f} ({small_proxied_min:.2f}) ms | "
            f"{small_proxied - small_direct:+.2f} ({small_proxied_min - small_direct_min:+.2f}) "
            "ms; target < 1 ms |"]


def times(output):
    values = [float(x) for x in output.split() if x != "fail"]
    if len(values) != len(output.split()):
        sys.exit("a download failed: " + output[-300:])
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentbox", default=os.path.join(here, "..", "build", "agentbox"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--runsc", metavar="IMAGE", help="also under gVisor, in IMAGE (python3)")
    args = ap.parse_args()

    root = tempfile.mkdtemp(prefix="ab-egress-bench.")
    with open(os.path.join(root, "big.bin"), "wb") as f:
        f.write(os.urandom(10 * 1024 * 1024))
    with open(os.path.join(root, "small.txt"), "w") as f:
        f.write("hello bench\n")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=root))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    results = {}
    for name in ("big.bin", "small.txt"):
        url = f"http://127.0.0.1:{port}/{name}"
        direct = subprocess.run(["sh", "-c", loop(url, args.runs, False)], capture_output=True,
                                text=True, check=True).stdout
        proxied = subprocess.run(
            [args.agentbox, "run", "--timeout", "300", "--allow-host", f"127.0.0.1:{port}",
             "--", "sh", "-c", loop(url, args.runs, True)],
            capture_output=True, text=True)
        if proxied.returncode != 0:
            sys.exit(f"agentbox run failed ({proxied.returncode}): {proxied.stderr[-500:]}")
        d, p = times(direct), times(proxied.stdout)
        results[name] = (statistics.median(d) * 1000, statistics.median(p) * 1000,
                         min(d) * 1000, min(p) * 1000)
    gvisor = runsc_rows(args.agentbox, args.runsc, port, args.runs) if args.runsc else None
    server.shutdown()
    lines = [f"## {SECTION}", "",
             f"`bench/egress_proxy.py`: curl's own `time_total`, median of {args.runs}, one run, "
             "server and client on this host's loopback; proxied = inside `agentbox run "
             "--allow-host 127.0.0.1:PORT` through the sandbox's egress proxy.", "",
             "| what | direct, median (min) | through the proxy, median (min) | ratio / added, "
             "medians (mins) |",
             "|---|---|---|---|",
             *table_rows(results),
             "", f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs. "
             "On a loaded host both figures are mostly waiting for a CPU (the proxy is one more "
             "process to wake per chunk and per connection), so medians swing run to run and a "
             "minimum is the closer look at the proxy's own cost.",
             ]
    if gvisor:
        lines += ["", f"Under gVisor (`--runsc {args.runsc}`): a python client (one process, "
                  "each fetch timed) direct on the host vs inside `agentbox run --backend docker "
                  "--runtime runsc`, through the agent's relay and the proxy; the ratio holds "
                  "gVisor's cost of the client's own syscalls too.", "",
                  "| what | direct, median (min) | gVisor, relay + proxy, median (min) | "
                  "ratio / added, medians (mins) |", "|---|---|---|---|", *table_rows(gvisor)]
    lines += ["", "Regenerate: `python3 bench/egress_proxy.py --agentbox build/agentbox"
              + (f" --runsc {args.runsc}" if args.runsc else "") + "`.", ""]
    section = "\n".join(lines)
    print(section)
    if args.no_report:
        return
    doc = os.path.join(here, "..", "docs", "performance.md")
    with open(doc) as fh:
        text = fh.read()
    with open(doc, "w") as fh:
        fh.write(rep.replace_section(text, SECTION, section))


if __name__ == "__main__":
    main()
