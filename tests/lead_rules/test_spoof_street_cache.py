"""The street spoof check looks up a street's words once for every house number (issue 31): the same answer as
every rule read on the whole line, on the bundled leads and on lines made to hit each rule, and a bounded cache."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from dqkit.engines.lead import spoof

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample_leads.csv"


def _whole_line(value: str) -> spoof._Found | None:
    return spoof._check_field.__wrapped__(spoof._STREET, value, False)  # type: ignore[attr-defined]


def _made_lines(n: int, seed: int) -> list[str]:
    """House numbers (some that read as words: 58008, 80085) before words that hit every kind of street rule:
    vulgar words and roots, leet and spaced letters, keyboard runs, look-alike scripts, fictional streets."""
    places = [ln.split(" ", 1)[1] for ln in spoof._lines("fictional_places.txt") if ln.startswith("street ")]
    words = [*spoof._lines("vulgar_words.txt")[:40], "f", "u", "c", "k", "fu", "ck", "sh1t", "@ss", "5h!t",
             "qwerty", "asdf", "Main", "St", "Street", "Évergreen", "Тест", "ｔｅｓｔ", "#4", "Apt", "1/2", ",", "-",
             "\u0301x", "Bjørn", "Terrace"]
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        number = str(rnd.choice([1, 12, 123, 742, 69, 420, 58008, 80085, 5318008, rnd.randint(0, 99999)]))
        rest = " ".join(rnd.choice(words + places) for _ in range(rnd.randint(0, 4)))
        out.append(number + rnd.choice([" ", " ", "  ", "", "-", " #"]) + rest)
    return out


def test_street_check_answers_as_the_whole_line_does() -> None:
    with SAMPLE.open(encoding="utf-8") as fh:
        lines = {r[k] for r in csv.DictReader(fh) for k in ("STREET1", "STREET2")}
    lines |= {"742 Evergreen Terrace", "123 Test St", "123 Test", "58008 Main St", "5 F U C K Ave"}
    lines |= set(_made_lines(5000, seed=31)) | set(_made_lines(2000, seed=random.randrange(1 << 30)))
    found = 0
    for line in lines:
        whole = _whole_line(line)
        assert spoof._check_street(line) == whole, line
        found += whole is not None
    assert found > 500  # the made lines do reach the rules
    assert spoof._check_street("742 Evergreen Terrace") == (spoof.PLACEHOLDER, "742evergreenter")


def test_street_words_cache_is_bounded() -> None:
    maxsize = spoof._street_words.cache_info().maxsize
    assert maxsize is not None and maxsize <= 65536
