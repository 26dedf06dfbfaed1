#!/usr/bin/env python3
"""Usage: scripts/check_layers.py [--root DIR]

Checks that the library's layers depend only on the layers below them.
Every folder directly under src/ is a layer; every `#include "x/..."` in a
file under src/<layer>/ must name the layer itself, a layer that LAYERS
allows it, or the public headers ("rcoll/...", allowed everywhere). The
public headers under include/rcoll/ may include only "rcoll/...", and the
Python binding (python/src/) only "rcoll/..." and its own files. A folder
under src/ that LAYERS does not name fails the check too, so a new layer
is added here, with what it may use, when it is created.

Prints one line per violation (file:line, the include, the rule broken)
and exits 1 if there is any, else prints a one-line summary and exits 0.
--root is the source tree to check (default: this script's repository);
the tests run it on small trees of their own (tests/layers/).

This table is the source of the layer order docs/ARCHITECTURE.md shows.
"""

import argparse
import pathlib
import re
import sys

# What each layer may include besides itself and "rcoll/...". A DAG, from
# the bottom up; checked on start.
LAYERS = {
    "common": set(),
    "topology": {"common"},
    "store": {"common"},
    "bootstrap": {"common", "store"},
    "transport": {"common", "topology", "store"},
    "collectives": {"common", "topology", "transport"},
    "tuning": {"common", "topology", "store", "transport", "collectives"},
    "diagnostics": {"common", "store", "transport"},
    "comm": {"common", "topology", "store", "bootstrap", "transport", "collectives", "tuning", "diagnostics"},
}
PUBLIC = "rcoll"
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cc", ".inl"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]*)"')


def check_table():
    """The table must name only layers and have no cycle (else the order is no order)."""
    for layer, allowed in LAYERS.items():
        unknown = allowed - LAYERS.keys()
        if unknown:
            raise SystemExit(f"check_layers: LAYERS[{layer!r}] names unknown layers {sorted(unknown)}")
    done, visiting = set(), []

    def visit(layer):
        if layer in done:
            return
        if layer in visiting:
            raise SystemExit("check_layers: LAYERS has a cycle: " + " -> ".join(visiting + [layer]))
        visiting.append(layer)
        for below in LAYERS[layer]:
            visit(below)
        visiting.pop()
        done.add(layer)

    for layer in LAYERS:
        visit(layer)


def quoted_includes(path):
    """(line number, included path) of every #include "..." in the file."""
    with open(path, encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1)


def layer_violations(root, path, layer):
    allowed = LAYERS[layer]
    for number, included in quoted_includes(path):
        target = included.split("/", 1)[0] if "/" in included else None
        if target in (layer, PUBLIC) or target in allowed:
            continue
        if target in LAYERS:
            rule = f"{layer} may include only {', '.join(sorted(allowed | {layer})) or 'itself'} and {PUBLIC}/"
        else:
            rule = f'an include from src/ must name a layer or {PUBLIC}/ ("<layer>/file.hpp")'
        yield f'{path.relative_to(root)}:{number}: #include "{included}": {rule}'


def public_violations(root, path):
    for number, included in quoted_includes(path):
        if not included.startswith(PUBLIC + "/"):
            yield (f'{path.relative_to(root)}:{number}: #include "{included}": '
                   f"the public headers may include only {PUBLIC}/")


def binding_violations(root, path):
    """The Python binding (python/src/) and the torch backend (python/torch/)
    are clients of the public API: they include rcoll/ and their own files
    (and, with <...>, torch's), never the library's internals."""
    for number, included in quoted_includes(path):
        if not included.startswith(PUBLIC + "/") and "/" in included:
            yield (f'{path.relative_to(root)}:{number}: #include "{included}": '
                   f"the Python binding may include only {PUBLIC}/ and its own files")


def sources(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def violations(root):
    src = root / "src"
    if not src.is_dir():
        raise SystemExit(f"check_layers: {src} is not a directory")
    for entry in sorted(src.iterdir()):
        if entry.is_dir():
            if entry.name not in LAYERS:
                yield (f"src/{entry.name}/: unknown layer: add it to LAYERS in scripts/check_layers.py "
                       "with the layers it may include")
                continue
            for path in sources(entry):
                yield from layer_violations(root, path, entry.name)
        elif entry.suffix in SOURCE_SUFFIXES:
            yield f"src/{entry.name}: a source file outside any layer: move it into one"
    public = root / "include" / PUBLIC
    if public.is_dir():
        for path in sources(public):
            yield from public_violations(root, path)
    for binding in (root / "python" / "src", root / "python" / "torch"):
        if binding.is_dir():
            for path in sources(binding):
                yield from binding_violations(root, path)


def main():
    parser = argparse.ArgumentParser(description="Checks the include rules between the layers of src/.")
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="source tree to check (default: this repository)")
    root = parser.parse_args().root.resolve()
    check_table()
    found = list(violations(root))
    for line in found:
        print(line)
    if found:
        print(f"check_layers: {len(found)} violation(s) of the layer rules", file=sys.stderr)
        return 1
    layers = sorted(p.name for p in (root / "src").iterdir() if p.is_dir())
    print(f"check_layers: {len(layers)} layers ({', '.join(layers)}), no violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
