"""A notebook saved after `reference add` and a bulk address validation keeps their progress bars as they ended,
not as the "0%" text their widgets had when first shown (issue 29 part 5: the batch bar was fixed, these two were
not). Run in a real Jupyter kernel, against a real `dqkit serve --demo`, the notebook written and read back."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from dqkit.datagen.demo_reference import HEADER, generate, generate_state
from dqkit.server.testing import serve_process

TOKEN = "bars-token"


@pytest.mark.slow  # one kernel and one server
def test_reference_add_and_bulk_bars_are_saved_as_they_ended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = tmp_path / "dl" / "us" / "ca" / "demo.csv"
    source.parent.mkdir(parents=True)
    source.write_text(",".join(HEADER) + "\n" + "".join(generate_state(3000, state="CA")), encoding="utf-8")
    addresses = [f"{r[2]} {r[3]}, {r[5]} {r[7]} {r[8]}" for r in itertools.islice(generate(), 40)]
    monkeypatch.setenv("DQKIT_REFERENCE_DIR", str(tmp_path / "refs"))  # the kernel's, not the user's
    with serve_process(tokens=[TOKEN], demo=True) as served:
        nb = nbformat.v4.new_notebook()
        nb.cells = [
            nbformat.v4.new_code_cell(f"from dqkit import reference\nreference.add({str(source)!r}, progress=True)\n"
                                      "None"),
            nbformat.v4.new_code_cell(
                "from dqkit.client.address import AddressClient\n"
                f"client = AddressClient({served.url!r}, {TOKEN!r})\n"
                f"answers = client.bulk({addresses!r}, progress=True, poll_seconds=0.2)\n"
                "print(len(answers), 'answers')"),
        ]
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    saved = nbformat.read(path, as_version=4)
    for cell, name, done in ((saved.cells[0], "demo.csv", ""), (saved.cells[1], "bulk validate", "40/40")):
        outputs = cell.outputs
        texts = ["".join(o.get("data", {}).get("text/plain", "")) + "".join(o.get("text", "")) for o in outputs]
        bars = [t for t in texts if "|" in t and name in t.split("|")[0]]
        assert bars, texts
        assert all("100%" in t and done in t for t in bars), bars
        assert not any("0%|" in t.replace("100%|", "") for t in texts), texts
        assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs), outputs
    assert "40 answers" in "".join(o.get("text", "") for o in saved.cells[1].outputs)
