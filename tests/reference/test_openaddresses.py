"""`dqkit reference add` on OpenAddresses downloads (CSV, .gz, GeoJSON lines, a zip bundle with several sources);
list / info / remove; and the accessors answering from what was installed, naming it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest
from ref_layouts import geojson_lines, oa_csv_text

import dqkit
from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest


def _oa_file(tmp_path: Path, rows: list[dict[str, str]], rel: str) -> Path:


    path = tmp_path / "dl" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(oa_csv_text(rows), encoding="utf-8")
    return path


def test_add_a_csv_then_list_info_validate_and_remove(tmp_path: Path, refdir: Path,
                                                       alameda: list[dict[str, str]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = _oa_file(tmp_path, alameda, "us/ca/alameda.csv")
    assert main(["reference", "add", str(src), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "installed openaddresses-us-ca-alameda: 5,300 addresses" in said
    # the manifest: what, where from, under which licence, how big, when, made by which command
    m = reference.info("openaddresses-us-ca-alameda")
    assert (m.source, m.country, m.region, m.rows, m.synthetic) == ("openaddresses", "US", "CA", 5300, False)
    assert "openaddresses.io" in m.attribution.lower() and m.licence
    assert m.command.startswith("dqkit reference add") and str(src) in m.command
    assert m.inputs[0].name == str(src) and m.inputs[0].size == src.stat().st_size
    assert (m.inputs[0].rows_read, m.inputs[0].rows_kept) == (5306, 5300)
    assert m.dropped == {"no_postcode": 6}  # five rows without a ZIP, and "123 Fake St, Anytown"
    assert m.source_date and m.built.startswith(m.built[:4])
    folder = refdir / "openaddresses-us-ca-alameda"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(refdir.stat().st_mode) == 0o700
    assert json.loads((folder / "manifest.json").read_text())["id"] == "openaddresses-us-ca-alameda"
    assert not [p for p in refdir.iterdir() if p.name.startswith(".")]  # no staging left after success

    assert main(["reference", "list"]) == 0
    listed = capsys.readouterr().out
    assert "openaddresses-us-ca-alameda" in listed and "5,300" in listed
    assert main(["reference", "info", "openaddresses-us-ca-alameda"]) == 0
    said = capsys.readouterr().out
    assert '"rows": 5300' in said and "dropped 6 rows: 6 no postcode" in said

    # from now on the default backend answers from it, and says so
    r = alameda[0]
    df = pd.DataFrame({"address": [f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}",
                                   "350 Fifth Avenue, New York, NY 10118"]})
    out = df.addr.validate(cache=False)
    assert out.loc[0, "addr_confidence"] == Confidence.VERIFIED_MATCH
    assert out.loc[1, "addr_confidence"] not in (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED)
    assert (out["addr_reference"] == "openaddresses-us-ca-alameda").all() and out.loc[0, "addr_note"] == ""
    unheld = "street not checked: reference openaddresses-us-ca-alameda holds no addresses in ZIP 10118"
    assert out.loc[1, "addr_note"] == unheld
    parts = pd.DataFrame({"street": [f"{r['NUMBER']} {r['STREET']}", "350 Fifth Avenue"], "city": [r["CITY"], "NY"],
                          "state": ["CA", "NY"], "zip": [r["POSTCODE"], "10118-0110"]})
    assert parts.addr.validate(cache=False)["addr_note"].tolist() == ["", unheld]
    assert (out["addr_reference_date"] == m.source_date).all()
    backend = dqkit.LocalBackend()
    assert backend.reference.id == "openaddresses-us-ca-alameda"
    ds = backend.datasets("USA")[0]
    assert ds.id == "us-address" and "openaddresses-us-ca-alameda" in ds.name

    assert main(["reference", "remove", "openaddresses-us-ca-alameda"]) == 0
    assert reference.list_installed() == [] and not folder.exists()
    assert dqkit.LocalBackend().reference.id == "open-data-only"
    assert main(["reference", "info", "openaddresses-us-ca-alameda"]) == 1  # a clear error, not a traceback
    assert "no installed reference 'openaddresses-us-ca-alameda'" in capsys.readouterr().err


def test_a_zip_bundle_with_several_sources_gives_one_reference_per_region(oa_bundle: Path) -> None:
    added = reference.add(oa_bundle)
    by_id = {m.id: m for m in added}
    assert set(by_id) == {"openaddresses-us-ca", "openaddresses-us-or-portland-metro"}  # CA holds two sources
    ca, orr = by_id["openaddresses-us-ca"], by_id["openaddresses-us-or-portland-metro"]
    assert [i.name.split("!", 1)[1] for i in ca.inputs] == ["us/ca/alameda.csv",
                                                           "us/ca/santa_clara-addresses-county.geojson"]
    # every row of the GeoJSON member is read; those without a street are not kept (as in a plain CSV import)
    assert [(i.rows_read, i.rows_kept) for i in ca.inputs] == [(5306, 5300), (4913, 4739)]
    assert ca.rows == 5300 + 4739 and orr.rows == 767 and orr.region == "OR"
    engine = reference.open_installed()
    assert engine.reference_for("USA").id == "openaddresses-us-ca+openaddresses-us-or-portland-metro"
    # an Oregon address is found in the Oregon reference, a Santa Clara one (from the GeoJSON member) in California
    got = engine.validate(SearchRequest.of("14824 SW SCHOLLS FERRY RD # 101, 97007")).result
    assert got.confidence == Confidence.VERIFIED_MATCH and got.address is not None
    assert got.address.region == "OR"
    key = got.global_address_key
    owner = engine.owner_reference(key)
    assert owner is not None and owner.id == "openaddresses-us-or-portland-metro"
    assert engine.format(key).result.address.postal_code.startswith("97007")
    sc = engine.validate(SearchRequest.of("2653 MERIDIAN AVE, SAN JOSE CA 95124")).result
    assert sc.confidence == Confidence.VERIFIED_MATCH
    # type-ahead shows suggestions of both references, and each key resolves in the reference that issued it
    typed = engine.search(SearchRequest.of("10", max_suggestions=10)).result
    states = {engine.owner_reference(x.global_address_key).id for x in typed.suggestions}  # type: ignore[union-attr]
    assert states == {"openaddresses-us-ca", "openaddresses-us-or-portland-metro"} and len(typed.suggestions) == 10


def test_geojson_lines_and_gzip(tmp_path: Path, gz_file: Path, santa_clara: list[dict[str, str]],
                                portland: list[dict[str, str]]) -> None:
    gj = tmp_path / "dl" / "santa_clara.geojsonl"  # no region in the path: given as an option
    gj.parent.mkdir(parents=True, exist_ok=True)
    gj.write_text(geojson_lines(santa_clara), encoding="utf-8")
    (m,) = reference.add(gj, region="CA", id="santa-clara")
    assert (m.id, m.region, m.rows) == ("santa-clara", "CA", 4739)
    (g,) = reference.add(gz_file)
    assert (g.id, g.rows) == ("openaddresses-us-ca-alameda", 5300)
    flat = tmp_path / "dl" / "us_or_portland-addresses-city.geojson"  # a download saved without its folders
    flat.write_text(geojson_lines(portland[:50]), encoding="utf-8")
    (f,) = reference.add(flat)
    assert (f.id, f.country, f.region) == ("openaddresses-us-or-portland", "US", "OR")
    assert sorted(x.id for x in reference.list_installed()) == ["openaddresses-us-ca-alameda",
                                                                "openaddresses-us-or-portland", "santa-clara"]


def test_adding_again_replaces_the_install_in_one_step(tmp_path: Path, alameda: list[dict[str, str]],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit.notebook.settings import options

    monkeypatch.setattr(options, "cache_dir", tmp_path / "cache")
    src = _oa_file(tmp_path, alameda[:1000], "us/ca/alameda.csv")
    (first,) = reference.add(src)
    early = {(x["NUMBER"], x["STREET"]) for x in alameda[:1000]}
    r = next(x for x in alameda[4000:] if not x["UNIT"] and x["CITY"] and (x["NUMBER"], x["STREET"]) not in early)
    df = pd.DataFrame({"address": [f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}"]})
    assert not df.addr.validate(cache=True)["addr_verified"].any()  # not in the first 1,000 rows
    src2 = _oa_file(tmp_path, alameda, "us/ca/alameda.csv")
    os.utime(src2, (src2.stat().st_atime, src2.stat().st_mtime + 5))
    (second,) = reference.add(src2, replace=True)
    assert (first.rows, second.rows) == (1000, 5300)
    assert df.addr.validate(cache=True)["addr_verified"].all()  # the cached answer of the old build is not reused
    assert [m.rows for m in reference.list_installed()] == [5300]
