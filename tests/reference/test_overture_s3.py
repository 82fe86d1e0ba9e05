"""Overture's public release fetched for real over S3 (anonymous, as from the real bucket), from a local S3
server holding GeoParquet files in the release layout: only the country and region asked for are installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ref_layouts import overture_table

from dqkit import reference
from dqkit.cli import main
from dqkit.contract.address import Confidence, SearchRequest
from dqkit.contract.errors import InputError
from dqkit.reference.sources.overture import BUCKET


def _put(s3: Any, table: Any, key: str) -> None:
    import pyarrow.parquet as pq

    with s3.open_output_stream(f"{BUCKET}/{key}") as out:
        pq.write_table(table, out, row_group_size=1000, compression="zstd")


@pytest.fixture
def release(s3_server: str, alameda: list[dict[str, str]], portland: list[dict[str, str]]) -> str:
    """Two releases in the bucket (the newer one is the default), each with two parquet files."""
    import pyarrow.fs as pafs

    s3 = pafs.S3FileSystem(access_key="testing", secret_key="testing", region="us-west-2", allow_bucket_creation=True,
                           endpoint_override=s3_server.removeprefix("http://"), scheme="http")
    s3.create_dir(BUCKET)
    for version in ("2024-07-22.0", "2024-08-20.0"):
        base = f"release/{version}/theme=addresses/type=address"
        _put(s3, overture_table(alameda, "CA"), f"{base}/part-00000-ca.zstd.parquet")
        _put(s3, overture_table(portland, "OR"), f"{base}/part-00001-or.zstd.parquet")
    return s3_server


def test_overture_from_the_release_over_s3(release: str, tmp_path: Path, alameda: list[dict[str, str]],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reference", "add", "s3", "--source", "overture", "--country", "US", "--region", "OR",
                 "--endpoint", release, "--quiet"]) == 0
    assert "installed overture-us-or: 767 addresses" in capsys.readouterr().out
    m = reference.info("overture-us-or")
    assert m.source_date == "2024-08-20"  # the newest release, found by listing the bucket
    assert [i.name for i in m.inputs] == [
        f"s3://{BUCKET}/release/2024-08-20.0/theme=addresses/type=address/part-00000-ca.zstd.parquet",
        f"s3://{BUCKET}/release/2024-08-20.0/theme=addresses/type=address/part-00001-or.zstd.parquet"]
    assert [i.rows_kept for i in m.inputs] == [0, 767]
    got = reference.open_installed().validate(SearchRequest.of("14824 SW SCHOLLS FERRY RD # 101, 97007")).result
    assert got.confidence == Confidence.VERIFIED_MATCH

    # an older release by name, a bbox instead of a region
    (ca,) = reference.add("s3", source="overture", country="US", bbox=(-122.35, 37.4, -121.9, 37.95),
                          release="2024-07-22.0", endpoint=release, id="alameda-overture", region="CA")
    inside = sum(1 for r in alameda if r["LON"] and r["POSTCODE"] and -122.35 <= float(r["LON"]) <= -121.9
                 and 37.4 <= float(r["LAT"]) <= 37.95)  # rows without a ZIP are never served
    assert ca.source_date == "2024-07-22" and 0 < ca.rows == inside < 5305
    assert reference.info("alameda-overture").inputs[1].rows_kept == 0  # Oregon lies outside the box

    with pytest.raises(InputError, match="no parquet files under s3://"):
        reference.add("s3", source="overture", country="US", release="1999-01-01.0", endpoint=release)
    assert sorted(x.id for x in reference.list_installed()) == ["alameda-overture", "overture-us-or"]
