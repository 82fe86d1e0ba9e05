"""Issue 30, part 5: every input bounded. An Excel workbook that expands into hundreds of MB of XML is refused in one
line before it is parsed; a reference id is safe ASCII at `add` time; a header value dqkit writes (the reference it
answered from, a note) is encoded and capped, so an id or file name can never break an answer. Real files, the real
CLI and a real `dqkit serve`."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

from dqkit.contract.errors import InputError
from dqkit.server.testing import serve_process

REPO = Path(__file__).resolve().parents[2]


def _workbook(path: Path, rows: list[list[str]]) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


def _bomb(path: Path, sheet_mb: int) -> Path:
    """A real workbook whose first sheet is `sheet_mb` MB of one repeated row (a few hundred KB on disk)."""
    small = _workbook(path.with_suffix(".seed.xlsx"),
                      [["First Name", "Last Name", "Zip"], ["Maria", "Garcia", "20500"]])
    row = b'<row r="3"><c r="A3" t="inlineStr"><is><t>x</t></is></c></row>'
    with zipfile.ZipFile(small) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "xl/worksheets/sheet1.xml":
                out.writestr(info, data)
                continue
            head = data.partition(b"<sheetData>")[0]
            with out.open(info.filename, "w", force_zip64=True) as f:
                f.write(head + b"<sheetData>")
                for _ in range(sheet_mb * (1 << 20) // len(row)):
                    f.write(row)
                f.write(b"</sheetData></worksheet>")
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DQKIT_CACHE": "0", "DQKIT_REFERENCE_DIR": str(cwd / "refs"),
           "XDG_DATA_HOME": str(cwd / "data"), "XDG_CACHE_HOME": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "dqkit.cli", *args], capture_output=True, text=True, timeout=600,
                          env=env, cwd=cwd)


def test_an_excel_bomb_is_refused_in_one_line_before_it_is_parsed(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "leads.xlsx", 64)
    assert bomb.stat().st_size < 1 << 20
    r = _cli("verify", str(bomb), "-o", str(tmp_path / "out.csv"), cwd=tmp_path)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if "compression bomb" in x]
    assert len(lines) == 1 and "leads.xlsx!xl/worksheets/sheet1.xml" in lines[0], r.stderr[-2000:]
    assert not (tmp_path / "out.csv").exists()


def test_a_sheet_with_too_many_cells_is_refused_and_a_normal_one_read(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit import _xlsx_bounds
    from dqkit.cli._leadio import read_table

    book = _workbook(tmp_path / "leads.xlsx", [["First Name", "Zip"], *[["Maria", f"{94500 + i}"] for i in range(20)]])
    frame = read_table(book)
    assert len(frame) == 20 and list(frame["Zip"][:2]) == ["94500", "94501"]
    monkeypatch.setattr(_xlsx_bounds, "MAX_CELLS", 30)  # the bound scaled down to this small sheet
    with pytest.raises(InputError, match=r"more than 30 cells \(rows x columns\)"):
        read_table(book)


def test_reference_ids_are_safe_ascii_when_added(tmp_path: Path) -> None:
    from dqkit.reference.store import ascii_id, new_id

    for bad in ("東京", "a\r\nb", "naïve", "x" * 101):
        with pytest.raises(InputError, match=r"ASCII|letters"):
            new_id(bad)
    assert new_id("Alameda-2024") == "alameda-2024"
    assert ascii_id("openaddresses-us-ca-San José") == "openaddresses-us-ca-san-jose"
    points = tmp_path / "points.csv"
    points.write_text("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"
                      "-122.27,37.80,1,MAIN ST,,OAKLAND,,CA,94607,,\n")
    r = _cli("reference", "add", str(points), "--id", "東京", "--country", "US", "--region", "CA", cwd=tmp_path)
    assert r.returncode != 0 and "ASCII" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert not (tmp_path / "refs").exists() or not any((tmp_path / "refs").iterdir())


@pytest.mark.parametrize("name", ["東京.dqidx", "line\r\nbreak.dqidx"])
def test_a_reference_name_never_breaks_an_answer(tmp_path: Path, name: str) -> None:
    index = tmp_path / name
    subprocess.run([sys.executable, "-m", "dqkit.cli", "index", "build", str(REPO / "data" / "demo_reference.csv.gz"),
                    "-o", str(index), "--synthetic"], check=True, capture_output=True, timeout=600)
    with serve_process(tokens=["t0k-inputs"], workers=1, extra_args=["--index", str(index)]) as server, \
            httpx.Client(timeout=60, headers={"Auth-Token": "t0k-inputs"}) as client:
        r = client.post(server.url + "/address/search/v1",
                        json={"country_iso": "USA", "components": {"unspecified": ["10 hill"]}})
        assert r.status_code == 200, r.text
        header = r.headers["X-Dqkit-Reference"]
        assert header.isascii() and "\r" not in header and "\n" not in header
        assert "%" in header  # the name's bytes, percent-encoded


def test_a_note_is_capped_however_many_layouts_are_named() -> None:
    layouts = [f"layout-{i}-" + "n" * 260 for i in range(10_000)]  # ~2.7 MB of names
    with serve_process(tokens=["t0k-inputs"], workers=1, demo=True,
                       extra_args=["--max-body-bytes", str(8 << 20)]) as server, \
            httpx.Client(timeout=60, headers={"Auth-Token": "t0k-inputs"}) as client:
        search = client.post(server.url + "/address/search/v1",
                             json={"country_iso": "USA", "components": {"unspecified": ["10 hill"]}}).json()
        key = search["result"]["suggestions"][0]["global_address_key"]
        r = client.post(f"{server.url}/address/format/v1/{key}", json={"layouts": layouts})
        assert r.status_code == 200, r.text[:300]
        note = r.headers["X-Dqkit-Note"]
        assert len(note) < 10_000 and "not applied" in note and "9,995 more" in note
