"""The notebooks of `notebooks/` run under nbval on the local engine: every output not marked
`# NBVAL_IGNORE_OUTPUT` (plots, progress bars, widgets) must come out as stored.

nbval runs in its own pytest process so that its kernels get the environment of a test run: progress bars off
(DQKIT_PROGRESS=0) and a private, empty result cache shared by the three notebooks (DQKIT_CACHE_DIR), never the
user's. After a change of the engines changes what a notebook shows, `notebooks/refresh.py` stores the new outputs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("lead_audit.ipynb", "address_validation.ipynb", "report.ipynb", "vendor_savings.ipynb")

pytest.importorskip("nbval")


@pytest.mark.slow  # three kernels and 10,000 leads: about a minute on 2 cores
def test_notebooks_run_and_their_outputs_match(tmp_path: Path) -> None:
    env = {**os.environ, "DQKIT_PROGRESS": "0", "DQKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "--nbval-cell-timeout=600",
         "-p", "no:cacheprovider", "-q", "-o", "addopts=", "--rootdir", str(REPO),
         *(str(REPO / "notebooks" / name) for name in NOTEBOOKS)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1500,
    )
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_notebooks_exist_and_mark_their_plots_and_batches() -> None:
    import json

    found = {p.name for p in (REPO / "notebooks").glob("*.ipynb")}
    assert set(NOTEBOOKS) <= found
    for name in NOTEBOOKS:
        nb = json.loads((REPO / "notebooks" / name).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] != "code":
                continue
            shows_figure = any(f"plots.{f}(" in src.splitlines()[-1] for f in
                               ("result_codes", "by_source", "phone_status", "address_error_status",
                                "score_results", "address_confidence"))
            runs_batch = ".verify(" in src or ".validate(" in src or ".search(" in src
            if shows_figure or (runs_batch and "=" in src.splitlines()[-1]):
                assert "# NBVAL_IGNORE_OUTPUT" in src.splitlines(), f"{name}: mark this cell:\n{src}"


@pytest.mark.slow  # one kernel
def test_a_notebook_saved_after_a_batch_keeps_the_bar_as_it_ended(tmp_path: Path) -> None:
    """The stumble: a notebook saved after running kept each progress bar as "0%| 0/1855", the text the bar's
    widget had when it was first shown, which is all a viewer without the kernel sees."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import pandas as pd\nimport dqkit.notebook\n"
        f"df = pd.read_csv({str(REPO / 'data' / 'sample_leads.csv')!r}, dtype=str, keep_default_na=False).head(30)\n"
        "out = df.leads.verify(progress=True, cache=False)\nlen(out)")]
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    saved = nbformat.read(path, as_version=4)
    outputs = saved.cells[0].outputs
    texts = ["".join(o.get("data", {}).get("text/plain", "")) + "".join(o.get("text", "")) for o in outputs]
    bars = [t for t in texts if t.startswith("verify leads") and "|" in t]
    assert bars, texts
    assert all("30/30" in t and "100%" in t for t in bars), bars
    assert not any(" 0/30" in t or "0%|" in t.replace("100%|", "") for t in texts), texts
    assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
