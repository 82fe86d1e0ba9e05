"""Issue 33 (made-up streets at national size: the first address of a state builds its city index, every city
name keyed): `lastline.city_key` joins a name's words as split when none is an abbreviation it spells out. Its
keys must be those of spelling each word out: every city name of every state of the bundled ZIP data, and names
with abbreviations, hyphens and odd spacing."""

from __future__ import annotations

from dqkit.contract.us_states import STATES
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


def _index_by_scan(state: str) -> dict[str, str]:
    """A state's city index as it was built before session 6: every name keyed, a key shared by two names going
    to the one of more ZIPs (the first in sorted order among equals), each compared as met."""
    out: dict[str, str] = {}
    for name in zipdata.cities_of_state(state):
        key = _spelled(name)
        if key not in out or len(zipdata.zips_for_city(name, state)) > len(zipdata.zips_for_city(out[key], state)):
            out[key] = name
    return out


def _closest_by_scan(city: str, state: str) -> str:
    from rapidfuzz import process
    from rapidfuzz.distance import DamerauLevenshtein

    idx = _index_by_scan(state)
    key = _spelled(city)
    if key in idx:
        return idx[key]
    if len(key) < 4:
        return ""
    limit = 1 if len(key) < 8 else 2
    best = process.extract(key, tuple(idx), scorer=DamerauLevenshtein.distance, score_cutoff=limit, limit=2)
    if not best or (len(best) > 1 and best[1][1] == best[0][1]):
        return ""
    return idx[best[0][0]]


def test_state_index_and_lookup_are_the_full_scans() -> None:
    """Issue 33, session 6: a state's city keys are computed once per state outside `city_key`'s cache, and a key two
    names share is settled only when asked (`_named`, each name's ZIPs read then): the index and the lookups are
    those of keying every name and settling every shared key, for every state, in the same key order."""
    import random

    states = [s for s in sorted(STATES) if zipdata.cities_of_state(s)]
    assert len(states) > 50
    shared = 0
    for state in states:
        lastline.city_index.cache_clear()
        want = _index_by_scan(state)
        assert list(lastline.city_index(state).items()) == list(want.items()), state
        shared += len(lastline._state_keys(state)[1])
    assert shared > 100  # keys two names share ("N HOLLYWOOD" / "NORTH HOLLYWOOD") were settled
    rng = random.Random(6)
    for state in ("CA", "NY", "PA", "MN", "TX"):
        names = list(zipdata.cities_of_state(state))
        typed = [*rng.sample(names, 60), "NORTH HOLLYWOOD", "N HOLLYWOOD", "ST PAUL", "SAINT PAUL", "MT VERNON", "XQZ"]
        for name in list(typed):
            i = rng.randrange(len(name))
            typed += [name[:i] + name[i + 1:], name[:i] + "X" + name[i:], name.replace(" ", "-"), name.lower().upper()]
        for city in typed:
            lastline.closest_city_in_state.cache_clear()
            lastline._named.cache_clear()
            assert lastline.closest_city_in_state(city, state) == _closest_by_scan(city, state), (city, state)
