"""Refine, step in, lookup, format, datasets and keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from dqkit.backends.base import AddressBackend
from dqkit.contract.address import Confidence, LookupKey, LookupRequest, SearchRequest
from dqkit.contract.address_components import AddOns, LocalityItem
from dqkit.contract.errors import BadRequestError, NotFoundError
from dqkit.engines.address import AddressEngine


def key_of(engine: AddressEngine, text: str, country: str = "USA") -> str:
    return engine.search(SearchRequest.of(text, country)).result.suggestions[0].global_address_key


def test_engine_speaks_the_backend_protocol(engine: AddressEngine) -> None:
    assert isinstance(engine, AddressBackend)
    assert engine.name.startswith("local-reference:")


def test_refine_a_building_with_a_unit(engine: AddressEngine) -> None:
    key = key_of(engine, "1200 main st springfield il")
    res = engine.refine(key, "apt 7").result
    assert res.confidence == Confidence.VERIFIED_MATCH
    assert [s.text for s in res.suggestions] == ["1200 Main St Apt 7, Springfield IL 62701"]
    assert res.suggestions[0].attribute("full_address") == "true" and res.suggestions[0].format
    # a bare number works too; a unit that does not exist says so
    assert engine.refine(key, "12").result.suggestions[0].text.startswith("1200 Main St Apt 12,")
    missing = engine.refine(key, "99").result
    assert missing.suggestions == [] and missing.confidence == Confidence.NO_MATCHES
    assert "99" in missing.suggestions_prompt


def test_refine_a_range_with_a_house_number(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("arch st philadelphia")).result
    even = next(s for s in res.suggestions if "[even]" in s.text)
    got = engine.refine(even.global_address_key, "24").result
    assert [s.text for s in got.suggestions] == ["24 Arch St, Philadelphia PA 19106"]
    assert got.confidence == Confidence.VERIFIED_MATCH
    # 25 is on the odd side: not in this range
    assert engine.refine(even.global_address_key, "25").result.suggestions == []
    assert "2 to 78" in engine.refine(even.global_address_key, "xyz").result.suggestions_prompt


def test_refine_the_list_with_more_text(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("1200 main st")).result
    got = engine.refine(res.suggestions_key, "01103").result
    assert got.suggestions[0].text == "1200 Main St, Springfield MA 01103"


def test_step_in(engine: AddressEngine) -> None:
    building = key_of(engine, "1200 main st springfield il")
    units = engine.step_in(building).result
    assert len(units.suggestions) == 40 and all(s.format for s in units.suggestions)
    assert units.suggestions[0].text == "1200 Main St Apt 1, Springfield IL 62701"
    arch = engine.search(SearchRequest.of("arch st")).result.suggestions
    odd = next(s for s in arch if "[odd]" in s.text)
    inside = engine.step_in(odd.global_address_key).result.suggestions
    assert len(inside) == 30 and inside[0].text.startswith("1 Arch St")


def test_lookup_by_postal_code(engine: AddressEngine) -> None:
    res = engine.lookup(LookupRequest(key=LookupKey("62704")))
    assert [s.text for s in res.addresses] == ["500 Elmwood Dr, Springfield IL 62704",
                                                 "502 Elmwood Dr, Springfield IL 62704"]
    ca = engine.lookup(LookupRequest(country_iso="CAN", key=LookupKey("m5v2t6"), max_suggestions=2))
    assert len(ca.addresses) == 2 and ca.more_results_available
    assert engine.lookup(LookupRequest(key=LookupKey("99999"))).confidence == Confidence.NO_MATCHES
    with pytest.raises(BadRequestError):
        engine.lookup(LookupRequest(key=LookupKey("62704", type="planet")))


def test_format_us(engine: AddressEngine) -> None:
    key = engine.refine(key_of(engine, "1200 main st springfield il"), "4").result.suggestions[0].global_address_key
    res = engine.format(key).result
    a = res.address
    assert (a.address_line_1, a.address_line_2, a.address_line_3) == ("1200 Main St Apt 4", "", "")
    assert (a.locality, a.region, a.postal_code, a.country) == ("Springfield", "IL", "62701",
                                                                "UNITED STATES OF AMERICA")
    assert res.components is None
    answer = engine.format(key, None, AddOns(components=True, metadata=True, enrichment=True))
    c = answer.result.components
    assert c is not None and c.street is not None and c.street.name == "Main" and c.street.type == "St"
    assert c.sub_building is not None and c.sub_building.door is not None and c.sub_building.door.value == "4"
    assert c.locality is not None and c.locality.region == LocalityItem(name="Illinois", code="IL")
    assert answer.metadata is not None and answer.metadata.address_classification is not None
    assert answer.enrichment is not None and answer.enrichment.result is not None
    assert answer.enrichment.result.geocodes is not None and answer.enrichment.result.geocodes.latitude


def test_format_ca_and_gb_layouts(engine: AddressEngine) -> None:
    ca = engine.format(key_of(engine, "301 front st w 102", "CAN")).result.address
    assert ca.address_line_1 == "102-301 FRONT ST W"  # Canada Post: upper case
    assert (ca.locality, ca.region, ca.postal_code, ca.country) == ("TORONTO", "ON", "M5V 2T6", "CANADA")
    gb = engine.format(key_of(engine, "221 baker street flat b", "GBR")).result.address
    assert (gb.address_line_1, gb.address_line_2) == ("Flat B", "221 Baker Street")
    assert (gb.locality, gb.region, gb.postal_code, gb.country) == ("LONDON", "", "NW1 6XE", "UNITED KINGDOM")


def test_format_of_a_group_is_refused(engine: AddressEngine) -> None:
    with pytest.raises(BadRequestError, match="group"):
        engine.format(key_of(engine, "1200 main st springfield il"))


@pytest.mark.parametrize("bad", ["", "x", "not-a-key", "A" * 40, "gqFhAAE" + "x" * 20])
def test_made_up_keys_are_not_found(engine: AddressEngine, bad: str) -> None:
    for call in (engine.format, engine.step_in, lambda k: engine.refine(k, "1")):
        with pytest.raises(NotFoundError):
            call(bad)


def test_keys_of_another_build_are_not_found(engine: AddressEngine, ref_files: dict[str, Path],
                                            tmp_path: Path) -> None:
    key = key_of(engine, "77 massachusetts ave")
    other = AddressEngine.from_files(list(ref_files.values()), out=tmp_path / "again.dqidx")
    with pytest.raises(NotFoundError, match="another index build"):
        other.format(key)
    tampered = key[:-3] + ("AAA" if not key.endswith("AAA") else "BBB")
    with pytest.raises(NotFoundError):
        engine.format(tampered)


def test_datasets(engine: AddressEngine) -> None:
    ds = {d.id: d for d in engine.datasets()}
    assert set(ds) == {"us-address", "ca-address", "gb-address"}
    assert ds["gb-address"].country_iso == "GBR" and ds["gb-address"].addresses == 3
    assert [d.id for d in engine.datasets("CAN")] == ["ca-address"]
    with pytest.raises(BadRequestError):
        engine.datasets("XX1")


def test_concurrent_use_from_threads(engine: AddressEngine) -> None:
    """The server calls the engine from a thread pool: answers must not depend on interleaving."""
    from concurrent.futures import ThreadPoolExecutor

    texts = ["77 mass", "1200 main st apt 3", "arch st", "springfield il", "10 downing", "masachusets ave",
             "500 elmwood", "1600 pennsylvania"] * 6

    def run(t: str) -> list[str]:
        country = "GBR" if "downing" in t else "USA"
        return [s.text for s in engine.search(SearchRequest.of(t, country)).result.suggestions]

    serial = [run(t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(run, texts)) == serial
