#!/usr/bin/env python3
"""Build ``xsid.csv``, the multilingual dev set: the same 493 requests in English, German, Danish, Italian,
Dutch and Turkish, each with its gold label (issue 35).

Source: xSID 0.7 (van der Goot et al., NAACL 2021; CC BY-SA 4.0), the test split of each language
(``data/xSID-0.7/<lang>.test.conll`` in https://github.com/mainlp/xsid): 500 English requests to a voice
assistant (from the Snips and Facebook multilingual task-oriented sets) and their translations by native
speakers, line for line (every translation carries its English text in ``# text-en``, checked equal
here, and the same intent). Three intents with fewer than five requests (snooze, time left on an alarm,
modify an alarm: 7 requests) are left out; the other 13 are named in English (:data:`LABELS`).

Output columns: ``id`` (the request's place in xSID's test file, the same in every language: parallel
rows share it), ``language`` (the file's language code), ``text`` and ``intent`` (the gold label).
Usage: python devsets/xsid/build.py XSID_DATA_DIR -> devsets/xsid/xsid.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "de", "da", "it", "nl", "tr")
LABELS = {  # xSID intent -> the label a lead would name
    "weather/find": "weather",
    "alarm/set_alarm": "set alarm",
    "alarm/cancel_alarm": "cancel alarm",
    "alarm/show_alarms": "show alarms",
    "reminder/set_reminder": "set reminder",
    "reminder/cancel_reminder": "cancel reminder",
    "reminder/show_reminders": "show reminders",
    "BookRestaurant": "book restaurant",
    "PlayMusic": "play music",
    "AddToPlaylist": "add to playlist",
    "RateBook": "rate book",
    "SearchCreativeWork": "search creative work",
    "SearchScreeningEvent": "movie showtimes",
}


def read_conll(path: Path) -> list[dict[str, str]]:
    """Each sentence's ``# key = value`` comment lines (text, text-en, intent), in file order."""
    sentences: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# ") and " = " in line:
            key, _, value = line[2:].partition(" = ")
            current[key.strip()] = value.strip()
        elif not line.strip() and current:
            sentences.append(current)
            current = {}
    if current:
        sentences.append(current)
    return sentences


def main() -> int:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    data = Path(sys.argv[1])
    english = read_conll(data / "en.test.conll")
    rows = []
    for code in LANGUAGES:
        sentences = english if code == "en" else read_conll(data / f"{code}.test.conll")
        if len(sentences) != len(english):
            raise SystemExit(f"{code}: {len(sentences)} sentences, English has {len(english)}")
        for i, (source, sentence) in enumerate(zip(english, sentences), start=1):
            if code != "en" and (sentence.get("text-en") != source["text"] or sentence["intent"] != source["intent"]):
                raise SystemExit(f"{code} sentence {i} is not the translation of English sentence {i}")
            if sentence["intent"] in LABELS:
                rows.append([i, code, sentence["text"], LABELS[sentence["intent"]]])
    with open(HERE / "xsid.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "language", "text", "intent"])
        writer.writerows(rows)
    each = len(rows) // len(LANGUAGES)
    print(f"{HERE / 'xsid.csv'}: {len(rows)} requests, {each} in each of {len(LANGUAGES)} languages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
