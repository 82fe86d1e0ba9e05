"""E100 spoof detection: catches spoofs (>= 95%) and leaves real people alone (< 0.5% of Census name pairs)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof
from dqkit.engines.lead.spoof import check_value, explain_spoof, find_spoof

# Surnames (and names) that contain or sound like vulgar words but belong to real people.
REAL_SURNAMES = [
    "Dickson", "Hancock", "Sexton", "Cockburn", "Babcock", "Weiner", "Butts", "Fuchs", "Cummings", "Assante",
    "Dick", "Dickens", "Cox", "Hooker", "Wang", "Dong", "Ho", "Hung", "Kok", "Fagg", "Crapp", "Butt", "Titterington",
    "Yoshitake", "Fukuda", "Dacunto", "Peniston", "Prickett", "Slutsky", "Spicer", "Coon", "Dyke", "Hoare",
    "Semen", "Wanker", "Bastardi", "Nazir", "Cumbass", "Assis", "Shitara", "Hitchcock", "Glasscock", "Woolcock",
    "Lipshitz", "Hardon", "Rape", "Cocks", "Boner", "Booty", "Noone", "Loll", "Annal", "Batman", "Test", "Sample",
    "Fake", "Wert", "Trew", "Khn", "Jackson", "Johnson", "Peter", "Balls", "Mouse", "Duck", "Bunny", "Simpson",
    "Potter", "Doe", "Hunt", "Dover", "Pitt", "Gates", "Trump", "Swift", "Kardashian", "Lincoln", "Sanchez",
]
REAL_FIRST = ["Dick", "Willy", "Fanny", "Randy", "Gay", "Mickey", "Donald", "Homer", "Harry", "Peter", "Bart",
              "Luke", "Bruce", "Clark", "Taylor", "Elvis", "Jack", "Ben", "Mike", "Hugh", "Seymour", "Anita", "Phil",
              "Na", "Nada", "Anon", "Ng", "Titus", "Dixie", "Moe", "Wayne"]


def lead(**kw: Any) -> LeadRequest:
    return LeadRequest(zip="20500", **kw)


def test_labelled_set_at_least_95_percent(labelled_spoofs: list[dict[str, str]]) -> None:
    assert len(labelled_spoofs) >= 400
    kinds = {r["kind"] for r in labelled_spoofs}
    assert kinds == {"vulgar", "fictional", "celebrity", "prank", "placeholder", "keyboard", "repeated"}
    missed = []
    for row in labelled_spoofs:
        fields = {k: v for k, v in row.items() if k != "kind" and v}
        if explain_spoof(lead(**fields)) is None:
            missed.append(row)
    rate = 1 - len(missed) / len(labelled_spoofs)
    print(f"\nlabelled spoof set: {len(labelled_spoofs) - len(missed)}/{len(labelled_spoofs)} caught ({rate:.1%})")
    assert rate >= 0.95, missed  # the goal (issue 12), not a measured figure: printed above with -s


def _mutations(rng: random.Random) -> list[tuple[str, dict[str, str]]]:
    """Look-alike spellings generated from plain spoof words and names, in every field that carries them."""
    words = ["fuck", "shit", "bitch", "asshole", "cunt", "pussy", "whore", "slut", "dickhead", "bastard",
             "faggot", "douchebag", "motherfucker", "bullshit", "jackass", "dumbass", "cocksucker", "twat"]
    leet = {"a": "@4", "e": "3", "i": "1!", "o": "0", "s": "5", "t": "7"}
    out: list[tuple[str, dict[str, str]]] = []
    for w in words:
        for _ in range(6):
            style = rng.randrange(5)
            if style == 0:
                v = "".join(rng.choice(leet[c]) if c in leet and rng.random() < 0.5 else c for c in w)
            elif style == 1:
                i = rng.randrange(len(w))
                v = w[:i] + w[i] * rng.randint(3, 6) + w[i + 1:]
            elif style == 2:
                v = rng.choice(".- _").join(w)
            elif style == 3:
                v = w.upper() if rng.random() < 0.5 else w.capitalize()
            else:
                v = rng.choice(["big", "dumb", "lil", ""]) + w + rng.choice(["face", "head", "bag", ""])
            place = rng.choice(["first_name", "last_name", "full_name", "business_name", "street1"])
            fields = {"first_name": "Robert", "last_name": "Miller"}
            if place == "full_name":
                fields = {"full_name": f"{v} Miller"}
            elif place == "street1":
                fields["street1"] = f"{rng.randint(1, 999)} {v} St"
            else:
                fields[place] = v
            out.append(("vulgar", fields))
    people = [("Mickey", "Mouse"), ("Homer", "Simpson"), ("Harry", "Potter"), ("Darth", "Vader"),
              ("Donald", "Trump"), ("Taylor", "Swift"), ("John", "Doe"), ("Ben", "Dover"), ("Mike", "Hunt"),
              ("Santa", "Claus"), ("Bugs", "Bunny"), ("Elvis", "Presley"), ("Seymour", "Butts")]
    for first, last in people:
        for _ in range(6):
            style = rng.randrange(6)
            if style == 0:
                fields = {"full_name": f"{last}, {first}"}
            elif style == 1:
                fields = {"full_name": f"{rng.choice(['Mr.', 'Dr', 'Mrs'])} {first} {last}"}
            elif style == 2:
                fields = {"first_name": first, "middle_name": rng.choice("ABCJQ"), "last_name": last}
            elif style == 3:
                fields = {"first_name": first.upper(), "last_name": last.lower(), "suffix": "Jr"}
            elif style == 4:
                fields = {"full_name": f"{first} {rng.choice('ABCDEJ')}. {last} {rng.choice(['Jr', 'III', 'Sr'])}"}
            else:
                fields = {"first_name": f" {first} ", "last_name": f"{last}."}
            out.append(("name", fields))
    return out


def test_generated_look_alikes_at_least_95_percent() -> None:
    cases = _mutations(random.Random(2024))
    missed = [c for c in cases if explain_spoof(lead(**c[1])) is None]
    rate = 1 - len(missed) / len(cases)
    print(f"\ngenerated look-alike set: {len(cases) - len(missed)}/{len(cases)} caught ({rate:.1%})")
    assert len(cases) >= 150
    assert rate >= 0.95, missed  # the goal (issue 12), not a measured figure: printed above with -s


@pytest.mark.parametrize("weighting", ["uniform", "by frequency"])
def test_census_name_pairs_under_half_a_percent(census: dict[str, list[tuple[str, float]]], weighting: str) -> None:
    rng = random.Random(1990)
    firsts, lasts = census["first"], census["last"]
    n = 6000
    if weighting == "uniform":
        pairs = [(rng.choice(firsts)[0], rng.choice(lasts)[0]) for _ in range(n)]
    else:
        fw, lw = [w for _, w in firsts], [w for _, w in lasts]
        pairs = list(zip((f for f, _ in rng.choices(firsts, fw, k=n)), (x for x, _ in rng.choices(lasts, lw, k=n)),
                         strict=True))
    flagged = [(f, la) for f, la in pairs if find_spoof(lead(first_name=f.title(), last_name=la.title()))]
    rate = len(flagged) / n
    print(f"\nCensus first + last pairs ({weighting}): {len(flagged)}/{n} flagged ({rate:.2%}): {flagged[:10]}")
    assert rate < 0.005, flagged  # the goal (issue 12): under half a percent; measured 0 and 2 of 6,000


@pytest.mark.parametrize("surname", REAL_SURNAMES)
def test_real_surnames_never_flagged(surname: str) -> None:
    for first in ("Robert", "Mary", "Jose", "Wei"):
        assert explain_spoof(lead(first_name=first, last_name=surname)) is None
    assert explain_spoof(lead(full_name=f"Mary A {surname}")) is None
    assert explain_spoof(lead(full_name=f"{surname}, Robert")) is None


@pytest.mark.parametrize("first", REAL_FIRST)
def test_real_given_names_never_flagged(first: str) -> None:
    assert explain_spoof(lead(first_name=first, last_name="Garcia")) is None
    assert explain_spoof(lead(full_name=f"{first} Garcia")) is None


def test_real_names_with_initials_titles_and_odd_forms() -> None:
    for fields in (
        {"full_name": "J R R Martinez"}, {"full_name": "Dr. Mary-Kate O Neil III"}, {"full_name": "Ng Wei"},
        {"first_name": "José", "last_name": "Núñez"}, {"first_name": "Li", "last_name": "Na"},
        {"first_name": "A", "middle_name": "J", "last_name": "Kowalczyk"},
        {"first_name": "Robert", "last_name": "Smith", "business_name": "AAA Plumbing LLC"},
        {"first_name": "Ann", "last_name": "Lee", "business_name": "Acme Plumbing LLC"},
        {"first_name": "Ann", "last_name": "Lee", "business_name": "Dick's Sporting Goods"},
        {"first_name": "Ann", "last_name": "Lee", "business_name": "Scunthorpe Steel Ltd"},
        {"first_name": "Ann", "last_name": "Lee", "street1": "1600 Pennsylvania Ave NW", "city": "Washington"},
        {"first_name": "Ann", "last_name": "Lee", "street1": "742 Evergreen Rd", "city": "Springfield"},
        {"first_name": "Ann", "last_name": "Lee", "street1": "12 Cockburn St", "city": "Intercourse"},
        {"first_name": "Ann", "last_name": "Lee", "street1": "5 NW Blvd Apt 3", "city": "Kaaawa"},
        {"first_name": "Ann", "last_name": "Lee", "city": "Gotham"},
        {"first_name": "Ann", "last_name": "Lee", "city": "Middlesex"},
        {"first_name": "Maria", "last_name": "Garcia", "full_name": "Jane Roe, CFO, Acme Inc"},
        {"full_name": "King, James"},  # James King, surname first; not King James (James I), a WordNet name
    ):
        assert explain_spoof(lead(**fields)) is None, fields


@pytest.mark.slow
def test_no_single_census_name_is_a_spoof(census: dict[str, list[tuple[str, float]]]) -> None:
    """Every Census given name with a plain surname, every surname with a plain given name, both forms."""
    flagged = [f for f, _ in census["first"] if find_spoof(lead(first_name=f.title(), last_name="Garcia"))]
    for name, _ in census["last"]:
        if find_spoof(lead(first_name="Maria", last_name=name.title())) or find_spoof(
                lead(full_name=f"Maria {name.title()}")):
            flagged.append(name)
    assert flagged == ["CALLAS"]  # Maria Callas, the soprano: her whole name (wordnet_people.txt), not the surname


def test_word_lists_hold_no_census_name(census: dict[str, list[tuple[str, float]]]) -> None:
    """The whole-token lists and the substring roots are checked against every Census name."""
    every = {n.lower() for n, _ in census["first"]} | {n.lower() for n, _ in census["last"]}
    t = spoof._tables()
    assert not (t.vulgar & every)
    assert not (t.fictional_tokens & every)
    assert not (t.placeholder_tokens & every)
    roots = t.roots
    assert [n for n in every if roots.search(n)] == []
    assert not (t.key_runs & every)


def test_fictional_cities_are_not_real_places() -> None:
    from dqkit.engines import zipdata

    real = {spoof._phrase_key(city) for city, _ in zipdata.tables().by_city_state}
    assert not (spoof._tables().city_phrases & real)


def test_value_and_kind_name_what_stopped_the_lead() -> None:
    hit = explain_spoof(lead(first_name="Mickey", last_name="Mouse"))
    assert hit is not None and (hit.field, hit.value, hit.kind) == ("FIRST_NAME+LAST_NAME", "Mickey Mouse",
                                                                    spoof.FICTIONAL)
    assert find_spoof(lead(first_name="Robert", last_name="5h1t")) == "5h1t"
    hit = explain_spoof(lead(first_name="Ann", last_name="Lee", street1="742 Evergreen Terrace"))
    assert hit is not None and hit.field == "STREET1" and hit.value == "742 Evergreen Terrace"
    hit = explain_spoof(lead(full_name="Doe, John"))
    assert hit is not None and hit.kind == spoof.PLACEHOLDER and hit.value == "Doe, John"
    assert explain_spoof(lead(first_name="Sdfghj", last_name="Lee")).kind == spoof.KEYBOARD  # type: ignore[union-attr]
    assert explain_spoof(lead(first_name="Xxxxx", last_name="Lee")).kind == spoof.REPEATED  # type: ignore[union-attr]
    assert find_spoof(lead(first_name="Maria", last_name="Garcia")) is None


def test_check_value_for_single_columns() -> None:
    assert check_value("Wayne Enterprises Inc", "BUSINESS_NAME") is not None
    assert check_value("Hogwarts", "CITY") is not None
    assert check_value("Test", "FIRST_NAME") is not None
    assert check_value("Test", "LAST_NAME") is None  # a real surname
    assert check_value("Springfield", "CITY") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40), st.text(max_size=50))
def test_any_text_gets_an_answer(first: str, last: str, other: str) -> None:
    result = explain_spoof(lead(first_name=first, last_name=last, full_name=other, business_name=other,
                                street1=other, city=other))
    assert result is None or (result.value and result.kind)
