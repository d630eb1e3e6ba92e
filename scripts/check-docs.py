#!/usr/bin/env python3
"""Docs that match the repo: every relative link of the Markdown files resolves to a file of
the checkout (and its #anchor to a heading there), and every file a doc or a source comment
names by path (`docs/api.md`, `src/http/openapi.cc`, `CONTRACT.md`) exists. The ctest `docs`
runs it; prints "N passed, N failed"."""
import argparse
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A path a text names: under one of the repo's top folders, or a bare NAME.md.
PATH = re.compile(r"(?<![\w/.-])((?:docs|src|tests|scripts|sdk|examples|packaging|bench|cmake)/"
                  r"[\w./*-]*[\w/*]|[A-Z][A-Z_]*\.md)")
# In sources only the docs they point readers to: `docs/api.md`, `README.md`, `CONTRACT.md`.
DOC_REF = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.md|[A-Za-z][\w-]*\.md)\b")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.strip().lstrip("#").strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        cache[path] = set()
        counts = {}
        in_code = False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and re.match(r"#{1,6} ", line):
                s = slug(line)
                n = counts.get(s, 0)
                counts[s] = n + 1
                cache[path].add(s if n == 0 else f"{s}-{n}")
    return cache[path]


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def exists(root, files, rel):
    """A file or folder of the checkout; `src/http/routes` (a file's stem) names routes.cc/.h."""
    rel = rel.rstrip("/").rstrip(".")
    return (rel in files or any(f.startswith(rel + "/") or f.startswith(rel + ".") for f in files)
            or os.path.exists(os.path.join(root, rel)))


def check_links(root, files, doc, problems):
    base = os.path.dirname(doc)
    for n, line in enumerate(open(os.path.join(root, doc), encoding="utf-8"), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("mailto:"):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(base, path)) if path else doc
            if path and not exists(root, files, resolved):
                problems.append(f"{doc}:{n}: link to {target}: no such file")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(os.path.join(root, resolved)):
                problems.append(f"{doc}:{n}: link to {target}: no such heading")


def check_paths(root, files, name, problems, pattern=PATH):
    fenced = False
    for n, line in enumerate(open(os.path.join(root, name), encoding="utf-8", errors="replace"), 1):
        # A Markdown example (fenced, or indented 4) shows a session, not the repo's files.
        if name.endswith(".md"):
            fenced = fenced != line.startswith("```")
            if fenced or line.startswith("    "):
                continue
        for path in pattern.findall(line):
            # A placeholder (tests/SUITE/run.sh, <layer>, *.md) names no one file.
            if any(c in path for c in "<>*{}$") or re.search(r"(^|/)[A-Z]+(/|$)", path):
                continue
            base = os.path.normpath(os.path.join(os.path.dirname(name), path))
            if not (exists(root, files, path) or exists(root, files, base)):
                problems.append(f"{name}:{n}: names {path}, which the repo does not have")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = ap.parse_args().root
    files = tracked(root)
    docs = sorted(f for f in files if f.endswith(".md") and "node_modules/" not in f)
    sources = sorted(f for f in files if re.match(r"(src|tests|scripts|cmake|packaging)/.*\.(cc|h|sh|py|cmake|in)$", f)
                     and f != "scripts/check-docs.py")
    problems = []
    for doc in docs:
        check_links(root, files, doc, problems)
        check_paths(root, files, doc, problems)
    for name in sources:
        check_paths(root, files, name, problems, DOC_REF)
    for p in problems:
        print("FAIL " + p)
    checked = len(docs) + len(sources)
    print(f"docs: {checked - len({p.split(':')[0] for p in problems})} passed, "
          f"{len({p.split(':')[0] for p in problems})} failed ({len(docs)} Markdown files' links and paths, "
          f"{len(sources)} sources' paths)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
