"""Shadow runs: the same rows answered by two sources (two backends, two references, two releases, or two result
files already written), and where they agree.

    df.leads.compare("local", "https://vendor...")      RESULT_CODE and every other answer field
    df.addr.compare("local", "http://127.0.0.1:8080")   confidence, the address found, the corrections

Values are compared as text, blank for missing, with case and runs of spaces ignored (one service writes
"Oakland", another "OAKLAND": the same answer). Fields that differ by construction between any two runs
(transaction ids, the reference's name and date, global keys, free-text values) are left out and listed in
`Comparison.skipped`. This is how an analyst picks the codes to pre-screen with (`prescreen.py`) and how a team
checks a new reference or release before trusting it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import pandas as pd

from dqkit.contract.errors import InputError
from dqkit.notebook.frames import CacheArg

Kind = Literal["lead", "address"]
# Never compared: different between any two runs, or derived from a compared field.
_LEAD_SKIP: Final = frozenset({"transaction_id", "result_value", "result_meaning", "result_type", "result_category",
                               "outcome", "phone_desc", "answered_by", "reference", "reference_date"})
_ADDRESS_SKIP: Final = frozenset({"confidence_meaning", "global_address_key", "reference", "reference_date", "note",
                                  "error"})
_KEY: Final[dict[Kind, str]] = {"lead": "result_code", "address": "confidence"}


@dataclass(frozen=True)
class Comparison:
    """Two answers of the same rows. `fields`: per field, rows compared and agreeing; `confusion`: the key field
    (RESULT_CODE / confidence) of `a` (rows) against `b` (columns); `disagreements`: input columns, then each
    differing field as `<field> [a]` / `<field> [b]`, and `differs` naming the fields."""

    kind: Kind
    names: tuple[str, str]
    rows: int
    fields: pd.DataFrame
    confusion: pd.DataFrame
    disagreements: pd.DataFrame
    skipped: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        return _KEY[self.kind]

    @property
    def agreement(self) -> float:
        """Share of rows whose key field agrees."""
        row = self.fields[self.fields["field"] == self.key]
        return float(row["agree_pct"].iloc[0]) / 100 if len(row) else float("nan")

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
        return (f"{self.rows:,} rows, {self.key} agrees on {self.agreement:.1%}; {len(self.disagreements):,} rows "
                f"differ in some field\n\n{self.fields.to_string(index=False)}\n\n{self.confusion.to_string()}")

    def _repr_html_(self) -> str:
        return (f"<p>{self.rows:,} rows; <b>{html.escape(self.key)}</b> agrees on {self.agreement:.1%}; "
                f"{len(self.disagreements):,} rows differ in some field.</p>"
                + self.fields.to_html(index=False) + self.confusion.to_html())


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
        from dqkit.notebook.leads import RESULT_NAMES

        return RESULT_NAMES
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


def compare_results(a: pd.DataFrame, b: pd.DataFrame, *, kind: Kind, names: tuple[str, str] = ("a", "b"),
                    inputs: pd.DataFrame | None = None, max_rows: int | None = None) -> Comparison:
    """Compare two unprefixed result frames of the same rows (see `results_of`)."""
    if len(a) != len(b):
        raise InputError(f"the two answers have different row counts ({len(a):,} and {len(b):,}): compare "
                         "results of the same input")
    if names[0] == names[1]:
        names = (f"{names[0]} [a]", f"{names[1]} [b]")
    skip = _LEAD_SKIP if kind == "lead" else _ADDRESS_SKIP
    shared = [c for c in a.columns if c in set(b.columns)]
    compared = [c for c in shared if c not in skip and not str(c).endswith("_meaning")]
    key = _KEY[kind]
    if key not in compared:
        raise InputError(f"both answers need a {key} column")
    compared.remove(key)
    compared.insert(0, key)
    n = len(a)
    rows: list[dict[str, Any]] = []
    differs = pd.DataFrame(False, index=range(n), columns=compared)
    for c in compared:
        x, y = _norm(a[c]).reset_index(drop=True), _norm(b[c]).reset_index(drop=True)
        either = (x != "") | (y != "")
        diff = x != y
        differs[c] = diff.to_numpy()
        agree = int((either & ~diff).sum())
        both_blank = int((~either).sum())
        rows.append({"field": c, "answered": int(either.sum()), "agree": agree + both_blank,
                     "differ": int(diff.sum()), "agree_pct": round(100.0 * (agree + both_blank) / n, 2) if n else
                     float("nan")})
    fields = pd.DataFrame(rows, columns=["field", "answered", "agree", "differ", "agree_pct"])
    ka, kb = _norm(a[key]).replace("", "(none)"), _norm(b[key]).replace("", "(none)")
    confusion = pd.crosstab(pd.Series(ka.to_numpy(), name=names[0]), pd.Series(kb.to_numpy(), name=names[1]))
    any_diff = differs.any(axis=1)
    idx = [int(i) for i in any_diff[any_diff].index[: max_rows]]
    parts: list[pd.DataFrame] = []
    if inputs is not None:
        parts.append(inputs.reset_index(drop=True).iloc[idx].reset_index(drop=True))
    side: dict[str, Any] = {"row": idx}
    for c in compared:
        if differs[c].to_numpy()[idx].any():
            side[f"{c} [{names[0]}]"] = a[c].reset_index(drop=True).iloc[idx].to_numpy()
            side[f"{c} [{names[1]}]"] = b[c].reset_index(drop=True).iloc[idx].to_numpy()
    side["differs"] = [", ".join(c for c in compared if differs.at[i, c]) for i in idx]
    parts.insert(0, pd.DataFrame(side))
    disagreements = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    skipped = tuple(sorted(c for c in shared if c not in compared))
    return Comparison(kind=kind, names=names, rows=n, fields=fields, confusion=confusion,
                      disagreements=disagreements, skipped=skipped)


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
