"""Issue 33 (made-up streets at national size: the first address of a state builds its city index, every city
name keyed): `lastline.city_key` joins a name's words as split when none is an abbreviation it spells out. Its
keys must be those of spelling each word out: every city name of every state of the bundled ZIP data, and names
with abbreviations, hyphens and odd spacing."""

from __future__ import annotations

from dqkit.engines import zipdata
from dqkit.engines.usaddr import lastline
from dqkit.engines.usaddr.lastline import city_key


def _spelled(city: str) -> str:
    return " ".join(lastline._CITY_WORDS.get(w, w) for w in city.replace("-", " ").split())


def test_city_key_spells_every_word() -> None:
    names = sorted(zipdata.city_names())
    assert len(names) > 20_000
    odd = ["MT VIEW", "ST-MARYS", " FT  WORTH ", "N LAS VEGAS", "PT-ST-STE", "WINSTON-SALEM", "", "-", "MT", "A\tB"]
    for name in [*names, *odd, *(n.replace(" ", "-") for n in names[:2000])]:
        assert city_key(name) == _spelled(name), name
    assert any(city_key(n) != n for n in names)  # some names do have abbreviations
