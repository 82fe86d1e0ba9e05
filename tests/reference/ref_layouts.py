"""The shared OpenAddresses samples rewritten in each source's real layout (used by the fixtures and tests)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import struct
from pathlib import Path
from typing import Any

# The NAD text release header (NAD schema v2, 61 fields), in its order.
NAD_HEADER = [
    "OID_", "AddNum_Pre", "Add_Number", "AddNum_Suf", "AddNo_Full", "St_PreMod", "St_PreDir", "St_PreTyp",
    "St_PreSep", "St_Name", "St_PosTyp", "St_PosDir", "St_PosMod", "StNam_Full", "Building", "Floor", "Unit", "Room",
    "Seat", "Addtl_Loc", "SubAddress", "LandmkName", "County", "Inc_Muni", "Post_City", "Census_Plc", "Uninc_Comm",
    "Nbrhd_Comm", "NatAmArea", "NatAmSub", "Urbnztn_PR", "PlaceOther", "PlaceNmTyp", "State", "Zip_Code", "Plus_4",
    "UUID", "AddAuth", "AddrRefSys", "Longitude", "Latitude", "NatGrid", "Elevation", "Placement", "AddrPoint",
    "Related_ID", "RelateType", "ParcelSrc", "Parcel_ID", "AddrClass", "Lifecycle", "Effective", "Expire",
    "DateUpdate", "AnomStatus", "LocatnDesc", "Addr_Type", "DeliverTyp", "NAD_Source", "DataSet_ID",
]


_SUFFIX_WORDS = {"AVE": "Avenue", "AV": "Avenue", "ST": "Street", "CT": "Court", "DR": "Drive", "WAY": "Way",
                 "RD": "Road", "LN": "Lane", "PL": "Place", "BLVD": "Boulevard", "CIR": "Circle"}


# The OpenAddresses CSV header, as bytes (hostile files are written as bytes).
OA_HEADER = b"LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID\n"


def gz_repeating(path: Path, block: bytes, times: int) -> Path:
    """A gzip file of the OpenAddresses header and `times` members, each `block` compressed: `times * len(block)`
    bytes of text, small on disk (hostile inputs of `reference add`; also used by benchmarks/bench_hostile.py)."""
    member = gzip.compress(block, 9)
    with open(path, "wb") as f:
        f.write(gzip.compress(OA_HEADER))
        for _ in range(times):
            f.write(member)
    return path


def read_rows(shared_dir: Path, name: str) -> list[dict[str, str]]:
    with open(shared_dir / "data" / "openaddresses" / f"{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def oa_csv_text(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def geojson_lines(rows: list[dict[str, str]]) -> str:
    out = []
    for r in rows:
        props = {"hash": r.get("HASH", ""), "number": r["NUMBER"], "street": r["STREET"], "unit": r["UNIT"],
                 "city": r["CITY"], "district": r["DISTRICT"], "region": r["REGION"], "postcode": r["POSTCODE"],
                 "id": r.get("ID", "")}
        geom = {"type": "Point", "coordinates": [float(r["LON"]), float(r["LAT"])]} if r["LON"] else None
        out.append(json.dumps({"type": "Feature", "properties": props, "geometry": geom}))
    return "\n".join(out) + "\n"


def nad_text(groups: list[tuple[str, str, list[dict[str, str]]]]) -> str:
    """A NAD text release of rows: (state, county, OpenAddresses rows) groups; every other row spells the street
    in parts only (StNam_Full empty), as many states deliver it."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(NAD_HEADER)
    oid = 0
    for state, county, rows in groups:
        for r in rows:
            oid += 1
            rec = dict.fromkeys(NAD_HEADER, "")
            words = r["STREET"].split()
            pre = words[0] if words and words[0] in ("N", "S", "E", "W", "SW", "NE", "NW", "SE") else ""
            typ = words[-1] if len(words) > 1 and words[-1] in _SUFFIX_WORDS else ""
            name = " ".join(words[1 if pre else 0: -1 if typ else len(words)])
            rec.update({
                "OID_": str(oid), "Add_Number": r["NUMBER"], "AddNo_Full": r["NUMBER"] if oid % 2 else "",
                "St_PreDir": pre, "St_Name": name.title(), "St_PosTyp": _SUFFIX_WORDS.get(typ, ""),
                "StNam_Full": r["STREET"].title() if oid % 2 else "", "Unit": r["UNIT"], "County": county,
                "Inc_Muni": r["CITY"].title(), "Post_City": r["CITY"].title() or "Not stated", "State": state,
                "Zip_Code": r["POSTCODE"], "UUID": f"{{{oid:08d}-0000-4000-8000-000000000000}}",
                "Longitude": r["LON"], "Latitude": r["LAT"], "NatGrid": "10SEG6", "Placement": "Structure - Rooftop",
                "DateUpdate": f"2023/0{1 + oid % 9}/15 00:00:00" if oid % 3 else f"{1 + oid % 8}/15/2023 12:00:00 AM",
                "NAD_Source": f"{county} County",
                "Addr_Type": "Residential",
            })
            w.writerow(rec.values())
    return buf.getvalue()


def wkb_point(lon: float, lat: float) -> bytes:
    return struct.pack("<BIdd", 1, 1, lon, lat)


def overture_table(rows: list[dict[str, str]], state: str) -> Any:
    """Rows in the Overture addresses schema (type=address)."""
    import pyarrow as pa

    bbox_t = pa.struct([("xmin", pa.float32()), ("xmax", pa.float32()), ("ymin", pa.float32()),
                        ("ymax", pa.float32())])
    source_t = pa.struct([("property", pa.string()), ("dataset", pa.string()), ("record_id", pa.string()),
                          ("update_time", pa.string()), ("confidence", pa.float64())])
    schema = pa.schema([
        ("id", pa.string()), ("geometry", pa.binary()), ("bbox", bbox_t), ("country", pa.string()),
        ("postcode", pa.string()), ("street", pa.string()), ("number", pa.string()), ("unit", pa.string()),
        ("address_levels", pa.list_(pa.struct([("value", pa.string())]))), ("postal_city", pa.string()),
        ("version", pa.int32()), ("sources", pa.list_(source_t)),
    ], metadata={b"geo": json.dumps({"version": "1.1.0", "primary_column": "geometry", "columns": {
        "geometry": {"encoding": "WKB", "geometry_types": ["Point"]}}}).encode()})
    data: dict[str, list[Any]] = {k: [] for k in schema.names}
    for i, r in enumerate(rows):
        if not r["LON"]:
            continue  # an Overture address is a point: a row without coordinates has no place in it
        lon, lat = float(r["LON"]), float(r["LAT"])
        data["id"].append(f"08b{i:013x}")
        data["geometry"].append(wkb_point(lon, lat))
        data["bbox"].append({"xmin": lon, "xmax": lon, "ymin": lat, "ymax": lat})
        data["country"].append("US")
        data["postcode"].append(r["POSTCODE"] or None)
        data["street"].append(r["STREET"])
        data["number"].append(r["NUMBER"])
        data["unit"].append(r["UNIT"] or None)
        data["address_levels"].append([{"value": state}, {"value": r["CITY"].title()}] if r["CITY"] else
                                      [{"value": state}])
        data["postal_city"].append(None)
        data["version"].append(0)
        data["sources"].append([{"property": "", "dataset": "OpenAddresses/County", "record_id": r.get("ID", ""),
                                 "update_time": "2024-07-01", "confidence": None}])
    return pa.table(data, schema=schema)


def write_parquet(table: Any, path: Path, *, row_group_size: int = 1000) -> None:
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=row_group_size, compression="zstd")

