"""The generalizing spoof rules of issue 12 part 6, each with the real names it must leave alone.

- Look-alike letters of other scripts (Cyrillic, Greek, Armenian) and fullwidth forms read as Latin, but only
  in a value that mixes them with Latin or is made of them alone: names written in Cyrillic or Greek pass.
- Pun readings: the whole name read aloud as a phrase of `pun_templates.txt`'s grammar or a vulgar word
  ("Seymour Nipples" = "see more nipples"), never for a surname of `common_surnames.txt`.
- The "Xy McXface" pattern; characters known by a title and a made-up word (Mr. Peanutbutter).
- The bundled character lists (faker-ruby's, the WGA best-written series', WordNet's), faker-ruby's funny
  names and its real famous people, WordNet's famous people: all leave out names that more than 20 people in
  the US bear, and names whose two parts are names of one culture in faker's person lists.
- A whole name read as one common English word ("Dan Druff" = dandruff), never a word some real given name +
  surname reads as.
"""

from __future__ import annotations

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof
from dqkit.engines.lead.spoof import explain_spoof


def _hit(first: str = "", last: str = "", full: str = "") -> spoof.SpoofHit | None:
    return explain_spoof(LeadRequest(first_name=first, last_name=last, full_name=full, zip="20500"))


@pytest.mark.parametrize(("first", "last", "kind"), [
    ("Jоhn", "Dое", spoof.PLACEHOLDER),  # Cyrillic о and е
    ("Μickey", "Μouse", spoof.FICTIONAL),  # Greek capital Mu
    ("Ｍｉｃｋｅｙ", "Mouse", spoof.FICTIONAL),  # fullwidth
    ("Seymour", "Nipples", spoof.PRANK),
    ("Harry", "Knockers", spoof.PRANK),
    ("Phil", "Mycrack", spoof.PRANK),
    ("Horsey", "McHorseface", spoof.PLACEHOLDER),
    ("Boaty", "McBoat-face", spoof.PLACEHOLDER),
    ("Testy", "McTesterson", spoof.PLACEHOLDER),
    ("Mr.", "Peanutbutter", spoof.FICTIONAL),
    ("Liz", "Lemon", spoof.FICTIONAL),
    ("Basil", "Fawlty", spoof.FICTIONAL),
    ("Naruto", "Uzumaki", spoof.FICTIONAL),
    ("Marty", "McFlyy", spoof.FICTIONAL),  # a doubled letter
    ("Dan", "Druff", spoof.PRANK),  # read as one English word (english_words.txt)
    ("Hal", "Itosis", spoof.PRANK),
    ("Anita", "Bath", spoof.PRANK),  # funny_names.txt
    ("Giannis", "Antetokounmpo", spoof.CELEBRITY),  # famous_people.txt
    ("Winston", "Churchill", spoof.CELEBRITY),  # wordnet_people.txt
    ("Walter", "Mitty", spoof.FICTIONAL),  # wordnet_characters.txt
])
def test_generalizing_rules_catch(first: str, last: str, kind: str) -> None:
    hit = _hit(first, last)
    assert hit is not None and hit.kind == kind, hit
    assert _hit(full=f"{first} {last}") is not None


@pytest.mark.parametrize(("first", "last"), [
    ("Иван", "Петров"), ("Ольга", "Смирнова"), ("Γιώργος", "Παπαδόπουλος"), ("Kelly", "McKellar"),
    ("Mack", "McMahon"), ("Mr.", "Garrison"), ("Dr", "Long"), ("Sam", "Malone"), ("Mike", "Ross"),
    ("Amy", "Wong"), ("Ashley", "Kerr"), ("Harry", "Knotts"), ("Hugh", "Sykes"), ("Irene", "Mann"),
    ("Kay", "Chen"), ("Mei", "Johansson"), ("Maria", "Dary"), ("Deedee", "Garcia"),
    # no English word is read from a real given name + surname (Census or faker's cultures)
    ("Maria", "Chi"), ("Fred", "Dam"), ("Ana", "Toma"), ("Louis", "Vallee"), ("Gian-Luca", "Weber"),
    # ordinary names of other cultures, though a famous person bears them; an initial is no given name
    ("Muhammad", "Ali"), ("Vaclav", "Havel"), ("A", "Long"), ("Theresa", "Brown"), ("Wen-Chang", "Okafor"),
    # letters no decomposition brings to ASCII are read, not dropped (Bjørn was "bjrn", keyboard mash)
    ("Bjørn", "Haugland"), ("Berit", "Strøm"), ("Hakim", "Məmmədzadə"), ("Sərvər", "Hacıbəyli"),
    ("Nil", "Vargas"),  # a Catalan and Turkish given name, not a placeholder
])
def test_real_names_pass_the_generalizing_rules(first: str, last: str) -> None:
    assert _hit(first, last) is None
    assert _hit(full=f"{first} {last}") is None


def test_pun_key_reads_spellings_alike() -> None:
    key = spoof._pun_key
    assert key(("seymour", "butz")) == key(("see", "more", "butts"))
    assert key(("hugh", "jass")) == key(("huge", "ass"))
    assert key(("al", "koholic")) == key(("alcoholic",))
    assert key(("mary", "smith")) != key(("my", "smith"))


def test_character_lists_hold_no_common_real_name(census: dict[str, list[tuple[str, float]]]) -> None:
    """No bundled character name is a pair that more than 20 people in the US are expected to bear."""
    first = {n.lower(): w / 200 for n, w in census["first"]}  # two lists of percent: share of all people
    last = {n.lower(): w / 100 for n, w in census["last"]}
    worst = []
    for file in ("fictional_characters.txt", "tv_characters.txt", "funny_names.txt", "famous_people.txt",
                 "wordnet_people.txt", "wordnet_characters.txt"):
        for name in spoof._lines(file):
            words = name.split()
            bearers = first.get(words[0], 0.0) * last.get(words[-1], 0.0) * 250e6
            if bearers > 20.5:
                worst.append((name, round(bearers)))
    assert worst == []
    assert len(spoof._tables().characters) > 3500
