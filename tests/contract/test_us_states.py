"""The state table is Publication 28's; where the `us` package (a dev dependency) knows a state, it agrees.

Why the product keeps its own table rather than importing `us` is in `dqkit/contract/us_states.py`; this test is
what makes that claim checkable: `us` lacks exactly the seven Publication 28 codes named there, and names the other
56 as the table does.
"""

from __future__ import annotations

import pytest

from dqkit.contract.lead_input import state_code
from dqkit.contract.us_states import STATES, state_code_of_name

us = pytest.importorskip("us", reason="the `us` package (dev extra) is the peer this table is compared with")


def test_the_table_agrees_with_us_where_us_knows_the_state() -> None:
    theirs = {s.abbr: s.name.upper() for s in us.states.STATES_AND_TERRITORIES}
    assert set(STATES) - set(theirs) == {"FM", "MH", "PW", "UM", "AA", "AE", "AP"}
    assert {code: STATES[code] for code in theirs} == theirs


@pytest.mark.parametrize(("written", "code"), [
    ("California", "CA"), ("new york", "NY"), ("Washington D.C.", "DC"), ("Armed Forces Europe", "AE"),
    ("Palau", "PW"), ("Ontario", ""), ("", ""),
])
def test_state_names_in_any_case_and_punctuation(written: str, code: str) -> None:
    assert state_code_of_name(written) == code
    assert state_code(written) == (code or written)
