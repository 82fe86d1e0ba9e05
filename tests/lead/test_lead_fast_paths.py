"""The per-lead fast paths of issue 31 answer as the field-by-field paths they skip: `normalize_lead`'s one test of all
its text fields at once, `prepare_lead`'s early return for a lead that fits the seed's lengths, and `cell_text` for
plain text; on random awkward values (blanks at either end or doubled, tabs, no-break spaces, "|" next to a blank,
characters that are not printable, over-long fields)."""

from __future__ import annotations

import random

import pytest

from dqkit.contract import lead_input
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_columns import cell_text
from dqkit.contract.lead_input import clean_text, normalize_lead
from dqkit.engines.lead import prepare
from dqkit.engines.lead.prepare import prepare_lead

_PIECES = ["a", "Bo", "O'Neil", " ", "  ", "\t", "\u00a0", "|", " |", "| ", "\n", "\x00", "\u200b", "é", "-", "1",
           "Apt 4", "Suite 100", "x12"]
_TEXT_FIELDS = [f for f in LeadRequest.__struct_fields__ if f not in ("phones", "attributes")]


def _value(rnd: random.Random, clean: bool = False) -> str:
    if clean or rnd.random() < 0.5:
        return rnd.choice(["", "John", "Smith", "123 Main St", "CA", "94110", "H"])
    return "".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 5))) * (12 if rnd.random() < 0.1 else 1)


def _lead(rnd: random.Random) -> LeadRequest:
    clean = rnd.random() < 0.3  # a lead as most are: every field as the schema takes it
    values = {f: _value(rnd, clean) for f in _TEXT_FIELDS}
    number = "2175550142" if clean else rnd.choice(["(217) 555-0142 x12", "", "2175550142", " 555-CALL "])
    phones = (Phone(phone_type="H" if clean else rnd.choice(["H", " b "]), phone_number=number),)
    return LeadRequest(**values, phones=phones if rnd.random() < 0.8 else ())


@pytest.mark.parametrize("seed", [31, 32])
def test_normalize_and_prepare_answer_as_the_field_by_field_paths(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(seed)
    leads = [_lead(rnd) for _ in range(3000)]
    fast = [normalize_lead(lead) for lead in leads]
    prepared = [prepare_lead(lead, None) for lead in leads]
    assert any(n is lead for n, lead in zip(fast, leads, strict=True))  # some leads took the fast path whole
    monkeypatch.setattr(lead_input, "_all_clean", lambda values: False)
    monkeypatch.setattr(prepare, "_fits", lambda lead: False)
    assert [normalize_lead(lead) for lead in leads] == fast
    assert [prepare_lead(lead, None) for lead in leads] == prepared


def test_all_clean_only_for_values_clean_text_keeps() -> None:
    rnd = random.Random(7)
    for _ in range(20000):
        values = tuple(_value(rnd) for _ in range(rnd.randint(1, 4)))
        if lead_input._all_clean(values):
            assert all(clean_text(v) == v for v in values), values
    assert lead_input._all_clean(("John", "", "123 Main St"))
    assert not lead_input._all_clean(("John ", ""))
    assert not lead_input._all_clean(("", " Smith"))


class _Text(str):
    """A str subclass (a notebook's own text type): read through str(), as before."""

    def __str__(self) -> str:
        return "other"


def test_cell_text_of_plain_text_and_of_other_values() -> None:
    assert cell_text("  94110 ") == "94110"
    assert cell_text("") == ""
    assert cell_text(_Text(" x ")) == "other"
    assert cell_text(94110.0) == "94110"
    assert cell_text(None) == "" and cell_text(float("nan")) == ""


def test_meanings_tables_answer_as_meaning() -> None:
    from dqkit.contract import codes

    for table, entries in codes.TABLES.items():
        if table == "ADDRESS_CODE":
            with pytest.raises(ValueError):
                codes.meanings(table)
            continue
        found = codes.meanings(table)
        for code in [*entries, "", "zz", "E100 ", "0", "99"]:
            assert found.get(code, "") == codes.meaning(table, code), (table, code)


def test_check_lead_names_the_first_field_too_long_as_before() -> None:
    from dqkit.contract.lead import FIELD_MAX_LENGTH
    from dqkit.contract.lead_wire import check_lead

    assert check_lead(LeadRequest(first_name="Ann", last_name="Lee", zip="94110")) is None
    too_long = LeadRequest(first_name="A" * 31, last_name="B" * 31, zip="94110")
    problem = check_lead(too_long)
    assert problem is not None and problem.code == "E300"
    first_checked = next(f for f, limit in FIELD_MAX_LENGTH.items() if f in ("FIRST_NAME", "LAST_NAME"))
    assert problem.value.startswith(f"{first_checked} is longer than")
    assert check_lead(LeadRequest(first_name="A" * 30, zip="94110")) is None  # at the limit: fine
