"""Small things a user meets in the first hour (issue 29): a firm typed in front of the lead's street is its firm
line, not a second street line; a phone extension ("x12") is kept in a PHONE_EXTENSION column and sent to the
service; names written family name first (Vietnamese, Hungarian, Korean, Chinese conventions) are read so where
the data shows it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dqkit.backends.local import LocalBackend
from dqkit.cli import main
from dqkit.contract.lead import LeadRequest
from dqkit.contract.lead_columns import lead_from_row, resolve_columns
from dqkit.engines.lead.names import parse_full_name, parse_name
from dqkit.notebook import leads

ACME = LeadRequest(first_name="Dana", last_name="Whitfield", street1="Acme Inc, 5770 Balboa Dr", city="Oakland",
                   state="CA", zip="94611")


def test_a_firm_in_front_of_the_street_is_the_firm_line() -> None:
    sa = LocalBackend().verify_lead(ACME).standardized_address
    assert sa is not None
    assert (sa.full_address, sa.street1, sa.street2, sa.firmline) == ("5770 BALBOA DR", "5770 BALBOA DR", "",
                                                                      "ACME INC")
    # a firm on the line above (STREET1), the street in STREET2: the same answer
    sa2 = LocalBackend().verify_lead(LeadRequest(first_name="Dana", last_name="Whitfield", street1="Acme Inc",
                                                 street2="5770 Balboa Dr", city="Oakland", state="CA",
                                                 zip="94611")).standardized_address
    assert sa2 is not None and (sa2.full_address, sa2.firmline) == ("5770 BALBOA DR", "ACME INC")
    # the company column, when there is one, names the firm
    sa3 = LocalBackend().verify_lead(LeadRequest(first_name="Dana", last_name="Whitfield",
                                                 business_name="Acme Incorporated",
                                                 street1="Acme Inc, 5770 Balboa Dr", city="Oakland", state="CA",
                                                 zip="94611")).standardized_address
    assert sa3 is not None and (sa3.street2, sa3.firmline) == ("", "ACME INCORPORATED")


def test_lines_that_are_no_firm_stay_as_they_were() -> None:
    be = LocalBackend()
    for street1, street2, want in (("5770 Balboa Dr", "Apt 4", "5770 BALBOA DR APT 4"),
                                   ("Attn: Billing, 5770 Balboa Dr", "", "5770 BALBOA DR"),
                                   ("5770 Balboa Dr", "", "5770 BALBOA DR")):
        sa = be.verify_lead(LeadRequest(first_name="Jo", last_name="Roe", street1=street1, street2=street2,
                                        city="Oakland", state="CA", zip="94611")).standardized_address
        assert sa is not None and sa.full_address == want and sa.firmline == "", street1


def test_a_phone_extension_is_kept_in_its_own_column(tmp_path: Path) -> None:
    df = pd.DataFrame({"First Name": ["Maria", "James", "Grace"], "Last Name": ["Garcia", "Okafor", "Liu"],
                       "Street": ["5770 Balboa Dr", "516 Centre Ct", "3121 Suter St"], "State": ["CA"] * 3,
                       "Zip": ["94611", "94502", "94602"],
                       "Phone": ["510-555-0142 x12", "(510) 555-0199", "510.555.0112 ext. 7"]})
    out = leads.verify(df, backend=LocalBackend(), cache=False, progress=False)
    assert list(out["lead_phone_extension"]) == ["12", "", "7"]
    assert list(out["lead_phone_numbers"]) == ["5105550142", "5105550199", "5105550112"]
    src, dst = tmp_path / "leads.csv", tmp_path / "out.csv"
    df.to_csv(src, index=False)
    assert main(["verify", str(src), "-o", str(dst), "--quiet", "--no-cache"]) == 0
    got = pd.read_csv(dst, dtype=str, keep_default_na=False)
    assert list(got["phone_extension"]) == ["12", "", "7"]


def test_an_extension_column_of_its_own_wins_and_no_phone_means_no_column() -> None:
    df = pd.DataFrame({"First Name": ["Maria", "James"], "Last Name": ["Garcia", "Okafor"],
                       "Street": ["5770 Balboa Dr", "516 Centre Ct"], "State": ["CA", "CA"], "Zip": ["94611", "94502"],
                       "Phone": ["5105550142", "510-555-0199 x3"], "Ext": ["34", "9"]})
    out = leads.verify(df, backend=LocalBackend(), cache=False, progress=False)
    assert list(out["lead_phone_extension"]) == ["34", "9"]
    none = leads.verify(df.drop(columns=["Phone", "Ext"]), backend=LocalBackend(), cache=False, progress=False)
    assert "lead_phone_extension" not in none.columns


def test_the_extension_is_sent_to_the_service() -> None:
    from dqkit.client import LeadClient
    from dqkit.server.testing import serve_process

    row = {"Last Name": "Garcia", "Zip": "94611", "Phone": "510-555-0142 x12"}
    lead = lead_from_row(row, resolve_columns(list(row)))
    with serve_process(tokens=["t0ken-for-tests"], demo=True) as served:
        client = LeadClient(served.url, token="t0ken-for-tests")
        (item,) = client.verify_leads([lead])
    assert item.result is not None and item.result.input_data is not None  # the server echoes what it got
    assert [(p.phone_number, p.phone_extension) for p in item.result.input_data.phones] == [("5105550142", "12")]


@pytest.mark.parametrize(("full", "first", "middle", "last"), [
    ("Nguyễn Thị Minh Khai", "KHAI", "THI MINH", "NGUYEN"),  # Vietnamese letters: family first, called by the last
    ("NGUYEN Thi Minh Khai", "KHAI", "THI MINH", "NGUYEN"),
    ("Nguyen Van Anh", "ANH", "VAN", "NGUYEN"),  # the middle name Văn without its marks
    ("Đặng Văn Lâm", "LAM", "VAN", "DANG"),  # Đ is a D (it was dropped: "ANG")
    ("Nagy János", "JANOS", "", "NAGY"),  # Hungarian
    ("Simon Péter", "PETER", "", "SIMON"),
    ("Kim Min-su", "MIN-SU", "", "KIM"),  # Korean
    ("WANG Xiaoming", "XIAOMING", "", "WANG"),  # the family name in capitals
    ("王小明", "小明", "", "王"),  # Chinese script
    ("欧阳娜娜", "娜娜", "", "欧阳"),
    ("김민수", "민수", "", "김"),  # Hangul
    ("山田 太郎", "太郎", "", "山田"),
    # what shows no order is read as written
    ("Zhang Wei", "ZHANG", "", "WEI"),
    ("Minh Nguyen", "MINH", "", "NGUYEN"),
    ("Simon Peter", "SIMON", "", "PETER"),
    ("Janos Nagy", "JANOS", "", "NAGY"),
    ("Ho van Dijk", "HO", "", "VAN DIJK"),  # a Dutch "van", not Văn
    ("Lee Ann-Marie", "LEE", "", "ANN-MARIE"),
    ("John A Smith", "JOHN", "A", "SMITH"),
    ("JOHN SMITH", "JOHN", "", "SMITH"),
    ("Smith, John A", "JOHN", "A", "SMITH"),
    ("Bjørn Ødegård", "BJORN", "", "ODEGARD"),
])
def test_names_written_family_name_first_are_read_so_where_the_data_shows_it(full: str, first: str, middle: str,
                                                                            last: str) -> None:
    n = parse_full_name(full)
    assert (n.first_name, n.middle_name, n.last_name) == (first, middle, last)


def test_a_vietnamese_given_name_in_the_first_name_field() -> None:
    n = parse_name(LeadRequest(first_name="Thị Minh Khai", last_name="Nguyễn"))
    assert (n.first_name, n.middle_name, n.last_name) == ("KHAI", "THI MINH", "NGUYEN")
    n = parse_name(LeadRequest(first_name="Mary Ann", last_name="Le"))  # no Vietnamese shown: as written
    assert (n.first_name, n.middle_name, n.last_name) == ("MARY", "ANN", "LE")
