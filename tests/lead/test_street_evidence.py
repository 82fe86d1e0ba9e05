"""S102 from an installed address reference without confident wrong answers (issue 12, part 2).

The lead engine's street verdict goes through the address engine's evidence rules: a street the standardizer
corrected to must be named by the typed words (typo budget by word length, no contradicting suffix). Every case is
built from real rows of the shared OpenAddresses counties, and each "near street" case first checks that the
standardizer alone does land on the other street (so the case exercises the path it claims to).
"""

from __future__ import annotations

import csv
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.covered import CoveredPoints
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.usaddr import AddressInput, Standardized, standardize
from dqkit.engines.usaddr.parser import parse_street
from dqkit.engines.usaddr.street import Street

pytestmark = [pytest.mark.shared]
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_lead_precision.py"
Row = dict[str, str]


@pytest.fixture(scope="module")
def county(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[AddressEngine, list[Row]]:
    src = shared_dir / "data" / "openaddresses" / "santa_clara.csv"
    with src.open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["NUMBER"].isdigit() and r["STREET"] and r["CITY"]
                and r["POSTCODE"][:5].isdigit() and not r["UNIT"]]
    engine = AddressEngine.from_files([src], out=tmp_path_factory.mktemp("idx") / "sc.idx", country_iso2="US")
    return engine, rows


@pytest.fixture(scope="module")
def leads(county: tuple[AddressEngine, list[Row]]) -> LeadEngine:
    # vouched for as complete: these tests ask what S102 may say where the reference holds every street
    return LeadEngine(LeadProfile(points=CoveredPoints(county[0].index, lambda _: True)))


def lead_at(row: Row, street1: str) -> LeadRequest:
    return LeadRequest(first_name="Ann", last_name="Lee", street1=street1, city=row["CITY"], state="CA",
                       zip=row["POSTCODE"][:5])


def standardizer_alone(engine: AddressEngine, lead: LeadRequest, *, whole: bool = False) -> Standardized:
    """What the US standardizer says with the reference's points and no evidence check (`whole`: the points
    vouched for as every street of their ZIPs, as `leads` takes them)."""
    return standardize(AddressInput(street1=lead.street1, city=lead.city, state=lead.state, zip=lead.zip),
                       points=CoveredPoints(engine.index, lambda _: True) if whole else engine.index)


def typed(number: str, s: Street, name: str, suffix: str | None = None) -> str:
    return " ".join(p for p in (number, s.predir, name, s.suffix if suffix is None else suffix, s.postdir) if p)


def streets(rows: list[Row]) -> Iterator[tuple[Row, Street]]:
    """Each street of the county once (its first row), with its Publication 28 parts."""
    seen: set[tuple[str, str]] = set()
    for r in rows:
        s = parse_street(f"{r['NUMBER']} {r['STREET']}")
        key = (r["POSTCODE"][:5], s.street)
        if s.name and key not in seen:
            seen.add(key)
            yield r, s


def sub(word: str, i: int) -> str:
    """`word` with letter i replaced by another letter (deterministic)."""
    return word[:i] + ("Q" if word[i] != "Q" else "X") + word[i + 1:]


def find(engine: AddressEngine, rows: list[Row], variants: Callable[[Row, Street], Iterator[tuple[str, str]]], *,
         valid: bool = True, whole: bool = False) -> tuple[Row, Street, str]:
    """The first (row, street, typed street1) among `variants(row, street)` on which the standardizer alone
    names the row's street (valid or with status 61 as asked) although the typed name is not a street of the
    ZIP."""
    for r, s in streets(rows):
        names = set(engine.index.street_names(r["POSTCODE"][:5]))
        for text, name in variants(r, s):
            if name in names:
                continue
            alone = standardizer_alone(engine, lead_at(r, text), whole=whole)
            if alone.street.name == s.name and alone.valid == valid and (valid or "61" in alone.codes):
                return r, s, text
    raise AssertionError("no such case in the county sample")


def assert_not_found(msg: ELSGenericMessage, real: Street) -> None:
    """S102, street not found in the ZIP (ELS 490, ADDRESS_CODE -99), and the reference's street not named."""
    sa, s1 = msg.standardized_address, msg.stage1_data
    assert msg.message.result_code == "S102", msg.message
    assert "not found in ZIP" in msg.message.value
    assert sa is not None and s1 is not None
    assert sa.address_code == "-99"
    assert s1.residential_address_verification_result == "490"
    assert (sa.prim_name, sa.suffix) != (real.name, real.suffix), sa
    assert s1.reverse_phone_append is None or s1.reverse_phone_append.execution_status_flag != "A"


def test_a_typo_within_the_budget_is_still_the_street(county: tuple[AddressEngine, list[Row]],
                                                      leads: LeadEngine) -> None:
    engine, rows = county

    def one_swap(r: Row, s: Street) -> Iterator[tuple[str, str]]:  # 5-7 letters: one edit allowed
        if s.name.isalpha() and 5 <= len(s.name) <= 7 and s.name[2] != s.name[3]:
            name = s.name[:2] + s.name[3] + s.name[2] + s.name[4:]
            yield typed(r["NUMBER"], s, name), name

    row, real, text = find(engine, rows, one_swap)
    msg = leads.verify(lead_at(row, text))
    sa = msg.standardized_address
    assert msg.message.result_code == "S100", (text, msg.message)
    assert sa is not None and (sa.prim_name, sa.prim_range, sa.geomatch) == (real.name, row["NUMBER"], "0")


def test_a_near_name_outside_the_budget_is_s102_not_the_other_street(county: tuple[AddressEngine, list[Row]],
                                                                     leads: LeadEngine) -> None:
    engine, rows = county

    def two_edits_in_a_short_word(r: Row, s: Street) -> Iterator[tuple[str, str]]:
        # a word of 4-7 letters may take one edit; the standardizer allows two over a name of 8 or more
        words = s.name.split()
        if len(s.name.replace(" ", "")) >= 8:
            for i, w in enumerate(words):
                if w.isalpha() and 4 <= len(w) <= 7:
                    name = " ".join([*words[:i], sub(sub(w, 1), 3), *words[i + 1:]])
                    yield typed(r["NUMBER"], s, name), name

    row, real, text = find(engine, rows, two_edits_in_a_short_word)
    assert_not_found(leads.verify(lead_at(row, text)), real)


def test_a_valid_suffix_the_name_lacks_is_corrected_as_validate_corrects_it(county: tuple[AddressEngine, list[Row]],
                                                                             leads: LeadEngine) -> None:
    """Issue 28: a valid suffix the name does not have in the ZIP, the number on its one form there: the street
    corrected and said so (status 45), as validate and the vendors do; it was S102 "street not found" before."""
    engine, rows = county
    other = {"CT": "WAY", "WAY": "CT", "AVE": "PL", "DR": "CIR", "ST": "TER", "LN": "PL", "PL": "LN"}

    def other_suffix(r: Row, s: Street) -> Iterator[tuple[str, str]]:
        forms = {(p.street.predir, p.street.suffix, p.street.postdir)
                 for p in engine.index.points_on_street(r["POSTCODE"][:5], s.name)}
        if s.suffix in other and len(forms) == 1:
            yield typed(r["NUMBER"], s, s.name, other[s.suffix]), ""

    row, real, text = find(engine, rows, other_suffix, whole=True)  # a typed suffix is changed from whole data
    msg = leads.verify(lead_at(row, text))
    sa = msg.standardized_address
    assert msg.message.result_code == "S100", (text, msg.message)
    assert sa is not None and (sa.prim_name, sa.suffix, sa.prim_range) == (real.name, real.suffix, row["NUMBER"])
    assert "45" in sa.address_error_status.split(","), sa.address_error_status


def test_a_typed_suffix_the_name_has_is_never_corrected_into_another_street(
        county: tuple[AddressEngine, list[Row]], leads: LeadEngine) -> None:
    """A name with two suffixes in the ZIP, the number on one: typed with the other, it is that other street (the
    number not on it), never the first corrected into it."""
    engine, rows = county
    for r, s in streets(rows):
        points = engine.index.points_on_street(r["POSTCODE"][:5], s.name)
        suffixes = {p.street.suffix for p in points if (p.street.predir, p.street.postdir) == (s.predir, s.postdir)}
        others = sorted(x for x in suffixes if x != s.suffix and x)
        if others and not any(p.number == r["NUMBER"] and p.street.suffix == others[0] for p in points):
            break
    else:
        raise AssertionError("no such case in the county sample")
    msg = leads.verify(lead_at(r, typed(r["NUMBER"], s, s.name, others[0])))
    sa = msg.standardized_address
    assert sa is not None and (sa.prim_name, sa.suffix) == (s.name, others[0]), sa
    assert msg.message.result_code == "S102" and "61" in msg.message.value, msg.message


@pytest.mark.parametrize(("street1", "street2"), [
    ("Acme Corp", "{address}"), ("Attn Ann Lee, {address}", ""), ("{address}", "Suite 200"), ("{address}, Apt 4", ""),
])
def test_words_beside_the_street_line_are_not_stray_words_of_the_street(
        county: tuple[AddressEngine, list[Row]], leads: LeadEngine, street1: str, street2: str) -> None:
    """A firm line, an ATTN note or a suite line beside the delivery line leaves a real address valid."""
    _, rows = county
    row, real = next(streets(rows))
    address = typed(row["NUMBER"], real, real.name)
    msg = leads.verify(LeadRequest(first_name="Ann", last_name="Lee", street1=street1.format(address=address),
                                   street2=street2.format(address=address), city=row["CITY"], state="CA",
                                   zip=row["POSTCODE"][:5]))
    sa = msg.standardized_address
    assert msg.message.result_code == "S100", msg.message
    assert sa is not None and (sa.prim_name, sa.prim_range) == (real.name, row["NUMBER"])


def test_a_unit_written_like_a_direction_is_the_unit(shared_dir: Path, county: tuple[AddressEngine, list[Row]],
                                                     leads: LeadEngine) -> None:
    """"966 KIELY BLVD E" where the building has unit E: the E is its unit, not a direction KIELY BLVD lacks."""
    engine, _ = county
    with (shared_dir / "data" / "openaddresses" / "santa_clara.csv").open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["NUMBER"].isdigit() and r["UNIT"] in ("N", "S", "E", "W")
                and r["CITY"] and r["POSTCODE"][:5].isdigit()]
    cases = 0
    for row in rows:
        real = parse_street(f"{row['NUMBER']} {row['STREET']}")
        if real.postdir:
            continue
        lead = lead_at(row, f"{row['NUMBER']} {row['STREET']} {row['UNIT']}")
        if not standardizer_alone(engine, lead).valid:
            continue
        msg = leads.verify(lead)
        sa = msg.standardized_address
        assert msg.message.result_code == "S100", (lead.street1, msg.message)
        assert sa is not None and sa.prim_name == real.name
        cases += 1
        if cases == 3:
            break
    assert cases, "no unit N/S/E/W in the county sample"


def test_a_made_up_street_in_a_real_zip_is_s102(county: tuple[AddressEngine, list[Row]], leads: LeadEngine) -> None:
    _, rows = county
    row = rows[0]
    msg = leads.verify(lead_at(row, f"{row['NUMBER']} Zanquovik Ter"))
    assert_not_found(msg, parse_street(f"{row['NUMBER']} {row['STREET']}"))
    assert msg.standardized_address is not None and msg.standardized_address.prim_name == "ZANQUOVIK"


def test_a_house_number_not_on_the_street(county: tuple[AddressEngine, list[Row]], leads: LeadEngine) -> None:
    engine, rows = county
    row, real = next(streets(rows))
    numbers = {p.number for p in engine.index.points_on_street(row["POSTCODE"][:5], real.name)}
    missing = str(max(int(n) for n in numbers if n.isdigit()) + 2)
    msg = leads.verify(lead_at(row, typed(missing, real, real.name)))
    sa, s1 = msg.standardized_address, msg.stage1_data
    assert msg.message.result_code == "S102" and "61" in msg.message.value
    assert sa is not None and s1 is not None and s1.residential_address_verification_result == "500"
    assert sa.prim_name == real.name  # the street is the typed one: only the number is not on it


def test_a_missing_number_on_a_near_street_is_not_blamed_on_the_number(
        county: tuple[AddressEngine, list[Row]], leads: LeadEngine) -> None:
    """The standardizer alone says "61 house number not on street" of a street the person did not type."""
    engine, rows = county

    def far_number_two_edits(r: Row, s: Street) -> Iterator[tuple[str, str]]:
        words = s.name.split()
        if len(s.name.replace(" ", "")) >= 8:
            for i, w in enumerate(words):
                if w.isalpha() and 4 <= len(w) <= 7:
                    name = " ".join([*words[:i], sub(sub(w, 1), 3), *words[i + 1:]])
                    yield typed("99999", s, name), name

    row, real, text = find(engine, rows, far_number_two_edits, valid=False)
    msg = leads.verify(lead_at(row, text))
    assert_not_found(msg, real)
    assert "61" not in msg.message.value


def test_served_lead_gets_s102_for_a_near_street(shared_dir: Path, tmp_path: Path,
                                                 county: tuple[AddressEngine, list[Row]]) -> None:
    """End to end: `dqkit serve --reference santa_clara.csv`, POST /search, the seed's JSON both ways."""
    import httpx

    from dqkit.contract.lead_wire import decode_message, encode_lead
    from dqkit.server.testing import serve_process

    engine, rows = county

    def two_edits_in_a_short_word(r: Row, s: Street) -> Iterator[tuple[str, str]]:
        words = s.name.split()
        if len(s.name.replace(" ", "")) >= 8:
            for i, w in enumerate(words):
                if w.isalpha() and 4 <= len(w) <= 7:
                    name = " ".join([*words[:i], sub(sub(w, 1), 3), *words[i + 1:]])
                    yield typed(r["NUMBER"], s, name), name

    row, real, text = find(engine, rows, two_edits_in_a_short_word)
    src = shared_dir / "data" / "openaddresses" / "santa_clara.csv"
    with serve_process(references=[src], extra_args=["--complete"], env={"XDG_CACHE_HOME": str(tmp_path)},
                       startup_timeout=180) as served, \
            httpx.Client(base_url=served.url, timeout=60) as http:
        answers = []
        for street1 in (text, typed(row["NUMBER"], real, real.name)):
            body, ctype = encode_lead(lead_at(row, street1), "json")
            r = http.post("/search", content=body, headers={"Content-Type": ctype})
            assert r.status_code == 200, r.text
            answers.append(decode_message(r.content, r.headers["content-type"]))
    near, exact = answers
    assert_not_found(near, real)
    assert exact.message.result_code == "S100" and exact.standardized_address is not None
    assert (exact.standardized_address.prim_name, exact.standardized_address.suffix) == (real.name, real.suffix)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_lead_precision", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_lead_precision"] = mod  # dataclasses resolve their module by name
    spec.loader.exec_module(mod)
    return mod


def test_no_confident_wrong_street_on_the_precision_corpora(shared_dir: Path) -> None:
    """bench_lead_precision's corpora (held-out real, made-up, typos, made-up on real numbers), 300 typo queries
    per county: no S100 names another street, number or ZIP; typos within the budget are still found."""
    bench = _bench()
    total = bench.run(shared_dir, seed=10, n_typos=300, peer=False)
    print("\n" + bench.table(total, False))
    for c in ("a", "b", "d"):
        assert total[c].n >= 2000, (c, total[c].n)
        # (a): a held-out street sharing name and number with a reference street of another suffix (1511 MONTEVAL
        # PL beside 1511 MONTEVAL LN) is typed exactly as a wrong suffix the vendors correct (issue 28): the one
        # confident wrong answer the rule cannot tell from a right one; at most 1 in 1,000
        assert total[c].s100_wrong <= (total[c].n // 1000 if c == "a" else 0), (c, total[c].examples)
    typos = total["c"]
    assert typos.s100_wrong == 0, typos.examples
    assert typos.s100_right >= 0.95 * typos.n, (typos.s100_right, typos.n)
    # (e) one typo in any word of the street part (issue 18, part 7): measured 865 of 900 S100 right, none wrong
    anyword = total["e"]
    assert anyword.n >= 600 and anyword.s100_wrong == 0, anyword.examples
    assert anyword.s100_right >= 0.92 * anyword.n, (anyword.s100_right, anyword.n)
