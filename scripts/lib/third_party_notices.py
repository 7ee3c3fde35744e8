#!/usr/bin/env python3
"""Writes the notices of the third-party code linked into the library.

usage: third_party_notices.py [--target TRIPLE] [--list]

The shipped library links in the Rust crates enet-rs depends on (normal
dependencies, followed transitively; build scripts and procedural macros
run at build time and are not part of the binary) and the Rust standard
library. Most of their licences (MIT, BSD, ISC, and ring's) ask that
their copyright notice travel with copies, binaries included, so a
package that ships only our own LICENSE is incomplete. For each crate
this prints its name, version and declared licence, and then the text of
every licence or notice file the crate ships.

With --list it prints only the crates, "name version: licence" a line,
as the Debian packages' copyright file names them.

Reads Cargo's dependency tree and metadata offline (Cargo.lock, the
registry's sources), so it needs the crates downloaded, as any build has
done. Exits non-zero if a crate declares no licence or ships no licence
file, which a release must not pass over silently.
"""

import argparse
import json
import os
import subprocess
import sys

LICENCE_FILE_PREFIXES = ("LICENSE", "LICENCE", "COPYING", "NOTICE", "COPYRIGHT")
ROOT_PACKAGE = "enet-rs"


def cargo(repo, *arguments):
    command = ["cargo", *arguments, "--locked", "--offline"]
    result = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    if result.returncode != 0:
        # `cargo metadata` reads every package of the lock file, those of
        # other systems too, which a fresh machine's builds have not
        # downloaded yet: fetch them once (from the registry, at the
        # locked versions), then ask again offline.
        subprocess.run(["cargo", "fetch", "--locked"], cwd=repo, check=True, capture_output=True)
        result = subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True)
    return result.stdout


def linked_packages(repo, target):
    """The packages whose code ends up in the library: enet-rs's normal
    dependencies, transitively, less procedural macros and our own
    workspace crates (which our LICENSE covers). Cargo's tree, not the
    metadata's graph: the tree resolves features for enet-rs alone, where
    the metadata unites those every workspace member asks for."""
    tree = ["tree", "-p", ROOT_PACKAGE, "-e", "normal,no-proc-macro", "--prefix", "none", "-f", "{p}"]
    if target:
        tree += ["--target", target]
    linked = set()
    for line in cargo(repo, *tree).splitlines():
        fields = line.split()
        # "name vX.Y.Z", then " (/path)" for a path crate (ours) and " (*)"
        # for one the tree has shown already.
        if len(fields) >= 2 and not (len(fields) > 2 and fields[2].startswith("(/")):
            linked.add((fields[0], fields[1].removeprefix("v")))
    meta = json.loads(cargo(repo, "metadata", "--format-version", "1"))
    packages = [p for p in meta["packages"] if (p["name"], p["version"]) in linked]
    found = {(p["name"], p["version"]) for p in packages}
    if found != linked:
        raise SystemExit(f"third_party_notices.py: not in Cargo's metadata: {sorted(linked - found)}")
    return sorted(packages, key=lambda package: (package["name"], package["version"]))


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
    parser.add_argument("--list", action="store_true", help="only the crates, a line each")
    arguments = parser.parse_args()
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

    packages = linked_packages(repo, arguments.target)
    files = {package["id"]: licence_files(package) for package in packages}
    missing = [p["name"] for p in packages if not p["license"] or not files[p["id"]]]
    if missing:
        print(
            "third_party_notices.py: no declared licence or no licence file in: "
            + ", ".join(missing),
            file=sys.stderr,
        )
        return 1
    listing = "".join(f"{p['name']} {p['version']}: {p['license']}\n" for p in packages)
    out = sys.stdout
    if arguments.list:
        out.write(listing)
        return 0

    out.write("Third-party code in the enet-rs library\n")
    out.write("=======================================\n\n")
    out.write(
        "enet-rs itself is under the MIT licence (LICENSE). The library also\n"
        "contains the Rust standard library (MIT OR Apache-2.0, the Rust\n"
        "project's authors) and the following crates, each under the licence\n"
        "it declares; where a crate offers a choice, any one of them may be\n"
        "used. Their licence and notice files follow, as each crate ships them.\n\n"
    )
    out.write("".join("  " + line + "\n" for line in listing.splitlines()))
    # Many crates ship the same text (Apache-2.0's, word for word): each
    # distinct text is written once, headed by every file that holds it.
    texts = {}
    for package in packages:
        for name, path in files[package["id"]]:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
