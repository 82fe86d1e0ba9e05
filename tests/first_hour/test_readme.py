"""A newcomer's first hour, run as written: the README's shell and Python blocks, in order, in a fresh virtual
environment on a copy of the repository (the files `git ls-files` lists), so the README cannot drift from what
works.

Blocks marked `<!-- first-hour: skip (...) -->` (a long-running server, JupyterLab, the whole test suite) get a
stand-in check here; blocks marked `needs-server` run against the test's own `dqkit serve`, started in the
background from the README's serve block (on a free port instead of 8080, which the machine may be using); blocks
marked `needs-download` run as written once the test has put the file the reader is told to download where the
README says (a small OpenAddresses county file of the same name and format, in the test's own home folder).
Installed references go to a temporary DQKIT_REFERENCE_DIR, never the user's data directory.
The copy is a git repository, so the test also checks that the first hour leaves `git status` clean.

pip uses its usual cache (PIP_CACHE_DIR, else pip's default), so the set-up command installs from cached wheels.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from readme_blocks import Block, readme_blocks

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SETUP = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/dqkit demo"
TESTS = ".venv/bin/python -m pytest"
README_PORT = "8080"
DOWNLOAD = re.compile(r"~/Downloads/(?P<name>[\w.-]+\.geojson\.gz)")
# A few points of Alameda County from OpenAddresses (number, street, city, postcode, lon, lat), written as the
# GeoJSON-lines download the README names.
ALAMEDA = (
    ("1216", "SANTA CLARA AV", "ALAMEDA", "94501", -122.2637604, 37.7727802),
    ("1543", "SANTA CLARA AV", "ALAMEDA", "94501", -122.2585955, 37.7729139),
    ("1019", "SANTA CLARA AV", "ALAMEDA", "94501", -122.2676322, 37.7733653),
    ("516", "CENTRE CT", "ALAMEDA", "94502", -122.2371548, 37.7468954),
)


def blocks() -> list[Block]:
    return readme_blocks(README)


# ---- fast checks: the README's shape -------------------------------------------------------------------------


def test_the_first_screen_has_the_two_commands_and_ci_runs_exactly_them() -> None:
    sh = [b for b in blocks() if b.lang == "sh"]
    assert sh[0].code.strip() == SETUP and not sh[0].marker, "set-up and demo come first, run as written"
    assert sh[1].code.strip() == TESTS
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in ci if line.strip() and not line.startswith(("#", "set ", "cd ", "bash .ci/"))]
    assert commands == [SETUP, TESTS], f".ci/run must run exactly the README's two commands, not {commands}"


def test_every_skipped_block_says_why_and_examples_read_files_that_exist() -> None:
    for b in blocks():
        if b.marker == "skip":
            assert b.reason, f"README line {b.line}: say why the block is skipped"
    text = README.read_text(encoding="utf-8")
    for path in re.findall(r"\b((?:data|notebooks)/[\w./-]+\.(?:csv|gz|ipynb))\b", text):
        assert (REPO / path).is_file(), f"the README reads {path}, which is not in the repository"
    assert "seed" not in text.lower(), "say what the services do instead of 'seed'"


def test_the_browser_install_is_said_as_a_root_command() -> None:
    """The install script runs as root (CI containers have no sudo): the README says so, not `sudo ...` alone."""
    text = README.read_text(encoding="utf-8")
    assert re.search(r"as root with\s+`bash \.ci/install-browser\.sh`", text), "say: as root, bash .ci/install-..."
    assert "`sudo bash .ci/install-browser.sh`" not in text


def test_the_readme_names_the_jupyter_that_is_installed() -> None:
    for b in blocks():
        if b.lang != "sh":
            continue
        for line in b.code.splitlines():
            assert not re.match(r"^\s*(jupyter|dqkit|python|pytest)\s", line), (
                f"README line {b.line}: {line!r} needs .venv/bin/ (the commands are not on PATH)")


# ---- the first hour, run ---------------------------------------------------------------------------------------


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _copy_repo(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if not name or not (REPO / name).is_file():
            continue
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, dest / name)
    git = ["git", "-c", "user.name=first hour", "-c", "user.email=first-hour@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fresh clone"], cwd=dest, check=True)


def _env(home: Path) -> dict[str, str]:
    pip_cache = os.environ.get("PIP_CACHE_DIR") or subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True).stdout.strip()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DQKIT_", "VIRTUAL_ENV", "PYTEST_", "XDG_", "PYTHON"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CONFIG_HOME=str(home / ".config"), DQKIT_PROGRESS="0",
               DQKIT_REFERENCE_DIR=str(home / "dqkit-references"))
    if pip_cache:
        env["PIP_CACHE_DIR"] = pip_cache
    return env


def _run(block: Block, cwd: Path, env: dict[str, str], port: str, timeout: float) -> str:
    code = block.code.replace(README_PORT, port)
    if block.lang == "python":
        script = cwd / f"readme_block_{block.line}.py"
        script.write_text(code, encoding="utf-8")
        cmd = [str(cwd / ".venv" / "bin" / "python"), str(script)]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", code]
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    finally:
        if block.lang == "python":
            script.unlink(missing_ok=True)
    said = f"README line {block.line} ({block.first_line!r}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, said
    assert "Traceback" not in proc.stderr, said
    return proc.stdout


def _download(block: Block, home: Path) -> None:
    """Put the file the README tells the reader to download where it says: a small OpenAddresses county file."""
    found = DOWNLOAD.search(block.code)
    assert found, f"README line {block.line}: name the downloaded file as ~/Downloads/<name>.geojson.gz"
    path = home / "Downloads" / found.group("name")
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for number, street, city, postcode, lon, lat in ALAMEDA:
            props = {"hash": "", "number": number, "street": street, "unit": "", "city": city, "district": "",
                     "region": "", "postcode": postcode, "id": ""}
            out.write(json.dumps({"type": "Feature", "properties": props,
                                  "geometry": {"type": "Point", "coordinates": [lon, lat]}}) + "\n")


def _serve(block: Block, cwd: Path, env: dict[str, str], port: str) -> subprocess.Popen[bytes]:
    """Start the README's serve command in the background and wait (bounded) until /healthz answers 200."""
    import urllib.request

    command = block.code.strip().replace(README_PORT, port)
    assert command.startswith(".venv/bin/dqkit serve"), command
    log_path = cwd.parent / "serve.log"  # beside the checkout: not a file of the first hour
    log = open(log_path, "wb")  # noqa: SIM115 (closed with the process)
    proc = subprocess.Popen(["bash", "-c", f"exec {command} --no-access-log"], cwd=cwd, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, log_path.read_text()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise AssertionError("dqkit serve never became ready:\n" + log_path.read_text())


def _stand_in(block: Block, cwd: Path, env: dict[str, str]) -> None:
    """What a skipped block is checked by instead."""
    venv = cwd / ".venv" / "bin"
    first = block.first_line
    if first.startswith(".venv/bin/python -m pytest"):
        # The whole suite holds this test; check it is collected from the fresh install without an error.
        proc = subprocess.run([str(venv / "python"), "-m", "pytest", "--collect-only", "-q",
                               "-p", "no:cacheprovider"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and re.search(r"\d+ tests? collected", proc.stdout), \
            proc.stdout[-3000:] + proc.stderr[-3000:]
    elif first.startswith(".venv/bin/jupyter lab"):
        # JupyterLab is installed where the README says, and the connection class it names imports.
        cls = re.search(r"kernel_websocket_connection_class=([\w.]+)", block.code)
        assert cls, block.code
        module, _, name = cls.group(1).rpartition(".")
        proc = subprocess.run([str(venv / "python"), "-c", f"from {module} import {name}"], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        proc = subprocess.run([str(venv / "jupyter"), "lab", "--version"], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0 and re.match(r"\d+\.", proc.stdout), proc.stderr
    elif first.startswith(".venv/bin/ruff"):
        pass  # the suite runs ruff and mypy itself
    elif first.startswith(".venv/bin/dqkit serve"):
        # A second serve example (replicas: an index file, a secret, Redis): every option it uses exists.
        proc = subprocess.run([str(venv / "dqkit"), "serve", "--help"], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=120)
        missing = [o for o in re.findall(r"(?<![\w-])--[a-z][\w-]*", block.code) if o not in proc.stdout]
        assert proc.returncode == 0 and not missing, f"README line {block.line}: dqkit serve has no {missing}"
    else:
        raise AssertionError(f"README line {block.line}: no stand-in check for a skipped block {first!r}")


@pytest.mark.slow  # a fresh virtual environment (pip from its cache), the demo, every example: a few minutes
@pytest.mark.timeout(1200)
def test_the_readme_runs_as_written_in_a_fresh_checkout(tmp_path: Path) -> None:
    clone = tmp_path / "dqkit"
    clone.mkdir()
    _copy_repo(clone)
    home = tmp_path / "home"
    env = _env(home)
    port = _free_port()
    server: subprocess.Popen[bytes] | None = None
    outputs: dict[int, str] = {}
    try:
        for block in blocks():
            if block.marker == "skip" and block.first_line.startswith(".venv/bin/dqkit serve") and server is None:
                server = _serve(block, clone, env, port)
            elif block.marker == "skip":
                _stand_in(block, clone, env)
            elif block.marker == "needs-download":
                _download(block, home)
                outputs[block.line] = _run(block, clone, env, port, timeout=300)
            elif block.marker == "needs-server":
                assert server is not None, f"README line {block.line}: the serve block must come before it"
                outputs[block.line] = _run(block, clone, env, port, timeout=300)  # README: 10,000 leads over HTTP
            else:
                outputs[block.line] = _run(block, clone, env, port, timeout=900)
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
    said = "\n".join(outputs.values())
    assert "10,000 synthetic sample leads verified" in said  # the demo ran
    assert '"RESULT_CODE":"S100"' in said and '"suggestions"' in said  # the curl examples got answers
    assert '"dataset":"us-demo-synthetic"' in said and '"components"' in said  # the demo server, and format's add-ons
    # The reference the README adds is installed where DQKIT_REFERENCE_DIR says, and listed.
    assert re.search(r"openaddresses-us-ca-alameda\s+openaddresses\s+US/CA\s+4\b", said), said[-3000:]
    assert any((home / "dqkit-references").iterdir())
    assert (clone / "checked.csv").is_file() and (clone / "report.html").is_file()
    # The CRM export was read without --map (every lead S100, none E601) and written as a real workbook.
    assert re.search(r"S100\s+2\s+100\.0%", said), said[-3000:]
    assert (clone / "hubspot.xlsx").read_bytes()[:2] == b"PK" and (clone / "hubspot.html").is_file()
    # Nothing of the first hour shows in `git status`: the venv, the demo's output, the examples' files.
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout
    assert status == "", status
