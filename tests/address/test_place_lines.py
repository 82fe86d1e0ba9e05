"""Issue 33 (made-up streets at national size): a Verified place's lines are written from the street row alone
(`layout.locality_lines`), not by decoding an address of the street and blanking its delivery lines. They must
be what that gave: every street of references of three countries, and the Verified place answers of made-up
streets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dqkit.contract.address import Address, Confidence, SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.layout import locality_lines, seven_lines


def _by_first_address(eng: AddressEngine, s: int, postcode: bool) -> Address:
    """The lines as validate wrote them before: the street's first address, delivery lines blanked."""
    ix = eng.index
    full = seven_lines(ix.datasets[ix.street(s).dataset].iso2, ix.address(int(ix.s_lo[s])))
    full.address_line_1, full.address_line_2, full.address_line_3 = "", "", ""
    full.postal_code = ix.street(s).postcode if postcode else ""
    return full


def test_locality_lines_are_the_first_address_lines(engine: AddressEngine) -> None:
    ix = engine.index
    assert {d.iso2 for d in ix.datasets} >= {"US", "CA", "GB"}
    for s in range(ix.street_count):
        iso2 = ix.datasets[ix.street(s).dataset].iso2
        for postcode in (True, False):
            got = locality_lines(iso2, ix.street(s), ix.street(s).postcode if postcode else "")
            assert got == _by_first_address(engine, s, postcode), (s, postcode)


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_made_up_street_place_lines(seed: int, tmp_path: Path) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=20_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    ix = eng.index
    rng = random.Random(seed)
    places = 0
    for a in rng.sample(range(ix.address_count), 40):
        r = ix.address(a)
        s = r.street
        name = "".join(rng.choice(["bra", "ven", "tol", "quo", "zan", "gor"]) for _ in range(3))
        for text in (f"{r.number} {name} {s.suffix}, {s.city}, {s.region} {s.postcode}",
                     f"{r.number} {name} {s.suffix}, {s.city}, {s.region}"):
            got = eng.validate(SearchRequest.of(text)).result
            if got.confidence != Confidence.VERIFIED_PLACE or got.address is None:
                continue
            places += 1
            typed_pc = s.postcode in text
            lo, _ = ix.streets_in_postcode(ix.datasets[0], s.postcode)
            firsts = [t for t in range(ix.street_count) if ix.street(t).city == s.city] if not typed_pc else [lo]
            assert any(got.address == _by_first_address(eng, t, typed_pc) for t in firsts), text
    assert places >= 40
