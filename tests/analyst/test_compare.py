"""Shadow runs: the local engine against a real `dqkit serve` configured to disagree, and two result files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from analyst_helpers import TOKEN, sample

from dqkit.backends.select import BackendSpec
from dqkit.notebook.compare import compare_files, compare_results
from dqkit.server.testing import ServedProcess


def test_compare_finds_exactly_the_leads_the_dissenting_service_answers_differently(
        dissenter: tuple[ServedProcess, list[str]]) -> None:
    served, names = dissenter
    df = sample(2000)
    targeted = (df["FIRST_NAME"] + " " + df["LAST_NAME"]).isin(names)
    c = df.leads.compare("local", BackendSpec("serve", url=served.url, token=TOKEN), cache=False, progress=False,
                         names=("local", "dissenter"))
    local = df.leads.verify(cache=False, progress=False)
    expected = int((targeted & (local["lead_result_code"].astype(str) == "S100")).sum())
    assert expected >= 20
    assert c.confusion.loc["S100", "E100"] == expected
    assert c.rows == len(df)
    row = c.fields.set_index("field").loc["result_code"]
    assert row["differ"] >= expected
    assert c.agreement == (len(df) - row["differ"]) / len(df)
    listed = set(c.disagreements["row"])
    assert set(targeted[targeted & (local["lead_result_code"].astype(str) == "S100")].index) <= listed
    assert {"result_code [local]", "result_code [dissenter]", "differs", "FIRST_NAME"} <= set(c.disagreements.columns)
    fig = c.heatmap()
    assert int(fig.data[0].z.sum()) == len(df)
    assert "transaction_id" in c.skipped  # differs between any two runs: never compared


def test_two_result_files_of_the_same_leads(tmp_path, dissenter) -> None:  # type: ignore[no-untyped-def]
    served, _ = dissenter
    df = sample(300)
    a = df.leads.verify(cache=False, progress=False)
    b = df.leads.verify(backend=BackendSpec("serve", url=served.url, token=TOKEN), cache=False, progress=False)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    read = [pd.read_csv(tmp_path / n, dtype=str, keep_default_na=False) for n in ("a.csv", "b.csv")]
    c = compare_files(*read, names=("a.csv", "b.csv"))
    same = compare_files(read[0], read[0].copy(), names=("a.csv", "a.csv"))
    assert same.agreement == 1.0 and len(same.disagreements) == 0
    assert c.kind == "lead" and c.confusion.to_numpy().sum() == len(df)
    assert "FIRST_NAME" in c.disagreements.columns and "lead_result_code" not in c.disagreements.columns


def test_address_shadow_run_local_demo_against_served_demo() -> None:
    from dqkit.server.testing import serve_process

    rows = pd.DataFrame({"address": ["10 hill st", "not an address at all", "1 Main St, Springfield IL 62701"]})
    with serve_process(tokens=[TOKEN], demo=True) as served:
        c = rows.addr.compare("demo", BackendSpec("serve", url=served.url, token=TOKEN), cache=False,
                              progress=False)
    assert c.kind == "address" and c.key == "confidence"
    assert c.confusion.to_numpy().sum() == len(rows)
    assert "global_address_key" in c.skipped


def test_only_rows_answered_on_both_sides_are_compared() -> None:
    """The issue: "answered 8709, agree 10000": rows blank on both sides counted as agreeing."""
    a = pd.DataFrame({"result_code": ["S100", "S100", "E100", "S100", ""],
                      "result_type": ["STATUS", "STATUS", "ERROR", "STATUS", "FAILED"]})
    b = pd.DataFrame({"result_code": ["S100", "", "E100", "S102", ""],
                      "result_type": ["STATUS", "FAILED", "ERROR", "STATUS", "FAILED"],
                      "answered_by": ["service", "no answer (service)", "local (settled E100)", "service",
                                      "no answer (service)"]})
    c = compare_results(a, b, kind="lead", names=("local", "vendor"))
    assert (c.rows, c.one_side, c.neither) == (3, 1, 1)
    row = c.fields.set_index("field").loc["result_code"]
    assert (row["agree"], row["differ"]) == (2, 1) and c.agreement == 2 / 3
    assert int(c.confusion.to_numpy().sum()) == 3
    assert "3 rows answered on both sides (1 answered on one side only and 1 on neither are not compared)" in str(c)
    assert list(c.disagreements["row"]) == [3]


def test_different_references_are_named_and_explain_the_differences(shared_dir: Path) -> None:
    """The local engine with no reference against a service with the Alameda one: a real Alameda address is matched
    to its point served (GEOMATCH 0) and only placed by its ZIP at home; the comparison names both references and
    says that is why those rows differ (the issue: 29 S102-vs-S100 differences with no hint)."""
    from dqkit.backends.local import LocalBackend
    from dqkit.server.testing import serve_process

    alameda = shared_dir / "data" / "openaddresses" / "alameda.csv"
    df = pd.DataFrame({"first_name": ["Ann", "Bob"], "last_name": ["Lee", "Ray"],
                       "street": ["516 Centre Ct", "1216 Santa Clara Ave"], "city": ["Alameda", "Alameda"],
                       "state": ["CA", "CA"], "zip": ["94502", "94501"]})
    with serve_process(tokens=[TOKEN], references=[alameda]) as served:
        c = df.leads.compare(LocalBackend(), BackendSpec("serve", url=served.url, token=TOKEN),
                             names=("local", "served"), cache=False, progress=False)
    assert c.references[0] == "open-data-only" and c.references[1].startswith("files:alameda.csv")
    assert len(c.disagreements) == 2 and "std_geomatch" in c.disagreements["differs"].iloc[0]
    for reason in c.disagreements["reason"]:
        assert "different address references" in reason and "open-data-only" in reason and "alameda" in reason
    assert "the two sides name different address references" in str(c)


def test_the_shadow_loop_writes_the_codes_the_evidence_supports(vendor: ServedProcess, tmp_path: Path) -> None:
    """Shadow a sample, write the codes it supports, pre-screen with them: E100 (80 spoof leads in 2,000, all
    answered alike by the service: a lower bound of 0.963) joins the seed's input rules."""
    from analyst_helpers import dqkit

    src = tmp_path / "shadow.csv"
    sample(2000).to_csv(src, index=False)
    env = {"DQKIT_LEAD_TOKEN": TOKEN}
    done = dqkit("compare", str(src), "--a", "local", "--b", vendor.url, "--settled-codes-out",
                 str(tmp_path / "settled.txt"), env=env)
    assert done.returncode == 0, done.stderr
    assert "evidence for settling" in done.stdout and "lower_bound" in done.stdout
    codes = (tmp_path / "settled.txt").read_text().strip().split(",")
    assert "E100" in codes and {"E200", "E600", "E601"} <= set(codes) and "S100" not in codes
    strict = dqkit("compare", str(src), "--a", "local", "--b", vendor.url, "--settled-codes-out",
                   str(tmp_path / "strict.txt"), "--level", "0.99", env=env)
    assert strict.returncode == 0 and "E100" not in (tmp_path / "strict.txt").read_text()  # 80 rows: 0.963 < 0.99
    small = tmp_path / "small.csv"
    sample(300).to_csv(small, index=False)
    run = dqkit("verify", str(small), "-o", str(tmp_path / "out.csv"), "--service", vendor.url, "--prescreen",
                "--settled-codes", f"@{tmp_path / 'settled.txt'}", env=env)
    assert run.returncode == 0, run.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert (out["answered_by"] == "local (settled E100)").sum() > 0
