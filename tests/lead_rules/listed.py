"""Which names the detector's bundled whole-name lists hold, and which names are near one of their entries.

A held-out spoof that is a list entry measures a lookup, not a rule: the clean evaluation sets hold no such row.
"Near" is what the detector itself would treat as the same name or a spelling of it: the same list key (case,
accents, look-alike letters, titles, spacing and doubled letters folded: `spoof.list_key`), the same key with
given name and surname swapped, the same sound key (`spoof._sound`: sound-alike consonant spellings), or one
edit away from an entry's key (keys of six letters or more).
"""

from __future__ import annotations

import functools
from pathlib import Path

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from dqkit.engines.lead.spoof import WORDLISTS, _sound, list_key

# Every word list matched against a whole person name (spoof._tables: person phrases and the character lists).
WHOLE_NAME_LISTS = (
    "placeholder_names.txt", "celebrity_names.txt", "fictional_names.txt", "prank_names.txt", "vulgar_phrases.txt",
    "fictional_characters.txt", "tv_characters.txt", "funny_names.txt", "famous_people.txt", "wordnet_people.txt",
    "wordnet_characters.txt",
)


def _entries(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


@functools.cache
def list_keys() -> dict[str, str]:
    """list key -> the list file holding it."""
    out: dict[str, str] = {}
    for file in WHOLE_NAME_LISTS:
        for entry in _entries(WORDLISTS / file):
            out.setdefault(list_key(entry), file)
    return out


@functools.cache
def _sounds() -> dict[str, str]:
    return {_sound.__wrapped__(k): k for k in list_keys()}  # type: ignore[attr-defined]


def row_name(row: dict[str, str]) -> str:
    return row.get("full_name") or f"{row.get('first_name', '')} {row.get('last_name', '')}".strip()


def near_list_entry(row: dict[str, str]) -> str | None:
    """The list entry (key) a spoof row is, or is near; None when it is near none."""
    keys = list_keys()
    forms = [row_name(row)]
    if row.get("first_name") and row.get("last_name"):
        forms.append(f"{row['last_name']} {row['first_name']}")
    for form in forms:
        key = list_key(form)
        if not key:
            continue
        if key in keys:
            return key
        sound = _sound.__wrapped__(key)  # type: ignore[attr-defined]
        if sound in _sounds():
            return _sounds()[sound]
        if len(key) >= 6:
            found = process.extractOne(key, list(keys), scorer=Levenshtein.distance, score_cutoff=1)
            if found is not None:
                return str(found[0])
    return None
