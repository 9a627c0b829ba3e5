#!/usr/bin/env python3
"""Which crates' code a running process keeps resident.

Usage (as root, for /proc/PID/pagemap): scripts/resident_code.py PID [BINARY]

Walks the executable mapping of BINARY (default: the process's own executable)
page by page in /proc/PID/pagemap, and gives each resident page to the crate
whose functions (`nm -C`) cover most of it. Prints the resident text in all,
then per crate: MB resident and MB of text in the binary. Generic code
instantiated from core/alloc/std is named after the first other crate in its
symbol (`vec(via alloc)` when there is none).

Read with the page cache in mind: the kernel maps the neighbours of every
touched page (fault-around, large folios), so a crate whose code barely runs
can still be largely resident. Compare builds after
`sync; echo 3 > /proc/sys/vm/drop_caches`.
"""

import bisect
import collections
import os
import re
import struct
import subprocess
import sys

PAGE = 4096


def crate_of(symbol):
    name = symbol.lstrip("<&*( ").replace("dyn ", "").replace("mut ", "")
    match = re.match(r"([A-Za-z_][A-Za-z0-9_]*)", name)
    crate = match.group(1) if match else "?"
    if crate in ("core", "alloc", "std"):
        for candidate in re.findall(r"([a-z_][a-z0-9_]*)::", symbol):
            if candidate not in ("core", "alloc", "std", "impl"):
                return f"{candidate}(via {crate})"
    return crate


def main():
    pid = int(sys.argv[1])
    binary = sys.argv[2] if len(sys.argv) > 2 else os.readlink(f"/proc/{pid}/exe")
    maps = [line.split() for line in open(f"/proc/{pid}/maps")]
    mine = [m for m in maps if len(m) >= 6 and m[5] == binary]
    base = min(int(m[0].split("-")[0], 16) - int(m[2], 16) for m in mine)
    symbols = []
    listing = subprocess.run(["nm", "-C", "--defined-only", "-S", binary], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "tTwW":
            symbols.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    symbols.sort()
    starts = [s[0] for s in symbols]
    in_binary = collections.Counter()
    for _, size, name in symbols:
        in_binary[crate_of(name)] += size
    resident = collections.Counter()
    pages = 0
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for mapping in (m for m in mine if "x" in m[1]):
            low, high = (int(x, 16) for x in mapping[0].split("-"))
            for address in range(low, high, PAGE):
                pagemap.seek(address // PAGE * 8)
                if not struct.unpack("Q", pagemap.read(8))[0] >> 63:
                    continue
                pages += 1
                offset = address - base
                cover = collections.Counter()
                i = bisect.bisect_right(starts, offset + PAGE) - 1
                while i >= 0:
                    start, size, name = symbols[i]
                    if start + size <= offset:
                        if start < offset - (1 << 16):
                            break
                    else:
                        overlap = min(start + size, offset + PAGE) - max(start, offset)
                        if overlap > 0:
                            cover[crate_of(name)] += overlap
                    i -= 1
                resident[cover.most_common(1)[0][0] if cover else "?"] += 1
    print(f"resident text: {pages * PAGE / 2**20:.1f} MB")
    for crate, n in resident.most_common(40):
        print(f"{n * PAGE / 2**20:7.2f} MB resident {in_binary[crate] / 2**20:7.2f} MB in the binary  {crate}")


if __name__ == "__main__":
    main()
