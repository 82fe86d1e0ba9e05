"""A settled lead gets exactly the service's answer, on realistic leads (quotes, ampersands, units typed in the
street, phones in many formats, real Alameda and Santa Clara addresses), against a real `dqkit serve` with the same
references behind a counting proxy. The leads come from `benchmarks/bench_service_agreement.py` (its generator;
the addresses are OpenAddresses points of ../shared), on a fixed seed and on a fresh random one (printed)."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import msgspec
import pandas as pd
import pytest
from analyst_helpers import REPO, TOKEN
from faultproxy import FaultProxy

from dqkit.backends.local import LocalBackend
from dqkit.client import LeadClient
from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines.lead.engine import LeadProfile
from dqkit.notebook.prescreen import BY_SERVICE, settled_codes, summary_of
from dqkit.server.testing import ServedProcess, serve_process

COUNTIES = ("alameda.csv", "santa_clara.csv")
FIELDS = ["lead_result_code", "lead_result_type", "lead_result_category", "lead_result_value"]


def _bench() -> ModuleType:
    path = REPO / "benchmarks" / "bench_service_agreement.py"
    spec = importlib.util.spec_from_file_location("bench_service_agreement", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def refs(shared_dir: Path) -> list[Path]:
    return [shared_dir / "data" / "openaddresses" / c for c in COUNTIES]


@pytest.fixture(scope="module")
def vendor_with_refs(refs: list[Path]) -> Iterator[ServedProcess]:
    with serve_process(tokens=[TOKEN], references=refs) as served:
        yield served


@pytest.fixture(scope="module")
def local_with_refs(refs: list[Path]) -> LocalBackend:
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address.provenance import ReferenceInfo

    engine = AddressEngine.from_files(refs)
    engine.reference = ReferenceInfo("files:" + "+".join(p.name for p in refs), source="reference files",
                                     built=engine.reference.built)  # the id dqkit serve --reference gives them
    return LocalBackend(profile=LeadProfile(points=engine.index), address_engine=engine)


def _client(url: str, **kw: object) -> LeadClient:
    return LeadClient(url, token=TOKEN, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [27, random.SystemRandom().randint(1, 10**6)])
def test_every_settled_lead_gets_the_services_answer(vendor_with_refs: ServedProcess, local_with_refs: LocalBackend,
                                                     shared_dir: Path, seed: int) -> None:
    leads = _bench().realistic_leads(400, seed, shared_dir)
    assert leads["First Name"].str.contains('"').any() and leads["Company"].str.contains("&").any()
    assert (leads["Street"].str.len() > 35).any() and leads["Phone"].str.startswith("(000)").any()
    with FaultProxy(vendor_with_refs.url) as proxy:
        screened = leads.leads.verify(backend=_client(proxy.url), prescreen=True, cache=False, progress=False)
        calls = len(proxy.answered)
        served = leads.leads.verify(backend=_client(proxy.url), cache=False, progress=False)
    settled = screened["lead_answered_by"].astype(str).str.startswith("local (settled")
    assert settled.sum() >= 20, seed
    wrong = [(i, screened.loc[i, FIELDS].tolist(), served.loc[i, FIELDS].tolist()) for i in settled[settled].index
             if screened.loc[i, FIELDS].astype(str).tolist() != served.loc[i, FIELDS].astype(str).tolist()]
    print(f"\nseed {seed}: {int(settled.sum())} settled leads, {len(wrong)} answered otherwise by the service")
    assert wrong == [], wrong
    # The books are what the proxy saw: the service answered exactly the leads that were not settled.
    s = summary_of(screened)
    assert s is not None and s.calls == calls == int((screened["lead_answered_by"] == BY_SERVICE).sum())
    # And local vs served, as `dqkit compare` sees them: every difference explained.
    local = leads.leads.verify(backend=local_with_refs, cache=False, progress=False)
    c = leads.leads.compare(local, served, names=("local", "served"))
    print(c)
    for _, row in c.disagreements.iterrows():
        print(f"  row {row['row']}: {row['differs']}: {row['reason']}")
    assert c.rows == len(leads) and c.agreement >= 0.995
    assert all(str(r).strip() for r in c.disagreements["reason"])


def test_the_same_number_written_two_ways_gets_one_answer(vendor: ServedProcess) -> None:
    """`(000) 523-4412` was sent as typed (14 characters: E300 "longer than 12") while `000-523-4412` was E805."""
    def lead(phone: str) -> LeadRequest:
        return LeadRequest(first_name="Ann", last_name="Lee", zip="94501", phones=(Phone(phone_number=phone),))

    with _client(vendor.url) as client:
        answers = [client.verify_lead(lead(p)) for p in ("(000) 523-4412", "000-523-4412", "000.523.4412")]
    local = LocalBackend().verify_lead(lead("(000) 523-4412"))
    assert {a.result_code for a in answers} == {"S100"} and local.result_code == "S100"
    assert {a.stage1_data.phone_status for a in answers if a.stage1_data} == {"E805"}
    assert local.stage1_data is not None and local.stage1_data.phone_status == "E805"


def test_a_unit_typed_in_a_long_street_is_sent_as_street2(vendor: ServedProcess) -> None:
    """"1533 Martin Luther King Jr Way Apt R 3" (38 characters) was E300 "STREET1 is longer than 35 characters",
    locally and served; it is sent as STREET1 "1533 Martin Luther King Jr Way" and STREET2 "Apt R 3", and the
    output says so."""
    df = pd.DataFrame({"first_name": ["Ann"], "last_name": ["Lee"], "city": ["Berkeley"], "state": ["CA"],
                       "street": ["1533 Martin Luther King Jr Way Apt R 3"], "zip": ["94709"]})
    served = df.leads.verify(backend=_client(vendor.url), cache=False, progress=False)
    local = df.leads.verify(backend=LocalBackend(), cache=False, progress=False)
    for out in (served, local):
        assert out.loc[0, "lead_result_code"] == "S100"
        assert (out.loc[0, "lead_std_unit_desig"], out.loc[0, "lead_std_sec_range"]) == ("APT", "R3")
        assert "unit 'Apt R 3' moved from STREET1 to STREET2" in str(out.loc[0, "lead_sent"])
    assert df.loc[0, "street"] == "1533 Martin Luther King Jr Way Apt R 3"  # the input is never changed


def test_a_pinned_wire_settles_with_that_wires_answer(vendor: ServedProcess) -> None:
    """JSON cannot carry '&' or '"' (the seed's E300). With fmt="auto" such a lead goes as XML (the vendor's own
    rules then answer: E200 for '&'); pinned to JSON, the settled answer is the JSON wire's E300; both are what the
    service answers to the lead as sent."""
    df = pd.DataFrame({"first_name": ['Robert "Bob"', "Ann", "Joe"], "last_name": ["Smith", "Lee", "Park"],
                       "company": ["", "Barnes & Associates", ""], "zip": ["94501", "94501", "94501"]})
    with FaultProxy(vendor.url) as proxy:
        auto = df.leads.verify(backend=_client(proxy.url), prescreen=True, cache=False, progress=False)
        pinned = df.leads.verify(backend=_client(proxy.url, fmt="json"), prescreen=True, cache=False,
                                 progress=False)
        shadow = df.leads.verify(backend=_client(proxy.url, fmt="json"), cache=False, progress=False)
        auto_shadow = df.leads.verify(backend=_client(proxy.url), cache=False, progress=False)
    assert list(auto["lead_answered_by"].astype(str)) == ["service", "local (settled E200)", "service"]
    assert list(auto["lead_result_code"].astype(str)) == ["S100", "E200", "S100"]
    assert "sent as XML: JSON cannot carry '\"'" in str(auto.loc[0, "lead_sent"])
    assert list(pinned["lead_answered_by"].astype(str)) == ["local (settled E300)", "local (settled E300)",
                                                            "service"]
    for a, b in ((pinned, shadow), (auto, auto_shadow)):
        assert list(a["lead_result_code"].astype(str)) == list(b["lead_result_code"].astype(str))


def test_local_only_options_never_settle_a_lead(vendor: ServedProcess) -> None:
    """--require-phone made a lead without a phone "settled E602", an answer the service never gives. Now the
    engine that settles has none of the user's options; they decide only what a skip policy skips."""
    df = pd.DataFrame({"first_name": ["Ann", "Bob"], "last_name": ["Lee", "Ray"], "zip": ["94501", "94501"],
                       "phone": ["", "(000) 523-4412"]})
    strict = LocalBackend(profile=LeadProfile(require_phone=True))
    with FaultProxy(vendor.url) as proxy:
        out = df.leads.verify(backend=_client(proxy.url), prescreen=True, local=strict, cache=False, progress=False)
        assert len(proxy.answered) == 2
        assert list(out["lead_answered_by"].astype(str)) == ["service", "service"]
        assert list(out["lead_result_code"].astype(str)) == ["S100", "S100"]
        # As a policy, the same option skips: no answer is shown, nothing is sent, and it is counted apart.
        skipped = df.leads.verify(backend=_client(proxy.url), prescreen=True, local=strict, skip_codes="E602,E805",
                                  cache=False, progress=False)
        assert len(proxy.answered) == 2  # no call
    assert list(skipped["lead_answered_by"].astype(str)) == ["skipped by policy (E602)", "skipped by policy (E805)"]
    assert skipped["lead_result_code"].isna().all()
    s = summary_of(skipped)
    assert s is not None and (s.skipped, s.settled, s.calls, s.saved) == (2, 0, 0, 2)


def test_phone_statuses_cannot_settle_and_other_codes_are_checked() -> None:
    with pytest.raises(InputError, match="skip"):
        settled_codes("E200,E808")
    with pytest.raises(InputError, match="cannot settle"):
        settled_codes("S100")
    with pytest.raises(InputError, match="E999"):
        settled_codes("E999")
    assert settled_codes("e100, E200") == ("E100", "E200")
    assert settled_codes(None) == ("E200", "E300", "E600", "E601")


def test_the_account_ids_are_part_of_the_prepared_lead(vendor: ServedProcess) -> None:
    with _client(vendor.url, partner_id="P-1", client_id="C-9") as client:
        sent = client.prepare(LeadRequest(first_name="Ann", last_name="Lee", zip="94501"))
        own = client.prepare(LeadRequest(first_name="Ann", last_name="Lee", zip="94501", partner_id="MAPPED"))
        assert "partner=P-1" in client.name and "client=C-9" in client.name  # another account: other cache keys
    assert (sent.lead.partner_id, sent.lead.client_id) == ("P-1", "C-9")
    assert own.lead.partner_id == "MAPPED"  # a column mapped explicitly (--map PARTNER_ID=...) wins
    bare = msgspec.structs.replace(sent.lead, partner_id="", client_id="")
    assert bare == LeadRequest(first_name="Ann", last_name="Lee", zip="94501")
