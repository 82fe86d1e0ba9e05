"""`df.leads.verify()` on the real local engine: new frames that keep every row, typed result columns, columns
found by forgiving names, errors recorded per row, and a warm rerun that does not ask the engine again."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dqkit.notebook  # noqa: F401  (registers the accessors)
from dqkit.backends.local import LocalBackend
from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.contract.lead_columns import CORE_COLUMNS, RESULT_COLUMNS
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from tests.notebook.conftest import CountingLeadBackend

ROWS = [
    # First Name, Last Name, Street, City, State, Zip Code, Phone, Lead Source
    ("Maria", "Garcia", "1600 Pennsylvania Ave NW", "Washington", "DC", "20500", "2024561111", "web"),
    ("Mickey", "Mouse", "1 Main St", "Springfield", "IL", "62701", "2175551234", "web"),
    ("J$ne", "Roe", "2 Elm St", "Springfield", "IL", "62701", "2175550000", "fair"),
    ("", "", "3 Oak St", "Springfield", "IL", "62701", "2175550001", "fair"),
    ("Ann", "Lee", "4 Pine St", "Boston", "MA", "", "6175550101", "partner"),
    ("Maria", "Garcia", "1600 Pennsylvania Ave NW", "Washington", "DC", "20500", "2024561111", "web"),
    ("Omar", "Haddad", "77 Mass Ave", "Cambridge", "MA", "2139", "12", "partner"),
]
COLUMNS = ["First Name", "Last Name", "Street", "City", "State", "Zip Code", "Phone", "Lead Source"]


@pytest.fixture(scope="module")
def backend() -> LocalBackend:
    return LocalBackend(profile=LeadProfile())


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=COLUMNS, index=pd.Index([10, 11, 12, 13, 14, 10, 15], name="lead_no"))


def test_verify_returns_a_new_frame_keeping_index_columns_and_every_row(frame: pd.DataFrame,
                                                                        backend: LocalBackend) -> None:
    before = frame.copy(deep=True)
    out = frame.leads.verify(backend=backend)
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame is untouched
    assert out is not frame
    assert out.index.equals(frame.index) and out.index.name == "lead_no"
    assert list(out.columns[: len(COLUMNS)]) == COLUMNS
    added = [str(c).removeprefix("lead_") for c in out.columns[len(COLUMNS):]]
    assert added[-2:] == ["reference", "reference_date"]  # which address reference, last
    added = added[:-2]
    assert added == [c for c in RESULT_COLUMNS if c in added]  # in the documented order
    assert set(CORE_COLUMNS) <= set(added)
    pd.testing.assert_frame_equal(out[COLUMNS], frame)
    got = list(out["lead_result_code"].astype(str))
    assert got[1] == "E100" and got[2] == "E200" and got[3] == "E600" and got[4] == "E601"
    assert got[0] in ("S100", "S102") and got[5] == got[0]


def test_only_columns_the_profile_can_fill_and_every_code_has_its_meaning(frame: pd.DataFrame,
                                                                          backend: LocalBackend) -> None:
    out = frame.leads.verify(backend=backend, cache=False)
    added = [str(c).removeprefix("lead_") for c in out.columns[len(COLUMNS):]]
    # the default profile answers PHONE_STATUS: no score column but the core one the plots read; no Stage 2
    assert not [c for c in added if c.startswith("score_") and c != "score_result"]
    assert not [c for c in added if c.startswith(("s2_", "biz_", "unparsed"))]
    for code in ("std_geomatch", "std_address_type", "els_address_verification", "els_phone_verification",
                 "rpa_status", "business_name_ind"):
        assert code in added and f"{code}_meaning" in added, code
    assert "std_address_code" not in added  # no reference installed: never filled, so left out
    every = [c for c in added if not out[f"lead_{c}"].notna().any()]
    assert set(every) <= set(CORE_COLUMNS)  # an empty column is only ever a core one
    scored = frame.leads.verify(backend=LocalBackend(profile=LeadProfile(stage1="score")), cache=False)
    assert {"lead_score_desc", "lead_score_validity"} <= set(scored.columns)
    assert "lead_phone_desc" not in scored.columns


def test_result_columns_are_typed(frame: pd.DataFrame, backend: LocalBackend) -> None:
    out = frame.leads.verify(backend=backend)
    code = out["lead_result_code"]
    assert isinstance(code.dtype, pd.CategoricalDtype)
    assert list(code.cat.categories) == list(codes.RESULT_CODES)  # the whole table, in the seed's order
    assert isinstance(out["lead_outcome"].dtype, pd.CategoricalDtype)
    assert set(out["lead_outcome"].cat.categories) >= {o.value for o in codes.Outcome}
    assert isinstance(out["lead_phone_status"].dtype, pd.CategoricalDtype)
    assert out["lead_std_lat"].dtype == np.float64
    assert pd.api.types.is_string_dtype(out["lead_result_value"].dtype)
    spoof = out.iloc[1]
    assert spoof["lead_outcome"] == codes.Outcome.LEAD_QUALITY.value
    assert spoof["lead_result_category"] == codes.SPOOF_CATEGORY
    assert spoof["lead_result_meaning"] == codes.RESULT_CODES["E100"].condition
    assert "Mickey" in spoof["lead_result_value"] or "Mouse" in spoof["lead_result_value"]
    # Missing values are missing, not "": value_counts counts only what was answered.
    assert out["lead_phone_desc"].isna().sum() == out["lead_phone_status"].isna().sum()
    # Columns no answer of the default (PHONE_STATUS) profile can fill are left out (issue 14).
    assert not any(c.startswith("lead_score_") for c in out.columns)


def test_score_result_is_decoded_into_its_parts(frame: pd.DataFrame) -> None:
    scoring = LocalBackend(LeadEngine(LeadProfile(stage1="score", standardize_address=False)))
    out = frame.leads.verify(backend=scoring, cache=False)
    scored = out[out["lead_score_result"].notna()]
    assert len(scored) >= 3
    for _, row in scored.iterrows():
        sc = codes.SCORE_RESULTS[row["lead_score_result"]]
        assert row["lead_score_validity"] == sc.validity.value
        assert (row["lead_score_match_level"] if pd.notna(row["lead_score_match_level"]) else "") \
            == sc.match_level.value
    for part in ("lead_score_match_level", "lead_score_line_class", "lead_score_validity"):
        assert isinstance(out[part].dtype, pd.CategoricalDtype)


def test_forgiving_names_and_explicit_mapping(backend: LocalBackend) -> None:
    df = pd.DataFrame({"fname": ["Ann"], "surname": ["Lee"], "postcode": ["02134"], "cell": ["6175550101"],
                       "vendor": ["v1"]})
    assert df.leads.columns() == {"FIRST_NAME": "fname", "LAST_NAME": "surname", "ZIP": "postcode",
                                  "PHONE_NUMBER": "cell", "LEAD_SOURCE": "vendor"}  # the source, never sent
    df2 = df.rename(columns={"postcode": "where"})
    assert df2.leads.verify(backend=backend)["lead_result_code"].iloc[0] == "E601"
    mapped = df2.leads.verify(backend=backend, mapping={"ZIP": "where"})
    assert mapped["lead_result_code"].iloc[0] != "E601"


def test_wrong_input_raises_input_error_not_attribute_error(frame: pd.DataFrame) -> None:
    with pytest.raises(InputError, match="not in the input"):
        frame.leads.verify(mapping={"ZIP": "no such column"})
    with pytest.raises(InputError, match="unknown lead field"):
        frame.leads.verify(mapping={"SHOE_SIZE": "Zip Code"})
    with pytest.raises(InputError, match="no lead columns"):
        pd.DataFrame({"x": [1], "y": [2]}).leads.verify()
    with pytest.raises(InputError, match="unknown backend"):
        frame.leads.verify(backend="carrier pigeon")
    with pytest.raises(InputError, match="cannot verify leads"):
        frame.leads.verify(backend=object())  # type: ignore[arg-type]
    assert isinstance(InputError("x"), ValueError)


def test_the_accessor_exists_on_every_frame() -> None:
    assert hasattr(pd.DataFrame(), "leads") and hasattr(pd.DataFrame({"a": [1]}), "addr")


def test_empty_frame_gives_typed_empty_result(backend: LocalBackend) -> None:
    out = pd.DataFrame({"first_name": pd.Series([], dtype=str), "zip": pd.Series([], dtype=str)})\
        .leads.verify(backend=backend)
    assert len(out) == 0 and "lead_result_code" in out.columns
    assert isinstance(out["lead_result_code"].dtype, pd.CategoricalDtype)


def test_rerun_on_a_result_frame_replaces_the_result_columns(frame: pd.DataFrame, backend: LocalBackend) -> None:
    once = frame.leads.verify(backend=backend)
    twice = once.leads.verify(backend=backend)
    assert list(twice.columns) == list(once.columns)
    pd.testing.assert_frame_equal(twice, once)


def test_warm_rerun_asks_nothing_and_gives_the_same_frame(frame: pd.DataFrame) -> None:
    counting = CountingLeadBackend()
    first = frame.leads.verify(backend=counting)
    assert len(counting.asked) == 6  # seven rows, one repeated
    again = frame.leads.verify(backend=counting)
    assert len(counting.asked) == 6
    pd.testing.assert_frame_equal(again, first)
    # A frame that shares rows with the first is answered per request from the cache.
    more = pd.concat([frame, frame.assign(**{"Last Name": "Newman"}).iloc[:1]])
    out = more.leads.verify(backend=counting)
    assert len(counting.asked) == 7 and len(out) == len(more)


def test_cache_false_asks_again(frame: pd.DataFrame) -> None:
    counting = CountingLeadBackend()
    frame.leads.verify(backend=counting, cache=False)
    frame.leads.verify(backend=counting, cache=False)
    assert len(counting.asked) == 12


def test_rows_whose_request_failed_keep_their_row_and_say_why(frame: pd.DataFrame) -> None:
    flaky = CountingLeadBackend(fail_on=["Roe"])
    out = frame.leads.verify(backend=flaky)
    assert len(out) == len(frame)
    failed = out.iloc[2]
    assert failed["lead_result_type"] == "FAILED" and pd.isna(failed["lead_result_code"])
    assert "TransportError" in failed["lead_result_value"] and "Roe" in failed["lead_result_value"]
    assert failed["lead_outcome"] == "not processed"
    assert (out["lead_result_type"] != "FAILED").sum() == len(frame) - 1
    # The failure is not remembered: the rerun asks for that lead again, and only for it.
    healthy = CountingLeadBackend()
    healthy_name = flaky.name
    assert healthy.name == healthy_name
    rerun = frame.leads.verify(backend=healthy)
    assert [r.last_name for r in healthy.asked] == ["Roe"]
    assert rerun.iloc[2]["lead_result_type"] == "STATUS"


def test_non_string_and_missing_cells_are_read_forgivingly(backend: LocalBackend) -> None:
    df = pd.DataFrame({"first_name": ["Ann", None], "last_name": ["Lee", "Kim"], "zip": [2134.0, np.nan],
                       "phone": [6175550101, 6175550102]})
    out = df.leads.verify(backend=backend)
    assert out["lead_result_code"].iloc[1] in ("E600", "E601")
    assert out["lead_result_code"].iloc[0] != "E601"  # 2134.0 read as ZIP 02134


def test_duplicate_column_names_and_non_string_labels(backend: LocalBackend) -> None:
    df = pd.DataFrame([["Ann", "Lee", "02134", 1]], columns=["first_name", "last_name", "zip", 0])
    out = df.leads.verify(backend=backend)
    assert list(out.columns[:4]) == ["first_name", "last_name", "zip", 0]
    dup = pd.DataFrame([["Ann", "Lee", "02134", "x"]], columns=["first_name", "last_name", "zip", "zip"])
    assert len(dup.leads.verify(backend=backend)) == 1


def test_cells_python_calls_equal_but_that_are_different_requests_are_not_merged() -> None:
    counting = CountingLeadBackend()
    df = pd.DataFrame({"first_name": pd.Series([True, 1, 1], dtype=object), "last_name": ["A", "A", "A"],
                       "zip": ["02134"] * 3})
    out = df.leads.verify(backend=counting, cache=False)
    assert sorted(r.first_name for r in counting.asked) == ["1", "True"]  # the third row merged with the second
    assert list(out["lead_name_first"]) == ["TRUE", "1", "1"]


def test_an_interrupted_run_resumes_where_it_stopped() -> None:
    leads = pd.DataFrame({"first_name": "Ann", "last_name": [f"Lee{i}" for i in range(300)], "zip": "02134"})
    crashing = CountingLeadBackend(interrupt_at=130)
    with pytest.raises(KeyboardInterrupt):
        leads.leads.verify(backend=crashing, chunk_size=50)
    resumed = CountingLeadBackend()
    out = leads.leads.verify(backend=resumed, chunk_size=50)
    assert len(resumed.asked) == 300 - 100  # the two chunks finished before Ctrl-C are not asked again
    assert len(out) == 300 and (out["lead_result_code"] == "S100").all()
    assert list(out["lead_name_last"]) == [f"LEE{i}" for i in range(300)]


def test_progress_bar_on_request_and_quiet_by_default_under_test(frame: pd.DataFrame,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    frame.leads.verify(backend=CountingLeadBackend(), cache=False)
    assert "verify leads" not in capsys.readouterr().err
    frame.leads.verify(backend=CountingLeadBackend(), cache=False, progress=True)
    assert "verify leads" in capsys.readouterr().err


def test_lead_answers_stay_cached_when_the_local_address_engine_opens(frame: pd.DataFrame) -> None:
    backend = LocalBackend()
    first = frame.leads.verify(backend=backend)
    backend.address_engine  # noqa: B018  (opening it renames the backend; lead answers do not depend on it)
    again = frame.iloc[:3].leads.verify(backend=backend)
    pd.testing.assert_frame_equal(again, first.iloc[:3])  # same transaction IDs: answered from the cache


def test_results_typed_in_slices_equal_results_typed_at_once(frame: pd.DataFrame,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit.notebook import frames

    odd = CountingLeadBackend(answer={"Haddad": "E999"})  # a code outside the seed's table, in one slice only
    whole = frame.leads.verify(backend=odd, cache=False)
    monkeypatch.setattr(frames, "_SLICE", 2)
    sliced = frame.leads.verify(backend=odd, cache=False)
    cols = [c for c in whole.columns if c != "lead_transaction_id"]
    pd.testing.assert_frame_equal(sliced[cols], whole[cols])
    assert list(sliced["lead_result_code"].cat.categories) == [*codes.RESULT_CODES, "E999"]
    assert sliced["lead_result_code"].iloc[-1] == "E999"  # kept, not lost to the fixed categories
