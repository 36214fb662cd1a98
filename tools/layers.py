#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the driver's layers against its file map.

    tools/layers.py [--graph]

Documentation/design.rst's file map gives every file of
drivers/infiniband/sw/sroce/ a layer (core, objects, formats, wire,
glue, sched, entry, bottom to top). This checks, and exits 1 on any
finding:

- every source file of the driver is in the map, and every file in the
  map exists;
- no file includes a header of the driver that the map puts in a higher
  layer (include/sroce/, the core's headers, are the bottom layer);
- no object file uses a symbol that a file of a higher layer defines, as
  the built objects' symbol tables (nm) tell: calls and data, whatever a
  macro or an inline function hides;
- no circle runs through the files' calls and includes (a header and
  its source are two files), within a layer either;
- the core (core/ and include/sroce/) includes nothing but its own
  headers: only include/sroce/compat.h names a system or kernel header.

Calls through function pointers (handlers, the doors a layer hands down
at load) are not symbols and are not seen: design.rst names the two ways
back up that the driver has. The module must be built first (make).
--graph prints every edge, file -> file: names.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRV = os.path.join(ROOT, "drivers/infiniband/sw/sroce")
DOC = os.path.join(ROOT, "Documentation/design.rst")
LAYERS = ["core", "objects", "formats", "wire", "glue", "sched", "entry"]


def file_map():
    """file (relative to DRV) -> layer index, from design.rst's table"""
    text = open(DOC, encoding="utf-8").read()
    start = text.index("Kernel module, ``drivers/infiniband/sw/sroce/``")
    table = text[start:text.index("\n\n``Kbuild``", start)]
    layers = {}
    for m in re.finditer(r"^   \* - (\w+)\n     - (.+)$", table, re.M):
        if m.group(1) == "Layer":
            continue		# the header row
        if m.group(1) not in LAYERS:
            sys.exit(f"layers: design.rst: unknown layer {m.group(1)}")
        for name in re.findall(r"``([^`]+)``", m.group(2)):
            layers[name] = LAYERS.index(m.group(1))
    return layers


def sources():
    out = []
    for sub in ("", "core"):
        d = os.path.join(DRV, sub)
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")) and not f.endswith(".mod.c"):
                out.append(os.path.join(sub, f) if sub else f)
    return out


def core_pure():
    """findings: includes in the core other than its own headers"""
    bad = []
    core = [os.path.join(DRV, "core", f) for f in
            sorted(os.listdir(os.path.join(DRV, "core"))) if f.endswith(".c")]
    inc = os.path.join(ROOT, "include/sroce")
    core += [os.path.join(inc, f) for f in sorted(os.listdir(inc))
             if f.endswith(".h") and f != "compat.h"]
    for path in core:
        text = open(path, encoding="utf-8").read()
        for name in re.findall(r'^#\s*include\s*[<"]([^">]+)[">]', text,
                               re.M):
            if not name.startswith("sroce/"):
                bad.append(f"{os.path.relpath(path, ROOT)} includes {name}")
    return bad


def includes(files):
    edges = {}
    for f in files:
        text = open(os.path.join(DRV, f), encoding="utf-8").read()
        for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
            if inc.startswith("sroce/"):
                continue		# the core's headers: the bottom
            if f.startswith("core/"):
                inc = "core/" + inc
            edges.setdefault((f, inc), []).append("#include")
    return edges


def symbols(files):
    """(user, definer) -> names, from the objects' symbol tables"""
    defs, uses = {}, {}
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join(DRV, f[:-2] + ".o")
        if not os.path.exists(obj):
            sys.exit(f"layers: {obj} is missing: build the module (make)")
        if os.path.getmtime(obj) < os.path.getmtime(os.path.join(DRV, f)):
            sys.exit(f"layers: {obj} is older than its source: "
                     "build the module (make)")
        nm = subprocess.run(["nm", obj], capture_output=True, text=True,
                            check=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRV":
                defs[p[2]] = f
            elif len(p) == 2 and p[0] == "U":
                uses.setdefault(f, set()).add(p[1])
    edges = {}
    for f, names in uses.items():
        for n in names:
            d = defs.get(n)
            if d and d != f:
                edges.setdefault((f, d), []).append(n)
    return edges


def circles(edges):
    """strongly connected components of more than one file"""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    layers = file_map()
    files = sources()
    bad = 0
    for f in files:
        if f not in layers:
            print(f"layers: {f} is not in design.rst's file map")
            bad += 1
    for f in layers:
        if f not in files:
            print(f"layers: design.rst maps {f}, which does not exist")
            bad += 1
    if bad:
        return 1
    for finding in core_pure():
        print(f"layers: the core is not pure: {finding}")
        bad += 1
    edges = includes(files)
    for k, v in symbols(files).items():
        edges.setdefault(k, []).extend(v)
    for (a, b), names in sorted(edges.items()):
        if "--graph" in sys.argv:
            print(f"{a} -> {b}: {' '.join(sorted(set(names)))}")
        if b not in layers:
            continue
        if layers[b] > layers[a]:
            print(f"layers: {a} ({LAYERS[layers[a]]}) -> {b} "
                  f"({LAYERS[layers[b]]}): {' '.join(sorted(set(names)))}")
            bad += 1
    for comp in circles(edges):
        print(f"layers: circle: {' -> '.join(comp)}")
        bad += 1
    if not bad:
        print(f"layers: {len(files)} files in {len(LAYERS)} layers, "
              f"{len(edges)} edges, all downward, no circle")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
