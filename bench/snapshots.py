#!/usr/bin/env python3
"""Snapshots and forks of a 1 GB, 50,000-file workspace vs docker commit + docker run, one run.

Usage: bench/snapshots.py [--agentbox build/agentbox] [--forks 100] [--docker-forks 10]
                          [--files 50000] [--mb 1024] [--no-docker] [--no-write]

In a private state dir: one native sandbox whose workspace (a volume of agentbox's workspace
pool) gets FILES files of MB in all (random bytes); then `agentbox snapshot` (median of 10),
`exec --rollback-on-failure -- false` (a snapshot, a restore of nothing changed, a removal),
`restore`, and FORKS `agentbox fork` of the snapshot (total time, and the pool's disk use before
and after). Against it, in the same run: a container of the docker test image holding the same
tree, `docker commit` of it, and DOCKER_FORKS `docker run -d` of the committed image (their
per-fork time scaled to FORKS). Writes the section "Snapshots and forks" of docs/performance.md.
Needs root; the docker half is skipped (and says so) without a daemon or the test image.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report import machine_facts, replace_section  # noqa: E402

SECTION = "Snapshots and forks"
IMAGE = "agentbox-test:latest"
FILL = """
import os, sys
n, total = int(sys.argv[1]), int(sys.argv[2]) << 20
size = total // n
for d in range(n // 500 + 1):
    os.makedirs(f"/workspace/d{d}", exist_ok=True)
for i in range(n):
    with open(f"/workspace/d{i // 500}/f{i}", "wb") as f:
        f.write(os.urandom(size))
"""


def run(cmd, env=None, check=True):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip()


def timed(cmd, env=None):
    t0 = time.monotonic()
    out = run(cmd, env)
    return (time.monotonic() - t0) * 1000, out


def pool_used_kib(state):
    # The pool's image is sparse: its allocated blocks are what the volumes hold on the host.
    img = os.path.join(state, "storage", "pool.img")
    return os.stat(img).st_blocks // 2 if os.path.exists(img) else 0


def pool_kind(state):
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if parts[1] == os.path.join(state, "storage", "pool"):
                return parts[2]
    return "unknown"


def bench_agentbox(ab, args, state, host_tree):
    env = dict(os.environ, AGENTBOX_STATE_DIR=state)
    box = run([ab, "create", "--disk-limit", "none", "--timeout", "600"], env)
    run([ab, "exec", box, "--", "python3", "-c", FILL, str(args.files), str(args.mb)], env)
    if host_tree:  # the same shape on the host, for docker cp
        run([sys.executable, "-c", FILL.replace("/workspace", host_tree), str(args.files),
             str(args.mb)])
    kind = pool_kind(state)
    snaps, ids = [], []
    for i in range(10):
        ms, sid = timed([ab, "snapshot", box, "--name", f"s{i}"], env)
        snaps.append(ms)
        ids.append(sid)
    for sid in ids[1:]:
        run([ab, "snapshot", "rm", sid], env)
    rollback = [_rollback(ab, box, env) for _ in range(5)]
    restore = [timed([ab, "restore", box, ids[0]], env)[0] for _ in range(5)]
    used0 = pool_used_kib(state)
    t0 = time.monotonic()
    for i in range(args.forks):
        run([ab, "fork", ids[0], "--name", f"fork{i}"], env)
    forks_ms = (time.monotonic() - t0) * 1000
    used1 = pool_used_kib(state)
    return {"kind": kind, "snapshot": statistics.median(snaps),
            "rollback": statistics.median(rollback), "restore": statistics.median(restore),
            "forks_ms": forks_ms, "ws_kib": used0, "forks_kib": used1 - used0}


def _rollback(ab, box, env):
    t0 = time.monotonic()
    subprocess.run([ab, "exec", "--rollback-on-failure", box, "--", "false"], env=env,
                   capture_output=True)
    return (time.monotonic() - t0) * 1000


def bench_docker(args, host_tree, tag):
    ctr = run(["docker", "create", "--name", tag, IMAGE, "sleep", "3600"])
    try:
        run(["docker", "cp", host_tree + "/.", f"{ctr}:/workspace"])
        run(["docker", "start", ctr])
        commit_ms, _ = timed(["docker", "commit", ctr, f"{tag}:snap"])
        t0 = time.monotonic()
        for i in range(args.docker_forks):
            run(["docker", "run", "-d", "--name", f"{tag}-f{i}", f"{tag}:snap", "sleep", "3600"])
        per_fork = (time.monotonic() - t0) * 1000 / args.docker_forks
        return {"commit": commit_ms, "per_fork": per_fork}
    finally:
        for i in range(args.docker_forks):
            subprocess.run(["docker", "rm", "-f", f"{tag}-f{i}"], capture_output=True)
        subprocess.run(["docker", "rm", "-f", ctr], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", f"{tag}:snap"], capture_output=True)


def docker_usable():
    if not shutil.which("docker"):
        return "no docker CLI"
    p = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True)
    return None if p.returncode == 0 else f"no {IMAGE} on the daemon (tests/docker/run_suite.sh imports it)"


def render(a, d, why_no_docker, args):
    forks = args.forks
    rows = [
        "| operation | agentbox | docker | ratio (docker / agentbox) |",
        "|---|---|---|---|",
    ]
    dc = f"{d['commit']:.0f} ms" if d else "skipped"
    rows.append(f"| snapshot (`agentbox snapshot` / `docker commit`) | {a['snapshot']:.1f} ms | {dc} | "
                + (f"{d['commit'] / a['snapshot']:.0f}x" if d else "-") + " |")
    df = f"{d['per_fork'] * forks / 1000:.1f} s (from {args.docker_forks} runs)" if d else "skipped"
    rows.append(f"| {forks} forks (`agentbox fork` / `docker run -d` of the commit) | "
                f"{a['forks_ms'] / 1000:.2f} s | {df} | "
                + (f"{d['per_fork'] * forks / a['forks_ms']:.1f}x" if d else "-") + " |")
    rows.append(f"| `exec --rollback-on-failure -- false` | {a['rollback']:.1f} ms | - | - |")
    rows.append(f"| `restore` (nothing changed) | {a['restore']:.1f} ms | - | - |")
    text = [f"## {SECTION}", "", f"Machine: {machine_facts()}.", "",
            f"Workspace: {args.files:,} files, {args.mb} MiB of random bytes; workspace pool: "
            f"**{a['kind']}** (agentbox's own loop-mounted pool, docs/policy.md). Targets (issue 21): "
            f"snapshot < 50 ms, {forks} forks < 5 s.", "", "\n".join(rows), "",
            f"Disk: the workspace holds {a['ws_kib'] / 1024:.0f} MiB of the pool; {forks} forks "
            f"added {a['forks_kib'] / 1024:.1f} MiB (the pool image's allocated blocks).",
            "Each agentbox time is a whole CLI call (process start, state lookup, the session "
            "log's record with the workspace digest)."]
    if why_no_docker:
        text += ["", f"docker skipped: {why_no_docker}."]
    text += ["", "Regenerate: `bench/snapshots.py` (root)."]
    return "\n".join(text) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agentbox", default=os.path.join(HERE, "..", "build", "agentbox"))
    p.add_argument("--forks", type=int, default=100)
    p.add_argument("--docker-forks", type=int, default=10)
    p.add_argument("--files", type=int, default=50000)
    p.add_argument("--mb", type=int, default=1024)
    p.add_argument("--no-docker", action="store_true")
    p.add_argument("--no-write", action="store_true", help="print the section, leave the doc")
    args = p.parse_args()
    ab = os.path.abspath(args.agentbox)
    why = "--no-docker" if args.no_docker else docker_usable()
    state = tempfile.mkdtemp(prefix="absnapbench.")
    host_tree = None if why else tempfile.mkdtemp(prefix="absnaptree.")
    env = dict(os.environ, AGENTBOX_STATE_DIR=state)
    try:
        a = bench_agentbox(ab, args, state, host_tree)
        print(f"bench: agentbox {json.dumps(a)}", file=sys.stderr, flush=True)
        d = None if why else bench_docker(args, host_tree, f"absnapbench-{os.getpid()}")
    finally:
        for sid in run([ab, "ls", "-q"], env, check=False).split():
            subprocess.run([ab, "rm", "-f", sid], env=env, capture_output=True)
        subprocess.run([ab, "gc"], env=env, capture_output=True)
        shutil.rmtree(state, ignore_errors=True)
        if host_tree:
            shutil.rmtree(host_tree, ignore_errors=True)
    section = render(a, d, why, args)
    print(section)
    if not args.no_write:
        doc = os.path.join(HERE, "..", "docs", "performance.md")
        with open(doc) as f:
            text = f.read()
        with open(doc, "w") as f:
            f.write(replace_section(text, SECTION, section))
    json.dump({"agentbox": a, "docker": d}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
