"""E100 spoof detection: vulgar words, fictional / celebrity / prank names, placeholders, keyboard mash.

The seed's E100 says the lead "matches a database of vulgar, celebrity or joke names". That database is the
plain-text word lists in `wordlists/` (what each holds and why is in its header). The rules are built so that
real people are not flagged:

- words are matched as WHOLE TOKENS, never as substrings, so Dickson, Hancock, Sexton, Cockburn, Babcock,
  Cummings, Assante and Fuchs pass; only the few roots of `vulgar_roots.txt`, which occur in no Census 1990 name,
  are looked for inside a token (motherfucker);
- words that are also real names (Dick, Butts, Hooker, Weiner, Test) never flag alone: they count inside a prank
  pair ("Seymour Butts"), or only as a given name ("Test Smith");
- names are compared as whole names (Mickey Mouse is a spoof, Mickey Smith and Jane Mouse are not); the long
  character lists (fictional_characters.txt, tv_characters.txt) hold no name more than 20 US people bear;
- a whole name read aloud as a prank phrase ("Seymour Nipples" = "see more nipples", pun_templates.txt) counts
  only when its surname is not one of the 5,000 commonest (common_surnames.txt).

Look-alike spellings are undone before matching: case and accents, letters of other scripts that look Latin
(Cyrillic а, Greek Μ: only in a value mixing them with Latin or made of them alone), fullwidth forms, leet digits
and signs (5h1t, @ss, b!tch), repeated letters (fuuuck, shiiit), separators between single letters (f.u.c.k,
s h i t) and spacing (Spongebob Squarepants = Sponge Bob Square Pants). Shape rules catch keyboard runs
(qwerty, asdfgh, hjkl), mash without vowels (sdfg, hjkhjk), letters repeated three times or more (aaaa, xxxxx)
and name fields made of digits; a name made only of a form's field labels, in any of 17 languages ("Prenom Nom",
"Vorname Nachname", "Testfirst Testlast": placeholder_tokens.txt's label lines) or of words of a refusal in
other languages ("Keine Ahnung", "Quien Sabe": its refusal lines) is a placeholder.

Fields checked: FIRST, MIDDLE, LAST and FULL_NAME (every rule), BUSINESS_NAME (words, fictional and placeholder
companies, keyboard runs), STREET1 / STREET2 (words, placeholder and fictional addresses, keyboard runs) and CITY
(words, placeholder and fictional places, shape rules). PREFIX and SUFFIX are short coded values and are left to
the syntax checks. Every table is built once per process; per-field answers are cached, since names repeat.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dqkit._gcpause import built_without_gc
from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof_model

WORDLISTS: Final = Path(__file__).resolve().parent / "wordlists"

# Kinds of spoof, as SpoofHit.kind (for analysts; the wire only carries the value).
VULGAR: Final = "vulgar"
FICTIONAL: Final = "fictional"
CELEBRITY: Final = "celebrity"
PRANK: Final = "prank"
PLACEHOLDER: Final = "placeholder"
KEYBOARD: Final = "keyboard"
REPEATED: Final = "repeated letters"
JOKE: Final = "joke"  # a name of English words no one bears (spoof_model)
LISTED: Final = "on your spoof list"  # an analyst's own list (spoof_list.SpoofList)


@dataclass(frozen=True, slots=True)
class SpoofHit:
    """Why a lead is a spoof: the field(s), the input value, the kind of rule and what it matched."""

    field: str  # "LAST_NAME", "FIRST_NAME+LAST_NAME", "STREET1", ...
    value: str  # the input text, as Message.VALUE names it
    kind: str
    matched: str  # the normalised word or phrase that matched
    why: str = ""  # the rule, the word and its scores, for an analyst to overrule (see `reason`)

    @property
    def reason(self) -> str:
        """Why the value is a spoof, in one line: the model's own reason, or the bundled rule that matched."""
        return self.why or f"{_RULE_OF_KIND.get(self.kind, self.kind)}: {self.matched}"

    def answer_value(self) -> str:
        """The text E100's Message.VALUE carries after the code's gist: the value, its field and the reason."""
        return f"{self.value!r} (field {self.field}; why: {self.reason})"


# The bundled rule behind each kind of hit that carries no reason of its own.
_RULE_OF_KIND: Final = {
    VULGAR: "vulgar word list", FICTIONAL: "fictional name list", CELEBRITY: "celebrity name list",
    PRANK: "prank name list or pun grammar", PLACEHOLDER: "placeholder rule", KEYBOARD: "keyboard mash rule",
    REPEATED: "repeated letters rule", LISTED: "your spoof list",
}
_MODEL_KIND: Final = {spoof_model.ENGLISH_WORDS: JOKE, spoof_model.VULGAR_SOUND: VULGAR,
                      spoof_model.VULGAR_WORD: VULGAR, spoof_model.INSULT_WORD: JOKE,
                      spoof_model.PUN_READING: PRANK, spoof_model.SOUNDS_AS: PRANK,
                      spoof_model.REPEATED_NON_NAME: PLACEHOLDER,
                      spoof_model.LETTERS_ONLY: PLACEHOLDER}


def find_spoof(lead: LeadRequest) -> str | None:
    """The input value that makes the lead a spoof (for Message.VALUE), or None."""
    hit = explain_spoof(lead)
    return hit.value if hit is not None else None


def explain_spoof(lead: LeadRequest) -> SpoofHit | None:
    """The first spoof rule the lead breaks, with its field and kind, or None for a clean lead."""
    first, middle, last = lead.first_name, lead.middle_name, lead.last_name
    check = _check_field
    if first:
        found = check(_NAME, first, True)
        if found is not None:
            return SpoofHit("FIRST_NAME", first, *found)
    if middle:
        found = check(_NAME, middle, False)
        if found is not None:
            return SpoofHit("MIDDLE_NAME", middle, *found)
    if last:
        found = check(_NAME, last, False)
        if found is not None:
            return SpoofHit("LAST_NAME", last, *found)
    if first or last:
        found = _check_person(first, middle, last)
        if found is not None:
            shown = " ".join(v for v in (first, middle, last) if v.strip())
            return SpoofHit("FIRST_NAME+LAST_NAME", shown, *found)
    if lead.full_name:
        found = check(_FULL, lead.full_name, True)
        if found is not None:
            return SpoofHit("FULL_NAME", lead.full_name, *found)
    for field, kind in _OTHER_FIELDS:
        value = getattr(lead, field)
        if value:
            found = _check_street(value) if kind == _STREET else check(kind, value, False)
            if found is not None:
                return SpoofHit(field.upper(), value, *found)
    return _model_hit(lead)


def _model_hit(lead: LeadRequest) -> SpoofHit | None:
    """The name model's verdict (spoof_model) on the whole person name, once no list or rule matched."""
    first, middle, last = lead.first_name, lead.middle_name, lead.last_name
    if first.strip() or last.strip():
        reason = _judge_person(first, middle, last)
        if reason is not None:
            shown = " ".join(v for v in (first, middle, last) if v.strip())
            return SpoofHit("FIRST_NAME+LAST_NAME", shown, _MODEL_KIND[reason.rule], reason.token, reason.text())
    full = lead.full_name
    if full.strip():
        reason = _judge_full(full)
        if reason is not None:
            return SpoofHit("FULL_NAME", full, _MODEL_KIND[reason.rule], reason.token, reason.text())
    return None


@functools.lru_cache(maxsize=65536)
def _judge_person(first: str, middle: str, last: str) -> spoof_model.Reason | None:
    words = _tokens(first)[0] + _tokens(middle)[0] + _tokens(last)[0] if middle else \
        _tokens(first)[0] + _tokens(last)[0]
    if not _TITLES.isdisjoint(words):
        words = tuple(w for w in words if w not in _TITLES)
    return spoof_model.judge(words)


@functools.lru_cache(maxsize=65536)
def _judge_full(full: str) -> spoof_model.Reason | None:
    head, comma, tail = full.partition(",")
    if "," in tail:  # "Martin Groves, Partner, Paisley Auto Repair": no person name alone
        return None
    words = [w for w in _tokens(f"{tail} {head}" if comma else full)[0] if w not in _TITLES]
    return spoof_model.judge(words)


def list_key(name: str) -> str:
    """How a whole name of a spoof list is matched: words folded as the rules read them (case, accents,
    look-alike letters), titles dropped, written together, doubled letters made one."""
    words = [w for w in _tokens.__wrapped__(name)[0] if w not in _TITLES]
    return _undouble(_squash(words))


def lead_name_keys(lead: LeadRequest) -> list[tuple[str, str, str]]:
    """(fields, value as typed, list_key) of each way the lead's whole name is written: first + middle + last,
    first + last, FULL_NAME, and FULL_NAME "Last, First" in the comma's order."""
    out: list[tuple[str, str, str]] = []
    parts = [v for v in (lead.first_name, lead.middle_name, lead.last_name) if v.strip()]
    if parts:
        shown = " ".join(parts)
        out.append(("FIRST_NAME+LAST_NAME", shown, list_key(shown)))
        if lead.middle_name.strip() and lead.first_name.strip() and lead.last_name.strip():
            out.append(("FIRST_NAME+LAST_NAME", shown, list_key(f"{lead.first_name} {lead.last_name}")))
    full = lead.full_name
    if full.strip():
        head, comma, tail = full.partition(",")
        out.append(("FULL_NAME", full, list_key(f"{tail} {head}" if comma else full)))
    return out


def check_value(value: str, field: str = "FULL_NAME") -> SpoofHit | None:
    """Check one value as if it stood in `field` (FIRST_NAME, LAST_NAME, FULL_NAME, BUSINESS_NAME, STREET1,
    CITY ...): for columns outside a lead, and for tests."""
    kind = _FIELD_KIND.get(field.upper(), _FULL)
    found = _check_field(kind, value, field.upper() in ("FIRST_NAME", "FULL_NAME"))
    if found is not None:
        return SpoofHit(field.upper(), value, *found)
    if kind == _FULL:
        reason = _judge_full(value)
        if reason is not None:
            return SpoofHit(field.upper(), value, _MODEL_KIND[reason.rule], reason.token, reason.text())
    return None


# ---------------------------------------------------------------- normalisation

_NAME, _FULL, _BUSINESS, _STREET, _CITY = "name", "full", "business", "street", "city"
_OTHER_FIELDS: Final = (("business_name", _BUSINESS), ("street1", _STREET), ("street2", _STREET),
                         ("city", _CITY))
_FIELD_KIND: Final = {"FIRST_NAME": _NAME, "MIDDLE_NAME": _NAME, "LAST_NAME": _NAME, "FULL_NAME": _FULL,
                      "BUSINESS_NAME": _BUSINESS, "STREET1": _STREET, "STREET2": _STREET, "CITY": _CITY}

_SPLIT: Final = re.compile(r"[^a-z0-9@!|+$€]+")
_PLAIN: Final = re.compile(r"[a-z0-9 ]+")
_LEET_CHARS: Final = frozenset("0134578@!|+$€9")
_LEET: Final = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
                              "@": "a", "!": "i", "|": "l", "+": "t", "$": "s", "€": "e"})
_LEET_L: Final = str.maketrans({"1": "l", "!": "l"})
_NOT_LETTER: Final = re.compile(r"[^a-z]+")
_REPEATS: Final = re.compile(r"([a-z])\1\1|([aeiouy])\2")  # what _variants can undo
_RUN3: Final = re.compile(r"([a-z])\1{2,}")
_RUN4: Final = re.compile(r"([a-z])\1{3,}")
_ROMAN: Final = frozenset({"ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii", "xiii"})
_DOUBLE_VOWEL: Final = re.compile(r"([iuy])\1+")  # a doubled a, e or o is a spelling of many names
_CHUNK_REPEAT: Final = re.compile(r"(.{2,4})\1{2,}")  # lololol, hahaha, asdasdasd
# Three-letter keyboard runs without a vowel (jkl, sdf); Census names of three consonants (Khn, Vlk, Wms) are not.
_SHORT_RUNS: Final = frozenset({"sdf", "dfg", "fgh", "ghj", "hjk", "jkl", "zxc", "xcv", "cvb", "vbn", "bnm",
                                "fds", "gfd", "hgf", "jhg", "kjh", "lkj", "cxz", "vcx", "bvc", "nbv", "mnb"})
_TWICE: Final = re.compile(r"(.{3,})\1")  # asdasd when the chunk is a keyboard run
_VOWELS: Final = frozenset("aeiouy")


# Letters of other scripts that look like Latin ones (after lower-casing), from the Unicode confusables data
# (UTS #39): Cyrillic, Greek, Armenian and a few Latin variants. Used only when every letter of a value is Latin
# or one of these, so a name written wholly in Cyrillic or Greek (Иван, Олег) is never read as Latin.
_CONFUSABLES: Final = str.maketrans({
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "у": "y",
    "ѵ": "v", "ԝ": "w", "х": "x", "ү": "y", "ɡ": "g", "ı": "i", "ȷ": "j", "ℓ": "l",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ѡ": "w",
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "ք": "p",
    # capitals that look like Latin capitals (their lower case does not: Greek Μ is m, μ is not)
    "А": "a", "В": "b", "С": "c", "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k", "М": "m", "О": "o",
    "Р": "p", "Ѕ": "s", "Т": "t", "Х": "x", "У": "y", "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h",
    "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
})
_CONFUSABLE_KEYS: Final = frozenset(chr(k) for k in _CONFUSABLES)


def _fold(text: str) -> str:
    """Lower case, look-alike letters of other scripts read as Latin (in a mixed or all-look-alike value),
    compatibility forms (fullwidth Ｊｏｈｎ, ligatures) and accents folded to ASCII."""
    if text.isascii():
        return text.lower()
    s = unicodedata.normalize("NFKC", text)
    if all(c.isascii() or c in _CONFUSABLE_KEYS or not c.isalpha() or "LATIN" in unicodedata.name(c, "")
           for c in s):
        s = s.translate(_CONFUSABLES)
    return unicodedata.normalize("NFKD", s.lower().translate(_LATIN_LETTERS)).encode("ascii", "ignore").decode()


# Latin letters that no decomposition brings to ASCII: without these Bjørn read "bjrn" (keyboard mash) and
# Məmmədzadə "mmmdzad" (a letter three times).
_LATIN_LETTERS: Final = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ə": "e", "ł": "l", "đ": "d",
                                       "ð": "d", "þ": "th", "ı": "i", "ħ": "h", "ŋ": "ng", "ŧ": "t", "ĸ": "k"})


def _deleet(token: str) -> list[str]:
    """A raw token as letters: itself when plain; its look-alike readings when it mixes letters and signs."""
    if token.isalpha():
        return [token]
    if not any(c.isalpha() for c in token) or not (_LEET_CHARS & set(token)):
        return [_NOT_LETTER.sub("", token) or token]  # digits stay digits (house numbers, "12345")
    out = [_NOT_LETTER.sub("", token.translate(_LEET))]
    if "1" in token or "!" in token:
        out.append(_NOT_LETTER.sub("", token.translate(_LEET_L).translate(_LEET)))
    return out


@functools.lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tokens, extra candidates) of a value. Tokens are its words in look-alike-free lower case (first reading);
    extras are other readings: merged runs of single letters (f.u.c.k), joined pairs of two-letter pieces (fu ck),
    the second reading of a 1 or !."""
    low = text.lower()
    if low.isascii() and low.isalpha():  # the common case: one plain word
        return (low,), ()
    tokens: list[str] = []
    extras: list[str] = []
    if low.isascii() and _PLAIN.fullmatch(low):  # words and numbers, no signs
        for t in low.split():
            if t.isalpha() or t.isdigit():
                tokens.append(t)
            else:
                readings = _deleet(t)
                tokens.append(readings[0])
                extras.extend(readings[1:])
        if all(len(t) > 2 for t in tokens):
            return tuple(tokens), tuple(extras)
    else:
        for t in _SPLIT.split(_fold(text)):
            if t:
                readings = _deleet(t)
                tokens.append(readings[0])
                extras.extend(readings[1:])
    singles: list[str] = []
    for t in [*tokens, ""]:
        if len(t) == 1 and t.isalpha():
            singles.append(t)
            continue
        if len(singles) >= 3:
            extras.append("".join(singles))
        singles = []
    for a, b in itertools.pairwise(tokens):
        if len(a) <= 2 and len(b) <= 2 and len(a) + len(b) >= 4 and a.isalpha() and b.isalpha():
            extras.append(a + b)
    return tuple(t for t in tokens if t), tuple(extras)


def _variants(token: str) -> list[tuple[str, bool]]:
    """Readings of a token with repeated letters undone, each with "vowels only": runs of three or more to one
    or two letters (fuuuck, asss), a doubled i, u or y to one (shiit, fuuck: True). Doubled consonants stay:
    Fagg, Crapp and Loll are surnames; so do doubled a, e and o, which Dutch, Nordic and Estonian names spell
    (Aarse, Peedo, Koopman: read as "arse" and "pedo" before issue 23)."""
    out: list[tuple[str, bool]] = []
    if _RUN3.search(token):
        out += [(_RUN3.sub(r"\1", token), False), (_RUN3.sub(r"\1\1", token), False)]
    if _DOUBLE_VOWEL.search(token):
        out.append((_DOUBLE_VOWEL.sub(r"\1", token), True))
    return out


def _squash(tokens: Iterable[str]) -> str:
    return "".join(tokens)


# ---------------------------------------------------------------- tables


def _lines(name: str) -> list[str]:
    """Entries of a word list: one a line, '#' comments and blank lines skipped."""
    text = (WORDLISTS / name).read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _phrase_key(text: str) -> str:
    """A list entry as matched. Uncached: the tables' 10,000 entries would fill the lead-time cache, and every
    cache entry is one more object for each full garbage collection to visit (5-10% of lead throughput)."""
    return _squash(_tokens.__wrapped__(text)[0])


_STREET_WORDS: Final = {"street": "st", "drive": "dr", "lane": "ln", "terrace": "ter", "avenue": "ave",
                        "place": "pl", "road": "rd", "point": "pt", "boulevard": "blvd", "court": "ct",
                        "apartment": "apt", "north": "n", "south": "s", "east": "e", "west": "w"}
_LEGAL_FORMS: Final = frozenset({"inc", "llc", "corp", "co", "ltd", "incorporated", "corporation", "company",
                                 "lp", "llp", "plc"})
_TITLES: Final = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "rev", "sir", "jr", "sr", "ii", "iii",
                            "iv", "esq", "phd", "md"})
# Credentials and legal forms that are written without vowels; they are not keyboard mash.
_NO_VOWEL_WORDS: Final = frozenset({"llc", "pllc", "lcsw", "lmft", "lpcc", "dds", "dmd", "cpa", "msw", "phd",
                                    "bsn", "mba", "cfp", "rn", "lpn", "np", "pc", "pa", "llp", "ltd", "jr", "sr",
                                    "mr", "mrs", "ms", "dr", "st", "mt", "ft", "hwy", "blvd", "ct", "pkwy", "rd",
                                    "ln", "pl", "sq", "trl", "xing", "spgs", "hts", "twp", "vlg", "cntr", "ctr"})


def _keyboard_runs() -> tuple[frozenset[str], frozenset[str]]:
    """(keyboard-row runs of 4+, alphabet and digit runs of 4+), both directions. 'wert' and 'trew' are real
    surnames and are dropped."""
    def runs(rows: tuple[str, ...]) -> set[str]:
        out: set[str] = set()
        for row in rows:
            for n in range(4, len(row) + 1):
                for i in range(len(row) - n + 1):
                    out |= {row[i : i + n], row[i : i + n][::-1]}
        return out

    keys = runs(("qwertyuiop", "asdfghjkl", "zxcvbnm")) - {"wert", "trew"}
    alpha = runs(("abcdefghijklmnopqrstuvwxyz", "1234567890"))
    return frozenset(keys), frozenset(alpha)


@dataclass(frozen=True, slots=True)
class _Tables:
    words: dict[str, dict[str, tuple[str, str]]]  # field kind -> token -> (kind of spoof, matched)
    prefixed: re.Pattern[str]  # a vulgar prefix and the rest ("lilpussyface": "pussyface")
    vulgar: frozenset[str]
    roots: re.Pattern[str]
    fictional_tokens: frozenset[str]
    placeholder_tokens: frozenset[str]
    given_placeholders: frozenset[str]
    field_labels: frozenset[str]  # a form's name field labels (Vorname, Nom) and refusals (Keine, Ahnung)
    person_phrases: dict[str, str]  # squashed name -> kind
    business_phrases: dict[str, str]
    city_phrases: frozenset[str]
    street_phrases: frozenset[str]
    key_runs: frozenset[str]
    alpha_runs: frozenset[str]
    key_run5: re.Pattern[str]  # a keyboard run of five inside a token (asdfgjkl, zqwertyx)
    collisions: frozenset[str]  # real given names / surnames of other cultures that are English vulgar words
    person_sounds: dict[str, tuple[str, str]]  # sound key of a whole-name phrase -> (kind, phrase key)
    surname_skeletons: dict[tuple[str, str], tuple[str, str]]  # (given sound, surname consonants) -> found
    characters: dict[str, tuple[str, str]]  # whole name of the long lists (characters, funny names, famous people)
    puns: dict[str, str]  # pun key of a prank phrase ("huge ass") -> the phrase
    pun_heads: frozenset[str]  # every start (up to _PUN_HEAD letters) of a pun key: a cheap first test
    common_surnames: frozenset[str]  # surnames a pun reading never overrides
    word_sounds: dict[str, str]  # sound key of a common English word -> the word (english_words.txt)


@functools.cache
@built_without_gc
def _tables() -> _Tables:
    words = set(_lines("vulgar_words.txt"))
    compounds: set[str] = set()
    prefixes: list[str] = []
    for line in _lines("vulgar_affixes.txt"):
        side, affix = line.split()
        if side == "prefix":
            prefixes.append(affix)
        for w in words:
            compounds.add(affix + w if side == "prefix" else w + affix)
    roots = _lines("vulgar_roots.txt")
    placeholder_lines = _lines("placeholder_tokens.txt")
    person: dict[str, str] = {}
    person_words: dict[tuple[str, ...], str] = {}
    for name, kind in (("placeholder_names.txt", PLACEHOLDER), ("celebrity_names.txt", CELEBRITY),
                       ("fictional_names.txt", FICTIONAL), ("prank_names.txt", PRANK),
                       ("vulgar_phrases.txt", VULGAR)):
        for phrase in _lines(name):
            person[_phrase_key(phrase)] = kind
            person_words[_tokens(phrase)[0]] = kind
    characters: dict[str, tuple[str, str]] = {}
    for file, kind in (("fictional_characters.txt", FICTIONAL), ("tv_characters.txt", FICTIONAL),
                       ("funny_names.txt", PRANK), ("famous_people.txt", CELEBRITY),
                       ("wordnet_people.txt", CELEBRITY), ("wordnet_characters.txt", FICTIONAL)):  # see headers
        for phrase in _lines(file):
            key = _phrase_key(phrase)
            if key not in person and key not in characters:
                characters[_undouble(key)] = characters[key] = (kind, key)
    business = {_business_key(list(_tokens(p)[0])): PLACEHOLDER for p in _lines("fictional_companies.txt")}
    cities: set[str] = set()
    streets: set[str] = set()
    for line in _lines("fictional_places.txt"):
        kind, _, text = line.partition(" ")
        (cities if kind == "city" else streets).add(_street_key(text) if kind == "street" else _phrase_key(text))
    keys, alpha = _keyboard_runs()
    puns = _pun_phrases()
    vulgar = frozenset(words | compounds)
    fictional = frozenset(_lines("fictional_tokens.txt"))
    placeholder = frozenset(p for p in placeholder_lines if not p.startswith(("given ", "label ", "refusal ")))
    by_kind: dict[str, dict[str, tuple[str, str]]] = {}
    for kind in (_NAME, _FULL, _BUSINESS, _STREET, _CITY):
        table: dict[str, tuple[str, str]] = {}
        if kind in (_NAME, _FULL):
            table.update((w, (PLACEHOLDER, w)) for w in placeholder)
        if kind != _STREET:
            table.update((w, (FICTIONAL, w)) for w in fictional)
        table.update((w, (VULGAR, w)) for w in vulgar)
        by_kind[kind] = table
    return _Tables(
        words=by_kind,
        prefixed=re.compile(f"(?:{'|'.join(sorted(prefixes, key=len, reverse=True))})(.{{3,}})"),
        vulgar=vulgar,
        roots=re.compile("|".join(sorted(map(re.escape, roots), key=len, reverse=True))),
        fictional_tokens=fictional,
        placeholder_tokens=placeholder,
        given_placeholders=frozenset(p.split()[1] for p in placeholder_lines if p.startswith("given ")),
        field_labels=frozenset(p.split()[1] for p in placeholder_lines if p.startswith(("label ", "refusal "))),
        person_phrases=person,
        business_phrases=business,
        city_phrases=frozenset(cities),
        street_phrases=frozenset(streets),
        key_runs=keys,
        alpha_runs=alpha,
        key_run5=re.compile("|".join(sorted(k for k in keys if len(k) == 5))),
        collisions=frozenset(ln.split("#", 1)[0].strip() for ln in _lines("name_collisions.txt")),
        person_sounds={_sound(k): (kind, k) for k, kind in person.items() if kind != VULGAR},
        surname_skeletons={(_sound(ws[0]), _skeleton(ws[-1])): (kind, " ".join(ws))
                           for ws, kind in person_words.items() if kind in (PRANK, FICTIONAL) and len(ws) >= 2
                           and len(_skeleton(ws[-1])) >= 4},
        characters=characters,
        puns=puns,
        pun_heads=frozenset(k[:i] for k in puns for i in range(1, min(len(k), _PUN_HEAD) + 1)),
        common_surnames=frozenset(_lines("common_surnames.txt")),
        word_sounds=_word_sounds(),
    )


def _word_sounds() -> dict[str, str]:
    """Sound key -> common English word (english_words.txt), as prepared by tests/lead_rules/build_word_sounds.py
    in english_word_sounds.txt: computing the 43,000 keys here was half of these tables' load time."""
    out: dict[str, str] = {}
    for line in _lines("english_word_sounds.txt"):
        keys, _, words = line.partition("\t")
        out.update(zip(keys.split(), words.split(), strict=True))
    return out


def _pun_phrases() -> dict[str, str]:
    """Every phrase of the grammar in pun_templates.txt, every vulgar word and phrase, by pun key (keys shorter
    than five are dropped)."""
    parts: dict[str, list[str]] = {"noun": [], "before": [""], "after": [""], "phrase": []}
    for line in _lines("pun_templates.txt"):
        part, _, text = line.partition(" ")
        parts[part].append(text)
    phrases = [" ".join(w for w in (b, n, a) if w)  # a word before OR after the noun: three-part phrases
               for b, n, a in itertools.product(parts["before"], parts["noun"], parts["after"])
               if not (b and a)]  # ("i urine munch") are nonsense that only real names would match
    out: dict[str, str] = {}
    phrases += [*_lines("vulgar_words.txt"), *_lines("vulgar_phrases.txt")]  # the name read as one of them
    for phrase in (*parts["phrase"], *phrases):
        key = _pun_key(tuple(phrase.split()))
        if len(key) >= 5:
            out.setdefault(key, phrase)
    return out


_SOUND_RULES: Final = (("ph", "f"), ("ck", "k"), ("ch", "k"), ("gh", "g"), ("q", "k"), ("c", "k"), ("z", "s"),
                       ("x", "ks"), ("y", "i"), ("w", "u"))


@functools.lru_cache(maxsize=65536)
def _sound(text: str) -> str:
    """A sound key of a squashed name: consonant spellings that read aloud the same meet (Butz = Butts,
    Koholic = Coholic, Hugh Rection = Hugh G Rection): sound-alike letters merged, doubled letters made one.
    Vowels are kept: without them Bobbie Hall read as Bobby Hill."""
    s = text
    for a, b in _SOUND_RULES:
        s = s.replace(a, b)
    return _undouble(s)


def _undouble(key: str) -> str:
    """A squashed name with doubled letters made one (Jon Snoww = Jon Snow); most names have none."""
    return _DOUBLED.sub(_first_letter, key) if _DOUBLED.search(key) else key


_DOUBLED: Final = re.compile(r"(.)\1+")


def _first_letter(m: re.Match[str]) -> str:
    """The run's letter: what the template r"\1" gives, in a third of its time (Python expands a template for
    every match; 9,000 list names are undoubled at load)."""
    return m[1]


# Spelling to sound for pun readings, one word at a time: silent letters dropped, spellings of one sound merged.
_PUN_RULES: Final = tuple((re.compile(a), b) for a, b in (
    (r"ough", "o"), (r"gh$", ""), (r"^kn", "n"), (r"ph", "f"), (r"d?ge$", "j"), (r"(?<=[^aeiouy])e$", ""),
    (r"(?<=[^aeiouy])es$", "s"), (r"ck", "k"), (r"c(?=[eiy])", "s"), (r"[cq]", "k"), (r"x", "ks"), (r"z", "s"),
    (r"th", "t"), (r"wh", "w"), (r"(?<=[aeiou])w", ""), (r"(?<=[aeiou])[yh]", ""), (r"(?<=[^aeiou])h", "")))
_VOWEL_RUN: Final = re.compile(r"[aeiouy]+")
_VOWEL_CLASS: Final = {"a": "a", "e": "e", "i": "e", "y": "e", "o": "o", "u": "o"}


@functools.lru_cache(maxsize=65536)
def _pun_word(word: str) -> str:
    """One word's pun reading: the spelling rules, doubled letters made one, vowel runs to their class."""
    for rx, sub in _PUN_RULES:
        word = rx.sub(sub, word)
    return _VOWEL_RUN.sub(lambda m: _VOWEL_CLASS[m.group()[0]], _undouble(word))


_VOWEL_CLASSES: Final = frozenset("aeo")
_PUN_HEAD: Final = 8


@functools.lru_cache(maxsize=65536)
def _pun_key(words: tuple[str, ...]) -> str:
    """How a whole name reads aloud, coarsely: sound-alike spellings merged, doubled letters made one, each run
    of vowels reduced to the class of its first vowel (a / e i y / o u), across the word breaks too. "Seymour
    Butz" and "see more butts" both read "semorbots"."""
    out = ""
    for key in map(_pun_word, words):
        if out and key and (out[-1] == key[0] or (out[-1] in _VOWEL_CLASSES and key[0] in _VOWEL_CLASSES)):
            key = key[1:]  # a doubled letter or one vowel run across the break
        out += key
    return out


def _sound_words(words: Sequence[str]) -> str:
    """_sound of the words written together, from each word's cached sound: the same unless a two-letter
    spelling spans a break (Bac + Hus), which is then read whole."""
    out = ""
    prev = ""
    for w in words:
        if prev and prev[-1] in "pcg" and w[:1] in ("h", "k"):
            return _sound("".join(words))
        key = _sound(w)
        if out and key and out[-1] == key[0]:
            key = key[1:]
        out += key
        prev = w
    return out


@functools.lru_cache(maxsize=65536)
def _skeleton(word: str) -> str:
    """The consonants of a word's sound key (Kaholic = Koholic = "khlk")."""
    return _sound(word).translate(_NO_VOWELS)


_NO_VOWELS: Final = str.maketrans("", "", "aeiou")


def _business_key(words: list[str]) -> str:
    """A company name without its trailing legal forms ("Umbrella Corporation" = "Umbrella Corp" = "Umbrella")."""
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words = words[:-1]
    return _squash(words)


def _street_key(text: str) -> str:
    return _squash(_STREET_WORDS.get(t, t) for t in _tokens(text)[0])


# ---------------------------------------------------------------- rules

_Found = tuple[str, str]  # (kind, matched)


def _word_hit(t: _Tables, table: dict[str, _Found], token: str) -> _Found | None:
    """Whole-word and root rules for one token (and its repeated-letter readings)."""
    hit = table.get(token)
    if hit is not None:
        return hit
    m = t.roots.search(token)
    if m:
        return VULGAR, m.group()
    if len(token) >= 6:
        m = t.prefixed.fullmatch(token)
        if m and m.group(1) in t.vulgar:
            return VULGAR, token
    if _REPEATS.search(token):
        for v, vowels_only in _variants(token):
            hit = table.get(v)
            if hit is not None and (not vowels_only or hit[0] == VULGAR):  # Noone is not "none"
                return hit
            m = t.roots.search(v)
            if m:
                return VULGAR, m.group()
    return None


def _shape_hit(t: _Tables, token: str, kind: str) -> _Found | None:
    """Keyboard runs, vowel-less mash, letters repeated three times, digits for a name."""
    if kind in (_NAME, _FULL) and token.isdigit():
        return PLACEHOLDER, token
    if not token.isalpha():
        return None
    if token in t.key_runs or (kind not in (_BUSINESS, _STREET) and token in t.alpha_runs):
        return KEYBOARD, token
    if kind in (_BUSINESS, _STREET) or token in _ROMAN:
        return None
    if (_RUN4 if kind == _CITY else _RUN3).search(token):  # Kaaawa, HI is real
        return REPEATED, token
    if _CHUNK_REPEAT.search(token):
        return REPEATED, token
    if token in _SHORT_RUNS and kind != _CITY:
        return KEYBOARD, token
    m = _TWICE.fullmatch(token)
    if m and (m.group(1) in t.key_runs or _is_short_run(t, m.group(1))):
        return KEYBOARD, token
    if kind != _CITY and len(token) >= 4 and not (_VOWELS & set(token)) and token not in _NO_VOWEL_WORDS:
        return KEYBOARD, token
    if len(token) >= 5 and t.key_run5.search(token):
        return KEYBOARD, token
    return None


# Words that turn a name that is also a vulgar word into an insult ("Fuk You", "Fuk Off").
_INSULT_TAILS: Final = frozenset({"you", "u", "yu", "yoo", "ya", "off", "of", "me", "yourself", "urself", "it",
                                  "this", "that", "them", "him", "her", "all", "everyone", "face", "head"})


def _insulting(t: _Tables, tokens: tuple[str, ...], token: str) -> bool:
    """Whether a real name that is also a vulgar word is used as the word: next to "you", "off", ... or
    another vulgar word."""
    others = [w for w in tokens if w != token]
    return any(w in _INSULT_TAILS or (w in t.vulgar and w not in t.collisions) for w in others)


def _is_short_run(t: _Tables, chunk: str) -> bool:
    """A three-letter keyboard run (asd, jkl, sdf): part of a four-letter one."""
    return len(chunk) == 3 and any(chunk in run for run in t.key_runs if len(run) == 4)


@functools.lru_cache(maxsize=65536)
def _check_field(kind: str, value: str, given_first: bool) -> _Found | None:
    """Every rule of one field; `given_first` when its first word is a given name (FIRST_NAME, FULL_NAME)."""
    t = _tables()
    tokens, extras = _tokens(value)
    if not tokens:
        return None
    hit = _token_rules(t, kind, tokens, extras)
    if hit is not None:
        return hit
    if kind in (_NAME, _FULL):
        words = [w for w in tokens if w not in _TITLES] or list(tokens)
        surname_first = kind == _FULL and "," in value  # "Test, Robert": Test is the surname
        if given_first and not surname_first and words[0] in t.given_placeholders:
            return PLACEHOLDER, words[0]
        # "King, James" is James King: the long lists are read in the order the comma gives, below
        hit = _person_phrase(t, words, lists=kind == _FULL and not surname_first) or _titled_character(t, words, tokens)
        if hit is not None:
            return hit
        if kind == _FULL and _all_labels(t, words):  # "Prenom Nom", after the lists
            return PLACEHOLDER, " ".join(words)
        if kind == _FULL and "," in value:  # "Mouse, Mickey"
            head, _, tail = value.partition(",")
            swapped = [w for w in (*_tokens(tail)[0], *_tokens(head)[0]) if w not in _TITLES]
            if swapped:
                if swapped[0] in t.given_placeholders:
                    return PLACEHOLDER, swapped[0]
                hit = _person_phrase(t, swapped)
                if hit is not None:
                    return hit
        if kind == _FULL and len(words) >= 2 and all(len(w) == 1 for w in words):
            return PLACEHOLDER, " ".join(words)
    elif kind == _BUSINESS:
        words = list(tokens)
        key = _business_key(words)
        if key in t.business_phrases:
            return t.business_phrases[key], key
        hit = _person_phrase(t, words, placeholders=False)
        if hit is not None:
            return hit
    elif kind == _CITY:
        key = _squash(tokens)
        if key in t.city_phrases:
            return PLACEHOLDER, key
    elif kind == _STREET:
        key = _street_key(value)
        if key in t.street_phrases:
            return PLACEHOLDER, key
    return None


def _token_rules(t: _Tables, kind: str, tokens: tuple[str, ...], extras: tuple[str, ...]) -> _Found | None:
    """The rules of one field read word by word: whole words and roots, the extra readings, the shapes."""
    table = t.words[kind]
    for tok in tokens:
        hit = _word_hit(t, table, tok)
        if hit is not None:
            if kind in (_NAME, _FULL) and tok in t.collisions and not _insulting(t, tokens, tok):
                continue  # Fuk (Cantonese), Anal (Indian), Tit: real names; "Fuk You" still flags
            return hit
    for tok in extras:
        for v in (tok, *(v for v, _ in _variants(tok))):
            if v in t.vulgar:
                return VULGAR, v
            m = t.roots.search(v)
            if m:
                return VULGAR, m.group()
    for tok in tokens:
        hit = _shape_hit(t, tok, kind)
        if hit is not None:
            return hit
    return None


# A street line that starts with its house number and a space: "1646 PLEASANT RD".
_NUMBERED: Final = re.compile(r"([0-9]+) (?=[^ ])")


def _check_street(value: str) -> _Found | None:
    """`_check_field(_STREET, value, False)`, with the words after a house number looked up once for every house
    number: 50,000 leads hold 50,000 street lines but far fewer streets. Exactly the same answer: a number of
    digits is one token of its own in every reading of the line (`_tokens`), adds no extra reading, no shape
    rule reads it, so only its word rules and the whole line's placeholder key (742 Evergreen Terrace) need it."""
    m = _NUMBERED.match(value)
    if m is None:
        return _check_field(_STREET, value, False)
    t = _tables()
    number = m.group(1)
    hit = _word_hit(t, t.words[_STREET], number)
    if hit is not None:
        return hit
    found, key = _street_words(value[m.end():])
    if found is not None:
        return found
    key = number + key
    return (PLACEHOLDER, key) if key in t.street_phrases else None


@functools.lru_cache(maxsize=16384)
def _street_words(rest: str) -> tuple[_Found | None, str]:
    """(the word, extra-reading and shape rules' hit, the placeholder key) of a street line after its number."""
    tokens, extras = _tokens(rest)
    return _token_rules(_tables(), _STREET, tokens, extras), _street_key(rest)


def _person_phrase(t: _Tables, words: list[str], *, placeholders: bool = True, lists: bool = True) -> _Found | None:
    """Whole-name matches: all words, and first + last word (a middle name or initial in between); then the
    same by sound (Seymour Butz = Seymour Butts, Hugh Rection = Hugh G Rection); then the "Testy McTestface"
    pattern. (A one-edit sound match was tried and dropped: it read Michael Dixon as Michael Jackson.) The long
    lists are read only with `lists`: for a whole name, not for one name field alone."""
    keys = [_squash(words)]
    if len(words) > 2:
        keys.append(words[0] + words[-1])
    for key in keys:
        kind = t.person_phrases.get(key)
        if kind is not None and (placeholders or kind != PLACEHOLDER):
            return kind, key
    if len(words) >= 2:
        for ws in (words, (words[0], words[-1]))[: len(keys)]:
            found = t.person_sounds.get(_sound_words(ws))
            if found is not None and (placeholders or found[0] != PLACEHOLDER):
                return found
        if placeholders and lists:  # a whole person's name (a double given name, Wen-Chang, is no whole name)
            for key in keys:
                found = t.characters.get(key)
                if found is None and _DOUBLED.search(key):
                    found = t.characters.get(_undouble(key))
                if found is not None:
                    return found
        last = _skeleton(words[-1])
        if len(last) >= 4:  # the same given name, a surname of the same consonants: Al Kaholic, Oliver Closeoff
            found = t.surname_skeletons.get((_sound(words[0]), last))
            if found is not None:
                return found
        if (placeholders and words[-1] not in t.common_surnames  # a pun read across the name: Hugh Jass
                and _pun_word(words[0])[:_PUN_HEAD] in t.pun_heads):  # the given name may start one
            phrase = t.puns.get(_pun_key(tuple(words)))
            if phrase is not None:
                return PRANK, phrase
        if placeholders and lists and words[-1] not in t.common_surnames:
            word = _word_reading(t, words)
            if word is not None:
                return PRANK, word
        if words[1][0] == "m":
            rest = _squash(words[1:])  # the surname with any hyphen or dot inside undone (M-cBoatface)
            m = _MC_FACE.fullmatch(rest)
            if m and (m.group(2) == "face" or words[0][:3] == m.group(1)[:3]):
                return PLACEHOLDER, rest  # Boaty McBoatface and its follow-ups, Testy McTesterson
    return None


def _word_reading(t: _Tables, words: list[str]) -> str | None:
    """The common English word a whole name reads as when written together ("Dan Druff" = dandruff, "Al
    Koholic" = alcoholic), by sound with the vowels kept: a one-vowel slack read Fred Dam as freedom."""
    if len(words[0]) < 2 or len(words[-1]) < 3 or not all(w.isalpha() for w in words):
        return None
    sound = _sound_words(words)
    word = t.word_sounds.get(sound)
    if word is None or sound in (_sound(words[0]), _sound(words[-1])):
        return None
    return word


def _titled_character(t: _Tables, words: list[str], raw: tuple[str, ...]) -> _Found | None:
    """A character known by title and name (Mr. Peanutbutter, Dr. Eggman): the one word left once titles are
    dropped, read with its title. The character lists hold no title with a real surname (Mr. Garrison)."""
    if len(words) != 1 or len(raw) < 2:
        return None
    return t.characters.get(_undouble(_squash(raw)))


def _all_labels(t: _Tables, words: Sequence[str]) -> bool:
    """Whether a name of 2+ words is made only of a form's field labels ("Prenom Nom", "Nome Cognome"), each maybe
    with "test" written onto it ("Testfirst Testlast"), and words of a refusal in other languages ("Keine Ahnung").
    (Issue 32, session 6; tuned on spoof_fresh.csv dev + spoof_dev2.csv.)"""
    labels = t.field_labels
    return len(words) >= 2 and all(w in labels or _test_label(labels, w) for w in words)


def _test_label(labels: frozenset[str], w: str) -> bool:
    """A label with "test" written before or after it (Testfirst, Lastnametest)."""
    return len(w) > 4 and ((w[:4] == "test" and w[4:] in labels) or (w[-4:] == "test" and w[:-4] in labels))


# "Xy McXface": the Boaty McBoatface pattern. "Mc...face" is no surname; the other endings count only when the
# given name shares the stem (Testy McTesterson; Kelly McKellar is real: its ending is not one of these).
_MC_FACE: Final = re.compile(r"ma?c([a-z]{3,}?)(face|erson|son|pants|butt|head)")


@functools.lru_cache(maxsize=65536)
def _check_person(first: str, middle: str, last: str) -> _Found | None:
    """Rules on the name as a whole: prank pairs, characters, celebrities, placeholders, initials only."""
    t = _tables()
    f, m, la = _tokens(first)[0], _tokens(middle)[0], _tokens(last)[0]
    words = [w for w in (*f, *m, *la) if w not in _TITLES] or [*f, *m, *la]
    if not words:
        return None
    if words[0] in t.given_placeholders:  # "Mr Test", "Test Smith"
        return PLACEHOLDER, words[0]
    titled = _titled_character(t, words, (*f, *m, *la))
    if titled is not None:
        return titled
    for w in words:  # a real name that is also a vulgar word, used as the word: "Fuk" + "You"
        if w in t.collisions and _insulting(t, tuple(words), w):
            return VULGAR, " ".join(words)
    hit = _person_phrase(t, words)
    if hit is None and m:
        hit = _person_phrase(t, [w for w in (*f, *la) if w not in _TITLES])
    if hit is not None:
        return hit
    if _all_labels(t, words):  # "Prenom Nom", "Vorname Nachname", after the lists
        return PLACEHOLDER, " ".join(words)
    if f and la and len(_squash(f)) == 1 and len(_squash(la)) == 1:
        return PLACEHOLDER, f"{f[0]} {la[0]}"
    return None
