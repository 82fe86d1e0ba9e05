"""One self-contained HTML file of verified leads: summary tables, the audit per source, and the plots.

Self-contained: plotly's JavaScript is inlined once (no CDN, no fonts or scripts fetched), so the file opens offline
and can be mailed. Small: the script is plotly.js's cartesian bundle (`plotly-cartesian.min.js`, the trace types the
report draws: bar, heatmap, scatter), gzip-compressed and base64-encoded, unpacked by the browser's own
`DecompressionStream`; a report of a few leads is about 0.7 MB, not the 4.8 MB of the whole of plotly.js inlined.
Each figure is its JSON, drawn once the script is unpacked. Reproducible: the same results give the same bytes
except for the single line that carries the date (`GENERATED_MARK`); transaction IDs and anything else that differs
between runs are left out, figures get fixed element IDs, and every table lists its rows in a fixed order.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import gzip
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pandas as pd
import plotly.graph_objects as go

from dqkit import plots
from dqkit._export_rows import left_out
from dqkit._files import write_text
from dqkit._version import __version__
from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.notebook.leads import AUDIT_COLUMNS

if TYPE_CHECKING:
    from dqkit.notebook.compare import Comparison
    from dqkit.notebook.drift import Drift

GENERATED_MARK: Final = '<p class="generated">'
_FIG_CONFIG: Final = {"displaylogo": False, "responsive": True}
PLOTLY_BUNDLE: Final = Path(__file__).with_name("plotly-cartesian.min.js")
# Unpacks the bundle (gzip, base64) with the browser's DecompressionStream, runs it, then draws every figure from its
# JSON; a browser that cannot says so in each figure's place instead of leaving it blank.
_LOADER: Final = """
(async () => {
  const plots = Array.from(document.querySelectorAll("div.dq-plot"));
  try {
    if (typeof DecompressionStream !== "function") {
      throw new Error("this browser cannot unpack them (no DecompressionStream): open the report in a current one");
    }
    const packed = document.getElementById("dq-plotly").textContent.trim();
    const bytes = Uint8Array.from(atob(packed), (ch) => ch.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const code = await new Response(stream).text();
    const script = document.createElement("script");
    script.textContent = code;
    document.head.appendChild(script);
    for (const div of plots) {
      const spec = JSON.parse(document.getElementById(div.id + "-spec").textContent);
      await Plotly.newPlot(div, spec.data, spec.layout, spec.config);
    }
    document.body.dataset.figures = "drawn";
  } catch (err) {
    for (const div of plots) div.textContent = "The figures could not be drawn: " + err.message;
    document.body.dataset.figures = "failed";
  }
})();
""".strip()

_CSS: Final = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #222; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.3rem; }
p.generated, p.meta { color: #666; margin: 0.2rem 0; }
table.dq { border-collapse: collapse; font-size: 0.85rem; margin: 0.8rem 0; }
table.dq th, table.dq td { border: 1px solid #ddd; padding: 0.25rem 0.45rem; text-align: right; }
table.dq th { background: #f4f6f8; vertical-align: bottom; font-weight: 600; }
table.dq td.text, table.dq th.text { text-align: left; }
table.dq th.text { white-space: nowrap; } table.dq td.text { overflow-wrap: anywhere; min-width: 4rem; }
table.dq td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
table.wide { width: 100%; } table.wide th { max-width: 6.5rem; }
table.wide th, table.wide td { padding: 0.25rem 0.3rem; }
div.table { overflow-x: auto; } .figure { margin: 1rem 0; } .note { color: #555; font-size: 0.9rem; }
@media print { body { max-width: none; margin: 0; } div.table { overflow: visible; }
               table.dq { font-size: 0.75rem; } .figure { break-inside: avoid; } }
""".strip()


def _table(df: pd.DataFrame, text_columns: Sequence[str] = (), *, percent_columns: Sequence[str] = (),
           points_columns: Sequence[str] = (), headers: dict[str, str] | None = None,
           titles: dict[str, str] | None = None, wide: bool = False, unchecked: Sequence[str] = ()) -> str:
    """A plain, escaped HTML table (pandas' to_html is avoided: its output changes between versions).

    `percent_columns` are rates (fractions) shown as percentages, `points_columns` are percentages already (0-100);
    `headers` replaces column names by readable
    ones (which can wrap, so a wide table fits the page); `titles` explains a header on hover; an empty cell of an
    `unchecked` column reads "not checked" (no lead had that check), never a number."""
    headers = headers or {}
    titles = titles or {}

    def th(c: object) -> str:
        cls = "text" if c in text_columns else "num"
        title = f' title="{html.escape(titles[str(c)])}"' if str(c) in titles else ""
        return f'<th class="{cls}"{title}>{html.escape(headers.get(str(c), str(c)))}</th>'

    head = "".join(th(c) for c in df.columns)
    rows = []
    for values in df.itertuples(index=False, name=None):
        cells = []
        for c, v in zip(df.columns, values, strict=True):
            cls = "text" if c in text_columns else "num"
            text = (_percent(v) if c in percent_columns else _points(v) if c in points_columns else _fmt(v))
            if c in unchecked and text == "–":
                text = "not checked"
            cells.append(f'<td class="{cls}">{html.escape(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table_class = "dq wide" if wide else "dq"
    return (f'<div class="table"><table class="{table_class}"><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(rows) + "</tbody></table></div>")


def _percent(v: object) -> str:
    if v is None or not isinstance(v, (int, float)) or v != v:
        return "–"
    return f"{float(v):.1%}"


def _points(v: object) -> str:
    if v is None or not isinstance(v, (int, float)) or v != v:
        return "–"
    return f"{float(v):.1f}%"


def _fmt(v: object) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return "–"
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


# The audit's columns in two tables that each fit the 1,100 px page (one table of 16 columns did not).
_AUDIT_PARTS: tuple[tuple[str, ...], ...] = (
    ("leads", "caller_faults", "config_faults", "service_faults", "assessed", "success_pct", "spoof_pct",
     "negative_pct", "phone_ok_pct"),
    ("assessed", "no_match_pct", "address_invalid_pct", "address_matched_pct", "street_unchecked_pct",
     "caller_fault_pct", "config_fault_pct"),
)


def _audit_part(audit: pd.DataFrame, columns: Sequence[str]) -> str:
    """One of the audit's tables: the source, then `columns` (those the audit has, and any new ones last)."""
    shown = [c for c in columns if c in audit.columns]
    if columns is _AUDIT_PARTS[-1]:
        placed = {c for part in _AUDIT_PARTS for c in part}
        shown += [str(c) for c in audit.columns if c != "source" and str(c) not in placed]
    part = audit[["source", *shown]]
    return _table(part, ("source",), points_columns=[c for c in shown if c.endswith("_pct")],
                  headers={c: _audit_header(c) for c in shown}, titles=dict(AUDIT_COLUMNS), wide=True,
                  unchecked=("phone_ok_pct",))


def _audit_header(column: str) -> str:
    """`caller_fault_pct` -> `caller fault %`: words that wrap, so the audit's columns fit a 1,100 px page."""
    words = column.replace("_pct", " %").replace("_", " ")
    return {"phone ok %": "valid phone %"}.get(words, words)


def result_code_summary(results: pd.DataFrame, prefix: str | None = None) -> pd.DataFrame:
    """Leads per result code, in the seed's order, with meaning, outcome class and share; codes with no lead
    are left out; rows with no answer at all come last."""
    prefix = plots.result_prefix(results) if prefix is None else prefix
    code = plots.as_text(plots.result_column(results, prefix, "result_code"))
    counts = code.value_counts()
    total = len(code)
    rows = []
    for c, rc in codes.RESULT_CODES.items():
        n = int(counts.get(c, 0))
        if n:
            rows.append({"code": c, "meaning": rc.condition, "outcome": rc.outcome.value, "leads": n,
                         "share": n / total})
    for c in sorted(set(counts.index) - set(codes.RESULT_CODES) - {""}):
        n = int(counts[c])
        rows.append({"code": c, "meaning": "unknown code", "outcome": "", "leads": n, "share": n / total})
    none = int(counts.get("", 0))
    if none:
        rows.append({"code": "–", "meaning": "no answer (transport or service error)",
                     "outcome": plots.NOT_PROCESSED, "leads": none, "share": none / total})
    return pd.DataFrame(rows, columns=["code", "meaning", "outcome", "leads", "share"])


def _figure(fig: go.Figure, i: int) -> str:
    """A figure's place and its JSON (data, layout, config), drawn by `_LOADER`. `<` is written `\\u003c` so no
    text from the data can close the script element."""
    import json

    if fig.layout.height is None:
        fig.update_layout(height=430)
    spec = json.loads(fig.to_json())
    spec["config"] = _FIG_CONFIG
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    name = f"dq-figure-{i}"
    return (f'<div class="figure"><div id="{name}" class="dq-plot" style="height:{int(fig.layout.height)}px">'
            f'</div><script type="application/json" id="{name}-spec">{text}</script></div>')


@functools.cache
def _packed_plotly() -> str:
    """The bundle, gzip-compressed (no timestamp: the same bytes every time) and base64-encoded."""
    return base64.b64encode(gzip.compress(PLOTLY_BUNDLE.read_bytes(), compresslevel=9, mtime=0)).decode("ascii")


def _fields_worth_showing(comparison: Comparison) -> pd.DataFrame:
    """The key field and every field that differs somewhere, then one line for the fields that agree on every row."""
    f = comparison.fields
    shown = f[(f["field"] == comparison.key) | (f["differ"] > 0)]
    rest = len(f) - len(shown)
    if rest:
        shown = pd.concat([shown, pd.DataFrame([{"field": f"{rest} other fields, agreeing on every row",
                                                  "answered": "", "agree": "", "differ": 0, "agree_pct": 100.0}])])
    return shown


def _extra_sections(results: pd.DataFrame, prefix: str, comparison: Comparison | None, drift: Drift | None,
                    figures_before: int, price: float | None = None) -> list[str]:
    """The optional sections: pre-screen savings, a shadow run, drift over the recorded runs."""
    from dqkit.notebook.prescreen import summary_of

    out: list[str] = []
    screened = summary_of(results, prefix=prefix, price=price)
    if screened is not None:
        facts = pd.DataFrame([{"leads": screened.leads, "settled locally": screened.settled,
                               "skipped by policy": screened.skipped, "answered by the service": screened.answered,
                               "no answer (not billed)": screened.no_answer}])
        money = ""
        if screened.price is not None and screened.money_spent is not None:
            money = (f" At {screened.price:g} a call: {screened.money_spent:,.2f} spent on the {screened.calls:,} "
                     f"calls of this run, {screened.money_saved:,.2f} saved.")
        out.append("<h2>Pre-screen</h2>" + '<p class="note">Leads whose whole answer the vendor\'s own rules give '
                   "from the input alone (codes "
                   f"<code>{html.escape(','.join(screened.settled_codes))}</code>) were answered locally and never "
                   "sent; leads skipped by policy were not sent and have no answer; each row says where its answer "
                   f"came from in <code>{html.escape(prefix)}answered_by</code>.{html.escape(money)}</p>"
                   + _table(facts))
    n = figures_before
    if comparison is not None:
        n += 1
        a, b = (html.escape(x) for x in comparison.names)
        raw_a, raw_b = comparison.names
        confusion = comparison.confusion.reset_index()
        confusion = confusion.rename(columns={confusion.columns[0]: f"{raw_a} (rows) / {raw_b} (columns)"})
        confusion.columns = [str(c) for c in confusion.columns]
        out.append(f"<h2>Shadow run: {a} against {b}</h2>"
                   + f'<p class="note">{comparison.rows:,} rows; {html.escape(comparison.key)} agrees on '
                   f"{comparison.agreement:.1%}; {len(comparison.disagreements):,} rows differ in some field. "
                   "Values compared as text, case and spacing ignored.</p>"
                   + _table(_fields_worth_showing(comparison), ("field",))
                   + _table(confusion, (confusion.columns[0],))
                   + _figure(comparison.heatmap(), n))
    if drift is not None and drift.table.empty:
        out.append("<h2>Drift over recorded runs</h2>" + '<p class="note">No runs are recorded in this history '
                   "store yet: record runs with <code>dqkit verify --history</code>.</p>")
    elif drift is not None:
        flagged = drift.flagged
        label = {g: drift.group_label(g) for g in dict.fromkeys(drift.table["group"])}
        shown = flagged.assign(group=flagged["group"].map(label),
                               baseline_pct=(flagged["baseline_rate"] * 100).round(1),
                               pct=(flagged["rate"] * 100).round(1),
                               at=flagged["at"].astype(str).str[:10])[
            ["run", "at", "group", "source", "metric", "baseline_runs", "baseline_pct", "pct", "total", "flag",
             "q_value"]]
        # The groups with more than one run, the latest first; at most four charts.
        last = drift.table.groupby("group", sort=False)["run"].agg(["max", "nunique"])
        charted = [str(g) for g in last[last["nunique"] > 1].sort_values("max", ascending=False).index[:4]]
        charts = []
        for g in charted:
            n += 1
            charts.append(_figure(drift.figure(group=g), n))
        out.append("<h2>Drift over recorded runs</h2>"
                   + f'<p class="note">Runs are grouped by what they measured (the input\'s columns and the backend '
                   f"that answered): {len(label)} group{'s' if len(label) != 1 else ''}. Each new run is tested, per "
                   f"lead source and rate, against its group's previous {drift.window} runs (a change from their "
                   "pooled rate, and a trend over them), with the false discovery rate controlled at "
                   f"{drift.alpha:g} across that run's tests (Benjamini-Hochberg): {drift.tests} tests, "
                   f"{len(shown)} flagged. A flag never changes as runs are added.</p>"
                   + (_table(shown, ("group", "source", "metric", "baseline_runs", "flag", "at")) if len(shown)
                      else "")
                   + "".join(charts))
    return out


def build_report(
    results: pd.DataFrame,
    *,
    title: str = "Lead quality report",
    source: str = "",
    backend: str = "",
    by: str | None = None,
    prefix: str | None = None,
    generated: dt.datetime | None = None,
    comparison: Comparison | None = None,
    drift: Drift | None = None,
    price: float | None = None,
) -> str:
    """The HTML text of the report of `results` (a frame returned by `df.leads.verify()` or `dqkit verify`;
    `prefix` of its result columns found when not given)."""
    if prefix is None:
        prefix = plots.result_prefix(results)
    elif f"{prefix}result_code" not in results.columns:
        raise InputError(f"no {prefix}result_code column: pass the frame returned by df.leads.verify() "
                         "(or the output of dqkit verify)")
    when = (generated or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    n = len(results)
    source_col = plots.source_column(results, by, prefix)
    sections: list[str] = []

    summary = result_code_summary(results, prefix)
    sections.append("<h2>Result codes</h2>" + _table(summary, ("code", "meaning", "outcome"),
                                                     percent_columns=("share",)))
    from dqkit.report.spoof_reasons import spoof_reasons

    reasons = spoof_reasons(results, prefix)
    if len(reasons):
        sections.append("<h2>Why leads were flagged E100</h2>" + '<p class="note">Per rule: the leads it flagged, '
                        f"one example and its reason (every row's is in <code>{html.escape(prefix)}spoof_why</code>)."
                        "</p>" + _table(reasons, ("rule", "example", "why")))

    audit = plots.audit_table(results, by=by, prefix=prefix).reset_index()
    legend = "".join(f"<li><b>{html.escape(_audit_header(k))}</b>: {html.escape(v)}</li>"
                     for k, v in AUDIT_COLUMNS.items())
    sections.append(
        "<h2>Audit by lead source</h2>"
        + f'<p class="note">Lead source column: <code>{html.escape(source_col or "none found")}</code>. Rates are '
        "taken over the assessed leads, leaving out caller, configuration and service faults, which are counted "
        "apart. Hover over a header for its definition.</p>"
        + "".join(_audit_part(audit, part) for part in _AUDIT_PARTS)
        + f'<ul class="note">{legend}</ul>'
    )

    figures: list[go.Figure] = [plots.result_codes(results, prefix=prefix),
                                plots.by_source(results, by=by, prefix=prefix)]
    if plots.as_text(plots.stage_column(results, prefix, "score_result")).ne("").any():
        figures.append(plots.score_results(results, prefix=prefix))
    if plots.as_text(plots.stage_column(results, prefix, "phone_status")).ne("").any():
        figures.append(plots.phone_status(results, prefix=prefix))
    if f"{prefix}std_error_status" in results.columns:
        figures.append(plots.address_error_status(results, prefix=prefix))
    if f"{plots.ADDRESS_PREFIX}confidence" in results.columns:
        figures.append(plots.address_confidence(results))
    sections.append("<h2>Figures</h2>" + "\n".join(_figure(f, i) for i, f in enumerate(figures, 1)))
    sections += _extra_sections(results, prefix, comparison, drift, len(figures), price)

    meta = [f"{n:,} leads" + (f" from <code>{html.escape(source)}</code>" if source else "")]
    if backend:
        meta.append(f"verified by <code>{html.escape(backend)}</code>")
    meta.append(_reference_line(results, prefix))
    skipped, why = left_out(results.attrs)  # a CRM report's footer, header block, blank rows: not leads
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{"; ".join(meta)}. Made with dqkit {html.escape(__version__)}.</p>',
        *([f'<p class="note skipped">{skipped:,} row{"s" if skipped != 1 else ""} of the input file '
           f'{"were" if skipped != 1 else "was"} not leads and left out: {html.escape(why)}.</p>'] if skipped else []),
        f"{GENERATED_MARK}Generated {when}.</p>",
        *sections,
        '<noscript><p class="note">The figures need JavaScript.</p></noscript>',
        f'<script type="application/octet-stream" id="dq-plotly">{_packed_plotly()}</script>',
        f"<script>\n{_LOADER}\n</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(lines) + "\n"


def _reference_line(results: pd.DataFrame, prefix: str) -> str:
    """Which address reference the street checks used, and its date, from the results' reference columns."""
    from dqkit.engines.address.provenance import OPEN_ONLY_ID

    col = f"{prefix}reference"
    if col not in results.columns:
        return "address reference not recorded in these results"
    dates = (plots.as_text(results[f"{prefix}reference_date"]) if f"{prefix}reference_date" in results.columns
             else pd.Series("", index=results.index))
    pairs = sorted({(i, d) for i, d in zip(plots.as_text(results[col]), dates, strict=True) if i})
    if not pairs:
        return "address reference not recorded in these results"
    named = []
    for ref, date in pairs:
        if ref == OPEN_ONLY_ID:
            named.append("none installed (streets not checked, only ZIP / city / state)")
        else:
            named.append(f"<code>{html.escape(ref)}</code>" + (f" of {html.escape(date)}" if date else ""))
    return "address reference: " + ", ".join(named)


def write_report(
    results: pd.DataFrame,
    path: str | Path,
    *,
    title: str = "Lead quality report",
    source: str = "",
    backend: str = "",
    by: str | None = None,
    prefix: str | None = None,
    generated: dt.datetime | None = None,
    comparison: Comparison | None = None,
    drift: Drift | None = None,
    price: float | None = None,
) -> Path:
    """Write the report of `results` (see `build_report`) to `path` as UTF-8; returns the path."""
    out = Path(path)
    text = build_report(results, title=title, source=source, backend=backend, by=by, prefix=prefix,
                        generated=generated, comparison=comparison, drift=drift, price=price)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text(out, text)  # a temporary file renamed over `out`: a failed write leaves the old report whole
    return out
