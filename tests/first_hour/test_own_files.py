"""The first hour with a user's own files (issue 29): a fresh checkout, the README's set-up command, then the
README's commands for "your own data" run on what a user has: a Salesforce Classic report export (its footer
included), a Zoho report saved as .xlsx (its header block included) and two OpenAddresses county files kept in
two-letter folders (`ca/alameda.csv`: "ca" is Canada's code; `nc/santa_clara.csv`: New Caledonia's). Everything
must go right the first time: the counties installed as US/CA under the README's ids, every lead of both
exports answered S100 against them, the footer and header rows counted and never verified, no traceback.

The county files are the real ones of ../shared/data/openaddresses; the exports are tests/lead/crm_exports/reports/
(leads made up at real addresses of those counties)."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_readme import README, REPO, SETUP, _copy_repo, _env

REPORTS = REPO / "tests" / "lead" / "crm_exports" / "reports"


def _readme_forms() -> dict[str, str]:
    """The README's own command forms this test follows (it fails when the README stops saying them)."""
    text = README.read_text(encoding="utf-8")
    forms = {
        "add": r"\.venv/bin/dqkit reference add (\S+)",
        "list": r"\.venv/bin/dqkit reference list\b",
        "verify": r"\.venv/bin/dqkit verify (\S+\.csv) -o (\S+\.csv)",
        "verify_xlsx": r"\.venv/bin/dqkit verify (\S+) -o (\S+\.xlsx)",
        "report": r"\.venv/bin/dqkit report (\S+) -o (\S+\.html)",
    }
    for name, pattern in forms.items():
        assert re.search(pattern, text), f"the README no longer shows `{pattern}` ({name})"
    return forms


def _sh(command: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    said = f"{command}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, said
    assert "Traceback" not in proc.stderr, said
    return proc


@pytest.mark.slow  # a fresh virtual environment (pip from its cache), the demo, then the user's files
@pytest.mark.timeout(1800)
def test_a_users_own_exports_and_county_files_go_right_the_first_time(shared_dir: Path, tmp_path: Path) -> None:
    _readme_forms()
    clone = tmp_path / "dqkit"
    clone.mkdir()
    _copy_repo(clone)
    home = tmp_path / "home"
    env = _env(home)
    downloads = home / "Downloads"
    for folder, name in (("ca", "alameda"), ("nc", "santa_clara")):
        (downloads / folder).mkdir(parents=True)
        shutil.copyfile(shared_dir / "data" / "openaddresses" / f"{name}.csv", downloads / folder / f"{name}.csv")
    shutil.copyfile(REPORTS / "salesforce_classic_leads_report.csv", downloads / "report1795770115000.csv")
    shutil.copyfile(REPORTS / "zoho_leads_report.xlsx", downloads / "Leads_by_Source.xlsx")

    _sh(SETUP, clone, env, timeout=1200)  # the README's first command, as written

    # An address reference: each county added as the README says, from its two-letter folder.
    added = _sh(".venv/bin/dqkit reference add ~/Downloads/ca/alameda.csv", clone, env)
    assert "installed openaddresses-us-ca-alameda:" in added.stdout and "(openaddresses, US/CA)" in added.stdout
    assert "not taken as the country (Canada)" in added.stderr
    added = _sh(".venv/bin/dqkit reference add ~/Downloads/nc/santa_clara.csv", clone, env)
    assert "installed openaddresses-us-ca-santa-clara:" in added.stdout
    assert "dropped 174 rows: 173 no street (empty or unreadable); 1 no postcode" in added.stdout
    listed = _sh(".venv/bin/dqkit reference list", clone, env).stdout
    for ref_id in ("openaddresses-us-ca-alameda", "openaddresses-us-ca-santa-clara"):
        assert re.search(rf"{ref_id}\s+openaddresses\s+US/CA\s.*addresses in United States", listed), listed

    # A CRM export, as exported: the Salesforce report, footer included.
    done = _sh(".venv/bin/dqkit verify ~/Downloads/report1795770115000.csv -o checked_salesforce.csv", clone, env)
    assert re.search(r"S100\s+20\s+100\.0%", done.stdout), done.stdout
    assert "total       20" in done.stdout and "7 report footer rows skipped" in done.stdout
    with open(clone / "checked_salesforce.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 20 and not any("salesforce.com" in v or "Confidential" in v for r in rows for v in r.values())
    assert [r["phone_extension"] for r in rows[:3]] == ["", "12", ""]  # "510-555-0142 x12" kept
    assert (rows[1]["std_full_address"], rows[1]["std_firmline"]) == ("5770 BALBOA DR", "ACME INC")
    assert (rows[2]["name_first"], rows[2]["name_middle"], rows[2]["name_last"]) == ("KHAI", "THI MINH", "NGUYEN")
    assert {r["reference"] for r in rows} == {"openaddresses-us-ca-alameda+openaddresses-us-ca-santa-clara"}
    report = _sh(".venv/bin/dqkit report checked_salesforce.csv -o salesforce.html", clone, env)
    assert "report of 20 leads" in report.stdout

    # Excel in, Excel out: the Zoho report, its header block included.
    done = _sh(".venv/bin/dqkit verify ~/Downloads/Leads_by_Source.xlsx -o checked_zoho.xlsx", clone, env)
    assert re.search(r"S100\s+20\s+100\.0%", done.stdout), done.stdout
    assert "3 report header rows skipped" in done.stdout and "2 report footer rows skipped" in done.stdout
    assert (clone / "checked_zoho.xlsx").read_bytes()[:2] == b"PK"
    report = _sh(".venv/bin/dqkit report checked_zoho.xlsx -o zoho.html", clone, env)
    assert "report of 20 leads" in report.stdout
