"""Runs the front end's unit tests (`node --test widgets/test`) so the one pytest command covers them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


def _node_major() -> int:
    assert NODE is not None
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=10).stdout
    m = re.match(r"v(\d+)", out.strip())
    return int(m.group(1)) if m else 0


@pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/install-browser.sh installs it): the "
                                          "front-end unit tests need node >= 18")
def test_front_end_unit_tests_pass() -> None:
    if _node_major() < 18:
        pytest.skip("the front-end unit tests need node >= 18 (node:test, ES modules)")
    proc = subprocess.run(
        [NODE, "--test", "--test-reporter=spec", "test/"],
        cwd=REPO / "widgets", capture_output=True, text=True, timeout=60,
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    passed = re.search(r"ℹ pass (\d+)", report)
    failed = re.search(r"ℹ fail (\d+)", report)
    assert passed and int(passed.group(1)) >= 40, report
    assert failed and int(failed.group(1)) == 0, report
