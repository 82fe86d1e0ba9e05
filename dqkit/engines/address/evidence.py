"""Is a reference street really the street that was typed? The evidence check behind every confident answer.

The search matcher finds candidate streets generously: it forgives typos, sets aside words that match nothing and
lets a word or two miss, so that a wrong ZIP or a misspelt city still lands. That generosity must not turn into a
confident answer for a street the person never typed ("820 Talwrn Ct, Oakland" is not "820 Foothill Blvd" because
the house number, city and ZIP agree). So before any Verified match / Interaction required / Premises partial /
Street partial, the typed words are read against the one candidate street, in order:

* every word of the street's name must be typed, exactly, in a Publication 28 form, or within a typo budget that
  grows with the word's length (none under 4 letters, one under 8, two from 8; none in a word with digits);
* a typed suffix or direction must agree with the street's (a missing one is completed, a different one is a
  contradiction: "Monteval Pl" is not "Monteval Ln"); whether such a difference is a correction the vendors make
  or a street the person did not mean is for the rule of `dqkit.engines.usaddr.street_forms`, which needs the other
  streets of the name: `Evidence.form_only` and `Evidence.typed_form` tell the caller when to ask it;
* no typed word may be left unexplained inside the street part (a made-up name beside a real suffix);
* the locality must agree: the typed ZIP is the street's, or the typed city is its city (or a name USPS accepts
  for its ZIP). With neither typed, only an exact street name counts.

`Evidence.rank` orders the streets that pass, so that two equally good readings become Multiple matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from rapidfuzz.distance import OSA

from dqkit.engines.address.query import Query, Word
from dqkit.engines.address_index.countries import country
from dqkit.engines.address_index.store import StreetRow
from dqkit.engines.address_index.tokens import is_unit_designator, street_word_forms, tokens
from dqkit.engines.usaddr.pub28 import DIRECTIONALS, STATE_NAMES, SUFFIXES

_OPTIONAL_NAME_WORDS: Final = frozenset({"JR", "SR", "THE"})
_COUNTRY_WORDS: Final = frozenset({"US", "USA", "UNITED", "STATES", "AMERICA", "OF", "CANADA", "UK", "GB",
                                   "KINGDOM", "GREAT", "BRITAIN", "ENGLAND", "SCOTLAND", "WALES"})


def typo_budget(typed: str, ref: str) -> int:
    """Edits allowed between a typed word and a reference word: by the reference word's length (the word the
    person meant); none with digits, none when the typed word keeps less than half of it."""
    if any(c.isdigit() for c in typed) or any(c.isdigit() for c in ref) or 2 * len(typed) < len(ref):
        return 0
    n = len(ref)
    return 0 if n < 4 else 1 if n < 8 else 2


def _typo_distance(typed: str, ref: str) -> int:
    """Edits from `typed` to `ref` when within budget, else -1."""
    k = typo_budget(typed, ref)
    if k == 0:
        return -1
    d = OSA.distance(typed, ref, score_cutoff=k)
    return d if d <= k else -1


@dataclass(slots=True)
class Evidence:
    """How well the typed words support one reference street."""

    ok: bool  # the street is the typed street, in the typed locality
    name_edits: int = 0  # typo edits needed in the street name
    near: bool = False  # the name fits, but a typed suffix / direction differs or the locality does not agree
    zip_ok: bool = False
    city_ok: bool = False
    completed: int = 0  # suffix / direction words of the street that were not typed
    locality_typed: bool = False  # a postcode or city words were typed
    # the suffix and directions typed in the street part ("" where none was): (predir, suffix, postdir)
    typed_form: tuple[str, str, str] = ("", "", "")
    form_only: bool = False  # all agrees but a typed suffix or direction the street lacks (see `street_forms`)
    direction_completed: bool = False  # the street has a direction that was not typed
    # the street's direction typed on the other side of the name ("TEAL BLVD SW" for SW TEAL BLVD): the change
    # said ("direction SW moved before the name"), "" when none
    direction_moved: str = ""

    @property
    def rank(self) -> tuple[int, int, int, int]:
        """Higher is better: locality agreement, fewer typos, fewer completions."""
        return (int(self.zip_ok) + int(self.city_ok), -self.name_edits, -self.completed, int(self.ok))


_NAME, _EXTRA, _CITY, _REGION, _POSTCODE, _TYPE, _HARMLESS, _UNEXPLAINED = range(8)


@dataclass(frozen=True, slots=True)
class _Facts:
    """One street's words, looked up by form (built once per street text)."""

    name_toks: tuple[str, ...]
    extras: tuple[str, ...]
    roles: tuple[int, ...]  # of each extra: 0 predir, 1 suffix, 2 postdir
    city_toks: tuple[str, ...]
    exact: dict[str, tuple[tuple[int, int], ...]]  # form -> ((kind, j), ...): 0 name word, 1 two name words, 2 extra
    city: dict[str, tuple[int, ...]]  # city word -> its positions


_K_NAME, _K_PAIR, _K_EXTRA = 0, 1, 2
_LOCALITY: Final = frozenset({_CITY, _REGION, _POSTCODE})


# ~1.5 kB an entry (tracemalloc, 100M index): 16,384 streets hold ~24 MB a process, 65,536 held 95 MB a serve
# worker once its validations had met that many streets; a street met again after 16k others costs ~18 us more.
@lru_cache(maxsize=16384)
def _facts(name: str, predir: str, suffix: str, postdir: str, city: str) -> _Facts:
    name_toks = tuple(tokens(name))
    extras = tuple(t for t in (predir, suffix, postdir) if t)
    roles = tuple(r for r, t in enumerate((predir, suffix, postdir)) if t)
    city_toks = tuple(tokens(city))
    exact: dict[str, list[tuple[int, int]]] = {}
    for j, t in enumerate(name_toks):
        for f in street_word_forms(t):
            exact.setdefault(f, []).append((_K_NAME, j))
    for j in range(len(name_toks) - 1):
        exact.setdefault(name_toks[j] + name_toks[j + 1], []).append((_K_PAIR, j))
    for j, t in enumerate(extras):
        for f in street_word_forms(t):
            exact.setdefault(f, []).append((_K_EXTRA, j))
    cities: dict[str, list[int]] = {}
    for j, t in enumerate(city_toks):
        cities.setdefault(t, []).append(j)
    return _Facts(name_toks, extras, roles, city_toks, {k: tuple(v) for k, v in exact.items()},
                  {k: tuple(v) for k, v in cities.items()})


def street_evidence(iso2: str, s: StreetRow, q: Query, typed_postcode: str,
                    alias_cities: tuple[str, ...] = ()) -> Evidence:
    """Read the typed words `q` against street `s` (see the module docstring)."""
    facts = _facts(s.name, s.predir, s.suffix, s.postdir, s.city)
    name_toks, city_toks = facts.name_toks, facts.city_toks
    used = [False] * len(name_toks)
    extra_used = [False] * len(facts.extras)
    city_used = [False] * len(city_toks)
    region_codes = country(iso2).region_codes
    pc_compact = s.postcode.replace(" ", "")
    edits = 0
    words = q.words
    cls: list[int] = []
    for w in words:
        c, d = _classify(w, facts, used, extra_used, city_used, region_codes, s, pc_compact, typed_postcode,
                         iso2)
        cls.append(c)
        edits += d
    last_name = -1
    for i, c in enumerate(cls):
        if c in (_NAME, _EXTRA):
            last_name = i
    loc_start = len(words)
    for i in range(last_name + 1, len(words)):
        if cls[i] in _LOCALITY:
            loc_start = i
            break
    # after a typed suffix the street is closed: what follows is the locality, even a city this street is not in
    closed = last_name >= 0 and cls[last_name] == _EXTRA
    street_stop = last_name + 1 if closed else loc_start
    head = cls[:street_stop]
    garbage = _UNEXPLAINED in head
    contradicted = _TYPE in cls[:max(street_stop, last_name + 2)]
    other_city = [words[i].text for i in range(max(street_stop, last_name + 2 if not closed else 0), len(words))
                  if cls[i] in (_UNEXPLAINED, _TYPE)]
    name_ok = True in used
    if name_ok and False in used:
        name_ok = all(u or t in _OPTIONAL_NAME_WORDS for u, t in zip(used, name_toks, strict=True))
    zip_ok = bool(typed_postcode) and typed_postcode.replace(" ", "") == pc_compact
    city_ok = bool(city_toks) and False not in city_used
    if not city_ok and other_city and alias_cities:
        typed_city = " ".join(other_city)
        city_ok = any(typed_city == a or set(a.split()) <= set(other_city) for a in alias_cities)
    locality_typed = bool(typed_postcode) or True in city_used or bool(other_city)
    locality_ok = zip_ok or city_ok or (not locality_typed and edits == 0)
    ok = name_ok and not garbage and locality_ok and not contradicted
    typed = ["", "", ""]
    for j, used_j in enumerate(extra_used):
        if used_j:
            typed[facts.roles[j]] = facts.extras[j]
    clean_form = True  # each typed suffix / direction fills a place of its own (not "ALVEN DR": two suffixes)
    if contradicted:
        first_name = next((i for i, c in enumerate(cls) if c == _NAME), len(cls))
        for i, c in enumerate(cls[:max(street_stop, last_name + 2)]):
            if c == _TYPE:
                t = words[i].text
                role = 1 if t in SUFFIXES else 0 if i < first_name else 2
                if not typed[role] and not (role != 1 and typed[2 - role]):
                    typed[role] = SUFFIXES.get(t, "") if role == 1 else DIRECTIONALS.get(t, "")
                else:
                    clean_form = False
    form_only = contradicted and clean_form and name_ok and not garbage and locality_ok
    dir_completed = any(not u and facts.roles[j] != 1 for j, u in enumerate(extra_used))
    return Evidence(ok, edits, name_ok and not garbage and not ok, zip_ok, city_ok, extra_used.count(False),
                    locality_typed, (typed[0], typed[1], typed[2]), form_only, dir_completed,
                    _direction_moved(facts, words, cls))


def _direction_moved(facts: _Facts, words: list[Word], cls: list[int]) -> str:
    """The street's one direction typed on the other side of its name, as a change to say; "" when not."""
    dirs = [(facts.extras[j], r) for j, r in enumerate(facts.roles) if r != 1]
    names = [i for i, c in enumerate(cls) if c == _NAME]
    if len(dirs) != 1 or not names:
        return ""
    d, role = dirs[0]
    for i, c in enumerate(cls):
        if c == _EXTRA and DIRECTIONALS.get(words[i].text, words[i].text) == d:
            if role == 0 and i > names[-1]:
                return f"direction {d} moved before the name"
            if role == 2 and i < names[0]:
                return f"direction {d} moved after the name"
    return ""


def _classify(w: Word, facts: _Facts, used: list[bool], extra_used: list[bool], city_used: list[bool],
              region_codes: dict[str, str], s: StreetRow, pc_compact: str, typed_postcode: str,
              iso2: str) -> tuple[int, int]:
    """What one typed word is for this street, and the typo edits it took (marking the reference words used)."""
    name_toks, city_toks = facts.name_toks, facts.city_toks
    # a word of the name, two name words typed as one ("MACARTHUR"), the suffix or direction: exact forms
    best: tuple[int, int] | None = None
    for f in w.forms:
        for kind, j in facts.exact.get(f, ()):
            free = not used[j] if kind == _K_NAME else (not used[j] and not used[j + 1]) if kind == _K_PAIR \
                else not extra_used[j]
            if free and (best is None or kind < best[0]):
                best = (kind, j)
    if best is None and not w.complete:  # a prefix being typed
        j = next((j for j, t in enumerate(name_toks) if not used[j] and t.startswith(w.text)
                  and len(w.text) >= min(4, len(t))), -1)
        if j >= 0:
            best = (_K_NAME, j)
    if best is not None:
        kind, j = best
        if kind == _K_EXTRA:
            extra_used[j] = True
            return _EXTRA, 0
        used[j] = True
        if kind == _K_PAIR:
            used[j + 1] = True
        return _NAME, 0
    # the locality: city words, region, postcode
    j = next((j for j in facts.city.get(w.text, ()) if not city_used[j]), -1)
    if j < 0 and not w.complete:
        j = next((j for j, t in enumerate(city_toks) if not city_used[j] and t.startswith(w.text)), -1)
    if j >= 0:
        city_used[j] = True
        return _CITY, 0
    region = region_codes.get(w.text) or STATE_NAMES.get(w.text, "")
    street_type = w.text in SUFFIXES or w.text in DIRECTIONALS
    if region and (region == s.region or not street_type):
        return _REGION, 0
    if any(c.isdigit() for c in w.text) and (w.text == pc_compact or w.text in s.postcode.split()
                                             or (typed_postcode and w.text in typed_postcode.split())
                                             or (iso2 == "US" and w.text.isdigit() and len(w.text) in (5, 9))):
        return _POSTCODE, 0
    # a typo in a word of the name
    typo_j, typo_d = -1, 99
    for j, t in enumerate(name_toks):
        if not used[j]:
            # a numbered street is also indexed spelled out ("2ND" as SECOND): a slip of that spelling is a typo
            # of this word too ("Secnod St"), as search found it
            for form in street_word_forms(t) if t[:1].isdigit() else (t,):
                d = _typo_distance(w.text, form)
                if 0 <= d < typo_d:
                    typo_j, typo_d = j, d
    if typo_j >= 0:
        used[typo_j] = True
        return _NAME, typo_d
    if street_type:
        return _TYPE, 0  # a suffix or direction this street does not have (or, after the street, a city word)
    # a slip of this street's own suffix or direction ("AEV", "NORHT"), of its ordinal ("24HT") or of a
    # three-letter name word ("ELE"): one correction, so the locality must agree (see `locality_ok`)
    for f in w.fixes:
        j = next((j for j, t in enumerate(facts.extras) if not extra_used[j] and t == f), -1)
        if j >= 0:
            extra_used[j] = True
            return _EXTRA, 1
        j = next((j for j, t in enumerate(name_toks) if not used[j] and t == f and len(t) >= 3
                  and (len(t) == 3 or not t.isalpha())), -1)
        if j >= 0:
            used[j] = True
            return _NAME, 1
    # a typo in a city word
    j = next((j for j, t in enumerate(city_toks) if not city_used[j] and _typo_distance(w.text, t) >= 0), -1)
    if j >= 0:
        city_used[j] = True
        return _CITY, 0
    if w.text in _COUNTRY_WORDS or is_unit_designator(w.text) or w.maybe_unit:
        return _HARMLESS, 0
    return _UNEXPLAINED, 0
