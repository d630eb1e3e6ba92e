#!/usr/bin/env python3
"""Load test of `agentbox serve`: N concurrent clients doing create -> exec -> rm for a while.

Started by tests/load/run.sh, which starts the server; this script drives it over its unix
socket (python3 stdlib only) and then checks that nothing leaked:

  errors   every answer is the documented one (201 / 200 / 200), the exec result says
           exit_code 0 and the echoed text; no 5xx, no reset or dropped connection.
           A 429 is not an error when it carries Retry-After, code "resource_exhausted"
           and a message: the client backs off and retries (the documented contract).
  leaks    GET /v1/sandboxes is empty; <state>/sandboxes and <state>/names are empty and
           no temporary file is left in <state>; no process lives in a cgroup under the
           test's cgroup parent; no sb-* cgroup is left there; no mount mentions the state
           dir but its workspace pool (which lives until `agentbox gc`), and the pool holds
           no sandbox's volume; the server's open fds and threads are back to their baseline.

Prints throughput figures, then exactly `N passed, N failed`; exits 1 on any failure.
"""

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import sys
import threading
import time



CYCLES_FILE = ""  # --cycles-file

class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over a unix socket: only connect() differs."""

    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.unix_path)
        self.sock = sock


class Stats:
    """What the clients saw, shared between threads under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latency = {"create": [], "exec": [], "rm": []}
        self.cycles = 0
        self.throttled = 0
        self.most_listed = 0
        self.clients_served = set()
        self.errors = []

    def ok(self, op, seconds):
        with self.lock:
            self.latency[op].append(seconds)

    def error(self, text):
        with self.lock:
            self.errors.append(text)

    def cycle(self, client):
        with self.lock:
            self.cycles += 1
            self.clients_served.add(client)
            # --cycles-file: the count so far, for a test that waits for load to have happened.
            if CYCLES_FILE:
                with open(CYCLES_FILE + ".tmp", "w") as f:
                    f.write(f"{self.cycles}\n")
                os.replace(CYCLES_FILE + ".tmp", CYCLES_FILE)

    def throttle(self):
        with self.lock:
            self.throttled += 1


class ServerGone(Exception):
    """--until-server-dies: the server stopped answering; this client stops."""


class Client:
    """One client: one keep-alive connection, reopened only after a connection error."""

    def __init__(self, args, stats, headers):
        self.args = args
        self.stats = stats
        self.headers = dict(headers)
        self.conn = None
        self.retry_after = None

    def request(self, method, path, body=None):
        """(status, parsed JSON body); raises on a transport error."""
        if self.conn is None:
            self.conn = UnixHTTPConnection(self.args.socket, self.args.request_timeout)
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()
            self.retry_after = resp.getheader("Retry-After")
            if resp.getheader("Connection", "").lower() == "close":
                self.close()
        except Exception:
            self.close()
            raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = {"unparsable": raw[:200].decode(errors="replace")}
        return resp.status, parsed

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, op, method, path, body, want):
        """Runs one documented call, retrying a well-formed 429; the body on `want`, else None."""
        backoff = 0.02
        give_up = time.monotonic() + self.args.retry_seconds
        while True:
            t0 = time.monotonic()
            try:
                status, parsed = self.request(method, path, body)
            except Exception as e:  # reset, refused, timeout, half an answer: all errors
                self.stats.error(f"{op}: {type(e).__name__}: {e}")
                if self.args.until_server_dies:
                    raise ServerGone() from e
                return None
            if status == want:
                self.stats.ok(op, time.monotonic() - t0)
                return parsed
            if status == 429 and isinstance(parsed, dict) and self.retry_after and \
                    parsed.get("code") == "resource_exhausted" and parsed.get("error"):
                self.stats.throttle()
                if time.monotonic() > give_up:
                    self.stats.error(f"{op}: still 429 after {self.args.retry_seconds} s: "
                                     f"{parsed['error']}")
                    return None
                # Retry-After is the server's upper bound; a jittered backoff below it keeps
                # the clients from retrying in lockstep.
                time.sleep(min(float(self.retry_after), backoff * (1 + random.random())))
                backoff = min(backoff * 2, 0.5)
                continue
            self.stats.error(f"{op}: HTTP {status}: {json.dumps(parsed)[:300]}")
            return None

    def cycle(self, ident, n):
        created = self.call("create", "POST", "/v1/sandboxes", {}, 201)
        if not created:
            return
        sid = created.get("id")
        if not sid:
            self.stats.error(f"create: no id in {created}")
            return
        word = f"load-{n}"
        result = self.call("exec", "POST", f"/v1/sandboxes/{sid}/exec",
                           {"argv": ["echo", word]}, 200)
        if result is not None and (result.get("exit_code") != 0 or
                                   result.get("stdout") != word + "\n" or
                                   result.get("reason") != "exited"):
            self.stats.error(f"exec in {sid}: unexpected result {json.dumps(result)[:300]}")
        removed = self.call("rm", "DELETE", f"/v1/sandboxes/{sid}", None, 200)
        if removed is not None and removed.get("removed") != sid:
            self.stats.error(f"rm {sid}: answered {removed}")
        if removed is not None:
            self.stats.cycle(ident)

    def run(self, deadline, ident):
        n = 0
        try:
            while time.monotonic() < deadline:
                self.cycle(ident, f"{ident}-{n}")
                n += 1
        except ServerGone:
            pass
        finally:
            self.close()


# ---- leak checks ------------------------------------------------------------------------------


def cgroup_parent_dirs(parent):
    dirs = [f"/sys/fs/cgroup/{parent}"]
    try:
        dirs += [f"/sys/fs/cgroup/{h}/{parent}" for h in os.listdir("/sys/fs/cgroup")]
    except OSError:
        pass
    return [d for d in dirs if os.path.isdir(d)]


def leftover_cgroups(parent):
    out = set()
    for d in cgroup_parent_dirs(parent):
        for name in os.listdir(d):
            if os.path.isdir(os.path.join(d, name)):
                out.add(name)
    return sorted(out)


def processes_in(parent, state_dir, exclude):
    """Processes in a cgroup below `parent`, or started for `state_dir` (its helpers)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) in exclude:
            continue
        try:
            cg = open(f"/proc/{p}/cgroup").read()
            ours = f"/{parent}/" in cg
            if not ours:
                env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
                ours = f"AGENTBOX_STATE_DIR={state_dir}".encode() in env
            if ours:
                cmd = open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ")
                found.append(f"{p}:{cmd.decode(errors='replace')[:60]}")
        except OSError:
            continue
    return found


def mounts_mentioning(path, pid):
    try:
        lines = open(f"/proc/{pid}/mountinfo").read().splitlines()
    except OSError:
        lines = open("/proc/self/mountinfo").read().splitlines()
    return [l for l in lines if path in l]


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def thread_count(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


def settle(fn, want, seconds=10.0):
    """Polls fn() until it equals want (connection threads exit after their client)."""
    end = time.monotonic() + seconds
    value = fn()
    while value != want and time.monotonic() < end:
        time.sleep(0.1)
        value = fn()
    return value


# ---- the run ----------------------------------------------------------------------------------


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}{': ' + detail if detail else ''}")


def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def print_figures(label, stats, seconds, clients):
    print(f"--- {label}: {clients} clients, {seconds:.1f} s")
    print(f"cycles (create+exec+rm) completed: {stats.cycles}  "
          f"({stats.cycles / seconds:.1f} cycles/s, "
          f"{3 * stats.cycles / seconds:.1f} requests/s)")
    print(f"429 answers retried: {stats.throttled}")
    print(f"{'op':<8}{'count':>8}{'median ms':>12}{'p95 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for op, lat in stats.latency.items():
        med = statistics.median(lat) * 1000 if lat else float("nan")
        mx = max(lat) * 1000 if lat else float("nan")
        print(f"{op:<8}{len(lat):>8}{med:>12.1f}{pct(lat, 0.95):>10.1f}"
              f"{pct(lat, 0.99):>10.1f}{mx:>10.1f}")


class Watcher:
    """Lists the sandboxes while the clients run: the most the tenant ever had at once."""

    def __init__(self, args, headers):
        self.client = Client(args, Stats(), headers)
        self.most = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.stop.wait(0.02):
            try:
                status, listed = self.client.request("GET", "/v1/sandboxes")
            except Exception:
                continue  # the clients' checks report transport errors
            if status == 200:
                self.most = max(self.most, len(listed["sandboxes"]))
        self.client.close()


def run_phase(args, label, clients, seconds, headers):
    stats = Stats()
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=Client(args, stats, headers).run, args=(deadline, i))
               for i in range(clients)]
    watcher = Watcher(args, headers)
    watcher.thread.start()
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    watcher.stop.set()
    watcher.thread.join()
    print_figures(label, stats, time.monotonic() - t0, clients)
    print(f"most sandboxes listed at once: {watcher.most}")
    stats.most_listed = watcher.most
    return stats


def check_phase(report, label, stats, clients, want_throttled, max_sandboxes):
    report.check(f"{label}: no errors", not stats.errors,
                 f"{len(stats.errors)} errors, first: {'; '.join(stats.errors[:3])}")
    report.check(f"{label}: every client completed a cycle", len(stats.clients_served) == clients,
                 f"{len(stats.clients_served)} of {clients} did")
    if want_throttled:
        report.check(f"{label}: quotas answered 429 and clients retried", stats.throttled > 0,
                     "no 429 seen though the quota is below the client count")
    if max_sandboxes:
        report.check(f"{label}: never more than max_sandboxes={max_sandboxes} at once",
                     stats.most_listed <= max_sandboxes, f"{stats.most_listed} listed at once")


def check_leaks(report, args, baseline_fds, baseline_threads, headers):
    client = Client(args, Stats(), headers)
    try:
        status, listed = client.request("GET", "/v1/sandboxes")
    except Exception as e:
        status, listed = 0, str(e)
    finally:
        client.close()
    report.check("no sandbox listed", status == 200 and listed == {"sandboxes": []},
                 f"HTTP {status}: {str(listed)[:300]}")
    state = args.state_dir
    left = [f"sandboxes/{n}" for n in os.listdir(f"{state}/sandboxes")]
    left += [f"names/{n}" for n in os.listdir(f"{state}/names")]
    left += [n for n in os.listdir(state) if n.startswith(".") or n.endswith(".tmp")]
    if os.path.isdir(f"{state}/trash"):
        left += [f"trash/{n}" for n in os.listdir(f"{state}/trash")]
    report.check("state dir holds no sandbox or temp file", not left, " ".join(left[:10]))
    procs = settle(lambda: processes_in(args.cgroup_parent, state, {os.getpid(), args.serve_pid}),
                   [], 5)
    report.check("no sandbox process left", not procs, " ".join(procs[:5]))
    cgs = settle(lambda: leftover_cgroups(args.cgroup_parent), [], 5)
    report.check("no cgroup left under the parent", not cgs, " ".join(cgs[:10]))
    pool = f"{state}/storage/pool"
    mounts = [m for m in mounts_mentioning(state, args.serve_pid) if m.split()[4] != pool]
    report.check("no mount mentions the state dir but the pool", not mounts, " | ".join(mounts[:3]))
    volumes = os.listdir(pool) if os.path.isdir(pool) else []
    report.check("the pool holds no sandbox's volume", not volumes, " ".join(volumes[:10]))
    fds = settle(lambda: fd_count(args.serve_pid), baseline_fds)
    report.check("serve's fd count back to its baseline", fds == baseline_fds,
                 f"{baseline_fds} before, {fds} after: " +
                 " ".join(sorted(os.readlink(f"/proc/{args.serve_pid}/fd/{f}")
                                 for f in os.listdir(f"/proc/{args.serve_pid}/fd"))[:12]))
    threads = settle(lambda: thread_count(args.serve_pid), baseline_threads)
    report.check("serve's thread count back to its baseline", threads == baseline_threads,
                 f"{baseline_threads} before, {threads} after")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", required=True)
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--cgroup-parent", required=True)
    ap.add_argument("--serve-pid", type=int, required=True)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--token", default="", help="bearer token (a quota phase)")
    ap.add_argument("--label", default="load")
    ap.add_argument("--cycles-file", default="",
                    help="rewritten with the number of completed cycles after each one")
    ap.add_argument("--expect-throttled", action="store_true",
                    help="the token's quotas are below --clients: 429s must be seen")
    ap.add_argument("--max-sandboxes", type=int, default=0,
                    help="the token's max_sandboxes: never more may be listed at once")
    ap.add_argument("--until-server-dies", action="store_true",
                    help="load only (tests/faults kills the server): each client stops at its "
                         "first transport error; no checks")
    ap.add_argument("--request-timeout", type=float, default=120)
    ap.add_argument("--retry-seconds", type=float, default=60,
                    help="how long one call may keep getting 429 before it is an error")
    args = ap.parse_args()
    global CYCLES_FILE
    CYCLES_FILE = args.cycles_file
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}

    baseline_fds = fd_count(args.serve_pid)
    baseline_threads = thread_count(args.serve_pid)
    print(f"serve pid {args.serve_pid}: {baseline_fds} fds, {baseline_threads} threads at start")
    if args.until_server_dies:
        stats = run_phase(args, args.label, args.clients, args.seconds, headers)
        print(f"transport errors (the server died): {len(stats.errors)}")
        return 0
    report = Report()
    stats = run_phase(args, args.label, args.clients, args.seconds, headers)
    check_phase(report, args.label, stats, args.clients, args.expect_throttled,
                args.max_sandboxes)
    check_leaks(report, args, baseline_fds, baseline_threads, headers)
    print(f"{report.passed} passed, {report.failed} failed")
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
