"""Build `data/unseen_real_names.csv`: real given names and surnames that collide with English vulgar words, from a
source the allowlist (`wordlists/name_collisions.txt`) is not built from, and holding none of its entries.

The allowlist is built from faker's person providers and supplements (`build_name_sets.py`), and so is
`multicultural_names.csv`: scoring that set with the allowlist is circular. This set comes from the person data of
the PyPI package `mimesis` 22.2 (MIT; 40+ locales, Latin-script names folded to ASCII, other scripts skipped),
collides by the same rule (a better-profanity word inside it, or a short vulgar word's sound), and drops every name
that is an allowlist entry, so the allowlist cannot have been made from it. `test_spoof_unseen_names.py` checks the
disjointness and reports false positives with the allowlist and with it emptied.

Run: `.venv/bin/pip install mimesis==22.2.0 better-profanity && .venv/bin/python tests/lead_rules/build_unseen_names.py`
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_name_sets import _fold, collides, vulgar_words  # noqa: E402

OUT = HERE / "data" / "unseen_real_names.csv"
ALLOWLIST = HERE.parents[1] / "dqkit" / "engines" / "lead" / "wordlists" / "name_collisions.txt"


def allowlist() -> set[str]:
    lines = ALLOWLIST.read_text(encoding="utf-8").splitlines()
    return {ln.split("#", 1)[0].strip().lower() for ln in lines if ln.split("#", 1)[0].strip()}


def mimesis_names() -> dict[tuple[str, str], set[str]]:
    """(name, given|surname) -> mimesis locales holding it."""
    import mimesis

    folder = Path(mimesis.__file__).resolve().parent / "datasets"
    out: dict[tuple[str, str], set[str]] = {}
    for path in sorted(folder.glob("*/person.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        given = data.get("names", {})
        groups = [("given", v) for v in (given.values() if isinstance(given, dict) else [given])]
        surnames = data.get("surnames", [])
        groups += [("surname", v) for v in (surnames.values() if isinstance(surnames, dict) else [surnames])]
        for role, values in groups:
            for raw in values if isinstance(values, list) else []:
                name = _fold(str(raw)).strip()
                if name and name.replace(" ", "").replace("-", "").isalpha() and name.isascii():
                    out.setdefault((name, role), set()).add(path.parent.name)
    return out


def main() -> None:
    words, allowed = vulgar_words(), allowlist()
    rows = []
    for (name, role), locales in sorted(mimesis_names().items()):
        hit = collides(name, words)
        if hit and name.lower() not in allowed and not set(name.lower().replace("-", " ").split()) & allowed:
            rows.append({"name": name, "role": role, "locales": "; ".join(sorted(locales)), "collides_with": hit,
                         "source": "mimesis 22.2.0"})
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["name", "role", "locales", "collides_with", "source"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} names -> {OUT}")


if __name__ == "__main__":
    main()
