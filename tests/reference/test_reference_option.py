"""`--reference` takes a file or an installed reference id in every command that has it (issue 29): `dqkit verify`
(it took files only), `dqkit validate` (ids only) and `dqkit serve` (files only); a value that is neither is
refused in one line naming the installed ids."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pandas as pd
import pytest

from dqkit import reference
from dqkit.cli import build_parser, main
from dqkit.cli.serve_cmd import config_from_args
from dqkit.server.testing import serve_process

LEADS = pd.DataFrame({"First Name": ["Maria"], "Last Name": ["Garcia"], "Street": ["1216 Santa Clara Ave"],
                      "City": ["Alameda"], "State": ["CA"], "Zip": ["94501"]})
ADDRESSES = pd.DataFrame({"address": ["1216 Santa Clara Ave, Alameda, CA 94501"]})


@pytest.fixture
def county(shared_dir: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "Downloads" / "alameda.csv"
    dest.parent.mkdir(parents=True)
    shutil.copyfile(shared_dir / "data" / "openaddresses" / "alameda.csv", dest)
    return dest


def _run(argv: list[str], tmp_path: Path, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    src, out = tmp_path / f"{name}_in.csv", tmp_path / f"{name}_out.csv"
    frame.to_csv(src, index=False)
    assert main([argv[0], str(src), "-o", str(out), "--quiet", "--no-cache", *argv[1:]]) == 0
    return pd.read_csv(out, dtype=str, keep_default_na=False)


def test_verify_takes_an_installed_id(county: Path, tmp_path: Path) -> None:
    (m,) = reference.add(county, progress=False)
    got = _run(["verify", "--reference", m.id], tmp_path, LEADS, "ids")
    assert list(got["reference"]) == [m.id] and list(got["result_code"]) == ["S100"]
    got = _run(["verify", "--reference", str(county)], tmp_path, LEADS, "file")  # a file, as before
    assert list(got["reference"]) == ["files:alameda.csv"]


def test_validate_takes_a_file(county: Path, tmp_path: Path) -> None:
    got = _run(["validate", "--reference", str(county)], tmp_path, ADDRESSES, "file")
    assert list(got["addr_reference"]) == ["files:alameda.csv"]
    assert list(got["addr_confidence"]) == ["Verified match"]
    (m,) = reference.add(county, progress=False)
    got = _run(["validate", "--reference", m.id], tmp_path, ADDRESSES, "ids")  # an id, as before
    assert list(got["addr_reference"]) == [m.id]


def test_serve_takes_an_installed_id(county: Path, refdir: Path) -> None:
    (m,) = reference.add(county, progress=False)
    cfg = config_from_args(build_parser().parse_args(["serve", "--reference", m.id]))
    assert (cfg.references, cfg.reference_ids) == ((), (m.id,))
    body = {"FIRST_NAME": "Ann", "LAST_NAME": "Lee", "STREET1": "1216 Santa Clara Ave", "ZIP": "94501"}
    with serve_process(tokens=["t"], extra_args=["--reference", m.id], env={"DQKIT_REFERENCE_DIR": str(refdir)}) \
            as served, httpx.Client(base_url=served.url, timeout=30, headers={"Auth-Token": "t"}) as http:
        got = http.post("/search", json=body)
        assert got.status_code == 200, got.text
        assert got.headers["x-dqkit-reference"].startswith(f"{m.id};")


@pytest.mark.parametrize("command", ["verify", "validate", "serve"])
def test_a_value_that_is_neither_is_refused_naming_the_installed_ids(county: Path, tmp_path: Path, command: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (m,) = reference.add(county, progress=False)
    src = tmp_path / "in.csv"
    LEADS.to_csv(src, index=False)
    argv = ["serve"] if command == "serve" else [command, str(src), "-o", str(tmp_path / "out.csv")]
    assert main([*argv, "--reference", "alameda"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--reference 'alameda': no such file, and no installed reference of that id" in err and m.id in err
