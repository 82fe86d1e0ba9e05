"""Turn OpenAddresses points into address strings the way people type them (fixed seed), with the answer
each should come back to. Used by the accuracy tests and the benchmark."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dqkit.engines import zipdata
from dqkit.engines.usaddr.points import AddressPoint, read_points_csv
from dqkit.engines.usaddr.pub28 import SUFFIX_WORDS

FILES = {"alameda.csv": "CA", "santa_clara.csv": "CA", "portland_metro.csv": "OR"}
KINDS = ("clean", "lower_full_words", "no_commas", "city_typo", "no_zip", "wrong_zip")


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    text: str
    point: AddressPoint
    city: str  # the ZIP's preferred city, which the standardizer must return
    zip: str  # the ZIP it must return


def load_points(shared: Path) -> list[AddressPoint]:
    out: list[AddressPoint] = []
    for name, state in FILES.items():
        out.extend(read_points_csv(shared / "data" / "openaddresses" / name, state=state))
    return out


def usable(p: AddressPoint) -> bool:
    info = zipdata.zip_info(p.zip) if p.zip else None
    return bool(p.number and p.street.name and info is not None and info.state == p.state)


def _street_text(p: AddressPoint, *, full_words: bool) -> str:
    s = p.street
    suffix = SUFFIX_WORDS.get(s.suffix, s.suffix).title() if full_words and s.suffix else s.suffix
    words = [p.number, s.predir, s.name, suffix, s.postdir]
    line = " ".join(w for w in words if w)
    if s.unit:
        line += f" {'Apt' if full_words else '#'} {s.unit}"
    return line


def _typo(city: str, rng: random.Random) -> str:
    letters = [i for i in range(1, len(city) - 2) if city[i].isalpha() and city[i + 1].isalpha()
               and city[i] != city[i + 1]]
    if not letters:
        return city
    i = rng.choice(letters)
    return city[:i] + city[i + 1] + city[i] + city[i + 2 :]


def cases(points: list[AddressPoint], kinds: tuple[str, ...] = KINDS, seed: int = 20240611) -> Iterator[Case]:
    rng = random.Random(seed)
    for p in points:
        if not usable(p):
            continue
        info = zipdata.zip_info(p.zip)
        assert info is not None
        city = p.city or info.city
        for kind in kinds:
            if kind == "clean":
                text = f"{_street_text(p, full_words=False)}, {city}, {p.state} {p.zip}"
            elif kind == "lower_full_words":
                text = f"{_street_text(p, full_words=True)}, {city.title()}, {p.state} {p.zip}".lower()
            elif kind == "no_commas":
                text = f"{_street_text(p, full_words=False)} {city} {p.state} {p.zip}"
            elif kind == "city_typo":
                text = f"{_street_text(p, full_words=False)}, {_typo(city, rng)}, {p.state} {p.zip}"
            elif kind == "no_zip":
                text = f"{_street_text(p, full_words=False)}, {city}, {p.state}"
            else:  # wrong_zip: another ordinary ZIP of the same city
                others = [z for z in zipdata.zips_for_city(info.city, p.state)
                          if z != p.zip and (i := zipdata.zip_info(z)) is not None and i.kind == "STANDARD"]
                if not others:
                    continue
                text = f"{_street_text(p, full_words=False)}, {info.city}, {p.state} {rng.choice(others)}"
            yield Case(kind, text, p, info.city, p.zip)
