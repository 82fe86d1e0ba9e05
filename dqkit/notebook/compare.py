"""Shadow runs: the same rows answered by two sources (two backends, two references, two releases, or two result
files already written), and where they agree.

    df.leads.compare("local", "https://vendor...")      RESULT_CODE and every other answer field
    df.addr.compare("local", "http://127.0.0.1:8080")   confidence, the address found, the corrections

Values are compared as text, blank for missing, with case and runs of spaces ignored (one service writes
"Oakland", another "OAKLAND": the same answer). Fields that differ by construction between any two runs
(transaction ids, the reference's name and date, global keys, free-text values) are left out and listed in
`Comparison.skipped`. This is how an analyst picks the codes to pre-screen with (`prescreen.py`) and how a team
checks a new reference or release before trusting it.

Only rows *answered on both sides* are compared: a row one side did not answer (no answer from the service, a
lead skipped by policy) says nothing about agreement, and is counted apart (`one_side`, `neither`). Each row that
differs carries a `reason`: the two sides' references differ (named), the service knows something the local
engine has no data for (its spoof database, its records, its phone database), the account was refused, a wire
could not carry the lead.

Evidence for settling (leads): `Comparison.evidence` holds, for every RESULT_CODE side a (the one that would
settle: the local engine) gave, on how many rows both sides answered and on how many b agreed on every compared
field, with a one-sided 95% lower confidence bound on that agreement (Clopper-Pearson). `settleable()` lists the
codes a pre-screen may settle by: the seed's input rules unless the shadow run contradicted one, and any other code
whose whole answer is a Message, agreed on every row, with a lower bound of at least `level` (`dqkit compare
--settled-codes-out FILE` writes them for `dqkit verify --settled-codes @FILE`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np
import pandas as pd

from dqkit.contract.errors import InputError
from dqkit.notebook.frames import CacheArg

Kind = Literal["lead", "address"]
# Never compared: different between any two runs, or derived from a compared field.
_LEAD_SKIP: Final = frozenset({"transaction_id", "result_value", "result_meaning", "result_type", "result_category",
                               "outcome", "phone_desc", "answered_by", "reference", "reference_date", "sent",
                               "service"})
_ADDRESS_SKIP: Final = frozenset({"confidence_meaning", "global_address_key", "reference", "reference_date", "note",
                                  "error"})
_KEY: Final[dict[Kind, str]] = {"lead": "result_code", "address": "confidence"}


@dataclass(frozen=True)
class Comparison:
    """Two answers of the same rows. `rows`: rows answered on both sides (the ones compared); `one_side` /
    `neither`: rows answered by one side only / by none (left out). `fields`: per field, rows compared and
    agreeing; `confusion`: the key field (RESULT_CODE / confidence) of `a` (rows) against `b` (columns), rows
    answered on both sides; `disagreements`: input columns, then each differing field as `<field> [a]` /
    `<field> [b]`, `differs` naming the fields and `reason` saying why they may differ. `references`: the
    reference each side names ("" when it names none). `evidence` (leads): agreement per RESULT_CODE of a."""

    kind: Kind
    names: tuple[str, str]
    rows: int
    fields: pd.DataFrame
    confusion: pd.DataFrame
    disagreements: pd.DataFrame
    skipped: tuple[str, ...] = field(default=())
    one_side: int = 0
    neither: int = 0
    references: tuple[str, str] = ("", "")
    evidence: pd.DataFrame | None = None

    @property
    def key(self) -> str:
        return _KEY[self.kind]

    @property
    def agreement(self) -> float:
        """Share of the rows answered on both sides whose key field agrees."""
        row = self.fields[self.fields["field"] == self.key]
        return float(row["agree"].iloc[0]) / self.rows if len(row) and self.rows else float("nan")

    def settleable(self, level: float = 0.95) -> list[str]:
        """RESULT_CODEs a pre-screen may settle by, from this shadow run: the seed's input rules
        (`prescreen.DEFAULT_SETTLED`) unless b contradicted one on some row, and any other code whose whole answer
        is a Message on which b agreed with a on every compared field of every row, with a one-sided 95% lower
        confidence bound of at least `level`."""
        from dqkit.notebook.prescreen import DEFAULT_SETTLED, SETTLEABLE

        ev = self.evidence if self.evidence is not None else pd.DataFrame(columns=["code"])
        out: list[str] = []
        for code in SETTLEABLE:
            row = ev[ev["code"] == code]
            if not len(row):
                if code in DEFAULT_SETTLED:
                    out.append(code)  # not seen in the sample: the seed's own rule stands
            elif bool(row["settleable"].iloc[0]) and (code in DEFAULT_SETTLED or
                                                      float(row["lower_bound"].iloc[0]) >= level):
                out.append(code)
        return out

    def _about_rows(self) -> str:
        text = f"{self.rows:,} rows answered on both sides"
        if self.one_side or self.neither:
            text += (f" ({self.one_side:,} answered on one side only and {self.neither:,} on neither are not "
                     "compared)")
        return text

    def _about_references(self) -> str:
        ra, rb = self.references
        if ra == rb:
            return f"\nboth sides name the reference {ra}" if ra else ""
        return (f"\nthe two sides name different address references ({self.names[0]}: {ra or 'none named'}; "
                f"{self.names[1]}: {rb or 'none named'}): answers that depend on the address (S100 / S102, "
                "the standardized address) may differ for that reason alone")

    def heatmap(self) -> Any:
        """The confusion table as a plotly heatmap (counts written in the cells)."""
        import plotly.graph_objects as go

        c = self.confusion
        z = c.to_numpy()
        fig = go.Figure(go.Heatmap(z=z, x=[str(x) for x in c.columns], y=[str(y) for y in c.index],
                                   colorscale="Blues", text=z, texttemplate="%{text}",
                                   hovertemplate=f"{self.names[0]}: %{{y}}<br>{self.names[1]}: %{{x}}<br>"
                                                 "rows: %{z}<extra></extra>"))
        fig.update_layout(template="plotly_white", title=f"{self.key}: {self.names[0]} (rows) against "
                                                         f"{self.names[1]} (columns), agreement {self.agreement:.1%}",
                          xaxis_title=self.names[1], yaxis_title=self.names[0], yaxis_autorange="reversed",
                          height=max(320, 40 * len(c.index) + 160))
        return fig

    def __str__(self) -> str:
        text = (f"{self._about_rows()}; {self.key} agrees on {self.agreement:.2%}; {len(self.disagreements):,} rows "
                f"differ in some field{self._about_references()}\n\n{self.fields.to_string(index=False)}\n\n"
                f"{self.confusion.to_string()}")
        if len(self.disagreements) and "reason" in self.disagreements.columns:
            reasons = self.disagreements["reason"].value_counts()
            text += "\n\nwhy rows differ:\n" + "\n".join(f"  {n:>6,}  {r}" for r, n in reasons.items())
        if self.evidence is not None and len(self.evidence):
            text += ("\n\nevidence for settling (RESULT_CODE of " + self.names[0] + "; lower_bound: one-sided 95% "
                     "bound on the agreement):\n" + self.evidence.to_string(index=False))
        return text

    def _repr_html_(self) -> str:
        return (f"<p>{html.escape(self._about_rows())}; <b>{html.escape(self.key)}</b> agrees on "
                f"{self.agreement:.2%}; {len(self.disagreements):,} rows differ in some field."
                f"{html.escape(self._about_references())}</p>"
                + self.fields.to_html(index=False) + self.confusion.to_html()
                + (self.evidence.to_html(index=False) if self.evidence is not None else ""))


def _norm(s: pd.Series) -> pd.Series:
    text = s.astype(object).where(s.notna(), "").astype(str)
    return text.str.strip().str.upper().str.replace(r"\s+", " ", regex=True)


def _answers(df: pd.DataFrame, side: Any, kind: Kind, *, mapping: Mapping[str, str] | None, prefix: str,
             cache: CacheArg, progress: bool | None) -> tuple[pd.DataFrame, str]:
    """The result columns (unprefixed) of one side, and its name."""
    if isinstance(side, pd.DataFrame):
        if len(side) != len(df):
            raise InputError(f"a result frame to compare must have the rows of the input ({len(df):,}), "
                             f"not {len(side):,}")
        return results_of(side, kind, prefix), str(side.attrs.get("dqkit_name", "frame"))
    if kind == "lead":
        from dqkit.backends.select import lead_backend
        from dqkit.notebook import leads

        lbe = lead_backend(side)
        be: object = lbe
        out = leads.verify(df, backend=lbe, mapping=mapping, prefix=prefix, cache=cache, progress=progress)
    else:
        from dqkit.backends.select import address_backend
        from dqkit.notebook import addresses

        abe = address_backend(side) if not (isinstance(side, str) and side.lower() == "demo") else \
            address_backend(None, reference="demo")
        be = abe
        out = addresses.validate(df, backend=abe, mapping=mapping, prefix=prefix, cache=cache, progress=progress)
    name = side if isinstance(side, str) else getattr(be, "name", type(be).__name__)
    return results_of(out, kind, prefix), str(name)


def result_names(kind: Kind) -> tuple[str, ...]:
    if kind == "lead":
        from dqkit.notebook.leads import REFERENCE_NAMES, RESULT_NAMES, SERVICE_NAME

        return (*RESULT_NAMES, *REFERENCE_NAMES, SERVICE_NAME, "answered_by")
    from dqkit.notebook.addresses import COMPONENT_NAMES, PROVENANCE_NAMES, VALIDATE_NAMES

    return (*VALIDATE_NAMES, *COMPONENT_NAMES, *PROVENANCE_NAMES)


def results_of(frame: pd.DataFrame, kind: Kind, prefix: str | None = None) -> pd.DataFrame:
    """The result columns of a verified / validated frame, unprefixed (the prefix is found when not given)."""
    key = _KEY[kind]
    if prefix is None or f"{prefix}{key}" not in frame.columns:
        found = [str(c)[: -len(key)] for c in frame.columns if str(c).endswith(key)]
        if not found:
            raise InputError(f"no {key} column: pass a frame returned by "
                             f"{'df.leads.verify()' if kind == 'lead' else 'df.addr.validate()'} or its file")
        prefix = min(found, key=len)
    names = set(result_names(kind))
    cols = {c: str(c)[len(prefix):] for c in frame.columns
            if str(c).startswith(prefix) and str(c)[len(prefix):] in names}
    return frame[list(cols)].rename(columns=cols).reset_index(drop=True)


def answered_rows(frame: pd.DataFrame, kind: Kind) -> pd.Series:
    """Which rows of an unprefixed result frame hold an answer: a key value, not a recorded failure, not a lead
    skipped by policy or left unsent."""
    got = _norm(frame[_KEY[kind]]) != "" if _KEY[kind] in frame.columns else pd.Series(False, index=frame.index)
    if "result_type" in frame.columns:
        got &= _norm(frame["result_type"]) != "FAILED"
    if "error" in frame.columns:
        got &= _norm(frame["error"]) == ""
    if "answered_by" in frame.columns:
        by = _norm(frame["answered_by"])
        got &= ~by.str.startswith("SKIPPED") & ~by.str.startswith("NO ANSWER") & ~by.str.startswith("NOT SENT")
    return got.reset_index(drop=True)


def _reference(frame: pd.DataFrame, answered: pd.Series) -> str:
    if "reference" not in frame.columns:
        return ""
    values = frame["reference"].reset_index(drop=True)[answered.to_numpy()]
    named = sorted({str(v) for v in values.dropna() if str(v).strip()})
    if "reference_date" in frame.columns and len(named) == 1:
        dates = frame["reference_date"].reset_index(drop=True)[answered.to_numpy()].dropna().astype(str)
        date = next((d for d in dates if d.strip()), "")
        return f"{named[0]} ({date})" if date else named[0]
    return " + ".join(named)


_ADDRESS_FIELDS: Final = ("std_", "els_address", "addr_")


def _reason(a: Mapping[str, str], b: Mapping[str, str], differs: Sequence[str], refs: tuple[str, str],
            names: tuple[str, str], raw: Mapping[str, Any]) -> str:
    """Why two answers of one lead may differ, in words (the most specific cause first)."""
    ca, cb = a.get("result_code", ""), b.get("result_code", "")
    for code, side in ((cb, names[1]), (ca, names[0])):
        if code in ("E500", "E501"):
            return f"{side} refused the account ({code}): account configuration, not the lead"
    if "E300" in (ca, cb) and ca != cb and any(isinstance(v, str) and ('"' in v or "&" in v) for v in raw.values()):
        return "the JSON wire cannot carry '\"' or '&': one side got the lead as JSON (E300)"
    if cb == "E100" and ca != "E100":
        return f"{names[1]}'s spoof database holds a name of this lead that the local lists do not"
    if ca == "E100" and cb != "E100":
        return f"{names[0]}'s spoof lists (maybe your own list) hold a name of this lead that {names[1]}'s do not"
    if "S101" in (ca, cb) and ca != cb:
        return "matched against records only one side has (S101: no match to the records)"
    address = ca in ("S100", "S102") and cb in ("S100", "S102") and (ca != cb or all(
        d.startswith(_ADDRESS_FIELDS) for d in differs))
    if address and refs[0] != refs[1]:
        return f"different address references ({names[0]}: {refs[0] or 'none named'}; {names[1]}: " \
               f"{refs[1] or 'none named'})"
    if address:
        return "the address was standardized or checked differently (same reference)"
    if ca == cb and all(d in ("phone_status", "score_result", "els_phone_verification") or d.startswith("rpa_")
                        for d in differs):
        return "the phone was checked against data only one side has (a phone database)"
    return "the two sides answer this lead differently from the same input"


def _lower_bound(agree: int, n: int, alpha: float = 0.05) -> float:
    """One-sided (1 - alpha) Clopper-Pearson lower bound of a proportion agree / n."""
    if n == 0:
        return float("nan")
    if agree == n:
        return float(alpha ** (1.0 / n))
    if agree == 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(alpha, agree, n - agree + 1))


def _evidence(a: pd.DataFrame, differs: pd.DataFrame, both: np.ndarray[Any, Any]) -> pd.DataFrame:
    """Per RESULT_CODE of side a: rows, rows agreeing on every compared field, the lower bound, settleable."""
    from dqkit.notebook.prescreen import SETTLEABLE

    codes = _norm(a["result_code"]).reset_index(drop=True)[both]
    same = ~differs.any(axis=1).to_numpy()[both]
    rows: list[dict[str, Any]] = []
    for code in sorted(set(codes)):
        mask = (codes == code).to_numpy()
        n, agree = int(mask.sum()), int(same[mask].sum())
        bound = _lower_bound(agree, n)
        rows.append({"code": code, "rows": n, "agree": agree, "agree_pct": round(100.0 * agree / n, 2),
                     "lower_bound": round(bound, 4), "settleable": bool(code in SETTLEABLE and agree == n)})
    return pd.DataFrame(rows, columns=["code", "rows", "agree", "agree_pct", "lower_bound", "settleable"])


def compare_results(a: pd.DataFrame, b: pd.DataFrame, *, kind: Kind, names: tuple[str, str] = ("a", "b"),
                    inputs: pd.DataFrame | None = None, max_rows: int | None = None) -> Comparison:
    """Compare two unprefixed result frames of the same rows (see `results_of`): the rows answered on both sides."""
    if len(a) != len(b):
        raise InputError(f"the two answers have different row counts ({len(a):,} and {len(b):,}): compare "
                         "results of the same input")
    if names[0] == names[1]:
        names = (f"{names[0]} [a]", f"{names[1]} [b]")
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    skip = _LEAD_SKIP if kind == "lead" else _ADDRESS_SKIP
    shared = [c for c in a.columns if c in set(b.columns)]
    compared = [c for c in shared if c not in skip and not str(c).endswith("_meaning")]
    key = _KEY[kind]
    if key not in compared:
        raise InputError(f"both answers need a {key} column")
    compared.remove(key)
    compared.insert(0, key)
    got_a, got_b = answered_rows(a, kind), answered_rows(b, kind)
    both = (got_a & got_b).to_numpy()
    n = int(both.sum())
    one_side = int((got_a ^ got_b).sum())
    neither = int((~got_a & ~got_b).sum())
    refs = (_reference(a, got_a), _reference(b, got_b))
    rows: list[dict[str, Any]] = []
    differs = pd.DataFrame(False, index=range(len(a)), columns=compared)
    texts: dict[str, tuple[pd.Series, pd.Series]] = {}
    for c in compared:
        x, y = _norm(a[c]), _norm(b[c])
        texts[c] = (x, y)
        either = ((x != "") | (y != "")).to_numpy() & both
        diff = (x != y).to_numpy() & both
        differs[c] = diff
        agree = n - int(diff.sum())
        rows.append({"field": c, "answered": int(either.sum()), "agree": agree, "differ": int(diff.sum()),
                     "agree_pct": round(100.0 * agree / n, 2) if n else float("nan")})
    fields = pd.DataFrame(rows, columns=["field", "answered", "agree", "differ", "agree_pct"])
    ka = _norm(a[key]).replace("", "(none)")[both]
    kb = _norm(b[key]).replace("", "(none)")[both]
    confusion = pd.crosstab(pd.Series(ka.to_numpy(), name=names[0]), pd.Series(kb.to_numpy(), name=names[1]))
    any_diff = differs.any(axis=1)
    idx = [int(i) for i in any_diff[any_diff].index[: max_rows]]
    parts: list[pd.DataFrame] = []
    raw_inputs = inputs.reset_index(drop=True) if inputs is not None else None
    if raw_inputs is not None:
        parts.append(raw_inputs.iloc[idx].reset_index(drop=True))
    side: dict[str, Any] = {"row": idx}
    for c in compared:
        if differs[c].to_numpy()[idx].any():
            side[f"{c} [{names[0]}]"] = a[c].iloc[idx].to_numpy()
            side[f"{c} [{names[1]}]"] = b[c].iloc[idx].to_numpy()
    side["differs"] = [", ".join(c for c in compared if differs.at[i, c]) for i in idx]
    reasons = []
    for i in idx:
        diff_fields = [c for c in compared if differs.at[i, c]]
        va = {c: str(texts[c][0].iat[i]) for c in compared}
        vb = {c: str(texts[c][1].iat[i]) for c in compared}
        raw = {str(k): v for k, v in raw_inputs.iloc[i].items()} if raw_inputs is not None else {}
        reasons.append(_reason(va, vb, diff_fields, refs, names, raw))
    side["reason"] = reasons
    parts.insert(0, pd.DataFrame(side))
    disagreements = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    skipped = tuple(sorted(c for c in shared if c not in compared))
    evidence = _evidence(a, differs, both) if kind == "lead" else None
    return Comparison(kind=kind, names=names, rows=n, fields=fields, confusion=confusion,
                      disagreements=disagreements, skipped=skipped, one_side=one_side, neither=neither,
                      references=refs, evidence=evidence)


def compare_rows(df: pd.DataFrame, a: Any, b: Any, *, kind: Kind, mapping: Mapping[str, str] | None = None,
                 prefix: str | None = None, names: tuple[str, str] | None = None, cache: CacheArg = None,
                 progress: bool | None = None) -> Comparison:
    """Answer `df`'s rows by `a` and by `b` (each a backend choice or a result frame of the same rows) and
    compare them."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    pre = prefix if prefix is not None else ("lead_" if kind == "lead" else "addr_")
    ra, na = _answers(df, a, kind, mapping=mapping, prefix=pre, cache=cache, progress=progress)
    rb, nb = _answers(df, b, kind, mapping=mapping, prefix=pre, cache=cache, progress=progress)
    inputs = df[[c for c in df.columns if not str(c).startswith(pre)]]
    return compare_results(ra, rb, kind=kind, names=names or (na, nb), inputs=inputs)


def compare_leads(df: pd.DataFrame, a: Any, b: Any, **kwargs: Any) -> Comparison:
    return compare_rows(df, a, b, kind="lead", **kwargs)


def compare_addresses(df: pd.DataFrame, a: Any, b: Any, **kwargs: Any) -> Comparison:
    return compare_rows(df, a, b, kind="address", **kwargs)


def compare_files(a: pd.DataFrame, b: pd.DataFrame, *, kind: Kind | None = None,
                  names: Sequence[str] = ("a", "b")) -> Comparison:
    """Two result files already written (`dqkit verify` / `dqkit validate` outputs) of the same input."""
    if kind is None:
        kind = "lead" if any(str(c).endswith("result_code") for c in a.columns) else "address"
    produced = result_names(kind)
    inputs = a[[c for c in a.columns if not any(str(c).endswith(n) for n in produced)]]
    return compare_results(results_of(a, kind), results_of(b, kind), kind=kind,
                           names=(str(names[0]), str(names[1])), inputs=inputs)
