"""A phone's status is cached on its area code, exchange and ZIP, its pattern read per number (issue 31): the
same status pair as reading the whole number, for every kind of number and ZIP."""

from __future__ import annotations

import random

from dqkit.engines import zipdata
from dqkit.engines.lead import phones


def _whole_number_status(digits: str, zip5: str) -> tuple[str, str]:
    """The status as it was read before the cache: every step on the whole number."""
    npa, nxx = digits[:3], digits[3:6]
    n = phones._numbering()
    if npa[0] in "01" or npa not in n.npa_regions:
        return phones._BAD_AREA
    if nxx[0] in "01" or nxx in phones._NOT_SUBSCRIBER or not phones._fits_pattern(n, digits):
        return phones._BAD_PREFIX
    info = zipdata.zip_info(zip5)
    if info is None:
        return phones._NOT_ZIP_AREA
    if npa in info.area_codes:
        return phones._GOOD
    place = phones._prefix_place(n, digits)
    if place is not None and place[1] == info.state and place[0] in info.cities:
        return phones._GOOD
    if info.state in zipdata.states_of_area_code(npa) or n.state_of_npa.get(npa) == info.state:
        return phones._NOT_ZIP
    return phones._NOT_ZIP_AREA


def test_cached_status_is_the_whole_numbers() -> None:
    rnd = random.Random(31)
    n = phones._numbering()
    npas = sorted(n.npa_regions)
    prefixes = sorted(n.places)  # geocoded prefixes: the place rule is reached
    zips = ["94043", "62701", "10001", "00601", "99501", "96799", "00000", "09001", "33101", "02134"]
    seen = set()
    for _ in range(6000):
        head = rnd.choice(prefixes)[:6] if rnd.random() < 0.5 else rnd.choice(npas) + f"{rnd.randint(0, 999):03d}"
        digits = (head + f"{rnd.randint(0, 9999):04d}")[:10]
        for zip5 in (rnd.choice(zips), rnd.choice(zips)):
            got = phones._status(digits, zip5)
            assert got == _whole_number_status(digits, zip5) == phones._status(digits, zip5), (digits, zip5)
            seen.add(got)
    assert len(seen) >= 4  # good, another ZIP's area, no area code's ZIP, bad prefix at least


def test_the_cache_is_bounded() -> None:
    maxsize = phones._place_status.cache_info().maxsize
    assert maxsize is not None and maxsize <= 65536
