"""The analyst's commands as a user runs them: real processes, a real `dqkit serve`, the token from the
environment and never on the command line or in any output."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from analyst_helpers import TOKEN, dqkit, sample

from dqkit.server.testing import ServedProcess


def test_verify_through_a_service_with_prescreen_and_history(vendor: ServedProcess, tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(400).to_csv(src, index=False)
    store = tmp_path / "history.sqlite"
    done = dqkit("verify", str(src), "-o", str(tmp_path / "out.csv"), "--service", vendor.url, "--prescreen",
                 "--price", "0.10", "--history", str(store), env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert len(out) == 400 and list(out.columns[:20]) == list(sample(1).columns)
    settled = out["answered_by"].str.startswith("local").sum()
    assert settled > 0 and (out["answered_by"] == "service").sum() == 400 - settled
    assert f"{settled:,} settled locally" in done.stdout and f"{settled * 0.10:,.2f} saved" in done.stdout
    assert "recorded as run 1" in done.stderr
    assert TOKEN not in done.stdout + done.stderr
    listed = dqkit("history", "--history", str(store), "--drift")
    assert listed.returncode == 0 and vendor.url in listed.stdout and " tests, " in listed.stdout
    assert "group 1: leads.csv" in listed.stdout


def test_a_service_without_its_token_answers_no_lead_and_the_file_says_so(vendor: ServedProcess,
                                                                          tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(20).to_csv(src, index=False)
    done = dqkit("verify", str(src), "-o", str(tmp_path / "out.csv"), "--service", vendor.url)
    assert "DQKIT_LEAD_TOKEN is not set" in done.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert len(out) == 20 and (out["result_code"].isin(["E501", ""]) | (out["result_type"] == "FAILED")).all()
    # A run where nothing was answered is a failure, said on the terminal with its first reason (the file keeps
    # every row, each with its own).
    assert done.returncode == 1, done.stderr
    assert "the service answered none of the 20 leads sent" in done.stderr and "AuthenticationError" in done.stderr


def test_prescreen_without_a_service_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(5).to_csv(src, index=False)
    done = dqkit("verify", str(src), "-o", str(tmp_path / "o.csv"), "--prescreen")
    assert done.returncode == 1 and "need --service" in done.stderr and not (tmp_path / "o.csv").exists()


def test_compare_two_files_and_report_sections(dissenter: tuple[ServedProcess, list[str]], tmp_path: Path) -> None:
    served, _ = dissenter
    src = tmp_path / "leads.csv"
    sample(600).to_csv(src, index=False)
    env = {"DQKIT_LEAD_TOKEN": TOKEN}
    assert dqkit("verify", str(src), "-o", str(tmp_path / "local.csv"), "--history", str(tmp_path / "h.sqlite"),
                 env=env).returncode == 0
    assert dqkit("verify", str(src), "-o", str(tmp_path / "vendor.csv"), "--service", served.url, "--prescreen",
                 "--history", str(tmp_path / "h.sqlite"), env=env).returncode == 0
    cmp = dqkit("compare", str(tmp_path / "local.csv"), str(tmp_path / "vendor.csv"), "-o",
                str(tmp_path / "diff.csv"))
    assert cmp.returncode == 0, cmp.stderr
    diff = pd.read_csv(tmp_path / "diff.csv", dtype=str, keep_default_na=False)
    assert len(diff) > 0 and "result_code [local.csv]" in diff.columns
    assert "E100" in set(diff["result_code [vendor.csv]"])
    rep = dqkit("report", str(tmp_path / "vendor.csv"), "-o", str(tmp_path / "r.html"), "--compare",
                str(tmp_path / "local.csv"), "--history", str(tmp_path / "h.sqlite"), "--quiet")
    assert rep.returncode == 0, rep.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h2>Pre-screen</h2>" in page and "<h2>Shadow run: vendor.csv against local.csv</h2>" in page
    assert "<h2>Drift over recorded runs</h2>" in page


def test_validate_a_file_of_addresses_locally_and_through_a_service(tmp_path: Path) -> None:
    from dqkit.server.testing import serve_process

    src = tmp_path / "addresses.csv"
    pd.DataFrame({"address": ["10 hill st", "", "1 nowhere"]}).to_csv(src, index=False)
    local = dqkit("validate", str(src), "-o", str(tmp_path / "v.csv"), "--reference", "demo")
    assert local.returncode == 0, local.stderr
    with serve_process(tokens=[TOKEN], demo=True) as served:
        remote = dqkit("validate", str(src), "-o", str(tmp_path / "w.csv"), "--service", served.url,
                       env={"DQKIT_ADDRESS_TOKEN": TOKEN})
    assert remote.returncode == 0, remote.stderr
    a = pd.read_csv(tmp_path / "v.csv", dtype=str, keep_default_na=False)
    b = pd.read_csv(tmp_path / "w.csv", dtype=str, keep_default_na=False)
    assert len(a) == len(b) == 3 and list(a["addr_confidence"]) == list(b["addr_confidence"])


def test_validate_prints_the_columns_it_read_and_warns_in_one_line(tmp_path: Path) -> None:
    """A CRM's headers are guessed: the mapping is printed, as `dqkit verify` prints it, and dqkit's own warning
    (no reference installed) is one line naming the command, not a Python file and line."""
    src = tmp_path / "crm.csv"
    pd.DataFrame({"Street Address": ["1 Main St"], "City": ["Springfield"], "State/Province": ["IL"],
                  "Postal Code": ["62701"]}).to_csv(src, index=False)
    done = dqkit("validate", str(src), "-o", str(tmp_path / "out.csv"), env={"DQKIT_CACHE": "0"})
    assert done.returncode == 0, done.stderr
    assert "columns read:" in done.stderr and "<- 'Street Address'" in done.stderr, done.stderr
    assert "<- 'Postal Code'" in done.stderr, done.stderr
    assert "dqkit validate: warning: No address reference is installed" in done.stderr, done.stderr
    assert ".py:" not in done.stderr and "Warning:" not in done.stderr, done.stderr
