"""Stage 1 name parsing: NameParser.PREFIX_CD, FIRST / MIDDLE / LAST_NAME, SUFFIX_CD and the business fields.

A name comes either as FULL_NAME ("John A Smith", "Smith, John A", "Dr. John 'Jack' Smith Jr.") or as the separate
fields (PREFIX, FIRST_NAME, MIDDLE_NAME, LAST_NAME, SUFFIX), which win when both are given. BUSINESS_NAME_IND is
Y when a BUSINESS_NAME is given, or when FULL_NAME holds a company ("Acme Plumbing LLC"); a comma form such as
"Jane Roe, CFO, Acme Inc" gives the person, BUSINESS_TITLE (CFO) and BUSINESS_NAME (ACME INC) at once.

The seed gives PREFIX_CD one character and does not publish its codes, so dqkit defines them (PREFIX_CODES);
SUFFIX_CD (ten characters) is the suffix's standard abbreviation (SUFFIX_CODES). Output is upper case, Latin
letters without their accents (Đ and Ø too), other scripts kept, cut to the seed's lengths.

Names written family name first are read so where the data shows it (`_family_first`): a Vietnamese family name
with a middle name Thị / Văn or Vietnamese letters ("Nguyễn Thị Minh Khai": last NGUYEN, middle THI MINH, first
KHAI, as Vietnamese names are called by their last word; also a FIRST_NAME "Thị Minh Khai" beside LAST_NAME
"Nguyễn"); a Hungarian family name before a Hungarian given name ("Nagy János"); a Korean family name before a
hyphenated given name ("Kim Min-su"); a family name written in capitals before a given name that is not ("WANG
Xiaoming", "DUPONT Jean"); a name in Chinese, Japanese or Korean script (family name first, its first character or
two). "Zhang Wei" or "Minh Nguyen" say nothing of their order and are read in the Western order, as written.

Written from scratch rather than on `nameparser`, which is a development dependency only and parses about 6,000
names a second: this module is a few dict lookups per word.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from dqkit.contract.lead import LeadRequest, NameParser

# PREFIX_CD: one character per title. Mnemonic where the letter is free (M = Mr, D = Dr, ...).
PREFIX_CODES: Final[Mapping[str, str]] = MappingProxyType({
    "M": "MR",
    "R": "MRS",
    "S": "MS",
    "I": "MISS",
    "X": "MX",
    "D": "DR",
    "P": "PROF",
    "V": "REV",
    "F": "FR",
    "H": "HON",
    "J": "JUDGE",
    "C": "CAPT",
    "L": "LT",
    "K": "COL",
    "G": "GEN",
    "A": "ADM",
    "E": "SGT",
    "O": "MAJ",
    "T": "RABBI",
    "U": "SIR",
    "N": "DAME",
})
_PREFIX_WORDS: Final[dict[str, str]] = {
    "MR": "M", "MISTER": "M", "MRS": "R", "MISSUS": "R", "MISSES": "R", "MS": "S", "MIZ": "S", "MISS": "I",
    "MX": "X", "DR": "D", "DOCTOR": "D", "PROF": "P", "PROFESSOR": "P", "REV": "V", "REVEREND": "V",
    "PASTOR": "V", "FR": "F", "FATHER": "F", "HON": "H", "HONORABLE": "H", "JUDGE": "J", "CAPT": "C",
    "CAPTAIN": "C", "CPT": "C", "LT": "L", "LIEUTENANT": "L", "COL": "K", "COLONEL": "K", "GEN": "G",
    "GENERAL": "G", "ADM": "A", "ADMIRAL": "A", "SGT": "E", "SERGEANT": "E", "MAJ": "O", "MAJOR": "O",
    "RABBI": "T", "SIR": "U", "DAME": "N",
}

# SUFFIX_CD: the suffix's standard abbreviation.
SUFFIX_CODES: Final[Mapping[str, str]] = MappingProxyType({
    "JR": "junior", "SR": "senior", "II": "the second", "III": "the third", "IV": "the fourth",
    "V": "the fifth", "VI": "the sixth", "VII": "the seventh", "VIII": "the eighth", "IX": "the ninth",
    "ESQ": "esquire", "MD": "doctor of medicine", "DO": "doctor of osteopathic medicine",
    "PHD": "doctor of philosophy", "DDS": "doctor of dental surgery", "DMD": "doctor of dental medicine",
    "DVM": "doctor of veterinary medicine", "JD": "juris doctor", "CPA": "certified public accountant",
    "RN": "registered nurse", "NP": "nurse practitioner", "PE": "professional engineer",
    "CFA": "chartered financial analyst", "MBA": "master of business administration",
    "LCSW": "licensed clinical social worker", "RET": "retired",
})
_SUFFIX_WORDS: Final[dict[str, str]] = {
    **{code: code for code in SUFFIX_CODES},
    "JUNIOR": "JR", "JNR": "JR", "SENIOR": "SR", "SNR": "SR", "2ND": "II", "3RD": "III", "4TH": "IV",
    "5TH": "V", "ESQUIRE": "ESQ", "RETIRED": "RET",
}
# Suffixes that are also common words or surnames count only after a comma or in the SUFFIX field.
_WEAK_SUFFIXES: Final = frozenset({"V", "VI", "IX", "DO", "PE", "NP", "RN", "JD", "RET"})



def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PARTICLES: Final = frozenset({"DE", "DA", "DEL", "DELLA", "DER", "DI", "DU", "LA", "LE", "VAN", "VON", "ST",
                               "SAINT", "BIN", "IBN", "AL", "EL", "DOS", "DAS", "TEN", "TER", "VANDER",
                               "VANDEN", "DELA", "LOS", "LAS", "MC", "MAC", "BEN", "AP"})

# Words that make a text a company. Strong: any position. Weak (also US surnames: Church, Bank, Law ...):
# only when another word follows them ("Bank of America", "Law Offices") or they follow AND ("Smith and Sons").
_STRONG_COMPANY: Final = _wordset("""
LLC INC CORP CORPORATION INCORPORATED COMPANY LTD LIMITED LP LLP PLLC PLC GMBH TRUST FOUNDATION ASSOCIATION
ASSOC ASSOCIATES PARTNERS GROUP HOLDINGS ENTERPRISES ENTERPRISE INDUSTRIES INTERNATIONAL INTL SERVICES
SOLUTIONS SYSTEMS TECHNOLOGIES TECHNOLOGY CONSULTING CONSULTANTS MANAGEMENT AGENCY BANCORP MINISTRIES ACADEMY
UNIVERSITY INSTITUTE HOSPITAL CLINIC CENTRE SHOP SHOPPE MARKETS RESTAURANT CAFE BAKERY SPA STUDIO STUDIOS
PLUMBING ROOFING ELECTRIC ELECTRICAL CONSTRUCTION CONTRACTORS CONTRACTING LANDSCAPING AUTO AUTOMOTIVE MOTORS
REPAIR CLEANING CLEANERS INSURANCE REALTY PROPERTIES PROPERTY DENTAL DENTISTRY MEDICAL HEALTH HEALTHCARE
PHARMACY ATTORNEYS ACCOUNTING MARKETING DESIGN DESIGNS LOGISTICS TRUCKING TRANSPORT TRANSPORTATION SUPPLY
SUPPLIES DISTRIBUTORS DISTRIBUTION MANUFACTURING FARMS VENTURES CAPITAL FINANCIAL INVESTMENTS PARTNERSHIP
COOPERATIVE BROS HEATING COOLING HVAC LANDSCAPE PAINTING FLOORING BUILDERS MORTGAGE LENDING DEPARTMENT CLUB
FITNESS GYM GARAGE TOWING NURSERY DAYCARE PETS VETERINARY HOTEL INN MOTEL
""")
_WEAK_COMPANY: Final = _wordset("""
BANK BROTHERS CENTER CHURCH CITY COLLEGE COOP CREDIT FARM GRILL HOMES KITCHEN LAW LAWN MARKET MEDIA PIZZA
RANCH SALON SCHOOL SERVICE SONS STORE STORES UNION
""")
_LEGAL_TAIL: Final = frozenset({"CO", "PC", "PA", "NA"})  # company only as a comma part or the last of 2+ words

# Business titles: a comma part made only of these words is a title ("Vice President of Sales").
_TITLE_WORDS: Final = _wordset("""
CEO CFO COO CTO CIO CMO CISO CHRO CPO CRO VP SVP EVP AVP GM PRESIDENT VICE OWNER COOWNER CO FOUNDER COFOUNDER
PARTNER PRINCIPAL DIRECTOR MANAGER CONTROLLER TREASURER SECRETARY CHAIRMAN CHAIRWOMAN CHAIRPERSON CHAIR
ADMINISTRATOR SUPERVISOR COORDINATOR ASSISTANT ENGINEER ACCOUNTANT BUYER OFFICER CHIEF EXECUTIVE FINANCIAL
OPERATING TECHNOLOGY INFORMATION MARKETING SALES OPERATIONS HUMAN RESOURCES HR IT OF AND SENIOR SR JUNIOR
GENERAL MANAGING REGIONAL DISTRICT ACCOUNT HEAD LEAD OFFICE PURCHASING PROCUREMENT FINANCE BOARD MEMBER
ASSOCIATE ANALYST CONSULTANT SPECIALIST REPRESENTATIVE REP AGENT BROKER PROPRIETOR PRESIDENTE MGR DIR ASST
EXEC ADMIN THE DEPUTY INTERIM ACTING GLOBAL NATIONAL PRODUCT PROJECT PROGRAM BUSINESS DEVELOPMENT
""")
# Titles recognised at the end of a person name without a comma ("John Smith CEO").
_TAIL_TITLES: Final = frozenset({"CEO", "CFO", "COO", "CTO", "CIO", "CMO", "VP", "SVP", "EVP", "GM", "OWNER"})

_NICKNAME: Final = re.compile(r"\"[^\"]*\"|\([^)]*\)|\[[^\]]*\]|\{[^}]*\}")
_WORD_SPLIT: Final = re.compile(r"(?:[^\w\-]|_)+")
_SEPARATORS: Final = re.compile(r"\s+(?:-|/|\|)\s+|;")  # "Jane Roe - CFO - Acme Inc" reads like commas

_MAX: Final = {"first": 30, "middle": 20, "last": 30, "business": 40, "title": 30}


def parse_name(lead: LeadRequest) -> NameParser:
    """NameParser of a lead: its separate name fields when given, else FULL_NAME; business fields from
    BUSINESS_NAME and from a company or title inside FULL_NAME."""
    return _parse(lead.prefix, lead.first_name, lead.middle_name, lead.last_name, lead.suffix, lead.full_name,
                  lead.business_name)


def parse_full_name(text: str) -> NameParser:
    """NameParser of one free-text name (a FULL_NAME)."""
    return _parse("", "", "", "", "", text, "")


@functools.lru_cache(maxsize=32768)
def _parse(prefix: str, first: str, middle: str, last: str, suffix: str, full: str, business: str) -> NameParser:
    person = _Person()
    title = company = ""
    if first.strip() or last.strip():
        _from_fields(person, prefix, first, middle, last, suffix)
        if full.strip():
            _, title, company = _read_free_text(full)  # the person comes from the fields
    elif full.strip():
        found, title, company = _read_free_text(full)
        if found is not None:
            person = found
        if prefix.strip() and not person.prefix:
            person.prefix = _PREFIX_WORDS.get(_clean(prefix).replace(" ", ""), "")
        if suffix.strip() and not person.suffix:
            person.suffix = _suffix_code(suffix)
    if business.strip():
        found, b_title, b_company = _read_free_text(business, company_default=True)
        company = b_company or company
        title = title or b_title
        if found is not None and not (person.first or person.last):
            person = found
    return NameParser(
        prefix_cd=person.prefix,
        first_name=person.first[: _MAX["first"]],
        middle_name=" ".join(person.middles)[: _MAX["middle"]],
        last_name=person.last[: _MAX["last"]],
        suffix_cd=person.suffix[:10],
        business_name_ind="Y" if company else "N",
        business_name=company[: _MAX["business"]],
        business_title=title[: _MAX["title"]],
    )


class _Person:
    __slots__ = ("first", "last", "middles", "prefix", "suffix")

    def __init__(self) -> None:
        self.prefix = ""
        self.first = ""
        self.middles: list[str] = []
        self.last = ""
        self.suffix = ""


def _clean(text: str) -> str:
    """Upper case, Latin accents folded (Đ -> D, Ø -> O), other scripts kept, dots and stray signs dropped,
    single spaces; hyphens kept."""
    s = text.upper()
    if s.isalpha() and s.isascii():
        return s  # one plain word: the common case
    if not s.isascii():
        s = _fold(s).upper()  # a Latin letter with no upper case (subscript ᵢ, modifier ᵃ) folds to a small one
    s = s.replace(".", " ").replace("'", "").replace("`", "")
    return " ".join(w for w in _WORD_SPLIT.split(s) if w.strip("-"))


# Latin letters NFKD does not take apart.
_FOLD: Final = str.maketrans({"Đ": "D", "Ø": "O", "Ł": "L", "Æ": "AE", "Œ": "OE", "ẞ": "SS", "ß": "SS",
                              "Þ": "TH", "Ð": "D", "Ħ": "H", "İ": "I"})


@functools.lru_cache(maxsize=8192)
def _fold(text: str) -> str:
    """Latin letters without their marks; letters of other scripts (Han, Hangul, Cyrillic ...) as they are."""
    out = []
    for ch in unicodedata.normalize("NFC", text.translate(_FOLD)):
        if ch.isascii():
            out.append(ch)
        elif "LATIN" in unicodedata.name(ch, ""):
            out.append("".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii()))
        elif not unicodedata.combining(ch):
            out.append(ch)
    return "".join(out)


def _words(text: str) -> list[str]:
    return _clean(text).split()


def _suffix_code(text: str) -> str:
    w = _clean(text).replace(" ", "")
    if not w:
        return ""
    return _SUFFIX_WORDS.get(w, w)


def _from_fields(p: _Person, prefix: str, first: str, middle: str, last: str, suffix: str) -> None:
    f, m, la = _words(first), _words(middle), _words(last)
    if prefix.strip():
        p.prefix = _PREFIX_WORDS.get(_clean(prefix).replace(" ", ""), "")
    while len(f) > 1 and f[0] in _PREFIX_WORDS:  # "Dr John" typed as a first name
        p.prefix = p.prefix or _PREFIX_WORDS[f.pop(0)]
    if suffix.strip():
        p.suffix = _suffix_code(suffix)
    while len(la) > 1 and la[-1] in _SUFFIX_WORDS and la[-1] not in _WEAK_SUFFIXES:  # "Smith Jr"
        code = _SUFFIX_WORDS[la.pop()]
        p.suffix = p.suffix or code
    if len(f) > 1 and la and _vietnamese(la[0], f[0], first + " " + last):
        p.first, p.middles = f[-1], f[:-1] + m  # "Thị Minh Khai" beside "Nguyễn": called by the last word
    elif f:
        p.first = f[0]
        p.middles = f[1:] + m  # "John A" typed as a first name
    else:
        p.middles = m
    p.last = " ".join(la)


def _read_free_text(text: str, *, company_default: bool = False) -> tuple[_Person | None, str, str]:
    """(person, title, company) of a free text: FULL_NAME or BUSINESS_NAME, comma forms included.

    `company_default`: a part that is neither a title nor a person with a company word is the company (the
    BUSINESS_NAME field holds a company by definition)."""
    text = _NICKNAME.sub(" ", text)
    raw_parts = [(w, x) for x in _SEPARATORS.sub(",", text).split(",") if (w := _words(x))]
    parts = [w for w, _ in raw_parts]
    if not parts:
        return None, "", ""
    titles: list[str] = []
    companies: list[str] = []
    people: list[list[str]] = []
    raws: list[str] = []
    suffixes: list[str] = []
    for i, (words, raw) in enumerate(raw_parts):
        if i > 0 and all(w in _SUFFIX_WORDS for w in words):
            suffixes += [_SUFFIX_WORDS[w] for w in words]
        elif i > 0 and len(words) == 1 and words[0] in _LEGAL_TAIL and companies:
            companies[-1] += " " + words[0]
        elif _is_company(words):
            companies.append(" ".join(words))
        elif i > 0 and all(w in _TITLE_WORDS for w in words):
            titles.append(" ".join(words))
        else:
            people.append(words)
            raws.append(raw)
    if company_default and not titles:  # a business name without a title part is the company, whole
        return None, "", ", ".join(" ".join(w) for w in parts)
    if company_default and not companies and people:
        companies.append(" ".join(people.pop()))  # "Jane Roe, CFO, Acme" -> the last untyped part
        raws.pop()
    person = _person_from_parts(people, suffixes, titles, raws[0] if len(raws) == 1 else "") if people else None
    return person, ", ".join(titles), ", ".join(companies)


def _is_company(words: list[str]) -> bool:
    n = len(words)
    for i, w in enumerate(words):
        if w in _STRONG_COMPANY:
            return True
        if w in _WEAK_COMPANY and (i < n - 1 or (i > 0 and words[i - 1] == "AND")):
            return True
        if w in _LEGAL_TAIL and i == n - 1 and n >= 2 and w != "PA":
            return True
    return False


def _person_from_parts(people: list[list[str]], suffixes: list[str], titles: list[str], raw: str = "") -> _Person:
    """A person from its comma parts: "Smith, John A" (surname first) or one part in natural order (or family
    name first, where `raw`, the part as typed, shows it: `_family_first`)."""
    p = _Person()
    if len(people) >= 2:
        last_part, given = people[0], people[1]
        given = _take_prefixes(p, given)
        last_part = _take_suffixes(p, last_part)
        p.first = given[0] if given else ""
        p.middles = given[1:]
        p.last = " ".join(last_part)
    else:
        words = _take_prefixes(p, people[0])
        if len(words) > 1 and words[-1] in _TAIL_TITLES:
            titles.append(words.pop())
        words = _take_suffixes(p, words)
        if not _family_first(p, words, raw):
            _natural_order(p, words)
    if suffixes and not p.suffix:
        p.suffix = suffixes[0]
    return p


def _take_prefixes(p: _Person, words: list[str]) -> list[str]:
    words = list(words)
    while len(words) > 1 and words[0] in _PREFIX_WORDS:
        code = _PREFIX_WORDS[words.pop(0)]
        p.prefix = p.prefix or code
    return words


def _take_suffixes(p: _Person, words: list[str]) -> list[str]:
    """Trailing suffixes off a name; a weak one (V, DO, RN ...) only behind at least two name words."""
    words = list(words)
    while len(words) > 1 and words[-1] in _SUFFIX_WORDS and (words[-1] not in _WEAK_SUFFIXES or len(words) > 2):
        code = _SUFFIX_WORDS[words.pop()]
        p.suffix = code  # the innermost suffix wins: "Smith Jr MD" -> JR
    return words


# Family names of the conventions that write them first (the most frequent ones, folded to ASCII), and what
# shows that a name follows them.
_VN_FAMILY: Final = _wordset("""
NGUYEN TRAN LE PHAM HOANG HUYNH PHAN VU VO DANG BUI DO HO NGO DUONG LY DINH DOAN TRUONG LAM MAI TRINH DAO CAO
LUONG HA TA CHAU QUACH TO THAI LA KIEU TONG LUU VUONG MAC KHUC TIEU
""")
_VN_MIDDLE: Final = frozenset({"THI", "VAN"})  # Thị (women), Văn (men): the middle names of most Vietnamese
_VN_MARKS: Final = frozenset({"\u0323", "\u0309", "\u031b"})  # dot below, hook above, horn: Vietnamese letters
_HU_FAMILY: Final = _wordset("""
NAGY KOVACS TOTH SZABO HORVATH VARGA KISS MOLNAR NEMETH FARKAS BALOGH PAPP TAKACS JUHASZ LAKATOS MESZAROS OLAH
SIMON RACZ FEKETE SZILAGYI TOROK FEHER BALAZS GAL KIS SZUCS KOCSIS ORSOS PINTER FODOR SZALAI SIPOS MAGYAR LUKACS
GULYAS BIRO KIRALY KATONA LASZLO JAKAB BOGDAN BALOG SANDOR BOROS FAZEKAS KELEMEN ANTAL OROSZ SOMOGYI FULOP VERES
BUDAI VINCZE HEGEDUS DEAK PAP BALINT PAL ILLES VIDA ORBAN VASS SZEKERES CSONKA BERECZ
""")
_HU_GIVEN: Final = _wordset("""
JANOS ISTVAN LASZLO JOZSEF ZOLTAN SANDOR GABOR FERENC ATTILA PETER TAMAS ZSOLT TIBOR ANDRAS CSABA IMRE LAJOS
GYORGY BALAZS GYULA MIHALY KAROLY ROBERT BELA DAVID DANIEL ADAM KRISZTIAN MIKLOS NORBERT BENCE MATE LEVENTE
ARPAD GERGELY SIMON ANTAL FULOP PAL BALINT ILLES MARIA ERZSEBET KATALIN EVA ILONA ANNA ZSUZSANNA MARGIT JUDIT
AGNES ERIKA ANDREA KRISZTINA ORSOLYA ESZTER ILDIKO GABRIELLA EDIT HAJNALKA TIMEA ZSOFIA RITA ENIKO NOEMI
REKA DORA PETRA BEATA MONIKA
""")
_HU_MARKS: Final = frozenset("őűŐŰáéíóöúüÁÉÍÓÖÚÜ")
_KR_FAMILY: Final = _wordset("""
KIM LEE YI PARK PAK CHOI CHOE JUNG JEONG CHUNG KANG CHO JO YOON YUN JANG CHANG LIM IM HAN OH SEO SUH SHIN SIN
KWON HWANG AHN AN SONG YOO YU HONG JEON JUN KO GO MOON MUN YANG SON BAE BAEK HEO NAM NOH RYU
""")
_KR_SYLLABLES: Final = _wordset("""
MIN SU SOO JI HOON HUN HYUN JUN JOON SEO YEON YOUNG YEONG WOO JIN EUN HYE SUNG SEONG KYUNG JAE SEUNG YOON WON
HEE JUNG JEONG MI NA RA BIN HWA AH YE DONG SANG TAE GYU KYU CHUL IL YONG HYUK HAE BO DA HA IN KI GI NAM SOOK OK
SUN SEOK SUK HO SEUL GYEONG CHAN WOONG YUL RIN HWAN MYUNG MYEONG GEUN KEUN
""")
_CJK_COMPOUND: Final = _wordset("""
欧阳 歐陽 司马 司馬 诸葛 諸葛 上官 东方 東方 皇甫 尉迟 尉遲 公孙 公孫 慕容 长孙 長孫 夏侯 轩辕 軒轅 令狐 宇文 司徒 澹台
남궁 황보 제갈 선우 독고 사공 서문
""")


def _family_first(p: _Person, words: list[str], raw: str) -> bool:
    """Read `words` family name first when the name shows that convention (see the module docstring); False
    (nothing set) when it does not."""
    if not words:
        return False
    if all(_east_asian(w) for w in words):
        family, given = _east_asian_split(words)
        if not family:
            return False
        p.last, p.first, p.middles = family, given[0] if given else "", given[1:]
        return True
    if len(words) < 2:
        return False
    head, second, tail = words[0], words[1], words[-1]
    if _vietnamese(head, second, raw):
        p.last, p.first, p.middles = head, tail, words[1:-1]
        return True
    hungarian = head in _HU_FAMILY and second in _HU_GIVEN and (head not in _HU_GIVEN or
                                                                any(c in _HU_MARKS for c in raw))
    korean = len(words) == 2 and head in _KR_FAMILY and "-" in second and \
        all(x in _KR_SYLLABLES for x in second.split("-"))
    if hungarian or korean or _family_in_capitals(raw, len(words)):
        p.last, p.first, p.middles = head, second, words[2:]
        return True
    return False


def _vietnamese(family: str, second: str, raw: str) -> bool:
    """A Vietnamese family name followed by Thị / Văn (capitalised: a Dutch "van" is a particle), or in a name
    written with Vietnamese letters."""
    if family not in _VN_FAMILY:
        return False
    marks = set(unicodedata.normalize("NFD", raw)) & _VN_MARKS or {"đ", "Đ", "ă", "Ă"} & set(raw)
    typed_marker = any(w.upper() in ("THI", "VAN", "THỊ", "VĂN") and not w.islower() for w in raw.split())
    return bool(marks) or (second in _VN_MIDDLE and typed_marker)


def _family_in_capitals(raw: str, n_words: int) -> bool:
    """"WANG Xiaoming", "DUPONT Jean": the first word alone in capitals (the international way of marking the
    family name), the others written in lower case."""
    typed = [w for w in re.split(r"[\s,]+", raw.strip()) if any(c.isalpha() for c in w)]
    if len(typed) != n_words or len(typed) < 2:
        return False
    first = "".join(c for c in typed[0] if c.isalpha())
    return len(first) >= 2 and first.isupper() and all(any(c.islower() for c in w) for w in typed[1:])


def _east_asian(word: str) -> bool:
    return all("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7a3" for c in word)


def _east_asian_split(words: list[str]) -> tuple[str, list[str]]:
    """(family name, given names) of a name in Chinese, Japanese or Korean script: the first word when written
    with a space; else its first character (two for a compound family name) when the name is Hangul of two to
    four syllables or Han of two or three characters; ("", []) when that cannot be told (kana, longer Han)."""
    if len(words) > 1:
        return words[0], words[1:]
    w = words[0]
    hangul = all("\uac00" <= c <= "\ud7a3" for c in w)
    han = all("\u3400" <= c <= "\u9fff" for c in w)
    cut = 2 if w[:2] in _CJK_COMPOUND and len(w) >= 3 else 1
    if (hangul and 2 <= len(w) <= 4) or (han and 2 <= len(w) <= 3) or (han and cut == 2 and len(w) == 4):
        return w[:cut], [w[cut:]]
    return "", []


def _natural_order(p: _Person, words: list[str]) -> None:
    """"John A de la Cruz": first word, middles, and the surname from its first particle (or the last word)."""
    if not words:
        return
    p.first = words[0]
    if len(words) == 1:
        return
    start = len(words) - 1
    for i in range(1, len(words) - 1):
        if words[i] in _PARTICLES:
            start = i
            break
    p.middles = words[1:start]
    p.last = " ".join(words[start:])
