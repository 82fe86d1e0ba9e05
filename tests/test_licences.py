"""Every file the wheel ships that is not dqkit's own Python code is accounted for in THIRD_PARTY_NOTICES.md, and
the package metadata names every licence that applies (PEP 639: an SPDX expression and the licence files)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTICES = (REPO / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _bundled_data() -> list[str]:
    """data/ (shipped as dqkit/_bundled/data/) and every file under dqkit/ that is not Python code."""
    files = [p for p in (REPO / "data").rglob("*") if p.is_file()]
    files += [p for p in (REPO / "dqkit").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
              and "__pycache__" not in p.parts]
    return sorted(p.relative_to(REPO).as_posix() for p in files)


def _listed() -> set[str]:
    """The files named in the notices' table rows (first column)."""
    return set(re.findall(r"^\| `([^`]+)` \|", NOTICES, re.MULTILINE))


def test_the_scan_sees_the_word_lists_and_the_data_folder() -> None:
    found = _bundled_data()
    assert "dqkit/engines/lead/wordlists/english_words.txt" in found
    assert "data/sample_leads.csv" in found
    assert "dqkit/engines/usaddr/data/county_fips.tsv" in found


def test_every_bundled_data_file_is_listed_with_its_source_and_licence() -> None:
    missing = [f for f in _bundled_data() if f not in _listed()]
    assert not missing, f"bundled but not in THIRD_PARTY_NOTICES.md: {missing}"
    gone = [f for f in _listed() if not (REPO / f).exists()]
    assert not gone, f"listed in THIRD_PARTY_NOTICES.md but not in the repository: {gone}"


def test_the_notices_required_by_the_sources_are_there() -> None:
    for notice in ("Copyright (c) 2007-2010 Benjamin Curtis",  # faker-ruby
                   "Copyright (c) 2012 Daniele Faraglia",  # faker
                   "Copyright (c) 2020 chaddotson",  # county-adjacency
                   "WordNet 3.0 Copyright 2006 by Princeton University",
                   "Copyright 2000-2011 by Kevin Atkinson",  # SCOWL
                   "UNICODE LICENSE V3", "From `zipcodes` 3.0.0", "2012-2016 Shutterstock",  # LDNOOBW
                   "Copyright (C) 1993-2015 Carnegie Mellon University"):  # CMUdict
        assert notice in NOTICES, notice
    assert "Princeton University" in (REPO / "dqkit/engines/lead/wordlists/WORDNET_LICENSE.txt").read_text()
    assert "Kevin Atkinson" in (REPO / "dqkit/engines/lead/wordlists/SCOWL_LICENSE.txt").read_text()
    assert "Carnegie Mellon University" in (REPO / "dqkit/engines/lead/wordlists/CMUDICT_LICENSE.txt").read_text()
    assert "placed into the public domain" in (REPO / "dqkit/engines/lead/wordlists/MOBY_LICENSE.txt").read_text()
    assert "MIT License" in (REPO / "LICENSE").read_text()


def test_no_shipped_file_is_under_share_alike_terms() -> None:
    """CC BY-SA would bind the whole package to share-alike: such data is replaced, not shipped."""
    for rel in _bundled_data():
        if rel.endswith(".gz"):
            continue
        head = (REPO / rel).read_text(encoding="utf-8", errors="replace")[:4000]
        assert not re.search(r"CC[ -]BY[ -]SA|share-?alike", head, re.IGNORECASE) or rel.endswith("README.md"), rel


def test_the_licence_expression_covers_the_notices() -> None:
    packaging_licenses = pytest.importorskip("packaging.licenses", reason="packaging>=24.2 validates SPDX")
    expression = PROJECT["license"]
    assert packaging_licenses.canonicalize_license_expression(expression) == expression
    terms = set(re.findall(r"[\w.-]+", expression)) - {"AND", "OR", "WITH"}
    assert terms == {"MIT", "Apache-2.0", "Unicode-3.0", "LicenseRef-WordNet-3.0", "LicenseRef-SCOWL", "CC-BY-4.0",
                     "LicenseRef-CMUdict"}
    for term in terms - {"MIT"}:  # each other term is a licence some listed file is under, with its notice
        word = term.removeprefix("LicenseRef-").split("-")[0]
        assert word.lower() in NOTICES.lower(), term
    for pattern in PROJECT["license-files"]:
        assert list(REPO.glob(pattern)), f"license-files pattern matches nothing: {pattern}"
