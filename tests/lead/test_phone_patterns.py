"""A number's pattern check compiles a region's pattern only when the number reaches it (issue 31: compiling every
region an area code lists cost 16 ms of 10 leads in a new process), with the answer of checking every region."""

from __future__ import annotations

import copy
import random
import re

import pytest

from dqkit.engines.lead import phones


def _every_region(digits: str) -> bool:
    """The check as it was: every region of the area code compiled, then any of them taking the number."""
    n = phones._numbering()
    regions = [n._regions[i] for i in n.npa_regions[digits[:3]]]
    return any(re.fullmatch(general, digits) and re.fullmatch(types, digits) for general, types in regions)


def test_the_same_answer_as_every_region_for_numbers_of_every_area_code() -> None:
    rnd = random.Random(3117)
    n = phones._numbering()
    taken = 0
    for npa in sorted(n.npa_regions):
        for _ in range(12):
            digits = npa + rnd.choice("23456789") + "".join(rnd.choice("0123456789") for _ in range(6))
            fits = phones._fits_pattern(n, digits)
            assert fits == _every_region(digits), digits
            taken += fits
    assert taken > 1000  # most numbers of an existing area code are valid: the check is not all "no"


def test_a_valid_us_number_compiles_only_the_regions_it_reaches(monkeypatch: pytest.MonkeyPatch) -> None:
    n = copy.copy(phones._numbering())
    n._compiled = {}  # a fresh process's: nothing compiled yet
    assert len(n.npa_regions["501"]) > 2  # an area code listing many regions (all 25 in this metadata)
    compiled: list[str] = []
    real = re.compile

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(phones.re, "compile", counting)
    assert phones._fits_pattern(n, "5012225555")
    assert len(compiled) <= 2  # the first region took it: its general and number-type patterns (was 50)


def test_a_process_decodes_the_places_of_the_area_codes_its_numbers_have() -> None:
    """The shipped places are read by area code (decoding all 31,000 cost 10-28 ms of 10 leads in a new process),
    with the same place for every prefix as the tables built from phonenumbers."""
    key = phones._source_key()
    shipped = phones._read(phones.PREPARED_FILE, key, phones._Shipped)
    if shipped is None:
        pytest.skip(f"the shipped numbering tables were made from another phonenumbers ({key})")
    n = phones._Numbering(shipped)
    assert phones._prefix_place(n, "2012001234") == ("JERSEY CITY", "NJ")
    decoded = [npa for npa, v in n._places.items() if isinstance(v, dict)]
    assert decoded == ["201"]  # one area code asked, one decoded
    built = phones._Numbering(phones._build())
    assert n.places == built.places and len(n.places) > 30_000
    for prefix in list(built.places)[::97]:
        digits = (prefix + "2345678")[:10]
        assert phones._prefix_place(n, digits) == phones._prefix_place(built, digits)
