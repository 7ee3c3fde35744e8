#!/usr/bin/env python3
"""Writes the notices of the third-party code linked into the library.

usage: third_party_notices.py [--target TRIPLE]

The shipped library links in the Rust crates enet-rs depends on (normal
dependencies, followed transitively; build scripts and procedural macros
run at build time and are not part of the binary) and the Rust standard
library. Most of their licences (MIT, BSD, ISC, and ring's) ask that
their copyright notice travel with copies, binaries included, so a
package that ships only our own LICENSE is incomplete. For each crate
this prints its name, version and declared licence, and then the text of
every licence or notice file the crate ships.

Reads Cargo's metadata offline (Cargo.lock, the registry's sources), so
it needs the crates downloaded, as any build has done. Exits non-zero if
a crate declares no licence or ships no licence file, which a release
must not pass over silently.
"""

import argparse
import json
import os
import subprocess
import sys

LICENCE_FILE_PREFIXES = ("LICENSE", "LICENCE", "COPYING", "NOTICE", "COPYRIGHT")
ROOT_PACKAGE = "enet-rs"


def metadata(repo, target):
    command = ["cargo", "metadata", "--locked", "--offline", "--format-version", "1"]
    if target:
        command += ["--filter-platform", target]
    output = subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True)
    return json.loads(output.stdout)


def linked_packages(meta):
    """The packages whose code ends up in the library: enet-rs's normal
    dependencies, transitively, less procedural macros and enet-rs's own
    workspace (which our LICENSE covers)."""
    packages = {package["id"]: package for package in meta["packages"]}
    nodes = {node["id"]: node for node in meta["resolve"]["nodes"]}
    workspace = set(meta["workspace_members"])
    root = next(id for id in workspace if packages[id]["name"] == ROOT_PACKAGE)

    def is_proc_macro(package):
        return any("proc-macro" in target["kind"] for target in package["targets"])

    seen, stack = set(), [root]
    while stack:
        id = stack.pop()
        if id in seen:
            continue
        seen.add(id)
        for dependency in nodes[id]["deps"]:
            normal = any(kind["kind"] is None for kind in dependency["dep_kinds"])
            if normal and not is_proc_macro(packages[dependency["pkg"]]):
                stack.append(dependency["pkg"])
    linked = [packages[id] for id in seen if id not in workspace]
    return sorted(linked, key=lambda package: (package["name"], package["version"]))


def licence_files(package):
    directory = os.path.dirname(package["manifest_path"])
    names = sorted(
        name
        for name in os.listdir(directory)
        if name.upper().startswith(LICENCE_FILE_PREFIXES)
        and os.path.isfile(os.path.join(directory, name))
    )
    return [(name, os.path.join(directory, name)) for name in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", help="the target triple the library is built for")
    arguments = parser.parse_args()
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

    packages = linked_packages(metadata(repo, arguments.target))
    missing = []
    out = sys.stdout
    out.write("Third-party code in the enet-rs library\n")
    out.write("=======================================\n\n")
    out.write(
        "enet-rs itself is under the MIT licence (LICENSE). The library also\n"
        "contains the Rust standard library (MIT OR Apache-2.0, the Rust\n"
        "project's authors) and the following crates, each under the licence\n"
        "it declares; where a crate offers a choice, any one of them may be\n"
        "used. Their licence and notice files follow, as each crate ships them.\n\n"
    )
    for package in packages:
        out.write(f"  {package['name']} {package['version']}: {package['license'] or '(none)'}\n")
    # Many crates ship the same text (Apache-2.0's, word for word): each
    # distinct text is written once, headed by every file that holds it.
    texts = {}
    for package in packages:
        files = licence_files(package)
        if not package["license"] or not files:
            missing.append(package["name"])
        for name, path in files:
            with open(path, encoding="utf-8", errors="replace") as text:
                body = text.read().rstrip() + "\n"
            # Texts that differ only in line breaks and indentation are one.
            key = " ".join(body.split())
            texts.setdefault(key, (body, []))[1].append(
                f"{package['name']} {package['version']}: {name}"
            )
    for body, holders in texts.values():
        title = "; ".join(holders)
        out.write(f"\n\n{title}\n{'-' * min(len(title), 72)}\n\n{body}")
    if missing:
        print(
            "third_party_notices.py: no declared licence or no licence file in: "
            + ", ".join(missing),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
