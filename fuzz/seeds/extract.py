#!/usr/bin/env python3
"""Seeds the fuzz corpora from datagrams captured from stock ENet 1.3.17.

Reads the hex dumps in shared/reference (wiretrace-plain.txt,
wiretrace-compress.txt, wt-crc96.txt: lines "side <- N bytes: HEX", lines
cut short with "..." are skipped) and writes seed files in the input format
of each target:

  wire_parse/   mode byte (bit 0: checksum) + the datagram
  range_coder/  decoder mode (0) + limit + no splits + a compressed body,
                and round-trip mode (1) + two splits + a plain body

Usage: fuzz/seeds/extract.py [REFERENCE_DIR] [CORPUS_DIR]
(defaults: ../shared/reference beside the repository, and fuzz/corpus).
The engine and reassembly seeds come from `cargo run -p fuzz-logic
--example make-seeds` (their step formats are built in Rust).
"""
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LINE = re.compile(r"<- (\d+) bytes: ([0-9a-f]+)(\.\.\.)?\s*$")

# file -> (uses a checksum, may be compressed)
TRACES = {
    "wiretrace-plain.txt": (False, False),
    "wiretrace-compress.txt": (False, True),
    "wt-crc96.txt": (True, False),
}


def datagrams(path):
    with open(path) as f:
        for line in f:
            m = LINE.search(line)
            if not m or m.group(3):
                continue
            data = bytes.fromhex(m.group(2))
            if len(data) == int(m.group(1)):
                yield data


def header_len(datagram, checksum):
    word = int.from_bytes(datagram[:2], "big")
    length = 4 if word & 0x8000 else 2
    return length + (4 if checksum else 0), bool(word & 0x4000)


def write(corpus, target, data):
    directory = os.path.join(corpus, target)
    os.makedirs(directory, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    reference = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(REPO), "shared", "reference")
    if not os.path.isdir(reference):
        reference = "/work/shared/reference"
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(REPO, "fuzz", "corpus")
    counts = {}
    for name, (checksum, _) in TRACES.items():
        for datagram in datagrams(os.path.join(reference, name)):
            mode = 1 if checksum else 0
            write(corpus, "wire_parse", bytes([mode]) + datagram)
            counts["wire_parse"] = counts.get("wire_parse", 0) + 1
            hlen, compressed = header_len(datagram, checksum)
            body = datagram[hlen:]
            if compressed:
                limit = (4096).to_bytes(2, "big")
                write(corpus, "range_coder", bytes([0]) + limit + bytes([0]) + body)
            elif body:
                splits = bytes([2]) + (1).to_bytes(2, "big") + (len(body) // 2).to_bytes(2, "big")
                write(corpus, "range_coder", bytes([1, 0, 0]) + splits + body)
            counts["range_coder"] = counts.get("range_coder", 0) + 1
    for target, count in sorted(counts.items()):
        print(f"{target}: {count} seeds")


if __name__ == "__main__":
    main()
