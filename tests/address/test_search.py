"""Search and type-down: suggestion fields, tolerance of what people type, ranking, grouping."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dqkit.contract.address import Confidence, SearchRequest, SearchResponse, SearchType, Suggestion
from dqkit.contract.errors import BadRequestError
from dqkit.engines.address import AddressEngine


def texts(engine: AddressEngine, text: str, country: str = "USA", **kw: object) -> list[str]:
    return [s.text for s in engine.search(SearchRequest.of(text, country, **kw)).result.suggestions]  # type: ignore[arg-type]


def first(engine: AddressEngine, text: str, country: str = "USA") -> Suggestion:
    res = engine.search(SearchRequest.of(text, country)).result
    assert res.suggestions, f"no suggestion for {text!r}"
    return res.suggestions[0]


def test_suggestion_has_every_seed_field(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("77 massachusetts ave cambridge")).result
    assert res.confidence == Confidence.VERIFIED_MATCH
    assert res.suggestions_key
    s = res.suggestions[0]
    assert s.text == "77 Massachusetts Ave, Cambridge MA 02139"
    assert s.global_address_key and s.format == f"address/format/v1/{s.global_address_key}"
    names = [a.name for a in s.additional_attributes]
    assert names == ["picklist_display", "score", "postcode", "full_address", "multiples", "unresolvable_range"]
    assert s.attribute("postcode") == "02139"
    assert s.attribute("full_address") == "true" and s.attribute("multiples") == "false"
    assert 0 <= int(s.attribute("score")) <= 100
    # matched ranges point at the typed words in the text
    assert [s.text[a:b] for a, b in s.matched] == ["Cambridge", "Ave", "Massachusetts", "77"]
    # the wire form round-trips through the contract model
    wire = msgspec.json.encode(engine.search(SearchRequest.of("77 massachusetts")))
    assert msgspec.json.decode(wire, type=SearchResponse).result.suggestions[0].text == s.text


@pytest.mark.parametrize("typed", [
    "77 Massachusetts Avenue",  # full suffix word
    "77 massachusetts av",  # another abbreviation
    "77 MASACHUSETTS AVE",  # one letter missing
    "77 massachusetst ave",  # two letters swapped
    "77 masachusets ave",  # two typos in a long word
    "77, Massachusetts Ave.",  # punctuation
    "02139 77 massachusetts",  # the ZIP first
    "77 massachusetts 02139",  # the ZIP in the middle of nothing
    "77 mass",  # a prefix
    "77 Massachusetts Ave Cambridge MA 02139 USA",  # the country name
])
def test_tolerates_what_people_type(engine: AddressEngine, typed: str) -> None:
    assert texts(engine, typed)[0] == "77 Massachusetts Ave, Cambridge MA 02139"


def test_abbreviations_both_ways(engine: AddressEngine) -> None:
    # the file says "FIFTH AVENUE" and "MAIN STREET": stored as Pub 28 forms, found by either spelling
    assert texts(engine, "350 5th ave")[0] == "350 5th Ave, New York NY 10118"
    assert texts(engine, "350 fifth avenue new york")[0] == "350 5th Ave, New York NY 10118"
    assert texts(engine, "1 saint james place")[0] == "1 St James Pl, Brooklyn NY 11205"
    assert texts(engine, "120 north main st")[0] == "120 N Main St, Springfield IL 62702"
    assert texts(engine, "1600 pennsylvania avenue northwest")[0].startswith("1600 Pennsylvania Ave NW")


def test_exact_house_number_ranks_first(engine: AddressEngine) -> None:
    got = texts(engine, "1201 main st")
    assert got[0] == "1201 Main St, Springfield IL 62701"
    got = texts(engine, "1200 main st springfield ma")
    assert got[0] == "1200 Main St, Springfield MA 01103"


def test_street_words_rank_above_locality_words(engine: AddressEngine) -> None:
    # "SPRINGFIELD" is a city; no street is named so: the streets of Springfield come up, not a failure
    got = texts(engine, "springfield")
    assert got and all("Springfield" in t for t in got)


def test_building_with_units_is_one_suggestion(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("1200 main st springfield il")).result
    s = res.suggestions[0]
    assert s.text == "1200 Main St Apt 1-40, Springfield IL 62701"
    assert s.attribute("multiples") == "true" and s.attribute("full_address") == "false"
    assert s.format == ""  # a group: refine or step in first
    assert res.confidence == Confidence.MULTIPLE_MATCHES  # one building, several units (the vendor's example)


def test_typing_a_unit_opens_the_building(engine: AddressEngine) -> None:
    got = texts(engine, "1200 main st apt 17")
    assert got[0] == "1200 Main St Apt 17, Springfield IL 62701"
    got = texts(engine, "1200 main st # 3")
    assert got[0] == "1200 Main St Apt 3, Springfield IL 62701"
    got = texts(engine, "1200 main st 3")  # a bare unit after the street
    assert got[0] == "1200 Main St Apt 3, Springfield IL 62701"


def test_street_without_number_shows_ranges(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("arch st")).result
    got = {s.text: s for s in res.suggestions}
    even = got["2…78 Arch St [even], Philadelphia PA 19106"]
    odd = got["1…59 Arch St [odd], Philadelphia PA 19106"]
    for s in (even, odd):
        assert s.attribute("unresolvable_range") == "true" and s.attribute("multiples") == "true"
        assert s.format == ""


def test_half_typed_unit_designator_does_not_lose_the_building(engine: AddressEngine) -> None:
    assert texts(engine, "1200 main st ap")[0].startswith("1200 Main St Apt 1-40")


def test_number_only_and_short_queries(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("1")).result
    assert res.confidence == Confidence.INSUFFICIENT_SEARCH_TERMS and not res.suggestions
    res = engine.search(SearchRequest.of("120")).result
    assert res.suggestions and res.suggestions[0].text.startswith("120 ")
    res = engine.search(SearchRequest.of("")).result
    assert res.confidence == Confidence.INSUFFICIENT_SEARCH_TERMS


def test_nothing_matched_is_an_answer(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("zzqx wvvk")).result
    assert res.confidence == Confidence.NO_MATCHES and res.suggestions == []


def test_max_suggestions(engine: AddressEngine) -> None:
    assert len(texts(engine, "arch st 2", max_suggestions=3)) <= 3
    res = engine.search(SearchRequest.of("springfield", max_suggestions=2)).result
    assert len(res.suggestions) == 2 and res.more_results_available
    engine.search(SearchRequest.of("main", max_suggestions=25))
    engine.search(SearchRequest.of("main", search_type=SearchType.SINGLELINE, max_suggestions=100))
    for bad, stype in ((0, None), (26, None), (101, SearchType.TYPEDOWN)):
        with pytest.raises(BadRequestError, match="max_suggestions"):
            engine.search(SearchRequest.of("main", search_type=stype, max_suggestions=bad))


def test_bad_requests(engine: AddressEngine) -> None:
    with pytest.raises(BadRequestError, match="country_iso"):
        engine.search(SearchRequest.of("main", ""))
    with pytest.raises(BadRequestError, match="unknown country_iso"):
        engine.search(SearchRequest.of("main", "XYZ"))
    with pytest.raises(BadRequestError, match="unknown dataset"):
        engine.search(SearchRequest.of("main", datasets=["fr-address"]))
    with pytest.raises(BadRequestError, match="not a dataset of country"):
        engine.search(SearchRequest.of("main", "USA", datasets=["gb-address"]))
    with pytest.raises(BadRequestError, match="location"):
        engine.search(SearchRequest(components=SearchRequest.of("main").components, location="north"))


def test_countries_are_kept_apart(engine: AddressEngine) -> None:
    assert texts(engine, "10 downing", "GBR")[0] == "10 Downing Street, LONDON, SW1A 2AA"
    assert texts(engine, "10 downing", "USA") == []
    assert texts(engine, "24 sussex", "CAN")[0] == "24 SUSSEX DRIVE, OTTAWA ON K1M 1M4"
    # postcodes are searchable with or without their space
    assert texts(engine, "k1a0a9", "CAN")[0] == "111 WELLINGTON ST, OTTAWA ON K1A 0A9"
    assert texts(engine, "downing sw1a 2aa", "GBR")[0] == "10 Downing Street, LONDON, SW1A 2AA"


def test_location_biases_ties(engine: AddressEngine) -> None:
    near_ma = SearchRequest.of("1200 main st")
    near_ma.location = "42.1,-72.6"
    assert engine.search(near_ma).result.suggestions[0].text.endswith("MA 01103")


def test_singleline_search_type(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("500 elmwood dr springfield il", search_type=SearchType.SINGLELINE))
    assert res.result.suggestions[0].text == "500 Elmwood Dr, Springfield IL 62704"


def test_selective_path_gives_the_same_answers(engine: AddressEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Large references check the other words only on the streets the most selective word left; the answers
    must not depend on which path ran."""
    import dqkit.engines.address.matching as matching

    queries = ["77 massachusetts ave cambridge ma 02139", "1200 main st springfield il", "arch st philadelphia",
               "500 elmwood dr springfield il 62704", "77 masachusets ave cambridge", "1200 main st apt 7 62701"]
    dense = [texts(engine, q) for q in queries]
    monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)
    monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
    taken = []
    real = matching.Matcher._sparse_stage

    def spy(self: matching.Matcher, *a: Any, **kw: Any) -> object:
        got = real(self, *a, **kw)
        taken.append(not isinstance(got, matching._Dense))
        return got

    monkeypatch.setattr(matching.Matcher, "_sparse_stage", spy)
    assert [texts(engine, q) for q in queries] == dense
    assert sum(taken) >= len(queries) - 1


def test_made_up_street_takes_the_selective_path(engine: AddressEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A made-up street name reaches no street, not even by a typo: it is set aside on the cheap path as on the
    general one (issue 18, speed), with the same validate answers and notes."""
    import dqkit.engines.address.matching as matching

    queries = ["500 quodargor dr, springfield, il 62704", "500 zanpelgor dr springfield il",
               "77 brarhoski ave cambridge ma 02139"]

    taken: list[list[bool]] = []

    def answers() -> list[tuple[bytes, str]]:
        out = []
        for q in queries:
            taken.append([])
            res = engine.validate(SearchRequest.of(q))
            out.append((msgspec.json.encode(res.result), res.note))
        return out

    dense = answers()
    assert all(msgspec.json.decode(r)["confidence"] == Confidence.VERIFIED_PLACE for r, _ in dense)
    monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)
    monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
    real = matching.Matcher._sparse_stage

    def spy(self: matching.Matcher, *a: Any, **kw: Any) -> object:
        got = real(self, *a, **kw)
        taken[-1].append(not isinstance(got, matching._Dense))
        return got

    monkeypatch.setattr(matching.Matcher, "_sparse_stage", spy)
    taken.clear()
    assert answers() == dense
    assert [any(t) for t in taken] == [True] * len(queries), taken


def test_garbage_and_huge_input_get_answers(engine: AddressEngine) -> None:
    for text in ("#" * 1000, "main " * 200, "\x00\u200b\ufeff", "1" * 500, "!!!,,,;;;", "\U0001f600 st"):
        res = engine.search(SearchRequest.of(text)).result
        assert res.confidence in {c.value for c in Confidence}
        v = engine.validate(SearchRequest.of(text)).result
        assert v.confidence in {c.value for c in Confidence}
    for text in ("#" * 5000, "main " * 2000, "\U0001f600" * 300):  # over 1 KiB: refused at once (issue 13)
        with pytest.raises(BadRequestError, match="longer than 1024 bytes"):
            engine.search(SearchRequest.of(text))
        with pytest.raises(BadRequestError, match="longer than 1024 bytes"):
            engine.validate(SearchRequest.of(text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60), country=st.sampled_from(["USA", "CAN", "GBR", "usa"]))
def test_any_text_gets_an_answer(engine: AddressEngine, text: str, country: str) -> None:
    res = engine.search(SearchRequest.of(text, country)).result
    for s in res.suggestions:
        assert all(0 <= a < b <= len(s.text) for a, b in s.matched)
    engine.validate(SearchRequest.of(text, country))


@pytest.mark.parametrize("typed", ["zzzz m", "zzzz ma", "zzzz main", "qqqq arch st", "1200 zzzz main"])
def test_typedown_needs_every_typed_word(engine: AddressEngine, typed: str) -> None:
    """A word that matches nothing (not even with typos) is not dropped while the rest matches by prefix
    (issue 14: "zzzz q" listed seven QUAIL / QUEEN ranges)."""
    res = engine.search(SearchRequest.of(typed)).result
    assert res.suggestions == [] and res.confidence == Confidence.NO_MATCHES, [s.text for s in res.suggestions]


def test_typedown_still_tolerates_harmless_words(engine: AddressEngine) -> None:
    assert texts(engine, "1200 main st ap")  # a unit designator being typed
    assert texts(engine, "77 massachusetts ave usa")  # the country
    assert texts(engine, "221 baker street flat b", "GBR")  # a unit word


def test_five_digit_house_number_before_a_numbered_street(engine: AddressEngine) -> None:
    from dqkit.engines.address.query import parse_query

    q = parse_query("10666 16th ave, paris oh ")
    assert q.number == "10666" and [w.text for w in q.words][:2] == ["16TH", "AVE"]
    z = parse_query("02139 77 massachusetts")  # a ZIP typed first, then the number
    assert z.number == "77" and z.words[0].text == "02139"


def test_singleline_reaches_a_short_word_typo_but_not_garbage(engine: AddressEngine) -> None:
    # "ARC" is one letter short of ARCH: beyond the matcher's typo reach (3 letters), within the evidence's
    res = engine.search(SearchRequest.of("2 Arc St, Philadelphia, PA 19106", search_type=SearchType.SINGLELINE))
    assert res.result.confidence == Confidence.VERIFIED_MATCH
    assert res.result.suggestions[0].text == "2 Arch St, Philadelphia PA 19106"
    for garbage in ("zzzz q", "2 Zzyzx St, Philadelphia, PA 19106"):
        got = engine.search(SearchRequest.of(garbage, search_type=SearchType.SINGLELINE)).result
        assert got.suggestions == [], garbage


def test_typedown_reaches_a_short_word_typo(engine: AddressEngine) -> None:
    assert texts(engine, "2 arc st")[0] == "2 Arch St, Philadelphia PA 19106"
