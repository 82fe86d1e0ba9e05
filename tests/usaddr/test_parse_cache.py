"""The words after a house number are parsed once for each distinct run of words (issue 31): the cached parse
answers as the parse itself on the bundled leads' streets and on hard lines, read from every token on."""

from __future__ import annotations

import csv
from pathlib import Path

from dqkit.engines.usaddr import parser
from dqkit.engines.usaddr.tokens import tokenize

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample_leads.csv"
HARD = ["6910 # G Mary Caroline Cir", "1800 M St NW Ste 300", "4922 B S Cornell Ave", "100 1/2 Main St Apt 4",
        "Bldg 2 Apt 4 100 Main St", "12 State Highway 33 N", "5 County Road 12 Unit B", "77 Twenty First St",
        "9 E St NW", "3 Ave B", "PO Box 12", "RR 2 Box 152", "1533 Martin Luther King Jr Way Apt R 3",
        "22 15th Floor Park Ave", "8 N Ave", "10 Main St # 1 # 2 # 3", "1 I-80 W"]


def test_cached_parse_answers_as_the_parse() -> None:
    with SAMPLE.open(encoding="utf-8") as fh:
        lines = [r["STREET1"] for r in csv.DictReader(fh)]
    for line in [*lines, *HARD]:
        toks = [t for t in tokenize(line) if t != ","]
        for i in range(len(toks)):
            for nested in (False, True):
                want = parser._after_number_uncached(toks[i:], nested)
                assert parser._after_number(toks[i:], nested) == want, (line, i)
                assert parser._after_number(toks[i:], nested) == want, (line, i)  # from the cache


def test_the_cache_is_bounded() -> None:
    maxsize = parser._after_number_of.cache_info().maxsize
    assert maxsize is not None and maxsize <= 65536
