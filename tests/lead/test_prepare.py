"""A lead made ready to send (`dqkit.engines.lead.prepare`): what changes, what never does, and the wire."""

from __future__ import annotations

import pytest

from dqkit.backends.local import LocalBackend
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines.lead.engine import LeadEngine
from dqkit.engines.lead.prepare import answer_as_sent, move_unit, prepare_lead


@pytest.mark.parametrize(("street1", "street2", "want1", "want2"), [
    ("1533 Martin Luther King Jr Way Apt R 3", "", "1533 Martin Luther King Jr Way", "Apt R 3"),
    ("1533 Martin Luther King Jr Way, Suite 200", "", "1533 Martin Luther King Jr Way", "Suite 200"),
    ("1533 Martin Luther King Junior Way # 12", "Bldg C", "1533 Martin Luther King Junior Way", "# 12 Bldg C"),
    ("32947 Lake Candlewood Street Unit B 7", "", "32947 Lake Candlewood Street", "Unit B 7"),
])
def test_a_unit_at_the_end_of_a_long_street_goes_to_street2(street1: str, street2: str, want1: str,
                                                            want2: str) -> None:
    moved = move_unit(street1, street2)
    assert moved is not None and moved[:2] == (want1, want2)


@pytest.mark.parametrize("street1", [
    "100 Main St Apt 4",  # fits: nothing moves
    "12345 Some Very Long Street Name Boulevard",  # too long, but no unit to move
    "100 Lot 5 Extremely Long Road Name Here",  # LOT is a designator, but not at the end
])
def test_nothing_moves_without_a_unit_at_the_end_of_a_too_long_street(street1: str) -> None:
    assert move_unit(street1, "") is None


def test_a_street_still_too_long_is_abbreviated_then_cut_and_the_output_says_so() -> None:
    p = prepare_lead(LeadRequest(street1="20463 North Martin Luther King Junior Boulevard", street2="Apt 18B"))
    assert (p.lead.street1, p.lead.street2) == ("20463 N Martin Luther King JR BLVD", "Apt 18B")
    assert "abbreviated to fit 35 characters" in p.note
    cut = prepare_lead(LeadRequest(street1="12345 Some Very Long Street Name Boulevard", city="X" * 40))
    assert len(cut.lead.street1) <= 35 and "Long Street Name" in cut.lead.street1  # name words are kept
    assert cut.lead.city == "X" * 28 and "CITY cut to 28 characters" in cut.note


def test_codes_are_never_cut() -> None:
    """A wrong code stays wrong (E300): cutting "945011" to "94501" could make another, valid ZIP."""
    lead = LeadRequest(first_name="Ann", last_name="Lee", zip="945011", state="XYZ", address_type="HB")
    p = prepare_lead(lead)
    assert (p.lead.zip, p.lead.state, p.lead.address_type) == ("945011", "XYZ", "HB") and p.note == ""
    assert LocalBackend().verify_lead(lead).result_code == "E300"


def test_phones_are_digits_whatever_the_writing() -> None:
    forms = ["(510) 555-0142", "510.555.0142", "+1 510 555 0142", "1-510-555-0142", "510 555 0142"]
    sent = {prepare_lead(LeadRequest(phones=(Phone(phone_number=f),))).lead.phones[0].phone_number for f in forms}
    assert sent == {"5105550142"}


def test_the_wire_is_json_unless_the_lead_holds_what_json_cannot_carry() -> None:
    plain = prepare_lead(LeadRequest(first_name="Ann"))
    quoted = prepare_lead(LeadRequest(first_name='Robert "Bob"'))
    amp = prepare_lead(LeadRequest(business_name="Barnes & Associates"))
    control = prepare_lead(LeadRequest(business_name="A & B\x01"))
    assert (plain.fmt, quoted.fmt, amp.fmt, control.fmt) == ("json", "xml", "xml", "form")
    assert "sent as XML: JSON cannot carry '&'" in amp.note and plain.note == ""
    pinned = prepare_lead(LeadRequest(business_name="Barnes & Associates"), "json")
    assert pinned.fmt == "json" and pinned.note == ""
    assert prepare_lead(LeadRequest(business_name="A & B"), None).fmt is None  # in-process: no wire


def test_the_answer_as_sent_is_the_wires() -> None:
    engine = LeadEngine()
    lead = LeadRequest(first_name="Ann", last_name="Lee", business_name="Barnes & Associates", zip="94501")
    assert answer_as_sent(engine, prepare_lead(lead, "json")).result_code == "E300"
    assert answer_as_sent(engine, prepare_lead(lead)).result_code == "E200"  # XML carries it: the '&' rule answers
    assert answer_as_sent(engine, prepare_lead(lead, None)).result_code == "E200"


def test_the_in_process_note_is_the_prepared_leads_note() -> None:
    """`note_in_process` (the `sent` column of a local engine, issue 31) skips preparing a lead whose free-text
    fields all fit; it says what preparing says, on the bundled leads and on leads with fields at, over and
    padded around their limits."""
    import csv
    from pathlib import Path

    from dqkit.contract.lead_columns import lead_from_row, resolve_columns
    from dqkit.engines.lead.prepare import note_in_process

    with (Path(__file__).resolve().parents[2] / "data" / "sample_leads.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    columns = resolve_columns(list(rows[0]))
    leads = [lead_from_row(r, columns) for r in rows]
    leads += [LeadRequest(street1="1533 Martin Luther King Jr Way Apt R 3"), LeadRequest(city="X" * 28),
              LeadRequest(city="X" * 29), LeadRequest(first_name=" " + "Y" * 30 + " "),
              LeadRequest(first_name="A\u00a0\u00a0" + "B" * 28), LeadRequest(street2="Z" * 36),
              LeadRequest(business_name="Acme " * 11), LeadRequest(street1="20463 North Martin Luther King Blvd")]
    notes = [note_in_process(lead) for lead in leads]
    assert notes == [prepare_lead(lead, None).note for lead in leads]
    assert sum(bool(n) for n in notes) >= 4
    assert LocalBackend().prepare_note(leads[-3]) == LocalBackend().prepare(leads[-3]).note != ""
