#!/usr/bin/env python3
"""Writes "## agentbox exec and create" of docs/performance.md from bench/exec_create's results.

Reuses bench/report.py for the hyperfine tables, the machine line and the section replacement;
adds the targets, the idle-memory figures and the leak counts of the create/exec/rm cycles.

Usage (bench/exec_create calls it):
  bench/exec_create_report.py --results DIR --cycles N --cycles-rc RC --cycles-ms MS
      --runs N --warmup N --idle-n N [--skipped "NAME: reason"]... [--doc docs/performance.md]
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  bench/report.py

SECTION = "agentbox exec and create"
TARGET_EXEC_MS = 2.0
TARGET_CREATE_MS = 10.0
TARGET_IDLE_MB = 2.0


def median_of(rows, name):
    for r in rows:
        if r["name"] == name:
            return r["median_ms"]
    return None


def verdict(value, target):
    if value is None:
        return "not measured"
    return "met" if value <= target else f"missed ({value / target:.1f}× the target)"


def leak_table(log_path):
    """The before/after table tests/leak printed, as markdown, and its PASS/FAIL line."""
    if not os.path.exists(log_path):
        return ["(no log)"], "not run"
    text = open(log_path).read()
    rows = re.findall(r"^\s*\|\s+(procs_ours|procs_foreign|mounts|cgroups|fds|state|ws)\s+(\S+)\s+(\S+)",
                      text, re.MULTILINE)
    status = re.search(r"^(PASS|FAIL|SKIP) create_exec_rm_cycles.*$", text, re.MULTILINE)
    lines = ["| what | before | after |", "|---|---|---|"]
    lines += [f"| {k} | {b} | {a} |" for k, b, a in rows]
    return lines, status.group(0) if status else "no result line"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", required=True)
    p.add_argument("--doc", default="docs/performance.md")
    p.add_argument("--cycles", type=int, required=True)
    p.add_argument("--cycles-rc", type=int, required=True)
    p.add_argument("--cycles-ms", type=int, required=True)
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--warmup", type=int, required=True)
    p.add_argument("--idle-n", type=int, required=True)
    p.add_argument("--skipped", action="append", default=[])
    p.add_argument("--regenerate", default="bench/exec_create")
    args = p.parse_args()

    exec_rows = report.load_results(os.path.join(args.results, "exec.json"))
    create_rows = report.load_results(os.path.join(args.results, "create.json"))
    idle = json.load(open(os.path.join(args.results, "idle.json")))
    n = max(idle["n"], 1)
    mem_delta_mb = (idle["mem_available_before_kb"] - idle["mem_available_after_kb"]) / 1024 / n
    pss_mb = idle["pss_kb"] / 1024 / n
    rss_mb = idle["rss_kb"] / 1024 / n
    charge_mb = idle["cgroup_charge_bytes"] / 1024 / 1024 / n

    exec_ms = median_of(exec_rows, "agentbox-exec")
    docker_ms = median_of(exec_rows, "docker-exec")
    create_ms = median_of(create_rows, "agentbox-create")
    rm_ms = median_of(create_rows, "agentbox-rm")

    out = [f"## {SECTION}", "", f"Machine: {report.machine_facts()}.", ""]
    out += ["Targets against the measurements:", "",
            "| metric | target | measured | verdict |", "|---|---|---|---|",
            f"| `agentbox exec ID -- /bin/true`, median | ≤ {TARGET_EXEC_MS:g} ms | "
            f"{report.fmt_ms(exec_ms)} ms | {verdict(exec_ms, TARGET_EXEC_MS)} |",
            f"| `agentbox create`, median | ≤ {TARGET_CREATE_MS:g} ms | "
            f"{report.fmt_ms(create_ms)} ms | {verdict(create_ms, TARGET_CREATE_MS)} |",
            f"| host memory per idle sandbox (MemAvailable drop / N) | ≤ {TARGET_IDLE_MB:g} MB | "
            f"{mem_delta_mb:.2f} MB | "
            f"{verdict(mem_delta_mb, TARGET_IDLE_MB) if mem_delta_mb >= 0 else 'inconclusive: other work on the host freed memory meanwhile'} |",
            f"| the same, as the memory charge of the sandboxes' cgroups / N | ≤ {TARGET_IDLE_MB:g} MB | "
            f"{charge_mb:.2f} MB | {verdict(charge_mb, TARGET_IDLE_MB)} |",
            "",
            f"Load average while writing this: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
            "(other builds and tests shared the machine; medians are the fairer figure).",
            ""]
    if docker_ms:
        out += [f"`docker exec` / `agentbox exec` (medians): {docker_ms / exec_ms:.1f}×.", ""]
    out += ["### exec (one hyperfine run: the whole CLI process, start to exit)", "",
            report.table(exec_rows, ["agentbox-exec"]), ""]
    if args.skipped:
        out += ["Skipped:", ""] + [f"- {s}" for s in args.skipped] + [""]
    out += ["### create and rm", "",
            "Each timed alone: hyperfine's per-command `--prepare` removes the previous sandbox "
            "before each `create`, and creates the one each `rm` removes, so one sandbox exists at "
            "a time.", "", report.table(create_rows, []), ""]
    out += [f"### {idle['n']} idle sandboxes at once", "",
            "| figure | total | per sandbox |", "|---|---|---|",
            f"| sandboxes running | {idle['running']} of {idle['n']} | |",
            f"| MemAvailable drop | {(idle['mem_available_before_kb'] - idle['mem_available_after_kb']) / 1024:.1f} MB | {mem_delta_mb:.2f} MB |",
            f"| RSS of their processes ({idle['processes']}) | {idle['rss_kb'] / 1024:.1f} MB | {rss_mb:.2f} MB |",
            f"| PSS of their processes | {idle['pss_kb'] / 1024:.1f} MB | {pss_mb:.2f} MB |",
            f"| their cgroups' memory charge | {idle['cgroup_charge_bytes'] / 1048576:.1f} MB | {charge_mb:.2f} MB |",
            f"| time to create all (4 at a time) | {idle['create_all_ms'] / 1000:.1f} s | {idle['create_all_ms'] / n:.1f} ms |",
            f"| time to rm all (4 at a time) | {idle['rm_all_ms'] / 1000:.1f} s | {idle['rm_all_ms'] / n:.1f} ms |",
            "",
            "MemAvailable is host-wide, so other activity on the machine moves it; PSS is this "
            "suite's processes only; the cgroup charge also counts kernel memory of the sandbox "
            "(page tables, its tmpfs pages, slab).", ""]
    leak_lines, leak_status = leak_table(os.path.join(args.results, "cycles.log"))
    out += [f"### {args.cycles} create/exec/cp/rm cycles: what is left", "",
            f"{args.cycles} cycles in {args.cycles_ms / 1000:.1f} s "
            f"({args.cycles_ms / max(args.cycles, 1):.0f} ms per cycle, counting tests/leak's "
            f"snapshots); `tests/leak/run.sh` says: `{leak_status}`.", ""] + leak_lines
    out += ["", f"hyperfine -N, {args.warmup} warmups, {args.runs} runs per row. "
            "10,000 cycles are the goal for a long soak; set CYCLES=10000.", "",
            f"Regenerate: `{args.regenerate}`."]
    section = "\n".join(out).rstrip() + "\n"
    print(section)

    header = "# Performance\n\nMeasured numbers, each section generated by a script under bench/.\n"
    doc_text = open(args.doc).read() if os.path.exists(args.doc) else header
    with open(args.doc, "w") as f:
        f.write(report.replace_section(doc_text, SECTION, section))
    print(f'wrote section "{SECTION}" of {args.doc}', file=sys.stderr)


if __name__ == "__main__":
    main()
