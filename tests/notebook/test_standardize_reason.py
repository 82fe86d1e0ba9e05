"""`std_reason`: an address the standardizer finds not valid says why, in words; a valid one has no reason."""

from __future__ import annotations

import pandas as pd
import pytest

import dqkit.notebook  # noqa: F401


@pytest.mark.parametrize(("address", "reason"), [
    ("1068 N Beverly Ln, Pico Rivera", "no ZIP, and no state for the city: add either"),
    ("same as billing, Lansing NC 28643", "no house number and street name"),
    ("zzz", "no house number and street name; no ZIP and no city"),
])
def test_an_address_that_is_not_valid_says_why(address: str, reason: str) -> None:
    row = pd.Series([address]).addr.standardize().iloc[0]
    assert not row["std_valid"]
    assert str(row["std_reason"]).startswith(reason)


def test_every_invalid_address_has_a_reason_and_no_valid_one_has() -> None:
    from dqkit.notebook.samples import messy_addresses

    out = messy_addresses(200).addr.standardize()
    invalid = out[~out["std_valid"].fillna(False).astype(bool)]
    assert len(invalid) and invalid["std_reason"].notna().all()
    assert out.loc[out["std_valid"].fillna(False).astype(bool), "std_reason"].isna().all()
