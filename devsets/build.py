#!/usr/bin/env python3
"""Build the dev sets from BANKING77 and CLINC150 (not shipped: ../shared/data/, CC-BY-4.0 and CC-BY-3.0).

Each grouping maps intents to support queues. BANKING77 (test set): all 77 intents (queues5, queues8) or a
few (queues5narrow: 15 intents, 3 per queue, as a lead's queues often are). CLINC150 (test set, in-scope
requests): its ten domains as queues (clinc-domains, 10 tickets per intent), and a grouping of 49 banking,
card, travel and work intents into six queues of our own (clinc-support, every test ticket), and 56 car,
food, schedule and device-setting intents from five domains into four queues of a voice assistant's help
desk (clinc-assistant, every test ticket: a set no weight or default was tuned on, issue 33). Tickets of
unmapped intents are left out. Every set also comes as a terse variant (NAME-terse.csv, same prompt): lower
case, punctuation and English stop words removed, as exported internal tickets often are ("printer
offline floor 3"). The output CSV has text, category (the intent) and queue (the gold column).

Two sets have two fields each (issue 34), with a gold column named after each field (``classify --train``
and ``eval --gold field=column`` read them): bank-fields (every BANKING77 test ticket; ``queue``: the five
queues of queues5; ``priority``: low, medium or high, a grouping of our own that cuts across the queues,
bank-priority.json: high where money or access is at risk now (lost, stolen or compromised card or phone,
a payment or withdrawal not recognised, charged twice, wrong cash, a transfer that never arrived, a
blocked PIN or forgotten passcode: 12 intents), medium where something went wrong with no money lost
(declined, pending, failed or reverted payments, transfers and top-ups, a card that does not work or
has not arrived, a disputed fee or rate, a refund: 31), low for questions and how-tos (34)) and
clinc-fields (CLINC150's test tickets of four domains, banking, credit cards, travel and work: ``domain``
and ``intent``, its 60 intents). Prompts: bank-fields-prompt.json, clinc-fields-prompt.json.
Usage: python devsets/build.py [DATA_DIR] -> devsets/build/*.csv
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "data"
# scikit-learn's English stop words minus those that carry a ticket's meaning (negations, "off", "on", "bill",
# "top", "interest", "call", "system", "name", "back", "find", "move", "full", "empty", "fire", "show", ...).
_STOP_TEXT = """
    a about above across after afterwards again against all almost alone along already also although always am
    among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere are around as at be
    became because become becomes becoming been before beforehand behind being below beside besides between
    beyond both bottom but by can cannot cant co con could couldnt de do done down due during each eg eight
    either eleven else elsewhere enough etc even ever every everyone everything everywhere except few fifteen
    fifty fill first five for former formerly forty four from front further get go had has hasnt have he hence
    her here hereafter hereby herein hereupon hers herself him himself his how however hundred i ie if in inc
    indeed into is it its itself last latter latterly least less ltd made many may me meanwhile might mill mine
    more moreover most mostly much must my myself namely neither never nevertheless next nine nobody noone nor
    nothing now nowhere of often once one only onto or other others otherwise our ours ourselves out over own
    part per perhaps please put rather re same see seem seemed seeming seems serious several she should side
    since sincere six sixty so some somehow someone something sometime sometimes somewhere still such ten than
    that the their them themselves then thence there thereafter thereby therefore therein thereupon these they
    thick thin third this those though three through throughout thru thus to together too toward towards twelve
    twenty two un under until up upon us very via was we well were what whatever when whence whenever where
    whereafter whereas whereby wherein whereupon wherever whether which while whither who whoever whole whom
    whose why will with within without would yet you your yours yourself yourselves
"""
STOP_WORDS = set(_STOP_TEXT.split())
SOURCES = {  # dev-set name prefix -> (file under DATA_DIR, intent column)
    "clinc-": ("clinc150/test.csv", "intent"),
    "": ("banking77/test.csv", "category"),
}
PER_INTENT = {"clinc-domains": 10}  # at most this many tickets of each intent (the first ones in the file)
CLINC_DOMAINS = ("banking", "credit_cards", "travel", "work")  # clinc-fields: 60 intents (a prompt holds 100)


def terse(text: str) -> str:
    """Lower case, punctuation and stop words removed: "I still haven't received my card!" -> "still received card"."""
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())
    kept = [w for w in words if w.split("'")[0] not in STOP_WORDS and not w.endswith("'t")]
    return " ".join(kept) or " ".join(words)


def main() -> int:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    out_dir = HERE / "build"
    out_dir.mkdir(exist_ok=True)
    for grouping in sorted(HERE.glob("*-grouping.json")):
        name = grouping.name.removesuffix("-grouping.json")
        source, column = next(v for k, v in SOURCES.items() if name.startswith(k))
        with open(data / source, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        queues = json.loads(grouping.read_text(encoding="utf-8"))
        unknown = set(queues) - {r[column] for r in rows}
        if unknown:
            raise SystemExit(f"{grouping.name} maps intents {source} does not have: {', '.join(sorted(unknown))}")
        seen: dict[str, int] = {}
        kept = []
        for row in rows:
            intent = row[column]
            if intent in queues and seen.get(intent, 0) < PER_INTENT.get(name, 10**9):
                seen[intent] = seen.get(intent, 0) + 1
                kept.append(row)
        for suffix, transform in (("", str.strip), ("-terse", terse)):
            path = out_dir / f"{name}{suffix}.csv"
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(["text", "category", "queue"])
                for row in kept:
                    writer.writerow([transform(row["text"]), row[column], queues[row[column]]])
            print(f"{path}: {len(kept)} tickets, {len(set(queues.values()))} queues")
    build_fields(data, out_dir)
    return 0


def spaced(name: str) -> str:
    return name.replace("_", " ")


def build_fields(data: Path, out_dir: Path) -> None:
    """The two-field sets (see the module docstring): a gold column per field, named after it."""
    queues = json.loads((HERE / "queues5-grouping.json").read_text(encoding="utf-8"))
    priority = json.loads((HERE / "bank-priority.json").read_text(encoding="utf-8"))
    domains = json.loads((data / "clinc150" / "domains.json").read_text(encoding="utf-8"))
    domain_of = {intent: spaced(d) for d in CLINC_DOMAINS for intent in domains[d]}
    sets = {
        "bank-fields": ("banking77/test.csv", "category", {"queue": queues, "priority": priority}),
        "clinc-fields": (
            "clinc150/test.csv",
            "intent",
            {"domain": domain_of, "intent": {intent: spaced(intent) for intent in domain_of}},
        ),
    }
    for name, (source, column, fields) in sets.items():
        with open(data / source, encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if all(r[column] in m for m in fields.values())]
        path = out_dir / f"{name}.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text", "category", *fields])
            for row in rows:
                writer.writerow([row["text"].strip(), row[column], *(m[row[column]] for m in fields.values())])
        sizes = ", ".join(f"{field} {len(set(m.values()))}" for field, m in fields.items())
        print(f"{path}: {len(rows)} tickets; labels per field: {sizes}")


if __name__ == "__main__":
    sys.exit(main())
