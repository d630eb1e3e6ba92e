#!/usr/bin/env python3
"""Turns a hyperfine JSON export into a markdown table and (re)writes one section of a doc.

Usage:
  bench/report.py --json FILE --section "agentbox run vs bwrap" [--doc docs/performance.md]
                  [--ratio-vs NAME]... [--note TEXT] [--skipped "NAME: reason"]...
                  [--markdown FILE]

The section is the part of the doc from the line "## <section>" up to the next "## " heading
(or the end). It is replaced if present and appended otherwise; every other section is kept, so
each benchmark (run, exec, create, server, ...) regenerates only its own section by name.
The table is also printed on stdout. Rows are the hyperfine commands, named by `hyperfine -n`;
each --ratio-vs NAME adds a column "ratio vs NAME" (median / median of NAME).
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import sys


def load_results(path):
    with open(path) as f:
        results = json.load(f)["results"]
    rows = []
    for r in results:
        times = r["times"]
        rows.append({
            "name": r["command"],
            "median_ms": r["median"] * 1000,
            "mean_ms": r["mean"] * 1000,
            "stddev_ms": (r.get("stddev") or 0) * 1000,
            "min_ms": r["min"] * 1000,
            "max_ms": r["max"] * 1000,
            "runs": len(times),
            "p95_ms": statistics.quantiles(times, n=20)[-1] * 1000 if len(times) >= 20 else None,
        })
    return rows


def fmt_ms(value):
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def table(rows, ratio_vs):
    by_name = {r["name"]: r for r in rows}
    header = ["command", "median ms", "mean ± stddev ms", "p95 ms", "runs"]
    header += [f"ratio vs {n}" for n in ratio_vs]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [f"`{r['name']}`", fmt_ms(r["median_ms"]),
                 f"{fmt_ms(r['mean_ms'])} ± {fmt_ms(r['stddev_ms'])}",
                 fmt_ms(r["p95_ms"]) if r["p95_ms"] is not None else "—", str(r["runs"])]
        for n in ratio_vs:
            base = by_name.get(n)
            cells.append(f"{r['median_ms'] / base['median_ms']:.2f}×" if base else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine_facts():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cgroup = "v2" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") else "v1"
    facts = [
        f"nproc {os.cpu_count()}",
        f"kernel {platform.release()}",
        f"cgroup {cgroup}",
        f"date {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
    ]
    if cpu:
        facts.insert(1, f"CPU {cpu}")
    return ", ".join(facts)


def render_section(title, rows, args):
    parts = [f"## {title}", "", f"Machine: {machine_facts()}.", "", table(rows, args.ratio_vs)]
    if args.command:
        parts += ["", "Commands:", ""]
        parts += [f"- `{name}`: `{cmd}`" for name, cmd in (c.split("=", 1) for c in args.command)]
    if args.skipped:
        parts += ["", "Skipped:", ""] + [f"- {s}" for s in args.skipped]
    if args.note:
        parts += ["", " ".join(args.note.split())]
    if args.markdown:
        with open(args.markdown) as f:
            parts += ["", f.read().strip()]
    parts += ["", f"Regenerate: `{args.regenerate}`." if args.regenerate else ""]
    return "\n".join(parts).rstrip() + "\n"


def replace_section(doc_text, title, section):
    """Replaces "## title" up to the next level-2 heading, or appends the section."""
    pattern = re.compile(r"^## " + re.escape(title) + r"[ \t]*$", re.MULTILINE)
    match = pattern.search(doc_text)
    if not match:
        return doc_text.rstrip("\n") + ("\n\n" if doc_text.strip() else "") + section
    start = match.start()
    following = re.compile(r"^## ", re.MULTILINE).search(doc_text, match.end())
    end = following.start() if following else len(doc_text)
    rest = doc_text[end:]
    return doc_text[:start] + section + ("\n" + rest if rest else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", required=True, help="hyperfine --export-json file")
    parser.add_argument("--section", required=True, help='section title, e.g. "agentbox run vs bwrap"')
    parser.add_argument("--doc", default="docs/performance.md")
    parser.add_argument("--ratio-vs", action="append", default=[], metavar="NAME")
    parser.add_argument("--command", action="append", default=[], metavar="NAME=COMMAND",
                        help="list what a row ran under the table")
    parser.add_argument("--skipped", action="append", default=[], metavar="'NAME: reason'")
    parser.add_argument("--note", default="")
    parser.add_argument("--markdown", default="", metavar="FILE",
                        help="markdown of the script's own (a breakdown) after the note")
    parser.add_argument("--regenerate", default="", help="the command that regenerates this section")
    args = parser.parse_args()

    rows = load_results(args.json)
    section = render_section(args.section, rows, args)
    print(table(rows, args.ratio_vs))
    for s in args.skipped:
        print(f"skipped: {s}")

    header = "# Performance\n\nMeasured numbers, each section generated by a script under bench/.\n"
    doc_text = open(args.doc).read() if os.path.exists(args.doc) else header
    os.makedirs(os.path.dirname(args.doc) or ".", exist_ok=True)
    with open(args.doc, "w") as f:
        f.write(replace_section(doc_text, args.section, section))
    print(f"wrote section \"{args.section}\" of {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
