"""Overture Maps `addresses` theme: GeoParquet from a local file or folder, or from the public release on S3.

Schema of a row (type=address): id, geometry (WKB point), bbox {xmin, xmax, ymin, ymax}, country (ISO alpha-2),
postcode, street, number, unit, address_levels (list of {value}: for the US the state, then the city),
postal_city, version, sources. Release layout: `s3://overturemaps-us-west-2/release/<version>/theme=addresses/
type=address/*.parquet`, read anonymously through pyarrow's S3 filesystem (`endpoint` overrides the server, for a
mirror or a local S3). Only the needed columns are read, and row groups are skipped by their statistics on
`country` and `bbox`, so a user downloads a state, not the planet. Each parquet file is one part (resumable).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.reader import Record, SourceFile
from dqkit.reference.progress import Progress
from dqkit.reference.sources.common import Part, csv_lines, normalized

KIND: Final = "overture"
LICENCE: Final = "per source (Overture Maps addresses theme; most rows from OpenAddresses sources)"
ATTRIBUTION: Final = "Overture Maps Foundation (overturemaps.org), addresses theme"
BUCKET: Final = "overturemaps-us-west-2"
S3_REGION: Final = "us-west-2"
COLUMNS: Final = ("id", "geometry", "bbox", "country", "postcode", "street", "number", "unit", "address_levels",
                  "postal_city")
_VERSION: Final = re.compile(r"(\d{4}-\d{2}-\d{2})")


def s3_filesystem(endpoint: str | None = None) -> Any:
    from pyarrow import fs

    kwargs: dict[str, Any] = {"anonymous": True, "region": S3_REGION}
    if endpoint:
        scheme, _, rest = endpoint.partition("://")
        kwargs["endpoint_override"] = rest or scheme
        kwargs["scheme"] = scheme if rest else "https"
    return fs.S3FileSystem(**kwargs)


def latest_release(filesystem: Any, bucket: str = BUCKET) -> str:
    from pyarrow import fs

    try:
        infos = filesystem.get_file_info(fs.FileSelector(f"{bucket}/release/", allow_not_found=True))
    except OSError as exc:
        raise InputError(f"cannot list the Overture releases at s3://{bucket}/release/ ({exc})") from None
    versions = sorted(i.base_name for i in infos if i.type == fs.FileType.Directory)
    if not versions:
        raise InputError(f"no Overture release under s3://{bucket}/release/")
    return str(versions[-1])


def parts_of(paths: list[str], *, country: str | None = None, region: str | None = None,
             bbox: tuple[float, float, float, float] | None = None, release: str | None = None,
             endpoint: str | None = None, bucket: str = BUCKET) -> list[Part]:
    """Parts of local GeoParquet files/folders, or (paths == ["s3"] / an s3:// URL) of the remote release."""
    from pyarrow import fs

    if not country and not bbox:
        raise InputError("Overture: give --country (and --region) or --bbox, so that you download a region, not "
                         "the planet")
    iso2 = (country or "").upper()
    files: list[tuple[str, Any, int, float]] = []  # (path, filesystem, size, mtime)
    source_date = ""
    for p in paths:
        if p == "s3" or p.startswith("s3://"):
            s3 = s3_filesystem(endpoint)
            if p.startswith("s3://"):
                base = p[len("s3://"):].rstrip("/")
            else:
                version = release or latest_release(s3, bucket)
                base = f"{bucket}/release/{version}/theme=addresses/type=address"
            m = _VERSION.search(base)
            source_date = m.group(1) if m else source_date
            try:
                infos = s3.get_file_info(fs.FileSelector(base, recursive=True, allow_not_found=True))
            except OSError as exc:
                raise InputError(f"cannot list s3://{base} ({exc})") from None
            got = [(i.path, s3, i.size or 0, i.mtime.timestamp() if i.mtime else 0.0) for i in infos
                   if i.type == fs.FileType.File and i.path.endswith(".parquet")]
            if not got:
                raise InputError(f"no parquet files under s3://{base}")
            files += sorted(got)
        else:
            lp = Path(p)
            if lp.is_dir():
                found = sorted(lp.rglob("*.parquet"))
                if not found:
                    raise InputError(f"{lp}: no .parquet files in this folder")
            elif lp.is_file():
                found = [lp]
            else:
                raise InputError(f"no such file: {lp}")
            local = fs.LocalFileSystem()
            for f in found:
                st = f.stat()
                files.append((str(f), local, st.st_size, st.st_mtime))
            m = _VERSION.search(str(found[0].resolve()))  # a local copy of a release keeps its version folder
            source_date = m.group(1) if m else source_date
    out = []
    for path, filesystem, size, mtime in files:
        name = f"s3://{path}" if filesystem.type_name == "s3" else path

        def records(progress: Progress, path: str = path, filesystem: Any = filesystem, name: str = name,
                    size: int = size) -> Iterator[Record]:
            yield from _records(path, filesystem, name, iso2, (region or "").upper(), bbox, progress, size)

        out.append(Part(name, iso2 or "US", (region or "").upper(), size, mtime, records, source_date=source_date))
    return out


def _filter(iso2: str, bbox: tuple[float, float, float, float] | None) -> Any:
    import pyarrow.compute as pc

    expr = None
    if iso2:
        expr = pc.field("country") == iso2
    if bbox:
        xmin, ymin, xmax, ymax = bbox
        b = (pc.field(("bbox", "xmin")) <= xmax) & (pc.field(("bbox", "xmax")) >= xmin) & \
            (pc.field(("bbox", "ymin")) <= ymax) & (pc.field(("bbox", "ymax")) >= ymin)
        expr = b if expr is None else expr & b
    return expr


def _records(path: str, filesystem: Any, name: str, iso2: str, region: str,
             bbox: tuple[float, float, float, float] | None, progress: Progress, size: int) -> Iterator[Record]:
    import pyarrow.dataset as pads

    try:
        dataset = pads.dataset(path, filesystem=filesystem, format="parquet")
    except Exception as exc:  # ArrowInvalid, OSError: a damaged or foreign file
        raise InputError(f"{name}: not a readable GeoParquet file ({exc})") from None
    have = set(dataset.schema.names)
    missing = [c for c in ("number", "street", "country") if c not in have]
    if missing:
        raise InputError(f"{name}: not an Overture addresses file (no column {', '.join(missing)}; it has "
                         f"{', '.join(sorted(have)[:12])})")
    cols = [c for c in COLUMNS if c in have]
    read = [0]
    done = [0]
    groups = [0]

    def rows() -> Iterator[list[str]]:
        try:
            scanner = dataset.scanner(columns=cols, filter=_filter(iso2, bbox), batch_size=65536)
            for batch in scanner.to_batches():
                data = batch.to_pydict()
                n = batch.num_rows
                read[0] += n
                groups[0] += 1
                done[0] = min(size, done[0] + max(size // 64, 1))
                for i in range(n):
                    levels = data.get("address_levels", [None] * n)[i] or []
                    values = [(lv or {}).get("value") or "" for lv in levels]
                    state = values[0] if values else ""
                    if region and state.upper() != region:
                        continue
                    city = (data.get("postal_city", [None] * n)[i] or (values[1] if len(values) > 1 else ""))
                    lon, lat = _point(data.get("geometry", [None] * n)[i], data.get("bbox", [None] * n)[i])
                    yield [lon, lat, data["number"][i] or "", data["street"][i] or "",
                           data.get("unit", [None] * n)[i] or "", city, "", state,
                           data.get("postcode", [None] * n)[i] or "", data.get("id", [None] * n)[i] or ""]
        except InputError:
            raise
        except Exception as exc:  # a row group that cannot be read: truncated upload, bad file
            raise InputError(f"{name}: cannot read the file (row group {groups[0] + 1}): {exc}") from None

    src = SourceFile(Path(name), iso2 or "US", region)
    yield from normalized(csv_lines(rows()), src, name, progress, lambda: done[0], rows_read=lambda: read[0])


def _point(wkb: bytes | None, bbox: dict[str, float] | None) -> tuple[str, str]:
    if wkb and len(wkb) >= 21:
        order = "<" if wkb[0] == 1 else ">"
        (gtype,) = struct.unpack(order + "I", wkb[1:5])
        if gtype % 1000 == 1:
            x, y = struct.unpack(order + "dd", wkb[5:21])
            return repr(x), repr(y)
    if bbox and bbox.get("xmin") is not None:
        return repr((bbox["xmin"] + bbox["xmax"]) / 2), repr((bbox["ymin"] + bbox["ymax"]) / 2)
    return "", ""
