#!/usr/bin/env python3
"""Where a cold `agentbox create --backend kubernetes` spends its time (bench/kubernetes).

Reads, for each run i, WORK/times.i ("START END", wall clock around the create) and WORK/trace.i
(`strace -f -ttt -e trace=connect` of it), and the fake API server's log, whose line "pod NS/NAME
Running X s after its create (kube play Y s) at T" says when the pod left Pending. Every API
request is a connection of its own (httpclient/), so the connects to the API port are, in order:
the Secret, the NetworkPolicy, the pod, the list and the watch; connects to port 7070 are the
agent's (the first once the watch has handed over the pod's IP; more while the agent does not
listen yet). Prints a markdown table of the phases' medians over the runs.
"""
import argparse
import re
import statistics

CONNECT = re.compile(r"^\d+\s+(\d+\.\d+) connect\(.*htons\((\d+)\)")
RUNNING = re.compile(r"Running ([\d.]+) s after its create \(kube play ([\d.]+) s\) at ([\d.]+)")

PHASES = [
    ("start", "agentbox starts, reads the kubeconfig, creates the Secret and the NetworkPolicy",
     "until its pod's POST"),
    ("boot", "… of which agentbox's start, the kubeconfig read, the pool looked at",
     "until its first API connect"),
    ("posts", "… of which the Secret's and the NetworkPolicy's POSTs (a TLS connection each)",
     "first API connect → the pod's"),
    ("fake", "the fake: pod POST until it is Running with an IP", "the fake's own log"),
    ("play", "… of which `podman kube play` (infra, init container, the agent's container)",
     "the fake's own log"),
    ("rest", "… of which the rest (volumes made, `podman ps`/`inspect` read back)", "difference"),
    ("watch", "the MODIFIED event reaching agentbox over its watch, until it dials the agent",
     "Running at T → first connect to :7070"),
    ("retry", "dialling until the agent listens", "first → last connect to :7070"),
    ("end", "the agent's token hello and ping, the record saved, exit",
     "last connect to :7070 → exit"),
    ("total", "`agentbox create` in all", "wall clock"),
]


def one_run(work, i, api_port, running):
    start, end = (float(x) for x in open(f"{work}/times.{i}").read().split())
    api, agent = [], []
    for line in open(f"{work}/trace.{i}"):
        m = CONNECT.match(line)
        if m:
            (api if int(m.group(2)) == api_port else agent if m.group(2) == "7070" else []).append(
                float(m.group(1)))
    fake, play, at = next((r for r in running if start <= r[2] <= end), (None, None, None))
    if len(api) < 3 or not agent or fake is None:
        return None
    return {"start": api[2] - start, "boot": api[0] - start, "posts": api[2] - api[0], "fake": fake, "play": play, "rest": fake - play,
            "watch": agent[0] - at, "retry": agent[-1] - agent[0], "end": end - agent[-1],
            "total": end - start, "dials": len(agent), "requests": len(api)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--api-port", type=int, required=True)
    p.add_argument("--fake-log", required=True)
    a = p.parse_args()
    running = [tuple(float(g) for g in m.groups())
               for m in (RUNNING.search(line) for line in open(a.fake_log)) if m]
    runs = [r for r in (one_run(a.work, i, a.api_port, running) for i in range(1, a.runs + 1)) if r]
    if not runs:
        print("No run could be lined up with the fake's log: no breakdown.")
        return
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"Where a cold kubernetes create's time goes: medians of {len(runs)} creates traced "
          f"(`strace -f -ttt --seccomp-bpf -e trace=connect`), each phase's median on its own "
          f"(they need not add up to the total's). API requests per create: "
          f"{med['requests']:.0f}; dials of the agent: {med['dials']:.0f}.")
    print()
    print(f"So {med['fake'] / med['total']:.0%} of a cold create is the fake's pod start "
          f"({med['play'] / med['total']:.0%} `podman kube play` alone); the watch and the "
          f"agent's hello are {(med['watch'] + med['retry'] + med['end']) * 1000:.0f} ms of it. "
          f"On a real cluster that share is the scheduler's and the kubelet's (image pulls, the "
          f"network plugin), not measured here.")
    print()
    print("| phase | measured as | median ms |")
    print("|---|---|---|")
    for key, what, how in PHASES:
        print(f"| {what} | {how} | {med[key] * 1000:.1f} |")


if __name__ == "__main__":
    main()
