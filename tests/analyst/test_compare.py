"""Shadow runs: the local engine against a real `dqkit serve` configured to disagree, and two result files."""

from __future__ import annotations

import pandas as pd
from analyst_helpers import TOKEN, sample

from dqkit.backends.select import BackendSpec
from dqkit.notebook.compare import compare_files
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
