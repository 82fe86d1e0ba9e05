"""Build `data/multicultural_names.csv`: real given names and surnames from published name lists that collide
with English vulgar words. Run: `.venv/bin/python tests/lead_rules/build_name_sets.py` (needs the dev extras
`faker` and `better-profanity`). Sources and licences: tests/lead_rules/README.md."""

from __future__ import annotations

import csv
import importlib
import pkgutil
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Culture of each faker locale used (Latin-script lists, or the locale's own romanization).
CULTURES = {
    "vi_VN": "Vietnamese", "zh_CN": "Chinese (Mandarin pinyin)", "zh_TW": "Chinese (Taiwan)", "en_TH": "Thai",
    "en_IN": "Indian", "hi_IN": "Indian", "en_PK": "Pakistani", "yo_NG": "Yoruba (Nigerian)",
    "ig_NG": "Igbo (Nigerian)", "ha_NG": "Hausa (Nigerian)", "en_NG": "Nigerian", "de_DE": "German",
    "de_AT": "Austrian", "de_CH": "Swiss", "nl_NL": "Dutch", "nl_BE": "Flemish", "en_GB": "British",
    "ga_IE": "Irish", "en_IE": "Irish", "tr_TR": "Turkish", "id_ID": "Indonesian", "sw": "Swahili",
    "zu_ZA": "Zulu", "tw_GH": "Twi (Ghanaian)", "fi_FI": "Finnish", "pl_PL": "Polish", "cs_CZ": "Czech",
    "sk_SK": "Slovak", "hu_HU": "Hungarian", "it_IT": "Italian", "es_ES": "Spanish", "pt_BR": "Brazilian",
    "fr_FR": "French", "sv_SE": "Swedish", "da_DK": "Danish", "no_NO": "Norwegian", "is_IS": "Icelandic",
    "et_EE": "Estonian", "lt_LT": "Lithuanian", "lv_LV": "Latvian", "ro_RO": "Romanian", "hr_HR": "Croatian",
    "sl_SI": "Slovenian", "az_AZ": "Azerbaijani", "uz_UZ": "Uzbek", "en_KE": "Kenyan", "fr_DZ": "Algerian",
    "ko_KR": "Korean", "ja_JP": "Japanese",
}
# Cantonese romanizations (Hong Kong government / Jyutping-era spellings) as published in the Hong Kong
# surname and given-name tables of Wikipedia "List of common Chinese surnames" (CC BY-SA) and the Hong Kong
# Immigration Department's romanization practice; kept to syllables that collide with English words.
CANTONESE = [("Fuk", "given"), ("Fook", "given"), ("Kok", "surname"), ("Kwok", "surname"), ("Hung", "given"),
             ("Dong", "surname"), ("Wang", "surname"), ("Ho", "surname"), ("Lam", "surname"), ("Suk", "given"),
             ("Tit", "given"), ("Cheung", "surname"), ("Sum", "given"), ("Kum", "given"), ("Yuk", "given"),
             ("Fat", "given"), ("Pik", "given"), ("Kan", "surname"), ("Shek", "surname"), ("Wing", "given")]


# Given names from published lists that faker's small Vietnamese, Indian and Thai lists lack (Wikipedia
# "Vietnamese name" (CC BY-SA): common given names; Indian given names as in the Government of India's
# published lists of Padma awardees; Thai names of the Royal Thai Government romanization examples).
SUPPLEMENT = [("Phuc", "given"), ("Phuoc", "given"), ("Bich", "given"), ("Dung", "given"), ("Duc", "given"),
              ("Phat", "given"), ("Dang", "surname"), ("Kim", "given"), ("Anal", "given"), ("Dikshit", "surname"),
              ("Kumar", "surname"), ("Porntip", "given"), ("Pornchai", "given"), ("Suksan", "given")]
SUPPLEMENT_CULTURE = {"Phuc": "Vietnamese", "Phuoc": "Vietnamese", "Bich": "Vietnamese", "Dung": "Vietnamese",
                      "Duc": "Vietnamese", "Phat": "Vietnamese", "Dang": "Vietnamese", "Kim": "Vietnamese",
                      "Anal": "Indian", "Dikshit": "Indian", "Kumar": "Indian", "Porntip": "Thai",
                      "Pornchai": "Thai", "Suksan": "Thai"}


def _fold(text: str) -> str:
    text = text.replace("Đ", "D").replace("đ", "d")
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def faker_names() -> dict[tuple[str, str], set[str]]:
    """(name, given|surname) -> cultures, from faker's person providers (romanized where the locale has it)."""
    import faker.providers.person as person

    out: dict[tuple[str, str], set[str]] = {}
    for info in pkgutil.iter_modules(person.__path__):
        culture = CULTURES.get(info.name)
        if culture is None:
            continue
        provider = importlib.import_module(f"faker.providers.person.{info.name}").Provider
        for attr in dir(provider):
            low = attr.lower()
            if not low.endswith(("names", "names_male", "names_female", "_male", "_female")):
                continue
            role = "given" if "first" in low else "surname" if "last" in low else ""
            if not role:
                continue
            values = getattr(provider, attr)
            if isinstance(values, dict):
                values = list(values)
            if not isinstance(values, (list, tuple)):
                continue
            for raw in values:
                if not isinstance(raw, str):
                    continue
                name = _fold(raw).strip()
                if name and name.replace(" ", "").replace("-", "").isalpha() and name.isascii():
                    out.setdefault((name, role), set()).add(culture)
    return out


def vulgar_words() -> list[str]:
    import better_profanity

    path = Path(better_profanity.__file__).parent / "profanity_wordlist.txt"
    return sorted({w.strip().lower() for w in path.read_text().splitlines()
                   if w.strip().isalpha() and len(w.strip()) >= 3})


def collides(name: str, words: list[str]) -> str:
    """The vulgar word a name collides with: contained in it, or equal once vowels are ignored (Phuc ~ fuck)."""
    low = name.lower().replace(" ", "").replace("-", "")
    for w in words:
        if w in low:
            return w
    sound = low.replace("ph", "f").replace("ck", "k").replace("c", "k").replace("q", "k")
    consonants = "".join(ch for ch in sound if ch not in "aeiouy")
    for w in _CORE:
        ws = w.replace("ck", "k").replace("c", "k")
        if consonants == "".join(ch for ch in ws if ch not in "aeiouy") and len(low) <= 5:
            return w
    return ""


# Short vulgar words whose sound-alikes are common name syllables (Phuc, Fuk, Kok, Dik, Kunt).
_CORE = ("fuck", "shit", "cunt", "dick", "cock", "piss", "twat", "porn", "anal", "anus", "tits", "cum", "fag")


def write_collisions(names: dict[tuple[str, str], set[str]]) -> None:
    """The bundled `name_collisions.txt`: name tokens of the published lists that the vulgar tables would flag."""
    from dqkit.engines.lead import spoof

    t = spoof._tables()
    table = t.words["name"]
    found: dict[str, set[str]] = {}
    for (name, _), cultures in names.items():
        for tok in spoof._tokens(name)[0]:
            hit = spoof._word_hit(t, table, tok)
            if hit is not None:
                found.setdefault(tok, set()).update(cultures)
    header = ["# Real given names and surnames that are also English vulgar words: they never flag alone in a name",
              "# field, only next to an insult (\"Fuk You\"). Generated by tests/lead_rules/build_name_sets.py from",
              "# published name lists: the person providers of the PyPI package `faker` (MIT licence) and the",
              "# Cantonese romanizations listed there. One token a line; the cultures are in the comment.",
              "# Edit the generator, not this file."]
    lines = [f"{tok}  # {'; '.join(sorted(c))}" for tok, c in sorted(found.items())]
    path = HERE.parents[1] / "dqkit" / "engines" / "lead" / "wordlists" / "name_collisions.txt"
    path.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} collisions written")


def main() -> None:
    words = vulgar_words()
    published = faker_names()
    for name, role in CANTONESE:
        published.setdefault((name, role), set()).add("Cantonese")
    for name, role in SUPPLEMENT:
        published.setdefault((name, role), set()).add(SUPPLEMENT_CULTURE[name])
    write_collisions(published)
    rows = []
    for (name, role), cultures in sorted(published.items()):
        hit = collides(name, words)
        if hit:
            src = ("Cantonese romanization (see README)" if cultures == {"Cantonese"} else
                   "published given-name lists (see README)" if (name, role) in SUPPLEMENT else
                   "faker " + ", ".join(sorted(cultures)))
            rows.append({"name": name, "role": role, "cultures": "; ".join(sorted(cultures)), "collides_with": hit,
                         "source": src})
    with (HERE / "data" / "multicultural_names.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["name", "role", "cultures", "collides_with", "source"])
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} names written")


if __name__ == "__main__":
    main()
