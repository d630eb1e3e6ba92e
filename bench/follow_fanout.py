#!/usr/bin/env python3
"""One detached process's output followed by 100 clients at once: serve's memory stays bounded.

    python3 bench/follow_fanout.py [--agentbox build/agentbox] [--followers 100] [--mb 20]
        [--rate 1] [--results bench/results/follow-fanout.json] [--no-report]

Starts its own `agentbox serve --listen unix:PATH` (a private AGENTBOX_STATE_DIR), creates one
sandbox, and runs, one after the other, the same writer: a python3 loop printing --mb MB of
fixed-length numbered lines ("0000000042 xxx...\\n") at --rate MB/s on an absolute schedule that
starts at a given wall-clock time (so a reader knows when each byte was due). Phases:

  file      the anchor: the writer on the host appends to a plain file; --followers
            `tail -c +1 -f FILE` processes, each read by the bench;
  1         the writer as a detached process (`"detach": true`, output_limit 16M), and one
            GET .../processes/p1/logs?follow=1 (NDJSON) client;
  N         the same with --followers clients at once;
  replay    --followers clients of the exited process of phase N at once (follow=1: they get
            the ring, the last 16M, as fast as serve sends it) vs --followers `tail -c +1 FILE`;
  lagging   a process with output_limit 1M writing 8 MB at 4 MB/s, and one follower that stops
            reading for 4 s: what it is told about the bytes the ring dropped meanwhile.

Every reader checks every byte against the expected stream (a mismatch is a gap: it resyncs on
the next line's number and counts the bytes skipped), and the end event's `from` / `next`.
Lag: when a byte arrived minus when the writer was due to write it (p50 / p99 / max over every
read). serve's VmRSS is sampled every 20 ms and its VmHWM read (reset through clear_refs before
each phase); the keeper's (the sandbox process holding the ring) too. Readers are threads in 4
worker processes (python3 stdlib only). Only the processes it started are stopped, by pid.
"""

import argparse
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

LINE = 100
WRITER = r"""
import os, sys, time
total, rate, line, t0 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
out = os.open(sys.argv[5], os.O_WRONLY | os.O_APPEND) if len(sys.argv) > 5 else 1
fill = b"x" * (line - 12)
data = b"".join(b"%010d %s\n" % (i, fill) for i in range(total // line))
block = max(line, int(rate * 0.01) // line * line)  # about 10 ms of output per write
dt = block / rate
k = off = 0
while off < len(data):
    wait = t0 + k * dt - time.time()
    if wait > 0:
        time.sleep(wait)
    view = memoryview(data)[off:off + block]
    while view:
        view = view[os.write(out, view):]
    off += block
    k += 1
"""


def expected_stream(total):
    fill = b"x" * (LINE - 12)
    return b"".join(b"%010d %s\n" % (i, fill) for i in range(total // LINE))


def writer_block(rate):
    return max(LINE, int(rate * 0.01) // LINE * LINE)


class Checker:
    """Checks bytes against the expected stream; a mismatch is a gap, resynced on a line number."""

    def __init__(self, expected, t0, rate):
        self.expected, self.t0, self.rate = expected, t0, rate
        self.block = writer_block(rate)
        self.pos = 0            # the offset the next byte should have
        self.received = 0
        self.gaps = []          # (offset where it stopped, offset where it went on)
        self.corrupt = None
        self.pending = b""
        self.lags = []
        self.first = self.last = None

    def feed(self, data):
        now = time.time()
        if self.first is None:
            self.first = now
        self.last = now
        self.received += len(data)
        if self.corrupt is not None:
            return
        data = self.pending + data
        self.pending = b""
        while data:
            want = self.expected[self.pos:self.pos + len(data)]
            if data == want:
                self.pos += len(data)
                break
            i = 0  # the first byte that differs
            n = min(len(data), len(want))
            while i < n and data[i] == want[i]:
                i += 1
            if i == len(want) and i < len(data):  # more than the whole stream
                self.corrupt = self.pos + i
                return
            if i == len(data):
                self.pos += i
                break
            nl = data.find(b"\n", i)
            if nl < 0 or len(data) < nl + 1 + 11:
                if len(data) - i > 2 * LINE:  # no line number where one must be
                    self.corrupt = self.pos + i
                    return
                self.pos += i
                self.pending = data[i:]
                return
            try:
                seq = int(data[nl + 1:nl + 11])
            except ValueError:
                self.corrupt = self.pos + i
                return
            resumed = seq * LINE - (nl + 1 - i)
            if resumed <= self.pos + i:
                self.corrupt = self.pos + i
                return
            self.gaps.append((self.pos + i, resumed))
            self.pos = resumed
            data = data[i:]
        if self.t0 is not None and self.pos > 0:
            due = self.t0 + ((self.pos - 1) // self.block) * self.block / self.rate
            self.lags.append(now - due)

    def result(self, **extra):
        r = {"received": self.received, "pos": self.pos, "gaps": self.gaps,
             "corrupt": self.corrupt, "first": self.first, "last": self.last, "lags": self.lags}
        r.update(extra)
        return r


def follow_http(sock_path, sandbox, proc, expected, t0, rate, pause=None):
    """One GET .../logs?follow=1 (NDJSON), dechunked and checked. pause: (after_bytes, seconds)."""
    ck = Checker(expected, t0, rate)
    end, error = None, None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock_path)
        s.sendall(f"GET /v1/sandboxes/{sandbox}/processes/{proc}/logs?follow=1 HTTP/1.1\r\n"
                  f"Host: localhost\r\nConnection: close\r\n\r\n".encode())
        buf = bytearray()
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the head")
            buf += chunk
        head, _, rest = bytes(buf).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200") or b"chunked" not in head.lower():
            raise ConnectionError(head[:200].decode(errors="replace"))
        buf = bytearray(rest)
        lines = bytearray()
        at = 0
        paused = pause is None
        done = False
        while not done:
            # Dechunk what is there.
            while True:
                crlf = buf.find(b"\r\n", at)
                if crlf < 0:
                    break
                size = int(buf[at:crlf].split(b";")[0], 16)
                if size == 0:
                    done = True
                    break
                if len(buf) < crlf + 2 + size + 2:
                    break
                lines += buf[crlf + 2:crlf + 2 + size]
                at = crlf + 2 + size + 2
            if at > 1 << 20 or at == len(buf):
                del buf[:at]
                at = 0
            # Events: one JSON object a line.
            start = 0
            while True:
                nl = lines.find(b"\n", start)
                if nl < 0:
                    break
                event = json.loads(bytes(lines[start:nl]))
                start = nl + 1
                kind = event.get("type")
                if kind == "stdout":
                    ck.feed(event["data"].encode())
                elif kind == "stderr":
                    error = "stderr: " + event["data"][:200]
                else:
                    end = event
            del lines[:start]
            if done:
                break
            if not paused and ck.received >= pause[0]:
                paused = True
                time.sleep(pause[1])
            chunk = s.recv(1 << 18)
            if not chunk:
                break
            buf += chunk
    except Exception as e:  # noqa: BLE001 - reported per follower
        error = f"{type(e).__name__}: {e}"
    finally:
        s.close()
    return ck.result(end=end, error=error)


def read_pipe(fd, expected, t0, rate, total):
    """A tail's stdout, checked, until the whole stream has come."""
    ck = Checker(expected, t0, rate)
    error = None
    try:
        while ck.pos < total and ck.corrupt is None:
            chunk = os.read(fd, 1 << 18)
            if not chunk:
                break
            ck.feed(chunk)
    except OSError as e:
        error = str(e)
    os.close(fd)
    return ck.result(end=None, error=error)


def worker(jobs, out):
    threads, results = [], [None] * len(jobs)

    def run(i, job):
        results[i] = job[0](*job[1:])

    for i, job in enumerate(jobs):
        threads.append(threading.Thread(target=run, args=(i, job)))
        threads[-1].start()
    for t in threads:
        t.join()
    out.send(results)
    out.close()


def run_readers(jobs, procs=4):
    """Runs the reader jobs as threads spread over `procs` forked processes; their results."""
    ctx = multiprocessing.get_context("fork")
    parts = [jobs[i::procs] for i in range(min(procs, len(jobs)))]
    workers, pipes = [], []
    for part in parts:
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=worker, args=(part, send))
        p.start()
        send.close()
        workers.append(p)
        pipes.append(recv)
    results = []
    for recv in pipes:
        results.extend(recv.recv())
    for p in workers:
        p.join()
    return results


def status_kib(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler:
    """Samples VmRSS of pids (a callable giving them) every 20 ms; max of their sum."""

    def __init__(self, pids):
        self.pids, self.peak, self.samples = pids, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop)
        self.thread.start()

    def loop(self):
        while not self.stop.is_set():
            total = sum(status_kib(p, "VmRSS") for p in self.pids())
            self.samples.append(total)
            self.peak = max(self.peak, total)
            self.stop.wait(0.02)

    def done(self):
        self.stop.set()
        self.thread.join()
        return self.peak


def reset_hwm(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


class Api:
    def __init__(self, sock):
        self.sock = sock

    def call(self, method, path, body=None):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.sock)
        data = json.dumps(body).encode() if body is not None else b""
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                  .encode() + data)
        raw = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            raw += chunk
        s.close()
        head, _, body_raw = raw.partition(b"\r\n\r\n")
        code = int(head.split()[1])
        return code, json.loads(body_raw) if body_raw.strip() else None


def keeper_pids(sandbox):
    """The sandbox's keepers (comm agentbox-bg, in its cgroup): where the ring lives."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/comm") as f:
                if f.read().strip() != "agentbox-bg":
                    continue
            with open(f"/proc/{name}/cgroup") as f:
                if sandbox in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def summarize(results, total_expected, rate_given):
    def complete(r):
        """Every byte, in order; or, when the ring had dropped the start, every byte it held
        and an end event whose `from` says where they start (what the API promises)."""
        if r["corrupt"] is not None or r["error"] is not None or r["pos"] != total_expected:
            return False
        end = r["end"] or {}
        if not r["gaps"]:
            return not end or (end.get("from") == 0 and end.get("next") == r["pos"])
        return (len(r["gaps"]) == 1 and r["gaps"][0][0] == 0 and end.get("from") ==
                r["gaps"][0][1] and end.get("next") == r["pos"])
    ok = [r for r in results if complete(r)]
    lags = sorted(x for r in results for x in r["lags"])
    first = min((r["first"] for r in results if r["first"]), default=None)
    last = max((r["last"] for r in results if r["last"]), default=None)
    received = sum(r["received"] for r in results)
    wall = (last - first) if first and last and last > first else None
    per = [r["received"] / (r["last"] - r["first"]) for r in results
           if r["first"] and r["last"] and r["last"] > r["first"]]
    return {
        "readers": len(results), "complete": len(ok),
        "errors": [r["error"] for r in results if r["error"]][:3],
        "gaps": sum(len(r["gaps"]) for r in results),
        "mid_stream_gaps": sum(1 for r in results for a, _ in r["gaps"] if a > 0),
        "corrupt": sum(1 for r in results if r["corrupt"] is not None),
        "bytes": received,
        "aggregate_mb_s": received / wall / 1e6 if wall else None,
        "per_reader_mb_s_median": statistics.median(per) / 1e6 if per else None,
        "lag_ms": ([lags[len(lags) // 2] * 1000, lags[min(len(lags) - 1, int(len(lags) * .99))]
                    * 1000, lags[-1] * 1000] if lags else None),
        "ends": [r["end"] for r in results[:1]],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agentbox", default="build/agentbox")
    ap.add_argument("--followers", type=int, default=100)
    ap.add_argument("--mb", type=float, default=20, help="output of the writer, MB")
    ap.add_argument("--rate", type=float, default=1, help="the writer's rate, MB/s")
    ap.add_argument("--results", default="bench/results/follow-fanout.json")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--report-from", metavar="JSON",
                    help="measure nothing: write the section from an earlier --results file")
    args = ap.parse_args()
    if args.report_from:
        with open(args.report_from) as f:
            return report(json.load(f), args)
    agentbox = os.path.abspath(args.agentbox)
    total = int(args.mb * 1e6) // LINE * LINE
    rate = args.rate * 1e6
    expected = expected_stream(total)
    n = args.followers

    state = tempfile.mkdtemp(prefix="ab-bench-follow.")
    env = dict(os.environ, AGENTBOX_STATE_DIR=state)
    sock = os.path.join(state, "bench.sock")
    server = subprocess.Popen([agentbox, "serve", "--listen", "unix:" + sock], env=env,
                              stderr=subprocess.DEVNULL)
    started = []  # every other process this bench started, stopped by pid at the end
    out = {"followers": n, "output_bytes": total, "rate_mb_s": args.rate, "phases": {}}
    sandbox = None
    try:
        for _ in range(250):
            if os.path.exists(sock):
                break
            time.sleep(0.02)
        api = Api(sock)
        code, box = api.call("POST", "/v1/sandboxes", {})
        if code != 201 and code != 200:
            sys.exit(f"create failed: {code} {box}")
        sandbox = box["id"]
        time.sleep(0.5)
        out["serve_idle_kib"] = status_kib(server.pid, "VmRSS")

        def detached(total_bytes, rate_bps, output_limit):
            t0 = time.time() + 1.0
            code, p = api.call("POST", f"/v1/sandboxes/{sandbox}/exec", {
                "argv": ["python3", "-c", WRITER, str(total_bytes), str(rate_bps), str(LINE),
                         repr(t0)],
                "detach": True, "output_limit": output_limit})
            if code != 201:
                sys.exit(f"detached exec failed: {code} {p}")
            return p["id"], t0

        def http_phase(name, count, total_bytes=total, rate_bps=rate, output_limit="16M",
                       pause=None, proc=None, t0=None):
            reset_hwm(server.pid)
            if proc is None:
                proc, t0 = detached(total_bytes, rate_bps, output_limit)
            keepers = keeper_pids(sandbox)
            serve_s = Sampler(lambda: [server.pid])
            keep_s = Sampler(lambda: keepers)
            threads_peak = [0]

            def threads():
                while not serve_s.stop.is_set():
                    threads_peak[0] = max(threads_peak[0], status_kib(server.pid, "Threads"))
                    time.sleep(0.05)
            tt = threading.Thread(target=threads)
            tt.start()
            jobs = [(follow_http, sock, sandbox, proc, expected_stream(total_bytes)
                     if total_bytes != total else expected, t0, rate_bps, pause)
                    for _ in range(count)]
            t_start = time.time()
            results = run_readers(jobs)
            wall = time.time() - t_start
            peak = serve_s.done()
            tt.join()
            phase = summarize(results, total_bytes, rate_bps)
            phase.update(serve_rss_peak_kib=peak, serve_hwm_kib=status_kib(server.pid, "VmHWM"),
                         serve_threads_peak=threads_peak[0], keeper_rss_peak_kib=keep_s.done(),
                         wall_s=wall, proc=proc)
            out["phases"][name] = phase
            print(name, json.dumps({k: v for k, v in phase.items() if k != "ends"}), flush=True)
            return proc, t0, results

        # The anchor: a plain file, tail -f readers.
        path = os.path.join(state, "out.txt")
        open(path, "w").close()
        tails = [subprocess.Popen(["tail", "-c", "+1", "-f", path], stdout=subprocess.PIPE)
                 for _ in range(n)]
        started += tails
        fds = [t.stdout.fileno() for t in tails]
        t0 = time.time() + 1.0
        w = subprocess.Popen([sys.executable, "-c", WRITER, str(total), str(rate), str(LINE),
                              repr(t0), path])
        started.append(w)
        tail_s = Sampler(lambda: [t.pid for t in tails])
        t_start = time.time()
        results = run_readers([(read_pipe, fd, expected, t0, rate, total) for fd in fds])
        wall = time.time() - t_start
        phase = summarize(results, total, rate)
        phase.update(tails_rss_peak_kib=tail_s.done(), wall_s=wall)
        out["phases"]["file"] = phase
        print("file", json.dumps({k: v for k, v in phase.items() if k != "ends"}), flush=True)
        w.wait()
        for t in tails:
            t.kill()
            t.wait()
            t.stdout.close()

        http_phase("1", 1)
        proc_n, t0_n, _ = http_phase("N", n)
        # Replay: the exited process's ring, as fast as it goes; anchor: tail -c +1 of the file.
        http_phase("replay", n, proc=proc_n, t0=None)
        tails = [subprocess.Popen(["tail", "-c", "+1", path], stdout=subprocess.PIPE)
                 for _ in range(n)]
        started += tails
        t_start = time.time()
        results = run_readers([(read_pipe, t.stdout.fileno(), expected, None, rate, total)
                               for t in tails])
        phase = summarize(results, total, rate)
        phase.update(wall_s=time.time() - t_start)
        out["phases"]["file-replay"] = phase
        print("file-replay", json.dumps(phase), flush=True)
        for t in tails:
            t.wait()
            t.stdout.close()
        # A follower that falls behind a 1M ring.
        lag_total = 8_000_000
        _, _, res = http_phase("lagging", 1, total_bytes=lag_total, rate_bps=4e6,
                               output_limit="1M", pause=(256 * 1024, 4.0))
        r = res[0]
        out["phases"]["lagging"]["detail"] = {"gaps": r["gaps"], "end_from": (r["end"] or {})
                                              .get("from"), "end_next": (r["end"] or {})
                                              .get("next"), "received": r["received"]}
        print("lagging detail", out["phases"]["lagging"]["detail"], flush=True)
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait()
        if sandbox:
            subprocess.call([agentbox, "rm", "-f", sandbox], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
        server.terminate()
        server.wait(timeout=30)
        subprocess.call([agentbox, "gc"], env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
        pool = os.path.join(state, "storage", "pool")
        if os.path.ismount(pool):
            subprocess.call(["umount", "-l", pool])
        subprocess.call(["rm", "-rf", state])
    out["loadavg_end"] = os.getloadavg()[0]
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(out, f, indent=1)
    if not args.no_report:
        report(out, args)


def report(out, args):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    sys.dont_write_bytecode = True
    import report as rep  # bench/report.py: machine_facts, replace_section

    ph, n = out["phases"], out["followers"]
    mb = out["output_bytes"] / 1e6

    def kib_mb(k):
        return f"{k / 1024:.1f} MB"

    def lag(p):
        return " / ".join(f"{x:.1f}" for x in p["lag_ms"]) if p.get("lag_ms") else "—"

    def rate(x):
        return f"{x:.1f}" if x is not None else "—"

    def row(name, p, memory):
        return (f"| {name} | {p['complete']} of {p['readers']} | {p['gaps']} "
                f"({p['mid_stream_gaps']}) | {lag(p)} | "
                f"{rate(p['per_reader_mb_s_median'])} | {rate(p['aggregate_mb_s'])} | {memory} |")

    one, many, f = ph["1"], ph["N"], ph["file"]
    growth_kib = many["serve_hwm_kib"] - one["serve_hwm_kib"]
    per_follower = growth_kib / max(1, n - 1)
    lines = [
        "## Following one process: 100 followers", "",
        f"Machine: {rep.machine_facts()}, load average {out.get('loadavg_end', 0):.1f} at the "
        f"end of the run (the machine is shared).", "",
        f"One detached process (`\"detach\": true`, `output_limit` 16M) prints {mb:g} MB of "
        f"numbered {LINE}-byte lines at {out['rate_mb_s']:g} MB/s on a fixed schedule; readers "
        f"check every byte against the expected stream (a mismatch is a gap, resynced on the next "
        f"line's number). Lag: arrival time minus the time the writer was due to write that byte "
        f"(p50 / p99 / max over every read). Memory: serve's VmHWM (peak RSS, reset with "
        f"clear_refs before each row); for `tail`, the peak of the {n} processes' summed VmRSS.", "",
        "| readers | complete (every byte in order, or what the ring held and `from` said so) "
        "| gaps (mid-stream) | lag p50 / p99 / max ms | "
        "MB/s per reader (median) | MB/s, all | memory |",
        "|---|---|---|---|---|---|---|",
        row(f"{n} × `tail -c +1 -f FILE` (the anchor)", f, kib_mb(f["tails_rss_peak_kib"]) +
            " (the tails)"),
        row("1 × `GET …/logs?follow=1`", one, kib_mb(one["serve_hwm_kib"]) + " (serve)"),
        row(f"{n} × `GET …/logs?follow=1`", many, kib_mb(many["serve_hwm_kib"]) + " (serve)"),
        row(f"{n} × `GET …/logs?follow=1` of the exited process (the 16M ring, as fast as it "
            "goes)", ph["replay"], kib_mb(ph["replay"]["serve_hwm_kib"]) + " (serve)"),
        row(f"{n} × `tail -c +1 FILE` of the whole file", ph["file-replay"], "—"),
        "",
        "Ratios:", "",
        f"- serve's peak RSS, {n} followers / 1: **{many['serve_hwm_kib'] / one['serve_hwm_kib']:.2f}×** "
        f"({kib_mb(one['serve_hwm_kib'])} → {kib_mb(many['serve_hwm_kib'])}: "
        f"{per_follower:.0f} KiB per extra follower; peak threads {one['serve_threads_peak']} → "
        f"{many['serve_threads_peak']}, a worker and a hang-up watch per follower).",
        f"- serve's RSS growth / output streamed: {growth_kib / 1024:.1f} MB for "
        f"{many['bytes'] / 1e6:.0f} MB sent ({n} × {mb:g} MB): "
        f"**{growth_kib * 1024 / many['bytes']:.4f}** bytes of RSS per byte streamed.",
        f"- serve's memory per follower / a `tail -f` reader's RSS: "
        f"**{per_follower / (f['tails_rss_peak_kib'] / n):.2f}×**.",
        f"- lag p99, {n} followers / {n} `tail -f`: "
        f"**{many['lag_ms'][1] / f['lag_ms'][1]:.1f}×**; {n} followers / 1: "
        f"**{many['lag_ms'][1] / one['lag_ms'][1]:.1f}×**.",
        f"- the ring replayed to {n} at once / `tail -c +1` of the file: "
        f"**{ph['replay']['aggregate_mb_s'] / ph['file-replay']['aggregate_mb_s']:.2f}×** the "
        f"aggregate rate.",
        f"- the keeper (the sandbox process holding the ring): peak RSS "
        f"{kib_mb(one['keeper_rss_peak_kib'])} with 1 follower, "
        f"{kib_mb(many['keeper_rss_peak_kib'])} with {n}.",
    ]
    lines += [
        "", "Where serve's memory goes: nothing of the log is kept. A follower is a worker thread "
        "blocked reading its agent connection and a hang-up watch thread (their stacks' touched "
        "pages and glibc's per-thread malloc arenas), one piece of at most 64 KiB read from the "
        "agent and its escaped JSON event (a few times that at most), written synchronously to "
        "the client socket, which the kernel buffers outside RSS; a follower that reads slowly "
        "blocks its own worker (and the keeper's socket to it), not serve's memory. The ring is "
        "in the sandbox, in the process's keeper (`agentbox-bg`), charged to the sandbox's cgroup: "
        "at most `output_limit` plus 64 B a chunk, and a 64 KiB backlog per client. Replaying the "
        "ring as fast as it goes (the replay row) costs serve more per follower than following a "
        "1 MB/s writer, as every worker then holds a full piece at once; it stays a few hundred "
        "KiB each (the figure docs/api.md gives). The lag at 100 followers is the 2 shared CPUs: one "
        "1 MB/s stream escaped and written 100 times over by serve, beside the keeper framing it "
        "100 times and the python readers decoding it (with `tail` there is no escaping nor JSON "
        "to decode).",
    ]
    lines += ["", "The replay row hung before commit 9bfe8c5 (every reader stuck after 64 KiB): the "
              "keeper sent a logs client more only when the command printed again, so the ring of "
              "an exited process (or the rest of it, for a follower behind when it exited) never "
              "came; tests/e2e/serve.sh now checks 1 MB of an exited process's logs, read once and "
              "by 4 followers at once."]
    lag_p = ph.get("lagging")
    if lag_p:
        d = lag_p["detail"]
        lines += ["", f"A follower that falls behind the ring (output_limit 1M, 8 MB at 4 MB/s, "
                  f"the reader stops for 4 s): it received {d['received']} bytes with "
                  f"{len(d['gaps'])} gap(s) {', '.join(f'[{a}, {b})' for a, b in d['gaps'])}, "
                  f"and the end event said from={d['end_from']} next={d['end_next']}. "
                  f"So a drop in mid-stream is told only at the end, and only as a count: "
                  f"`next - from` is less than what the events held (docs/api.md says `from` "
                  f"is past `since` when the ring dropped the start; a gap after the first "
                  f"byte moves `from` too, and where it was is not told): a client can only see "
                  f"that bytes are missing by counting what the events held against `next - "
                  f"from`. Not fixed here (an in-stream event for the gap is a protocol change)."]
    lines += ["", "Regenerate: `python3 bench/follow_fanout.py --agentbox build/agentbox` "
              "(or `FOLLOW_FANOUT=1 bench/run`).", ""]
    section = "\n".join(lines)
    print(section)
    doc = os.path.join(here, "..", "docs", "performance.md")
    with open(doc) as fh:
        text = fh.read()
    with open(doc, "w") as fh:
        fh.write(rep.replace_section(text, "Following one process: 100 followers", section))


if __name__ == "__main__":
    main()
