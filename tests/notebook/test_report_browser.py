"""The HTML report in Debian's Chromium (the one the widget tests use), offline: every figure is drawn from the
report file alone, no request leaves it, no script error."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from tests.notebook.test_plots import LEADS

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's Chromium at /usr/bin/chromium (run .ci/install-browser.sh as root)"),
]


def _report(tmp_path: Path) -> Path:
    """A report with every kind of figure: bars, the SCORE_RESULT heatmap, a shadow run's heatmap, drift lines."""
    from dqkit.backends.local import LocalBackend
    from dqkit.engines.lead.engine import LeadProfile
    from dqkit.notebook.compare import compare_results, results_of
    from dqkit.notebook.drift import drift
    from dqkit.notebook.history import record_run
    from dqkit.report import write_report

    results = LEADS.leads.verify(cache=False, progress=False)
    scored = LEADS.leads.verify(backend=LocalBackend(profile=LeadProfile(stage1="score")), cache=False,
                                progress=False)
    store = tmp_path / "h.sqlite"
    start = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    for i in range(4):
        run = scored.assign(lead_result_code=np.where(np.arange(len(scored)) < i, "E100", scored["lead_result_code"]))
        record_run(run, store, label="leads.csv", at=start + dt.timedelta(days=7 * i))
    comparison = compare_results(results_of(results, "lead"), results_of(scored, "lead"), kind="lead",
                                 names=("a.csv", "b.csv"))
    out = tmp_path / "report.html"
    write_report(scored, out, comparison=comparison, drift=drift(store))
    return out


def test_the_report_draws_every_figure_offline(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    out = _report(tmp_path)
    text = out.read_text(encoding="utf-8")
    figures = text.count('class="dq-plot"')
    assert figures >= 5
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            outside: list[str] = []
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

            def only_the_file(route: object) -> None:
                url = route.request.url  # type: ignore[attr-defined]
                if url.startswith("file:"):
                    route.continue_()  # type: ignore[attr-defined]
                else:
                    outside.append(url)
                    route.abort()  # type: ignore[attr-defined]

            page.route("**/*", only_the_file)
            page.goto(out.as_uri())
            page.wait_for_function("document.body.dataset.figures", timeout=60_000)
            state = page.evaluate("document.body.dataset.figures")
            assert state == "drawn", page.locator("div.dq-plot").first.inner_text()
            assert page.locator("div.dq-plot .main-svg").count() >= figures
            drawn = page.evaluate("""() => Array.from(document.querySelectorAll('div.dq-plot')).map(
                (d) => d._fullData ? d._fullData.map((t) => t.type) : [])""")
            assert all(drawn), drawn
            kinds = {k for f in drawn for k in f}
            assert {"bar", "heatmap", "scatter"} <= kinds, kinds
            assert page.locator("div.dq-plot .heatmaplayer image, div.dq-plot .hm image").count() >= 1
            assert not outside and not errors, (outside, errors)
        finally:
            browser.close()
