"""The open-data-only engine: ZIP / city / state checked, the street never claimed, keys never issued."""

from __future__ import annotations

import pytest

from dqkit.contract.address import Confidence, MatchType, SearchRequest
from dqkit.contract.errors import BadRequestError, NotFoundError
from dqkit.engines.address.openonly import OpenOnlyEngine

NEVER = {Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED, Confidence.PREMISES_PARTIAL,
         Confidence.STREET_PARTIAL, Confidence.VERIFIED_STREET}


@pytest.mark.parametrize("text", [
    "350 Fifth Avenue, New York, NY 10118", "1600 pennsylvania avenue nw washington dc 20500",
    "820 Talwrn Ct, Oakland CA 94611", "1 Main St, Beverly Hills, CA 90210", "1 main st 90211",
])
def test_a_place_at_most(text: str) -> None:
    got = OpenOnlyEngine(quiet=True).validate(SearchRequest.of(text)).result
    assert got.confidence == Confidence.VERIFIED_PLACE and got.match_type == MatchType.POST_CODE_NO_ADDRESS
    assert got.address is not None and got.address.postal_code and not got.address.address_line_1
    assert not got.global_address_key and got.match_confidence == "none"


def test_corrections_nothing_and_other_countries() -> None:
    e = OpenOnlyEngine(quiet=True)
    fixed = e.validate(SearchRequest.of("1 Main St, Beverly Hils, CA 90210")).result
    assert fixed.confidence == Confidence.VERIFIED_PLACE and fixed.address is not None
    assert fixed.address.locality == "Beverly Hills"
    assert all(e.validate(SearchRequest.of(t)).result.confidence not in NEVER
               for t in ("12 Nowhere Rd, Springfield ZZ 00000", "hello", "1 Main St, Springfield IL"))
    ca = e.validate(SearchRequest.of("24 Sussex Dr, Ottawa ON K1M 1M4", "CAN")).result
    assert (ca.confidence, ca.match_type) == (Confidence.NO_MATCHES, MatchType.UNPROCESSED)
    assert e.search(SearchRequest.of("350 Fif")).result.confidence == Confidence.NO_MATCHES
    with pytest.raises(NotFoundError):
        e.format("k6FhAMyt-7vhFoAKzXg")
    with pytest.raises(BadRequestError, match="no address reference is installed"):
        e.validate(SearchRequest.of("1 main st 90211", datasets=["us-address"]))
    with pytest.raises(BadRequestError, match="country_iso"):
        e.validate(SearchRequest.of("1 main st 90211", ""))
    assert [d.id for d in e.datasets("USA")] == ["us-open-data"] and e.datasets("GBR") == []
