"""Fixtures of the reference-management tests: the shared OpenAddresses samples rewritten in each source's real
layout (an OpenAddresses zip bundle, GeoJSON lines, a NAD text release, Overture GeoParquet), a private
references folder per test, and a local S3 server (moto, on 127.0.0.1) holding an Overture release."""

from __future__ import annotations

import gzip
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dqkit.backends.select import forget_local

sys.path.insert(0, str(Path(__file__).parent))  # ref_layouts beside this file

from ref_layouts import geojson_lines, oa_csv_text, read_rows


@pytest.fixture(autouse=True)
def refdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A references folder of this test's own (and no shared local backend from another test)."""
    path = tmp_path / "refs"
    monkeypatch.setenv("DQKIT_REFERENCE_DIR", str(path))
    forget_local()
    yield path
    forget_local()


@pytest.fixture(scope="session")
def alameda(shared_dir: Path) -> list[dict[str, str]]:
    return read_rows(shared_dir, "alameda")


@pytest.fixture(scope="session")
def santa_clara(shared_dir: Path) -> list[dict[str, str]]:
    return read_rows(shared_dir, "santa_clara")


@pytest.fixture(scope="session")
def portland(shared_dir: Path) -> list[dict[str, str]]:
    return read_rows(shared_dir, "portland_metro")


@pytest.fixture
def oa_bundle(tmp_path: Path, alameda: list[dict[str, str]], santa_clara: list[dict[str, str]],
              portland: list[dict[str, str]]) -> Path:
    """A batch.openaddresses.io-style zip: two California sources (a CSV with its .vrt, and GeoJSON lines) and
    one Oregon source."""
    path = tmp_path / "openaddresses-collection.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("us/ca/alameda.csv", oa_csv_text(alameda))
        zf.writestr("us/ca/alameda.vrt", "<OGRVRTDataSource><OGRVRTLayer name=\"alameda\"/></OGRVRTDataSource>")
        zf.writestr("us/ca/alameda.geojson", geojson_lines(alameda))  # the same source twice: imported once
        zf.writestr("us/ca/santa_clara-addresses-county.geojson", geojson_lines(santa_clara))
        zf.writestr("us/or/portland_metro.csv", oa_csv_text(portland))
        zf.writestr("summary/us-ca.txt", "not data")
    return path


@pytest.fixture
def gz_file(tmp_path: Path, alameda: list[dict[str, str]]) -> Path:
    path = tmp_path / "dl" / "us" / "ca" / "alameda.csv.gz"
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.compress(oa_csv_text(alameda).encode()))
    return path



@pytest.fixture
def s3_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A local S3 (moto in server mode) on 127.0.0.1 and a free port, for this test only; yields its URL."""
    moto_server = pytest.importorskip("moto.server")
    for k, v in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                 ("AWS_DEFAULT_REGION", "us-west-2")):
        monkeypatch.setenv(k, v)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
