"""Measure language detectors on the short-text sample: accuracy and tickets per second.

Run: PYTHONPATH=. python devsets/languages/measure.py [--lingua]
(``--lingua`` needs lingua-language-detector importable; it is not a dependency of the app.)
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _sample() -> list[tuple[str, str]]:
    with open(HERE / "short_texts.tsv", encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["language"], row["text"]) for row in reader]


def _report(name: str, predict, rows: list[tuple[str, str]], repeat: int = 5) -> None:
    predict(rows[0][1])  # load the model outside the clock
    start = time.perf_counter()
    for _ in range(repeat):
        guesses = [predict(text) for _, text in rows]
    seconds = (time.perf_counter() - start) / repeat
    right = sum(guess == gold for guess, (gold, _) in zip(guesses, rows))
    unknown = sum(not guess for guess in guesses)
    wrong = [(gold, guess, text) for guess, (gold, text) in zip(guesses, rows) if guess != gold]
    print(
        f"{name}: {right}/{len(rows)} right ({right / len(rows):.1%}), {unknown} unknown, "
        f"{len(rows) - right - unknown} wrong; {len(rows) / seconds:,.0f} texts/s"
    )
    for gold, guess, text in wrong:
        print(f"   {gold} -> {guess or '-'}: {text}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lingua", action="store_true")
    args = parser.parse_args()
    rows = _sample()
    from triage_gui.engine.table import LANGUAGES, detect_language

    started = time.perf_counter()
    detect_language("warm up: the model loads on first use")
    print(f"app's detector loaded in {time.perf_counter() - started:.1f} s")
    _report("app (py3langid, 14 languages, unknown below 8 letters or p 0.5)", detect_language, rows)
    import py3langid

    full = py3langid.langid.LanguageIdentifier.from_model_file(py3langid.langid.MODEL_FILE, norm_probs=True)
    _report("py3langid, all 97 languages", lambda text: full.classify(text)[0], rows)
    if args.lingua:
        from lingua import IsoCode639_1, LanguageDetectorBuilder

        codes = [getattr(IsoCode639_1, {"no": "NB"}.get(code, code.upper())) for code in LANGUAGES]
        for label, builder in (
            ("lingua, same languages", LanguageDetectorBuilder.from_iso_codes_639_1(*codes)),
            ("lingua, all languages", LanguageDetectorBuilder.from_all_languages()),
        ):
            detector = builder.build()

            started = time.perf_counter()
            detector.detect_language_of("warm up")
            print(f"{label}: loaded in {time.perf_counter() - started:.1f} s")

            def guess(text: str, detector=detector) -> str:
                found = detector.detect_language_of(text)
                return found.iso_code_639_1.name.lower() if found else ""

            _report(label, guess, rows)


if __name__ == "__main__":
    main()
