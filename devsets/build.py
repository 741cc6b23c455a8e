#!/usr/bin/env python3
"""Build the dev sets from BANKING77 (not shipped: ../shared/data/banking77/test.csv, CC-BY-4.0).

Each grouping maps intents to support queues: all 77 (queues5, queues8), or a few (queues5narrow: 15 intents,
3 per queue, as a lead's queues often are); tickets of unmapped intents are left out. The output CSV has
text, category (the intent) and queue (the gold column).
Usage: python devsets/build.py [BANKING77_CSV] -> devsets/build/*.csv
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "data" / "banking77" / "test.csv"


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with open(source, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    out_dir = HERE / "build"
    out_dir.mkdir(exist_ok=True)
    for grouping in sorted(HERE.glob("*-grouping.json")):
        name = grouping.name.removesuffix("-grouping.json")
        queues = json.loads(grouping.read_text(encoding="utf-8"))
        unknown = set(queues) - {r["category"] for r in rows}
        if unknown:
            raise SystemExit(f"{grouping.name} maps intents BANKING77 does not have: {', '.join(sorted(unknown))}")
        kept = [r for r in rows if r["category"] in queues]
        with open(out_dir / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text", "category", "queue"])
            for row in kept:
                writer.writerow([row["text"], row["category"], queues[row["category"]]])
        print(f"{out_dir / (name + '.csv')}: {len(kept)} tickets, {len(set(queues.values()))} queues")
    return 0


if __name__ == "__main__":
    sys.exit(main())
