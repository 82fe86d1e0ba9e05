"""Every flag E100 raises on the evaluation sets, one line a lead, to prove a speed change changes no flag.

Sets: the real names never seen (`real_names.csv`, as FIRST_NAME + LAST_NAME and as FULL_NAME), the precision
development set (`dev_real_names.csv`, as is and with its rare words hidden), every row of the fresh spoof set,
the bundled whole-name lists' entries, and every word of the model's tables (given names, surnames, English
words) judged by the model beside a common name (W Smith, John W), and made-up compounds of each vulgar word
(respelled: z for s, k for c and ck, ph for f) and each insult word or common English word (size 10). Each
line: the set, the input, and the hit (field, kind, matched, reason) or '-'.

Run: `.venv/bin/python tests/lead_rules/eval/dump_flags.py > before.txt`, change, run again, `diff`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import spoof_eval  # noqa: E402

from dqkit.contract.lead import LeadRequest  # noqa: E402
from dqkit.engines.lead import spoof, spoof_model  # noqa: E402
from dqkit.engines.lead.spoof import SpoofHit, explain_spoof  # noqa: E402


def _show(hit: SpoofHit | None) -> str:
    return "-" if hit is None else f"{hit.field} | {hit.kind} | {hit.matched} | {hit.reason}"


def _pairs(rows: list[dict[str, str]]) -> Iterator[LeadRequest]:
    for r in rows:
        yield LeadRequest(first_name=r["first_name"], last_name=r["last_name"], zip="20500")
        yield LeadRequest(full_name=f"{r['first_name']} {r['last_name']}", zip="20500")


def lines() -> Iterator[str]:
    for lead in _pairs(spoof_eval.read(spoof_eval.REAL)):
        yield f"real\t{lead.first_name}|{lead.last_name}|{lead.full_name}\t{_show(explain_spoof(lead))}"
    dev = spoof_eval.read(spoof_eval.DEV_REAL)
    for lead in _pairs(dev):
        yield f"dev_real\t{lead.first_name}|{lead.last_name}|{lead.full_name}\t{_show(explain_spoof(lead))}"
    with spoof_eval.hidden_model(dev):
        for lead in _pairs(dev):
            yield f"dev_hidden\t{lead.first_name}|{lead.last_name}|{lead.full_name}\t{_show(explain_spoof(lead))}"
    for r in spoof_eval.read(spoof_eval.FRESH):
        lead = spoof_eval.lead_of(r)
        yield f"fresh\t{lead.first_name}|{lead.last_name}|{lead.full_name}\t{_show(explain_spoof(lead))}"
    for file, entries in spoof_eval.list_entries().items():
        for e in entries:
            yield f"list {file}\t{e}\t{_show(explain_spoof(LeadRequest(full_name=e, zip='20500')))}"
    m = spoof_model.model()
    for w in sorted(set(m.given) | set(m.surname) | set(m.words)):
        for words in ((w, "smith"), ("john", w)):
            r = spoof_model.judge(words)
            yield f"table\t{' '.join(words)}\t{'-' if r is None else r.text()}"
    tails = sorted(spoof_model.INSULT_WORDS | {w for w, size in m.words.items() if size == 10 and len(w) <= 5})
    for v in spoof._lines("vulgar_sounds.txt"):
        for head in sorted({v, v.replace("s", "z"), v.replace("ck", "k").replace("c", "k"), v.replace("f", "ph")}):
            for tail in tails:
                r = spoof_model.judge((head + tail, "smith"))
                yield f"compound\t{head + tail} smith\t{'-' if r is None else r.text()}"


if __name__ == "__main__":
    for line in lines():
        print(line)
