#!/usr/bin/env python3
"""check-layers.py [--root DIR] [--counts]: every #include "x/..." of src/ against src/LAYERS.

A file's layer is its first folder under src/ (src/app/server/x.cc is in app); an include's layer
is the first component of its quoted path. Includes inside one layer are always allowed. src/LAYERS
says which other layers each layer may include ("agent: proto proc policy spec sys base"), and
lists, as `allow FILE HEADER`, the crossings that are debt: forbidden by the table, not yet removed.
`deny FILE_PREFIX HEADER_PREFIX` forbids includes inside a layer (src/app/server apart from the CLI).

Prints one line per problem and exits 1 if there is any:
  src/agent/exec_op.cc:18: layer agent may not include native (native/outcome.h)
  src/LAYERS:40: allowance no longer needed: src/agent/exec_op.cc native/outcome.h
(a stale allowance fails too, so the debt list only shrinks). The last line is the count that
scripts/test-summary.py reads: `layers: N passed, N failed (...)`.
--counts prints the includes that cross layers, per pair, instead (allowed, debt or forbidden).
Like Chromium's DEPS and checkdeps.py, in one flat file: the layers are few.
"""
import argparse
import collections
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def parse_layers(path):
    """Returns ({layer: allowed layers}, {(file, header): line}, [(file prefix, header prefix)]).

    Exits 2 on a line it cannot read: a table nobody can trust checks nothing."""
    allowed, debt, deny, errors = {}, {}, [], []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("allow "):
                parts = line.split()
                if len(parts) != 3:
                    errors.append(f"{path}:{n}: expected `allow FILE HEADER`")
                    continue
                debt[(parts[1], parts[2])] = n
            elif line.startswith("deny "):
                parts = line.split()
                if len(parts) != 3:
                    errors.append(f"{path}:{n}: expected `deny FILE_PREFIX HEADER_PREFIX`")
                    continue
                deny.append((parts[1], parts[2]))
            elif ":" in line:
                name, deps = line.split(":", 1)
                allowed[name.strip()] = set(deps.split())
            else:
                errors.append(f"{path}:{n}: expected `layer: deps...`, `allow FILE HEADER` or `deny FILE_PREFIX HEADER_PREFIX`")
    for name, deps in allowed.items():
        for dep in deps - set(allowed):
            errors.append(f"{path}: layer {name} names unknown layer {dep}")
    if errors:
        print("\n".join(errors))
        sys.exit(2)
    return allowed, debt, deny


def includes(src):
    """Yields (file relative to the root, line number, file's layer, included path, its layer)."""
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith((".cc", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, os.path.dirname(src))
            layer = os.path.relpath(path, src).split(os.sep)[0]
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and "/" in m.group(1):
                        yield rel, n, layer, m.group(1), m.group(1).split("/")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--counts", action="store_true", help="print crossings per layer pair")
    args = ap.parse_args()
    src = os.path.normpath(os.path.join(args.root, "src"))
    table = os.path.join(src, "LAYERS")
    allowed, debt, deny = parse_layers(table)

    problems, used, checked = [], set(), 0
    pairs = collections.Counter()
    for rel, n, layer, header, target in includes(src):
        checked += 1
        denied = [d for d in deny if rel.startswith(d[0]) and header.startswith(d[1])]
        if denied and (rel, header) in debt:
            used.add((rel, header))
        elif denied:
            problems.append(f"{rel}:{n}: {denied[0][0]} may not include {denied[0][1]} ({header})")
            continue
        if layer == target:
            continue
        if layer not in allowed:
            problems.append(f"{rel}:{n}: folder src/{layer} is no layer of src/LAYERS")
            continue
        if target not in allowed:
            problems.append(f"{rel}:{n}: {header} is in no layer of src/LAYERS")
            continue
        if target in allowed[layer]:
            pairs[(layer, target, "allowed")] += 1
        elif (rel, header) in debt:
            used.add((rel, header))
            pairs[(layer, target, "debt")] += 1
        else:
            pairs[(layer, target, "FORBIDDEN")] += 1
            problems.append(f"{rel}:{n}: layer {layer} may not include {target} ({header})")
    bad = len(problems)  # includes that failed; stale allowances follow
    for key, n in sorted(debt.items(), key=lambda kv: kv[1]):
        if key not in used:
            problems.append(f"src/LAYERS:{n}: allowance no longer needed: {key[0]} {key[1]}")

    if args.counts:
        for (a, b, kind), n in sorted(pairs.items()):
            print(f"{n:4} {a} -> {b} {kind}")
        return 0
    for p in problems:
        print(p)
    print(f"layers: {checked - bad} passed, {len(problems)} failed "
          f"({checked} includes of src/ against src/LAYERS, {len(used)} allowed as listed debt)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
