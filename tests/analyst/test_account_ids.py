"""The account is the user's, the lead source the analyst's: against a real `dqkit serve` that checks its partner
id (as the vendor does: E501 for another), a CRM's "Lead Source" column is never sent as PARTNER_ID unless
`--map PARTNER_ID=...` says so, and `--partner-id` / `--client-id` (or DQKIT_PARTNER_ID) put the account's ids on
every lead. A counting proxy records every body sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from analyst_helpers import TOKEN, dqkit
from faultproxy import FaultProxy

from dqkit.server.testing import ServedProcess, serve_process

PARTNER = "ACME-7731"


@pytest.fixture(scope="module")
def checking() -> Iterator[tuple[ServedProcess, FaultProxy]]:
    with serve_process(tokens=[TOKEN], partner_ids=[PARTNER]) as served, FaultProxy(served.url) as proxy:
        yield served, proxy


@pytest.fixture()
def crm_file(tmp_path: Path) -> Path:
    src = tmp_path / "crm.csv"
    pd.DataFrame({"First Name": ["Ann", "Bob", "Cy", "Di", "Ed"], "Last Name": ["Lee", "Ray", "Cole", "Fox", "Hall"],
                  "Mailing Street": ["1 Main St"] * 5, "Mailing City": ["Alameda"] * 5, "Mailing State": ["CA"] * 5,
                  "Mailing Zip": ["94501"] * 5, "Lead Source": ["Web", "Trade Show", "Web", "Partner", "Web"]}
                 ).to_csv(src, index=False)
    return src


def _sent(proxy: FaultProxy, since: int) -> list[bytes]:
    return proxy.bodies[since:]


def test_a_lead_source_column_is_never_sent_as_partner_id(checking: tuple[ServedProcess, FaultProxy],
                                                          crm_file: Path, tmp_path: Path) -> None:
    _, proxy = checking
    since = len(proxy.bodies)
    done = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", proxy.url,
                 env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out["result_code"]) == ["S100"] * 5  # the issue: 5 of 5 E501 ("invalid partner")
    assert "LEAD_SOURCE" in done.stderr and "never sent" in done.stderr  # the mapping printed says so
    bodies = _sent(proxy, since)
    assert len(bodies) == 5 and not any(b"PARTNER_ID" in b or b"Trade Show" in b for b in bodies)
    assert list(out["Lead Source"]) == ["Web", "Trade Show", "Web", "Partner", "Web"]  # kept for the audit


def test_the_accounts_partner_id_goes_on_every_lead(checking: tuple[ServedProcess, FaultProxy], crm_file: Path,
                                                    tmp_path: Path) -> None:
    _, proxy = checking
    for how, env_extra in ((["--partner-id", PARTNER], {}), ([], {"DQKIT_PARTNER_ID": PARTNER})):
        since = len(proxy.bodies)
        done = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", proxy.url, *how,
                     "--client-id", "C-1", env={"DQKIT_LEAD_TOKEN": TOKEN, **env_extra})
        assert done.returncode == 0, done.stderr
        out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
        assert list(out["result_code"]) == ["S100"] * 5
        bodies = _sent(proxy, since)
        assert len(bodies) == 5 and all(PARTNER.encode() in b and b'"CLIENT_ID":"C-1"' in b for b in bodies)
    wrong = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", proxy.url, "--partner-id",
                  "NOT-OURS", env={"DQKIT_LEAD_TOKEN": TOKEN})
    # The service refused the account on every lead: a failure, with its first reason on the terminal.
    assert wrong.returncode == 1 and "refused the account" in wrong.stderr and "E501" in wrong.stderr


def test_the_column_is_sent_when_the_map_says_so(checking: tuple[ServedProcess, FaultProxy], crm_file: Path,
                                                 tmp_path: Path) -> None:
    _, proxy = checking
    since = len(proxy.bodies)
    done = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", proxy.url, "--map",
                 "PARTNER_ID=Lead Source", env={"DQKIT_LEAD_TOKEN": TOKEN})
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out["result_code"]) == ["E501"] * 5 and done.returncode == 1
    assert all(b"PARTNER_ID" in b for b in _sent(proxy, since))
    both = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", proxy.url, "--map",
                 "PARTNER_ID=Lead Source", "--partner-id", PARTNER, env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert both.returncode == 1 and "give one" in both.stderr


def test_local_options_a_service_run_does_not_send_are_named(vendor: ServedProcess, crm_file: Path,
                                                             tmp_path: Path) -> None:
    """`--service` silently ignored `--require-phone`; now it says which options it does not send."""
    done = dqkit("verify", str(crm_file), "-o", str(tmp_path / "out.csv"), "--service", vendor.url,
                 "--require-phone", "--no-address", env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    assert "--require-phone, --no-address: options of the local engine; the service does not get them" \
        in done.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert "E602" not in set(out["result_code"])
    local = dqkit("verify", str(crm_file), "-o", str(tmp_path / "o.csv"), "--partner-id", PARTNER)
    assert local.returncode == 1 and "needs --service" in local.stderr
