"""`df.addr.validate()`, `df.addr.search()` and the Series accessor, on the local engine's bundled demo reference
asked for explicitly (addresses are taken from that reference at test time, so the tests follow it when it is
regenerated); and what the accessors say without any reference installed."""

from __future__ import annotations

import csv
import gzip
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dqkit.notebook  # noqa: F401  (registers the accessors)
from dqkit._resources import data_file
from dqkit.backends.local import LocalBackend
from dqkit.contract.address import VALIDATION_DETAIL_FLAGS, Confidence, SearchRequest, ValidateResponse
from dqkit.contract.errors import InputError, TransportError


@pytest.fixture(scope="module")
def backend() -> LocalBackend:
    return LocalBackend(reference="demo")


@pytest.fixture(scope="module")
def points() -> list[dict[str, str]]:
    with gzip.open(data_file("demo_reference.csv.gz"), "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if not r["UNIT"]]
    return random.Random(7).sample(rows, 4)


@pytest.fixture
def frame(points: list[dict[str, str]]) -> pd.DataFrame:
    df = pd.DataFrame({
        "Address": [f"{p['NUMBER']} {p['STREET']}" for p in points],
        "City": [p["CITY"] for p in points],
        "State": [p["REGION"] for p in points],
        "ZIP": [p["POSTCODE"] for p in points],
    }, index=["a", "b", "c", "d"])
    df.loc["b", "City"] = df.loc["b", "City"][:-1] + ("X" if not df.loc["b", "City"].endswith("X") else "Q")
    df.loc["d", "Address"] = "zzqx vvkw"
    return df


def test_validate_keeps_rows_and_names_what_was_corrected(frame: pd.DataFrame, backend: LocalBackend,
                                                          points: list[dict[str, str]]) -> None:
    before = frame.copy()
    out = frame.addr.validate(backend=backend)
    pd.testing.assert_frame_equal(frame, before)
    assert out.index.equals(frame.index) and list(out.columns[:4]) == list(frame.columns)
    a = out.loc["a"]
    assert a["addr_confidence"] == Confidence.VERIFIED_MATCH and bool(a["addr_verified"])
    assert a["addr_address_line_1"].upper() == f"{points[0]['NUMBER']} {points[0]['STREET']}"  # mixed case
    assert a["addr_postal_code"] == points[0]["POSTCODE"] and isinstance(a["addr_global_address_key"], str)
    b = out.loc["b"]
    assert bool(b["addr_city_name_corrected"]) and "city_name_corrected" in b["addr_corrections"]
    assert b["addr_locality"].upper() == points[1]["CITY"]
    assert not bool(out.loc["d", "addr_verified"])


def test_validate_columns_are_typed(frame: pd.DataFrame, backend: LocalBackend) -> None:
    out = frame.addr.validate(backend=backend)
    conf = out["addr_confidence"]
    assert isinstance(conf.dtype, pd.CategoricalDtype)
    assert list(conf.cat.categories) == [c.value for c in Confidence]
    for flag in VALIDATION_DETAIL_FLAGS:
        assert out[f"addr_{flag}"].dtype == "boolean"
    assert out["addr_suggestions"].dtype == "Int64"
    assert isinstance(out["addr_match_type"].dtype, pd.CategoricalDtype)


def test_search_gives_the_top_suggestions_side_by_side(frame: pd.DataFrame, backend: LocalBackend,
                                                       points: list[dict[str, str]]) -> None:
    out = frame.addr.search(top=2, backend=backend)
    assert [c for c in out.columns if c.startswith("addr_")] == [
        "addr_confidence", "addr_confidence_meaning", "addr_more_results", "addr_suggestions",
        "addr_suggestion_1", "addr_key_1", "addr_final_1", "addr_suggestion_2", "addr_key_2", "addr_final_2",
        "addr_error", "addr_reference", "addr_reference_date", "addr_note"]
    first = out.loc["a"]
    assert first["addr_suggestion_1"].upper().startswith(f"{points[0]['NUMBER']} {points[0]['STREET']}")
    assert bool(first["addr_final_1"])
    assert (out["addr_suggestions"] <= 2).all()
    with pytest.raises(InputError, match="top"):
        frame.addr.search(top=0)
    with pytest.raises(InputError, match="search_type"):
        frame.addr.search(search_type="psychic")


def test_series_accessor_takes_one_line_addresses(points: list[dict[str, str]], backend: LocalBackend) -> None:
    p = points[0]
    s = pd.Series([f"{p['NUMBER']} {p['STREET']}, {p['CITY']} {p['REGION']} {p['POSTCODE']}", None],
                  index=[5, 6], name="where")
    out = s.addr.validate(backend=backend)
    assert list(out.index) == [5, 6] and out.columns[0] == "where"
    assert out.loc[5, "addr_confidence"] == Confidence.VERIFIED_MATCH
    assert out.loc[6, "addr_confidence"] != Confidence.VERIFIED_MATCH  # an empty line gets an answer too
    assert len(s.addr.search(top=1, backend=backend)) == 2


def test_series_accessor_refuses_non_text_with_attribute_error() -> None:
    numbers = pd.Series([1, 2, 3])
    assert not hasattr(numbers, "addr")
    with pytest.raises(AttributeError, match="text addresses"):
        numbers.addr  # noqa: B018
    assert hasattr(pd.Series(["x"], dtype="category"), "addr")


def test_mapping_and_wrong_input(frame: pd.DataFrame, backend: LocalBackend) -> None:
    renamed = frame.rename(columns={"Address": "where"})
    assert renamed.addr.columns({"ADDRESS": "where"})["STREET1"] == "where"
    out = renamed.addr.validate(backend=backend, mapping={"ADDRESS": "where"})
    assert out.loc["a", "addr_confidence"] == Confidence.VERIFIED_MATCH
    with pytest.raises(InputError, match="not in the input"):
        frame.addr.validate(mapping={"ZIP": "nope"})
    with pytest.raises(InputError, match="unknown address field"):
        frame.addr.validate(mapping={"MOOD": "City"})
    with pytest.raises(InputError, match="no address columns"):
        pd.DataFrame({"x": [1]}).addr.validate()
    with pytest.raises(InputError, match="country"):
        frame.addr.validate(country="12")


class FlakyAddresses:
    """Fault injection: the local backend, except that one address loses its connection."""

    def __init__(self, inner: LocalBackend, lost: str) -> None:
        self.inner, self.lost, self.asked = inner, lost, 0

    @property
    def name(self) -> str:
        return "flaky-" + self.inner.name

    def validate(self, request: SearchRequest) -> ValidateResponse:
        self.asked += 1
        if self.lost in request.text:
            raise TransportError("connection reset by peer")
        return self.inner.validate(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_failed_address_keeps_its_row_and_is_asked_again_next_time(frame: pd.DataFrame,
                                                                      backend: LocalBackend) -> None:
    flaky = FlakyAddresses(backend, lost="zzqx")
    out = frame.addr.validate(backend=flaky)
    assert len(out) == 4 and "connection reset" in out.loc["d", "addr_error"]
    assert pd.isna(out.loc["d", "addr_confidence"]) and pd.isna(out.loc["d", "addr_verified"])
    assert out["addr_error"].isna().sum() == 3
    flaky.asked = 0
    frame.addr.validate(backend=flaky)
    assert flaky.asked == 1  # the three answers came from the cache; the failure was asked again


def test_standardize_a_series_of_one_line_addresses() -> None:
    s = pd.Series(["1600 pennsylvania avenue northwest, washington dc 20500", "see attached",
                   "1600 pennsylvania avenue northwest, washington dc 20500", None], index=list("wxyz"))
    out = s.addr.standardize()
    assert list(out.index) == list("wxyz") and out.columns[0] == "address"
    w = out.loc["w"]
    assert (w["std_full_address"], w["std_city"], w["std_state"], w["std_zip"]) == \
        ("1600 PENNSYLVANIA AVE NW", "WASHINGTON", "DC", "20500")
    assert (w["std_prim_range"], w["std_prim_name"], w["std_suffix"], w["std_postdir"]) == \
        ("1600", "PENNSYLVANIA", "AVE", "NW")
    assert bool(w["std_valid"]) and out["std_valid"].dtype == "boolean"
    assert not bool(out.loc["x", "std_valid"]) and "57" in out.loc["x", "std_error_codes"]
    pd.testing.assert_series_equal(out.loc["y"], out.loc["w"], check_names=False)
    assert out["std_lat"].dtype == "float64"


def test_standardize_a_frame_explains_corrections() -> None:
    df = pd.DataFrame({"street": ["232 sullivan road", "12 main st"], "city": ["seatle", "boston"],
                       "state": ["wa", "ma"], "zip": ["98146", "02108"]})
    out = df.addr.standardize()
    first = out.iloc[0]
    assert first["std_city"] == "SEATTLE" and "city" in first["std_corrected"]
    assert "04" in first["std_error_codes"].split() and "City name corrected" in first["std_error_meanings"]
    assert list(out.columns[:4]) == list(df.columns)


def test_demo_answers_say_they_are_synthetic(frame: pd.DataFrame) -> None:
    out = frame.addr.validate(reference="demo", cache=False)
    assert (out["addr_reference"] == "us-demo-synthetic").all()
    assert out["addr_note"].str.contains("synthetic demo data").all()
    assert out["addr_reference_date"].str.match(r"\d{4}-\d{2}-\d{2}").all()
    found = frame.addr.search(top=1, reference="demo", cache=False)
    assert (found["addr_reference"] == "us-demo-synthetic").all()


def test_without_a_reference_no_street_is_ever_claimed(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's examples: with nothing installed, neither comes back verified (they used to match invented
    demo streets); the ZIP / city / state are checked, and the answer says the street was not."""
    import warnings

    from dqkit.backends.select import forget_local
    from dqkit.engines.address import openonly

    monkeypatch.setenv("DQKIT_REFERENCE_DIR", str(tmp_path / "none"))
    monkeypatch.setattr(openonly, "_warned", False)
    forget_local()
    df = pd.DataFrame({"address": ["350 Fifth Avenue, New York, NY 10118",
                                   "1600 pennsylvania avenue nw washington dc 20500",
                                   "12 Nowhere Rd, Springfield ZZ 00000", ""]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = df.addr.validate(cache=False)
        again = df.addr.validate(cache=False)
    told = [w for w in caught if issubclass(w.category, openonly.NoReferenceWarning)]
    assert len(told) == 1 and "dqkit reference add" in str(told[0].message)  # once per process, how to add one
    assert Path(told[0].filename).resolve() == Path(__file__).resolve()  # points at the user's line, not dqkit's
    assert not out["addr_verified"].any() and again["addr_confidence"].tolist() == out["addr_confidence"].tolist()
    assert out["addr_confidence"].tolist() == [Confidence.VERIFIED_PLACE, Confidence.VERIFIED_PLACE,
                                               Confidence.NO_MATCHES, Confidence.INSUFFICIENT_SEARCH_TERMS]
    assert out.loc[0, "addr_postal_code"] == "10118" and out.loc[0, "addr_locality"] == "New York"
    assert out.loc[1, "addr_address_line_1"] in ("", None) or pd.isna(out.loc[1, "addr_address_line_1"])
    assert (out["addr_match_type"].iloc[:2] == "post_code_no_address").all()
    assert (out["addr_reference"] == "open-data-only").all()
    assert out["addr_note"].str.contains("street not checked").all()
    found = df.iloc[:1].addr.search(top=2, cache=False)
    assert found.loc[0, "addr_confidence"] == Confidence.NO_MATCHES and found.loc[0, "addr_suggestions"] == 0
    forget_local()
