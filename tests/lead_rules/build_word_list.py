"""Build `dqkit/engines/lead/wordlists/english_words.txt`: common English words a whole name can be read as
("Dan Druff" = dandruff, "Sal Monella" = salmonella), the one-word readings of the prank-name genre.

Source: the common English words of SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson; the Debian package
`scowl` 2020.12.07-2): the `english-words` and `american-words` lists of sizes 10 to 50, the sizes SCOWL
recommends for a spell checker's everyday dictionary (size 50 is Debian's `wamerican`). SCOWL's licence is
permissive (copy, modify, distribute and sell with its copyright and permission notices; they are in
`dqkit/engines/lead/wordlists/SCOWL_LICENSE.txt`). Until issue 23 this list came from wordfreq's data, whose
CC BY-SA 4.0 share-alike terms do not suit an MIT package. Words are kept when they are ASCII letters only, at
least six letters long, not a given name or surname of the Census 1990 lists
(bundled by the PyPI package `names`) or of faker's person providers of 40+ cultures, so that a name is never
read as itself, and not the reading of any such given name + surname (Maria Chi = mariachi, Maria Age =
marriage): a real name is never read as a word.

Run: `apt-get install scowl && .venv/bin/python tests/lead_rules/build_word_list.py` (SCOWL is needed only here:
the product reads the text file).
"""

from __future__ import annotations

import sys
from pathlib import Path

import names

from dqkit.engines.lead.spoof import _sound

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_sets import faker_names

OUT = Path(__file__).resolve().parents[2] / "dqkit" / "engines" / "lead" / "wordlists" / "english_words.txt"
SCOWL = Path("/usr/share/dict/scowl")
SIZES = (10, 20, 35, 40, 50)
MIN_LETTERS = 6

HEADER = f"""\
# Common English words a whole name can be read as, written together: "Dan Druff" is dandruff. spoof.py flags
# a given name + surname whose sound (spoof._sound: sound-alike consonant spellings merged, vowels kept) is the
# sound of one of these words, unless the surname is one of common_surnames.txt.
# Source: SCOWL (Spell Checker Oriented Word Lists) by Kevin Atkinson, Debian package scowl 2020.12.07-2: the
# english-words and american-words lists of sizes {", ".join(map(str, SIZES))}; ASCII letters only,
# {MIN_LETTERS}+ letters, without the given names and surnames of the Census 1990 and of faker's 40+ cultures,
# and without the words such a given name + surname reads as. SCOWL's copyright and permission notices:
# SCOWL_LICENSE.txt beside this file.
# Made by tests/lead_rules/build_word_list.py; do not edit by hand.
"""


def _census(*files: str) -> set[str]:
    folder = Path(names.__file__).resolve().parent
    out: set[str] = set()
    for file in files:
        out.update(line.split()[0].lower() for line in (folder / file).read_text(encoding="utf-8").splitlines()
                   if line.strip())
    return out


def _scowl_words() -> list[str]:
    """SCOWL's common words (sizes 10-50, spellings common to all variants and American ones), lower-case."""
    out: set[str] = set()
    for kind in ("english-words", "american-words"):
        for size in SIZES:
            text = (SCOWL / f"{kind}.{size}").read_text(encoding="utf-8")
            out.update(w for w in text.split() if w.islower())  # capitalised entries are proper nouns
    return sorted(out)


def _by_sound(names_: set[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for n in names_:
        out.setdefault(_sound(n), []).append(n)
    return out


def _real_name_reading(word: str, given: dict[str, list[str]], surnames: dict[str, list[str]]) -> bool:
    """Whether some Census given name + Census surname reads as the word (by spoof._sound, as the rule does):
    each split of the word's sound, with a letter shared across the break or not, checked on the names."""
    key = _sound(word)
    for i in range(1, len(key)):
        for head, tail in ((key[:i], key[i:]), (key[:i], key[i - 1:])):
            for g in given.get(head, ()):
                for s in surnames.get(tail, ()):
                    if _sound(g + s) == key:
                        return True
    return False


def main() -> None:
    given_names = _census("dist.female.first", "dist.male.first")
    surnames = _census("dist.all.last")
    given_names |= {n.lower() for n, role in faker_names() if role == "given"}
    surnames |= {n.lower() for n, role in faker_names() if role == "surname"}
    given, last = _by_sound(given_names), _by_sound(surnames)
    words = [w for w in _scowl_words()
             if w.isascii() and w.isalpha() and len(w) >= MIN_LETTERS and w not in given_names | surnames
             and not _real_name_reading(w, given, last)]
    OUT.write_text(HEADER + "\n".join(sorted(set(words))) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
