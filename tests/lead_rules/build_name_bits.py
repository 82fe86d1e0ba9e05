"""Writes dqkit/engines/lead/wordlists/name_bits.txt: every word of the name model's tables with what each table
says of it packed in one int (`spoof_model.pack`), so that the model asks one dict per word (issue 32, speed),
and the compound split's tail ends (NameModel.tail_ends).

Made from the other prepared files only (`spoof_model.source_model`: name_model.txt, english_sizes.txt,
insult_words.txt, pun_words.txt, pun_phrases.txt, vulgar_languages.txt, sound_puns.txt): run it after any of them
changes (test_spoof_model checks that the file matches them). One line per packed value: the value, a tab, its
words; then one line per tail-ends value: "e" and the value, a tab, its ends.

Run: `.venv/bin/python tests/lead_rules/build_name_bits.py`.
"""

from __future__ import annotations

from collections import defaultdict

from dqkit.engines.lead import spoof_model

HEADER = ("# Every word of the name model's tables and its bits (spoof_model.pack): given-name weight, surname\n"
          "# weight, SCOWL size index, one bit a table; then lines 'e<bits>': NameModel.tail_ends. Made by\n"
          "# tests/lead_rules/build_name_bits.py from the other prepared files of this folder; same sources and\n"
          "# licences as they.\n")


def lines() -> list[str]:
    m = spoof_model.source_model()  # packed from the tables as written, not read from the file
    by: dict[int, list[str]] = defaultdict(list)
    for w, bits in m.info.items():
        assert w and " " not in w and "\t" not in w and "\n" not in w, w
        by[bits].append(w)
    ends: dict[int, list[str]] = defaultdict(list)
    for end, lengths in m.tail_ends.items():
        ends[lengths].append(end)
    return [f"{bits}\t{' '.join(sorted(ws))}" for bits, ws in sorted(by.items())] + \
        [f"e{lengths}\t{' '.join(sorted(ws))}" for lengths, ws in sorted(ends.items())]


def main() -> None:
    (spoof_model.WORDLISTS / "name_bits.txt").write_text(HEADER + "\n".join(lines()) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
