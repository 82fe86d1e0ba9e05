"""Run the notebooks and store their outputs, in the conditions of the test suite (tests/notebook/test_notebooks.py).

    .venv/bin/python notebooks/refresh.py [NAME.ipynb ...]

nbval checks the stored outputs of every cell not marked `# NBVAL_IGNORE_OUTPUT`; after a change of the engines
changes what a notebook shows, run this, look at the diff, and commit the notebooks. Progress bars are off and the
cache is a fresh temporary folder, as under test; the notebooks run in order and share that folder, as under test.
No installed reference is seen (an empty DQKIT_REFERENCE_DIR, no DQKIT_REFERENCE), as under test: the address
notebooks ask for the synthetic demo themselves.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ORDER = ("lead_audit.ipynb", "address_validation.ipynb", "report.ipynb", "address_entry.ipynb",
         "vendor_savings.ipynb")


def main(names: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="dqkit-nb-cache-") as cache, \
            tempfile.TemporaryDirectory(prefix="dqkit-nb-refs-") as refs:
        os.environ.update(DQKIT_PROGRESS="0", DQKIT_CACHE_DIR=cache, DQKIT_REFERENCE_DIR=refs)
        os.environ.pop("DQKIT_REFERENCE", None)
        for name in names or ORDER:
            path = HERE / name
            nb = nbformat.read(path, as_version=4)
            client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(HERE)}})
            client.execute()
            for cell in nb.cells:
                cell.get("metadata", {}).pop("execution", None)
            nbformat.write(nb, path)
            print(f"refreshed {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
