"""Every notebook of `notebooks/`, opened and run in JupyterLab in a real browser (Debian's Chromium through
Playwright), as a newcomer runs them: the test fails on any error output, on a traceback in stderr, and on an
embedded frame that shows a 404 page. It saves a screenshot of every cell that shows something, and of the HTML
report, under `artifacts/notebooks/` for a person to look at.

The report is also checked for its page width: the audit table must fit the 1,100 px page (no fault-rate column
hidden behind a scroll bar).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_server import Lab, jupyter_lab

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
ARTIFACTS = REPO / "artifacts" / "notebooks"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ORDER = ("lead_audit.ipynb", "address_validation.ipynb", "report.ipynb", "address_entry.ipynb",
         "vendor_savings.ipynb")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's Chromium at /usr/bin/chromium (run .ci/install-browser.sh as root)"),
]


def test_every_notebook_is_run_in_the_set_order() -> None:
    assert sorted(ORDER) == sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    with tempfile.TemporaryDirectory(prefix="dqkit-lab-nb-") as d, jupyter_lab(Path(d), start_timeout=90) as lab:
        for name in ORDER:
            shutil.copy2(NOTEBOOKS / name, lab.root / name)
        yield lab


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, timeout=30_000)
        try:
            yield b
        finally:
            b.close()


def _run_all(page: Any, expect: Any, lab: Lab, name: str) -> None:
    page.goto(lab.page(f"lab/tree/{name}"), wait_until="domcontentloaded", timeout=90_000)
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    expect(cells.first).to_be_visible(timeout=90_000)
    expect(page.get_by_role("button", name=re.compile(r"\| Idle$")).first).to_be_visible(timeout=90_000)
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
    # Done when every code cell has a number in its prompt and none shows [*] (bounded).
    deadline = time.monotonic() + 300
    prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt")
    while True:
        texts = [t.strip() for t in prompts.all_inner_texts()]
        if texts and all(re.fullmatch(r"\[\d+\]:", t) for t in texts):
            break
        assert time.monotonic() < deadline, f"{name}: cells still running: {texts}"
        time.sleep(1)
    expect(page.get_by_role("button", name=re.compile(r"\| Idle$")).first).to_be_visible(timeout=120_000)
    page.wait_for_timeout(1500)  # plotly and the widgets finish drawing


def _problems(page: Any, name: str) -> list[str]:
    found = []
    for err in page.locator("[data-mime-type='application/vnd.jupyter.error']").all():
        found.append(f"{name}: error output: {err.inner_text()[:2000]}")
    for out in page.locator("[data-mime-type='application/vnd.jupyter.stderr']").all():
        text = out.inner_text()
        if re.search(r"Traceback|Error\b|Exception\b", text):
            found.append(f"{name}: stderr: {text[:2000]}")
    for i, frame_el in enumerate(page.locator(".jp-OutputArea iframe").all()):
        frame = frame_el.element_handle().content_frame()
        if frame is None:
            found.append(f"{name}: iframe {i} has no document")
            continue
        frame.wait_for_load_state("load", timeout=60_000)
        body = frame.locator("body").inner_text(timeout=30_000)
        if "404" in (frame.title() or "") or re.search(r"404\s*:\s*Not Found", body):
            found.append(f"{name}: iframe {i} shows a 404 page: {frame_el.get_attribute('src')}")
        elif not body.strip():
            found.append(f"{name}: iframe {i} is empty: {frame_el.get_attribute('src')}")
    return found


def _screenshots(page: Any, name: str) -> int:
    folder = ARTIFACTS / name.removesuffix(".ipynb")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shot = 0
    for i, cell in enumerate(page.locator(".jp-NotebookPanel .jp-CodeCell").all()):
        outputs = cell.locator(".jp-OutputArea-output")
        if not outputs.count():
            continue
        cell.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        cell.screenshot(path=str(folder / f"cell-{i:02d}.png"))
        shot += 1
    return shot


@pytest.mark.parametrize("name", ORDER)
def test_the_notebook_runs_in_jupyterlab_without_errors(lab: Lab, browser: Any, name: str) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 2400})  # tall: a cell fits one screenshot
    page.set_default_timeout(60_000)
    console: list[str] = []
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    try:
        _run_all(page, expect, lab, name)
        problems = _problems(page, name)
        assert _screenshots(page, name) >= 2
        if name == "address_entry.ipynb":
            banner = page.locator(".dqkit-ac__notice").first
            expect(banner).to_be_visible()
            expect(banner).to_contain_text("synthetic")
        assert not problems, "\n".join(problems)
        assert not console, console
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name.removesuffix('.ipynb')}-failure.png"))
        (ARTIFACTS / f"{name.removesuffix('.ipynb')}-failure-jupyterlab.log").write_text(lab.log_tail(20_000))
        raise
    finally:
        # Leave the kernel's result to the next notebook (report.ipynb reads the file lead_audit's cache made).
        page.close()


def test_the_report_fits_its_page_and_prints(browser: Any, tmp_path: Path) -> None:
    import pandas as pd

    import dqkit.notebook  # noqa: F401
    from dqkit._resources import data_file
    from dqkit.report import write_report

    leads = pd.read_csv(data_file("sample_leads.csv"), dtype=str, keep_default_na=False).head(2000)
    leads.loc[leads.index[:3], "PARTNER_ID"] = '<a href="https://evil.example/">click me</a>'
    results = leads.leads.verify(cache=False, progress=False)
    path = write_report(results, tmp_path / "report.html", title="Sample leads, quarterly audit")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_timeout(1500)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
        tables = page.locator("table.wide")
        assert tables.count() == 2  # the audit, in two tables that each fit the page
        for i in range(tables.count()):
            tables.nth(i).screenshot(path=str(ARTIFACTS / f"report_audit_table_{i + 1}.png"))
        fits = page.evaluate("""() => [...document.querySelectorAll('table.wide')].map(t =>
            ({table: t.scrollWidth, box: t.parentElement.clientWidth, body: document.body.clientWidth}))""")
        assert all(f["table"] <= f["box"] for f in fits), f"an audit table is wider than its page: {fits}"
        # No link in any chart: the PARTNER_ID with a link shows as text.
        assert page.locator(".js-plotly-plot a[href*='evil.example']").count() == 0
        assert page.locator(".js-plotly-plot").count() >= 4
        page.emulate_media(media="print")
        fits = page.evaluate("""() => [...document.querySelectorAll('table.wide')].map(t =>
            ({table: t.scrollWidth, box: t.parentElement.clientWidth}))""")
        assert all(f["table"] <= f["box"] for f in fits), f"an audit table does not fit the printed page: {fits}"
        page.pdf(path=str(ARTIFACTS / "report.pdf"), format="A4")
    finally:
        page.close()
