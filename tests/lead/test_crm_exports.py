"""Real CRM and marketing exports, read without --map: one fixture per tool in crm_exports/, each with the tool's
default header row (Salesforce, HubSpot, Dynamics 365, Zoho, Pipedrive, Marketo, Mailchimp)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from dqkit.backends.local import LocalBackend
from dqkit.contract.lead_columns import header_forms, lead_from_row, resolve_columns
from dqkit.notebook import leads
from dqkit.notebook.columns import ColumnWarning, missing_lead_columns

HERE = Path(__file__).resolve().parent / "crm_exports"
EXPORTS = sorted(p.name for p in HERE.glob("*.csv"))

# Export -> the columns the address and the phone must be read from (what a wrong guess would get wrong).
EXPECTED: dict[str, dict[str, str]] = {
    "salesforce_leads.csv": {"STREET1": "Street", "STATE": "State/Province", "ZIP": "Zip/Postal Code",
                             "BUSINESS_NAME": "Company / Account", "PHONE_NUMBER": "Phone"},
    "salesforce_contacts.csv": {"STREET1": "Mailing Street", "STATE": "Mailing State/Province",
                                "ZIP": "Mailing Zip/Postal Code", "BUSINESS_NAME": "Account Name"},
    "salesforce_accounts.csv": {"STREET1": "Billing Street", "CITY": "Billing City", "ZIP": "Billing Zip/Postal Code",
                                "BUSINESS_NAME": "Account Name"},
    "hubspot_contacts.csv": {"STREET1": "Street Address", "STATE": "State/Region", "ZIP": "Postal Code",
                             "PHONE_NUMBER": "Phone Number", "COUNTRY": "Country/Region"},
    "hubspot_companies.csv": {"STREET1": "Street Address", "ZIP": "Postal Code", "BUSINESS_NAME": "Company name"},
    "dynamics_leads.csv": {"STREET1": "Street 1", "STATE": "State/Province", "ZIP": "ZIP/Postal Code",
                           "PHONE_NUMBER": "Business Phone"},
    "dynamics_contacts.csv": {"STREET1": "Address 1: Street 1", "CITY": "Address 1: City",
                              "ZIP": "Address 1: ZIP/Postal Code", "FULL_NAME": "Full Name"},
    "zoho_leads.csv": {"STREET1": "Street", "ZIP": "Zip Code", "BUSINESS_NAME": "Company"},
    "zoho_contacts.csv": {"STREET1": "Mailing Street", "STATE": "Mailing State", "ZIP": "Mailing Zip"},
    "zoho_accounts.csv": {"STREET1": "Billing Street", "ZIP": "Billing Code", "BUSINESS_NAME": "Account Name"},
    "pipedrive_people.csv": {"STREET1": "Person - Postal address - Street/road name",
                             "HOUSE_NUMBER": "Person - Postal address - House number",
                             "ZIP": "Person - Postal address - ZIP/Postal code",
                             "STATE": "Person - Postal address - State/county",
                             "BUSINESS_NAME": "Person - Organization", "PHONE_NUMBER": "Person - Phone - Work"},
    "pipedrive_organizations.csv": {"STREET1": "Organization - Address - Street/road name",
                                    "ZIP": "Organization - Address - ZIP/Postal code",
                                    "BUSINESS_NAME": "Organization - Name"},
    "marketo_leads.csv": {"STREET1": "Address", "ZIP": "Postal Code", "PHONE_NUMBER": "Phone Number"},
    "mailchimp_audience.csv": {"STREET1": "Address", "PHONE_NUMBER": "Phone Number"},
}


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(HERE / name, dtype=str, keep_default_na=False)


def test_every_fixture_has_its_expectation() -> None:
    assert sorted(EXPECTED) == EXPORTS


@pytest.mark.parametrize("name", EXPORTS)
def test_each_export_is_read_without_a_map(name: str) -> None:
    df = read(name)
    fields = resolve_columns(list(df.columns))
    assert {f: fields.get(f) for f in EXPECTED[name]} == EXPECTED[name], fields
    assert "PREFIX" not in fields or fields["PREFIX"] == "Salutation", "a job title is no name prefix"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", ColumnWarning)
        out = leads.verify(df, backend=LocalBackend(), cache=False, progress=False)
    # Only Mailchimp's one-line address lacks ZIP and state columns (they are read from it, row by row).
    assert [w.category for w in said] == ([ColumnWarning] if name == "mailchimp_audience.csv" else [])
    assert list(out["lead_result_code"]) == ["S100", "S100"], out["lead_result_value"].tolist()
    assert list(out["lead_std_zip"]) == ["20500", "94501"]
    assert out.attrs["lead_columns"] == fields  # the mapping used, returned in Python


def test_other_and_shipping_addresses_are_not_read_as_the_lead_s() -> None:
    for name, zip_col in (("salesforce_contacts.csv", "Other Zip/Postal Code"),
                          ("salesforce_accounts.csv", "Shipping Zip/Postal Code"),
                          ("zoho_accounts.csv", "Shipping Code"),
                          ("dynamics_contacts.csv", "Address 2: ZIP/Postal Code")):
        assert zip_col not in resolve_columns(list(read(name).columns)).values(), name
    assert header_forms("Shipping Zip/Postal Code") == ["shippingzippostalcode"]
    assert "state" in header_forms("Address 1: State/Province")
    assert "zip" in header_forms("Mailing Zip/Postal Code")


def test_mailchimp_one_line_address_is_split_and_its_ip_region_is_not_the_state() -> None:
    df = read("mailchimp_audience.csv")
    fields = resolve_columns(list(df.columns))
    assert "STATE" not in fields, "REGION is where the IP address was placed, not the lead's state"
    lead = lead_from_row(df.iloc[1].to_dict(), fields)
    assert (lead.street1, lead.street2, lead.city, lead.state, lead.zip) == ("1216 Santa Clara Ave", "Apt 2",
                                                                            "Alameda", "CA", "94501")


def test_pipedrive_house_number_goes_before_the_street() -> None:
    df = read("pipedrive_people.csv")
    lead = lead_from_row(df.iloc[0].to_dict(), resolve_columns(list(df.columns)))
    assert lead.street1 == "1600 Pennsylvania Ave NW"


@pytest.mark.parametrize(("name", "row"), [("salesforce_leads.csv", 1), ("hubspot_contacts.csv", 1),
                                         ("dynamics_leads.csv", 1), ("pipedrive_people.csv", 1)])
def test_an_empty_phone_is_answered_by_the_mobile_column(name: str, row: int) -> None:
    df = read(name)
    fields = resolve_columns(list(df.columns))
    lead = lead_from_row(df.iloc[row].to_dict(), fields)
    assert [p.phone_number for p in lead.phones] == ["5105550134"], fields
    first = lead_from_row(df.iloc[0].to_dict(), fields)
    assert [p.phone_number for p in first.phones] == ["2024561111"]  # the first phone column, when filled, wins


def test_a_missing_zip_state_or_street_column_is_a_warning_naming_the_columns() -> None:
    df = pd.DataFrame({"Full Name": ["Maria Garcia"], "Postleitzahl": ["20500"], "Telefon": ["2024561111"]})
    said = missing_lead_columns(resolve_columns(list(df.columns)), df.columns)
    assert said is not None and "ZIP or state or street" in said and "'Postleitzahl'" in said
    assert "mapping={'ZIP'" in said
    with pytest.warns(ColumnWarning, match="Postleitzahl"):
        leads.verify(df, backend=LocalBackend(), cache=False, progress=False)


def test_the_cli_prints_the_mapping_and_the_warning_before_any_lead_is_run(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(HERE / "hubspot_contacts.csv"), "-o",
                           str(out), "--quiet", "--no-cache"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "ZIP" in proc.stderr and "<- 'Postal Code'" in proc.stderr and "<- 'State/Region'" in proc.stderr
    src = tmp_path / "odd.csv"
    pd.DataFrame({"Full Name": ["Maria Garcia"], "Postleitzahl": ["20500"]}).to_csv(src, index=False)
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(src), "-o", str(out), "--quiet",
                           "--no-cache"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    warning = proc.stderr.index("warning: no ZIP")
    assert "'Postleitzahl'" in proc.stderr and "--map ZIP=" in proc.stderr and "mapping=" not in proc.stderr
    assert warning < proc.stderr.index("wrote 1 rows")
    none = tmp_path / "none.csv"
    pd.DataFrame({"a": ["1"], "b": ["2"]}).to_csv(none, index=False)
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(none), "-o", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "--map FIRST_NAME=" in proc.stderr and "mapping=" not in proc.stderr
