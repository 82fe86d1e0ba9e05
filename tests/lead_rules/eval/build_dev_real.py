"""Build `dev_real_names.csv`: the development set for precision (issue 32). Real given name + surname pairs drawn
from the model's OWN sources, which the rules are then run on with these words hidden from the model
(`spoof_eval.hidden_model`), so they stand for real names the model never saw, as the evaluation set's do, while
sharing no source with it. Thresholds are tuned on this set and the dev split of the fresh spoof set only.

Draws (seed 7): 4,000 pairs of a SSA given name and a Census 2010 surname, each drawn uniformly from its list (so
rare names dominate, as in `real_names.csv`); 4,000 pairs of one faker locale's given name and surname (locales
of 20+ of each: faker's `es` lists only John and Jane Doe); 2,000
pairs where the given name or the surname is an English word of SCOWL (the stratum the English-word rule reads).
Run: `.venv/bin/python tests/lead_rules/eval/build_dev_real.py` (dev extras and `apt-get install scowl`).
"""

from __future__ import annotations

import csv
import importlib
import pkgutil
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_real_names import english_words  # noqa: E402
from name_sources import census2010_surnames, indep_fold, ssa_given  # noqa: E402

OUT = HERE / "dev_real_names.csv"


def faker_pairs(rng: random.Random, n: int) -> list[dict[str, str]]:
    import faker.providers.person as person

    locales = []
    for info in sorted(pkgutil.iter_modules(person.__path__), key=lambda i: i.name):
        try:
            p = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        except Exception:
            continue
        given = sorted({v for a in dir(p) if a.startswith("first_names") for v in _values(getattr(p, a))})
        last = sorted({v for a in dir(p) if a.startswith("last_names") for v in _values(getattr(p, a))})
        given = [g for g in given if indep_fold(g) and g.replace(" ", "").isalpha()]
        last = [s for s in last if indep_fold(s) and s.replace(" ", "").replace("-", "").isalpha()]
        if len(given) >= 20 and len(last) >= 20 and all(indep_fold(x) for x in given[:1] + last[:1]):
            locales.append((info.name, given, last))
    out = []
    for _ in range(n):
        loc, given, last = rng.choice(locales)
        out.append({"first_name": rng.choice(given), "last_name": rng.choice(last), "source": f"faker {loc}"})
    return out


def _values(v: object) -> list[str]:
    v = list(v) if isinstance(v, dict) else v
    return [x for x in v if isinstance(x, str)] if isinstance(v, (list, tuple)) else []


def main() -> None:
    rng = random.Random(7)
    given = sorted(g for g in ssa_given() if g.isalpha())
    last = sorted(s.title() for s in census2010_surnames() if s.isalpha())
    rows = [{"first_name": rng.choice(given), "last_name": rng.choice(last), "source": "SSA + Census 2010"}
            for _ in range(4000)]
    rows += faker_pairs(rng, 4000)
    words = english_words()
    wg = [g for g in given if g.lower() in words]
    wl = [s for s in last if s.lower() in words]
    for i in range(2000):
        if i % 2:
            rows.append({"first_name": rng.choice(wg), "last_name": rng.choice(last),
                         "source": "English-word given"})
        else:
            rows.append({"first_name": rng.choice(given), "last_name": rng.choice(wl),
                         "source": "English-word surname"})
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["first_name", "last_name", "source"])
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} pairs to {OUT}")


if __name__ == "__main__":
    main()
