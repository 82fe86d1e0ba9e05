"""The postcode a person typed in a whole address: what validate compares its answer with, and what the evidence
check reads as the typed locality."""

from __future__ import annotations

import re
from typing import Final

from dqkit.engines.address_index.countries import country
from dqkit.engines.address_index.tokens import tokens

_ZIP_RE: Final = re.compile(r"\b\d{5}(?:-\d{4})?\b")


def typed_postcode(iso2: str, text: str) -> str:
    """The typed postcode of `text` ("" when none): for the US the last 5-digit group that is not the first token
    (a house number can have five digits too), elsewhere the country's postcode pattern read from the end."""
    if iso2 == "US":
        for x in reversed(list(_ZIP_RE.finditer(text))):
            if x.start() > 0 and text[:x.start()].strip():
                return x.group()[:5]
        return ""
    pat = country(iso2).postcode_re
    if pat is None:
        return ""
    toks = tokens(text)
    for i in range(len(toks) - 1, 0, -1):  # from the end: the postcode closes the address
        for cand in (f"{toks[i - 1]} {toks[i]}", toks[i]):
            if any(c.isdigit() for c in cand) and pat.fullmatch(cand):
                return cand
    return ""
