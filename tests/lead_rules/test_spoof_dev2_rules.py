"""Rules of issue 32, session 6, tuned on spoof_fresh.csv dev + spoof_dev2.csv (the second development set): each
flags the spoof it was made for, says why, and leaves real names alone. The examples are rows of spoof_dev2.csv
and hand-written names of no evaluation set."""

from __future__ import annotations

import pytest

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead.spoof import PLACEHOLDER, explain_spoof


def _lead(first: str, last: str) -> LeadRequest:
    return LeadRequest(first_name=first, last_name=last, zip="20500")


@pytest.mark.parametrize(("first", "last"), [
    ("Prenom", "Nom"), ("Vorname", "Nachname"), ("Nome", "Cognome"), ("Nombre", "Apellido"),
    ("Imie", "Nazwisko"), ("Testfirst", "Testlast"), ("Voornaam", "Achternaam"), ("Etunimi", "Sukunimi"),
    ("Keine", "Ahnung"), ("Quien", "Sabe"), ("Personne", "Rien"), ("Nein", "Danke"), ("Nessuno", "Niente"),
    ("Nombre", "Desconocido"),
])
def test_a_name_of_form_labels_or_refusals_is_a_placeholder(first: str, last: str) -> None:
    hit = explain_spoof(_lead(first, last))
    assert hit is not None and hit.kind == PLACEHOLDER, (first, last, hit)
    assert hit.reason == f"placeholder rule: {first.lower()} {last.lower()}"
    full = explain_spoof(LeadRequest(full_name=f"{first} {last}", zip="20500"))
    assert full is not None and full.kind == PLACEHOLDER


@pytest.mark.parametrize(("first", "last"), [
    ("Segundo", "Ramirez"), ("Nima", "Nam"), ("Mary", "Middle"), ("Given", "Smith"), ("Maria", "Nome"),
    ("Naam", "Singh"), ("Nick", "Tester"), ("Nada", "Hassan"), ("Daniel", "Moi"), ("Chi", "Lo"), ("No", "Se"),
    ("Pascal", "Rien"),
])
def test_one_label_word_in_a_real_name_is_no_placeholder(first: str, last: str) -> None:
    assert explain_spoof(_lead(first, last)) is None
