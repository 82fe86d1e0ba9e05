"""The address autocomplete in a real browser: JupyterLab + Debian's Chromium driven by Playwright.

The test starts JupyterLab on 127.0.0.1 with a notebook that shows `AddressAutocomplete("demo")` on the local engine
(demo reference), runs it, types part of an address, sees suggestions, picks one with the keyboard, and checks in
the kernel (an observer of `.value` writes it to a file; a second cell prints it) that `.value` holds the formatted
address. It measures keystroke-to-suggestions-painted latency over a typed address (reported, not asserted), and
saves screenshots and `widget_latency.json` under `artifacts/`.

`.ci/install-browser.sh` installs /usr/bin/chromium; Playwright's own browser download is never used.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from lab_server import Lab, jupyter_lab, write_notebook

if TYPE_CHECKING:
    from dqkit.contract.address import Suggestion

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TYPE_DELAY_MS = 120  # a brisk typist: about 100 words per minute

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(170),
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's Chromium at /usr/bin/chromium (run .ci/install-browser.sh as root)"),
]


@dataclass(frozen=True)
class Target:
    """What to type, which suggestion to pick, and the address the kernel must end up holding."""

    prefix: str  # typed first: must list the target among several suggestions
    full: str  # typed for the latency measurement
    text: str  # the suggestion to pick
    key: str
    address: dict[str, str]


def choose_target() -> Target:
    """The second suggestion for a two-word prefix of a demo address (so picking it takes two arrow presses),
    when it is a final address that its own full text also finds; found with the same local backend the notebook
    uses."""
    import msgspec

    from dqkit.backends.local import LocalBackend
    from dqkit.contract.address import SearchRequest

    backend = LocalBackend(reference="demo")

    def search(text: str) -> list[Suggestion]:
        return backend.search(SearchRequest.of(text, "USA")).result.suggestions

    for start in ("10", "12", "20", "100"):
        for seed in search(start):
            prefix = " ".join(seed.text.split()[:2])
            listed = search(prefix)
            if len(listed) < 2 or not listed[1].is_final:
                continue
            pick = listed[1]
            if pick.global_address_key not in {s.global_address_key for s in search(pick.text)}:
                continue
            fmt = backend.format(pick.global_address_key).result
            return Target(prefix=prefix, full=pick.text, text=pick.text, key=pick.global_address_key,
                          address=msgspec.to_builtins(fmt.address))
    pytest.fail("the demo reference has no two-word prefix listing several final addresses")


@dataclass(frozen=True)
class GroupTarget:
    """A building with units: typed, picked (the widget lists its units), then refined by a unit number."""

    query: str
    text: str
    units: int
    refinement: str
    unit_text: str
    address: dict[str, str]


def choose_group_target() -> GroupTarget:
    import msgspec

    from dqkit.backends.local import LocalBackend
    from dqkit.contract.address import SearchRequest

    backend = LocalBackend(reference="demo")
    for start in ("12 ", "1000", "1 ", "100", "2"):
        for s in backend.search(SearchRequest.of(start, "USA", max_suggestions=25)).result.suggestions:
            if s.is_final or s.attribute("multiples") != "true" or s.attribute("unresolvable_range") == "true":
                continue
            query = " ".join(s.text.split(",")[0].split()[:4])
            if s.global_address_key not in {x.global_address_key for x in
                                            backend.search(SearchRequest.of(query, "USA")).result.suggestions}:
                continue
            units = backend.step_in(s.global_address_key).result.suggestions
            if len(units) < 2 or not units[1].is_final:
                continue
            refinement = units[1].text.split(",")[0].split()[-1]
            refined = backend.refine(s.global_address_key, refinement).result.suggestions
            if [u.global_address_key for u in refined] != [units[1].global_address_key]:
                continue
            fmt = backend.format(units[1].global_address_key).result
            return GroupTarget(query=query, text=s.text, units=len(units), refinement=refinement,
                               unit_text=units[1].text, address=msgspec.to_builtins(fmt.address))
    pytest.fail("the demo reference has no building with units to refine")


NOTEBOOK_CELLS = [
    # Cell 0: the widget, with an observer that writes `.value` to a file the test reads.
    """import json, os, pathlib
from dqkit.widgets import AddressAutocomplete
pathlib.Path({pidfile!r}).write_text(str(os.getpid()))
OUT = pathlib.Path({outfile!r})
w = AddressAutocomplete("demo")  # the synthetic demo reference, asked for
w.observe(lambda change: OUT.write_text(json.dumps(change["new"], sort_keys=True)), "value")
w""",
    # Cell 1: read `.value` back in the kernel.
    """print("VALUE=" + json.dumps(w.value, sort_keys=True))""",
    # Cell 2: the baseline: a bare anywidget that echoes a message from the browser, painting nothing but a frame.
    # Its round trip is the floor of any widget's keystroke latency on this machine (server, websocket, kernel).
    """import anywidget

class Echo(anywidget.AnyWidget):
    _esm = '''
export default { render({ model, el }) {
  const b = document.createElement("button");
  b.textContent = "echo"; b.className = "dqkit-echo"; el.append(b);
  window.__dqkitEcho = [];
  model.on("msg:custom", (m) => {
    const answered = performance.now();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => window.__dqkitEcho.push([answered - m.t, performance.now() - m.t]);
      ch.port2.postMessage(0);
    });
  });
  b.addEventListener("click", async () => {
    for (let i = 0; i < %d; i++) {
      model.send({ t: performance.now() });
      await new Promise((r) => setTimeout(r, %d));
    }
  });
} };'''

    def __init__(self) -> None:
        super().__init__()
        self.on_msg(lambda widget, content, buffers: self.send(content))

Echo()""",
]
ECHO_ROUNDS = 30

PAINT_PROBE = """() => {
  window.__dqkitPaints = [];
  if (!window.__dqkitProbe) {
    window.__dqkitProbe = true;
    document.addEventListener('dqkit-painted', (e) => window.__dqkitPaints.push(e.detail));
  }
}"""


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (no interpolation: every figure reported is one that was measured)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-q * len(s) // 100)) - 1))
    return s[k]


@pytest.fixture
def lab() -> Iterator[tuple[Lab, Path]]:
    with tempfile.TemporaryDirectory(prefix="dqkit-lab-") as d:
        tmp = Path(d)
        with jupyter_lab(tmp) as lab:
            try:
                yield lab, tmp
            finally:
                _kill_kernel(tmp / "kernel.pid")


def _kill_kernel(pidfile: Path) -> None:
    """The server shuts its kernels down; this makes sure of it for the one kernel this test started."""
    try:
        pid = int(pidfile.read_text())
    except (OSError, ValueError):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        time.sleep(0.5)


def test_type_pick_and_read_value_in_the_kernel(lab: tuple[Lab, Path]) -> None:
    from playwright.sync_api import expect, sync_playwright

    server, tmp = lab
    target, group = choose_target(), choose_group_target()
    outfile, pidfile = tmp / "value.json", tmp / "kernel.pid"
    cells = [NOTEBOOK_CELLS[0].format(pidfile=str(pidfile), outfile=str(outfile)), NOTEBOOK_CELLS[1],
             NOTEBOOK_CELLS[2] % (ECHO_ROUNDS, TYPE_DELAY_MS)]
    write_notebook(server.root / "widget.ipynb", cells)
    ARTIFACTS.mkdir(exist_ok=True)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                    timeout=30_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            console: list[str] = []
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            try:
                _drive(page, expect, server, target, outfile)
                _refine_unit(page, expect, group, outfile)
                _measure_echo(page, expect)
                errors = [c for c in console if c.startswith("pageerror")]
                assert not errors, errors
            except Exception:
                page.screenshot(path=str(ARTIFACTS / "widget_failure.png"))
                (ARTIFACTS / "widget_failure_console.txt").write_text("\n".join(console[-200:]))
                (ARTIFACTS / "widget_failure_jupyterlab.log").write_text(server.log_tail(20_000))
                raise
        finally:
            browser.close()


def _drive(page: Any, expect: Any, server: Lab, target: Target, outfile: Path) -> None:
    page.goto(server.page("lab/tree/widget.ipynb"), wait_until="domcontentloaded", timeout=60_000)
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    expect(cells.first).to_be_visible(timeout=60_000)
    # The status bar says Idle only once the kernel's websocket is connected; a cell run before that is lost.
    expect(page.get_by_role("button", name=re.compile(r"\| Idle$")).first).to_be_visible(timeout=60_000)

    # Run the widget cell.
    _run_cell(page, cells.nth(0))
    combo = page.locator(".dqkit-ac input[role='combobox']")
    expect(combo).to_be_visible(timeout=60_000)
    listbox = page.locator(".dqkit-ac [role='listbox']")
    expect(combo).to_have_attribute("aria-expanded", "false")
    expect(combo).to_have_attribute("aria-autocomplete", "list")
    expect(page.locator(".dqkit-ac [role='status'][aria-live='polite']")).to_be_attached()

    # Warm-up keystrokes (first comm round trip, engine already opened by the widget), then clear the box.
    combo.click()
    combo.press_sequentially(target.prefix, delay=TYPE_DELAY_MS)
    expect(listbox).to_be_visible(timeout=30_000)
    combo.press("Escape")
    expect(listbox).to_be_hidden()
    combo.press("Escape")
    expect(combo).to_have_value("")

    # Measured: type the whole address, one keystroke at a time, recording each keystroke's paint.
    page.evaluate(PAINT_PROBE)
    combo.press_sequentially(target.full, delay=TYPE_DELAY_MS)
    option = listbox.locator("[role='option']", has_text=target.text)
    expect(option.first).to_be_visible(timeout=30_000)
    page.wait_for_timeout(300)  # let the last keystroke's paint report in
    paints: list[dict[str, Any]] = page.evaluate("window.__dqkitPaints")
    _report_latency(paints, keystrokes=len(target.full))

    # Type part of the address, see the suggestions with highlights, pick the target with the arrow keys.
    combo.fill("")
    combo.press("Escape")
    combo.press_sequentially(target.prefix, delay=TYPE_DELAY_MS)
    expect(option.first).to_be_visible(timeout=30_000)
    expect(combo).to_have_attribute("aria-expanded", "true")
    options = listbox.locator("[role='option']")
    assert options.count() >= 2
    expect(options.first.locator("mark").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "widget_suggestions.png"))

    texts = [t.strip() for t in options.all_inner_texts()]
    index = next(i for i, t in enumerate(texts) if t.startswith(target.text))
    for _ in range(index + 1):
        combo.press("ArrowDown")
    active_id = combo.get_attribute("aria-activedescendant")
    assert active_id, "the combobox must point at the active option"
    active = page.locator(f"[id='{active_id}']")
    expect(active).to_have_attribute("aria-selected", "true")
    expect(active).to_contain_text(target.text)
    combo.press("Enter")
    expect(combo).to_be_focused()  # JupyterLab did not take the Enter for itself

    # The browser shows the 7-line address...
    box = page.locator(".dqkit-ac__address")
    expect(box).to_be_visible(timeout=30_000)
    for line, value in target.address.items():
        expect(box.locator(f"dd[data-line='{line}']")).to_have_text(value or "—")
    expect(listbox).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / "widget_browser.png"))

    # ...and the kernel holds it: the observer wrote it, and a cell prints it.
    deadline = time.monotonic() + 15
    while not outfile.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert outfile.exists(), "the kernel's observer of .value never fired"
    assert json.loads(outfile.read_text()) == target.address
    _run_cell(page, page.locator(".jp-NotebookPanel .jp-Cell").nth(1))
    out = page.locator(".jp-NotebookPanel .jp-Cell").nth(1).locator(".jp-OutputArea-output")
    expect(out).to_contain_text("VALUE=", timeout=30_000)
    printed = out.inner_text().strip()
    assert json.loads(printed.split("VALUE=", 1)[1]) == target.address

    # Escape after picking closes the list and keeps the choice (issue 29: it cleared the box and `.value`).
    combo.focus()
    picked = combo.input_value()
    assert picked
    combo.press("Escape")
    combo.press("Escape")
    expect(listbox).to_be_hidden()
    expect(combo).to_have_value(picked)
    expect(box.locator("dd[data-line='address_line_1']")).to_have_text(target.address["address_line_1"] or "—")
    page.wait_for_timeout(1000)  # a cleared value would reach the kernel's observer (it writes the file) by now
    assert json.loads(outfile.read_text()) == target.address


def _refine_unit(page: Any, expect: Any, group: GroupTarget, outfile: Path) -> None:
    """Pick a building: the widget lists its units and asks for one; typing the number refines to it."""
    combo = page.locator(".dqkit-ac input[role='combobox']")
    listbox = page.locator(".dqkit-ac [role='listbox']")
    options = listbox.locator("[role='option']")
    combo.click()
    combo.fill("")
    combo.press_sequentially(group.query, delay=TYPE_DELAY_MS)
    expect(options.filter(has_text=group.text).first).to_be_visible(timeout=30_000)
    texts = [t.strip() for t in options.all_inner_texts()]
    index = next(i for i, t in enumerate(texts) if t.startswith(group.text))
    for _ in range(index + 1):
        combo.press("ArrowDown")
    combo.press("Enter")

    chip = page.locator(".dqkit-ac__chip")
    expect(chip).to_be_visible(timeout=30_000)
    expect(chip).to_contain_text(group.text)
    expect(combo).to_have_value("")
    expect(options).to_have_count(group.units, timeout=30_000)  # the building's units, listed at once
    combo.press_sequentially(group.refinement, delay=TYPE_DELAY_MS)
    expect(options).to_have_count(1, timeout=30_000)
    expect(options.first).to_contain_text(group.unit_text)
    expect(options.first).to_have_attribute("aria-selected", "true")  # a single answer is pre-selected
    page.screenshot(path=str(ARTIFACTS / "widget_refine.png"))
    combo.press("Enter")

    box = page.locator(".dqkit-ac__address")
    expect(box.locator("dd[data-line='address_line_1']")).to_have_text(group.address["address_line_1"],
                                                                       timeout=30_000)
    expect(chip).to_be_hidden()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and json.loads(outfile.read_text()) != group.address:
        time.sleep(0.1)
    assert json.loads(outfile.read_text()) == group.address


def _run_cell(page: Any, cell: Any) -> None:
    """Shift+Enter in the cell, and make sure it ran (its prompt shows [*] or [n]); one retry."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    prompt = cell.locator(".jp-InputPrompt")
    for attempt in range(2):
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function("(el) => /\\[(\\*|\\d+)\\]/.test(el.textContent)", arg=prompt.element_handle(),
                                   timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt:
                raise


def _measure_echo(page: Any, expect: Any) -> None:
    """Time the bare echo widget the same way (send -> answer -> painted frame) and add it to the report."""
    _run_cell(page, page.locator(".jp-NotebookPanel .jp-Cell").nth(2))
    button = page.locator("button.dqkit-echo")
    expect(button).to_be_visible(timeout=30_000)
    button.click()
    page.wait_for_function(f"() => window.__dqkitEcho && window.__dqkitEcho.length >= {ECHO_ROUNDS}",
                           timeout=30_000)
    samples: list[list[float]] = page.evaluate("window.__dqkitEcho")
    trip = [float(x[0]) for x in samples]
    painted = [float(x[1]) for x in samples]
    path = ARTIFACTS / "widget_latency.json"
    report = json.loads(path.read_text())
    report["baseline"] = {
        "what": "a bare anywidget echoing one message: send -> answer, and -> the next painted frame",
        "rounds": len(samples),
        "round_trip_p50_ms": round(statistics.median(trip), 2),
        "round_trip_p95_ms": round(percentile(trip, 95), 2),
        "painted_p50_ms": round(statistics.median(painted), 2),
        "painted_p95_ms": round(percentile(painted, 95), 2),
    }
    path.write_text(json.dumps(report, indent=2) + "\n")
    b = report["baseline"]
    print(f"bare anywidget echo on the same page: round trip p50 {b['round_trip_p50_ms']} ms, "
          f"p95 {b['round_trip_p95_ms']} ms; to the painted frame p50 {b['painted_p50_ms']} ms, "
          f"p95 {b['painted_p95_ms']} ms")


def _report_latency(paints: list[dict[str, Any]], keystrokes: int) -> None:
    ms = [float(p["ms"]) for p in paints]
    report: dict[str, Any] = {
        "what": "keydown to the paint of that keystroke's suggestion list (performance.now, rAF + task)",
        "backend": "local engine, demo reference, JupyterLab kernel on 127.0.0.1, headless Chromium",
        "keystrokes": keystrokes,
        "painted": len(ms),
        "type_delay_ms": TYPE_DELAY_MS,
        "target_p95_ms": 50,
    }
    if ms:
        report.update(p50_ms=round(statistics.median(ms), 2), p95_ms=round(percentile(ms, 95), 2),
                      max_ms=round(max(ms), 2))
        # Where the time went: keydown -> request sent (debounce), sent -> answer (kernel round trip through
        # the server's websocket), answer -> painted.
        for part in ("waitMs", "kernelMs", "paintMs"):
            xs = [float(p[part]) for p in paints if part in p]
            if xs:
                report[f"{part[:-2]}_p50_ms"] = round(statistics.median(xs), 2)
                report[f"{part[:-2]}_p95_ms"] = round(percentile(xs, 95), 2)
        report["samples"] = [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in p.items()} for p in paints]
    (ARTIFACTS / "widget_latency.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwidget keystroke-to-paint over {len(ms)}/{keystrokes} keystrokes: "
          f"p50 {report.get('p50_ms')} ms, p95 {report.get('p95_ms')} ms, max {report.get('max_ms')} ms")
    assert len(ms) >= keystrokes // 2, f"too few keystrokes painted a list: {len(ms)} of {keystrokes}"
