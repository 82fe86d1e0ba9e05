"""LeadAuditDashboard: the lead-audit plots of `dqkit.plots` for one verified frame, with a lead-source picker.

An analyst auditing leads asks "how is *this* source doing?" again and again; the picker answers it without
re-running anything: the frame is verified once, and picking a source filters it and redraws every plot and the
audit row. The comparison across sources stays on screen as the reference.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any, Final

import ipywidgets
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from dqkit import plots
from dqkit.contract.errors import InputError
from dqkit.notebook.leads import AUDIT_COLUMNS

ALL: Final = "(all)"
NONE: Final = "(none)"

PlotFn = Callable[..., go.Figure]
DEFAULT_PLOTS: Final[tuple[PlotFn, ...]] = (
    plots.result_codes,
    plots.score_results,
    plots.phone_status,
    plots.address_error_status,
)


# The result column each default plot draws; a plot whose column no lead of the frame fills (SCORE_RESULT under
# the default profile, PHONE_STATUS under the score profile) is left out instead of shown as an empty panel.
_PLOT_COLUMN: Final[dict[PlotFn, str]] = {
    plots.score_results: "score_result",
    plots.phone_status: "phone_status",
    plots.address_error_status: "std_error_status",
}

# Numbers right-aligned under right-aligned headers; the source column on the left.
_AUDIT_CSS: Final = (
    "<style>"
    "table.dqkit-audit{border-collapse:collapse;font-size:12px;margin:4px 0}"
    "table.dqkit-audit th,table.dqkit-audit td{padding:2px 8px;text-align:right;vertical-align:bottom;"
    "border-bottom:1px solid #e0e0e0}"
    "table.dqkit-audit thead th{font-weight:600;white-space:normal;max-width:7em}"
    "table.dqkit-audit tbody th{text-align:left;font-weight:600}"
    "table.dqkit-audit thead th:first-child{text-align:left}"
    "</style>"
)


def has_data(fn: PlotFn, df: pd.DataFrame, prefix: str) -> bool:
    """Whether `fn` has anything to draw for the leads of `df` (plots not in `_PLOT_COLUMN` always do)."""
    column = _PLOT_COLUMN.get(fn)
    if column is None:
        return True
    name = f"{prefix}{column}"
    return name in df.columns and bool(plots.as_text(df[name]).ne("").any())


def _pct(v: Any) -> str:
    return "–" if pd.isna(v) else f"{float(v):.1f}%"


def _cell(column: str, v: Any) -> str:
    """A count, or a rate; the valid-phone rate of leads no phone check was made for reads "not checked"."""
    if not column.endswith("_pct"):
        return str(int(v))
    if column == "phone_ok_pct" and pd.isna(v):
        return "not checked"
    return _pct(v)


def audit_html(table: pd.DataFrame) -> str:
    """The audit table as a compact HTML table: counts as integers, percentages with their sign, headers
    explained."""
    cols = list(table.columns)
    head = "".join(
        f'<th title="{html.escape(AUDIT_COLUMNS.get(c, c))}">{html.escape(c.replace("_", " "))}</th>'
        for c in cols)
    rows = []
    for source, row in table.iterrows():
        cells = "".join(f"<td>{_cell(c, row[c])}</td>" for c in cols)
        rows.append(f"<tr><th>{html.escape(str(source))}</th>{cells}</tr>")
    return (f'{_AUDIT_CSS}<table class="dqkit-audit"><thead><tr><th>source</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


class LeadAuditDashboard(ipywidgets.VBox):  # type: ignore[misc]
    """Plots of a frame returned by `df.leads.verify()`, for all leads or one lead source at a time.

    `by` names the source column (default: the column mapped to PARTNER_ID, as in `dqkit.plots`); `figures` are
    the plot functions shown, each taking `(frame, prefix=..., title=...)`; a plot of a result column that no lead
    of the frame fills (SCORE_RESULT under the default profile) is left out. `.source` is the picked source (or
    "(all)"), `.frame()` the rows it selects.
    """

    def __init__(self, df: pd.DataFrame, *, by: str | None = None, prefix: str = plots.LEAD_PREFIX,
                 figures: Sequence[PlotFn] = DEFAULT_PLOTS, **kwargs: Any) -> None:
        if not isinstance(df, pd.DataFrame):
            raise InputError(f"LeadAuditDashboard needs a pandas DataFrame, not {type(df).__name__}")
        plots.result_column(df, prefix, "outcome")  # a verified frame? (clear InputError if not)
        self._df = df
        self._prefix = prefix
        self._plots = tuple(fn for fn in figures if has_data(fn, df, prefix))
        self._by = plots.source_column(df, by, prefix)
        self._sources = (plots.as_text(df[self._by]).replace("", NONE) if self._by is not None
                         else pd.Series(ALL, index=df.index, dtype=object))
        counts = self._sources.value_counts()
        options = [(f"All sources ({len(df)} leads)", ALL)]
        if self._by is not None:
            options += [(f"{s} ({int(counts[s])} leads)", s) for s in sorted(counts.index)]
        self.picker = ipywidgets.Dropdown(options=options, value=ALL, description="Lead source",
                                          style={"description_width": "initial"})
        self.summary = ipywidgets.HTML()
        self.compare = ipywidgets.Output(layout=ipywidgets.Layout(width="100%"))
        self.compare.outputs = (_figure_output(plots.by_source(df, by=self._by, prefix=prefix)),)
        self.plots = ipywidgets.Output(layout=ipywidgets.Layout(width="100%"))
        self.picker.observe(lambda _change: self._redraw(), "value")
        header = ipywidgets.HTML(
            f"<b>Lead audit</b>: {len(df)} leads"
            + (f", source column <code>{html.escape(self._by)}</code>" if self._by else ", no source column"))
        super().__init__([header, self.picker, self.summary, self.plots, self.compare], **kwargs)
        self._redraw()

    @property
    def source(self) -> str:
        return str(self.picker.value)

    def frame(self) -> pd.DataFrame:
        """The verified rows of the picked source."""
        if self.source == ALL:
            return self._df
        return self._df[self._sources == self.source]

    def figures_for(self, frame: pd.DataFrame) -> list[go.Figure]:
        suffix = "" if self.source == ALL else f" — {plots.label(self.source)}"
        return [fn(frame, prefix=self._prefix, title=_title(fn) + suffix) for fn in self._plots]

    def _redraw(self) -> None:
        frame = self.frame()
        table = plots.audit_table(frame, by=self._by, prefix=self._prefix)
        self.summary.value = audit_html(table)
        self.plots.outputs = tuple(_figure_output(f) for f in self.figures_for(frame))


def _title(fn: PlotFn) -> str:
    default = (fn.__kwdefaults__ or {}).get("title")
    return str(default) if default else fn.__name__.replace("_", " ")


def _figure_output(fig: go.Figure) -> dict[str, Any]:
    """An Output-widget entry showing `fig` through plotly's mime type (rendered by the jupyterlab-plotly
    extension that plotly ships). Not a FigureWidget: each of those carries plotly.js (5 MB) over the comm."""
    if fig.layout.height is None:  # plots with one row per code set the height their labels need
        fig.update_layout(height=380)
    bundle = dict(pio.renderers["plotly_mimetype"].to_mimebundle(fig.to_dict()))
    title = fig.layout.title.text or "figure"
    bundle["text/plain"] = f"<plotly figure: {title}>"
    return {"output_type": "display_data", "data": bundle, "metadata": {}}
