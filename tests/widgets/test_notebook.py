"""`notebooks/address_entry.ipynb` runs under nbval: its widget cells are marked `# NBVAL_IGNORE_OUTPUT`, every
other output (the value the widget holds, the refine round trip, the errors, the dashboard's picker) must come out
as stored. nbval runs in its own pytest process, with progress bars off and a private result cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "address_entry.ipynb"

pytest.importorskip("nbval")


@pytest.mark.slow  # one kernel, the demo reference and 300 leads: about 30 s on 2 busy cores
def test_address_entry_notebook_runs_and_its_outputs_match(tmp_path: Path) -> None:
    env = {**os.environ, "DQKIT_PROGRESS": "0", "DQKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "--nbval-cell-timeout=300",
         "-p", "no:cacheprovider", "-q", "-o", "addopts=", "--rootdir", str(REPO), str(NOTEBOOK)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_widget_cells_are_marked_and_checked_cells_exist() -> None:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if c["cell_type"] == "code"]
    for src in code:
        last = src.strip().splitlines()[-1]
        shows_widget = last.startswith(("AddressAutocomplete(", "LeadAuditDashboard(")) or last in ("w", "dashboard")
        if shows_widget:
            assert "# NBVAL_IGNORE_OUTPUT" in src.splitlines(), f"mark this widget cell:\n{src}"
    checked = [src for src in code if "# NBVAL_IGNORE_OUTPUT" not in src and "print(" in src]
    assert len(checked) >= 4, "the notebook must check what the widget holds, not only show it"
