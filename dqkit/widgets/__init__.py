"""Notebook widgets.

    AddressAutocomplete   type an address, pick a suggestion (refining buildings and ranges), get the 7-line address
    LeadAuditDashboard    the lead-audit plots of a verified frame, with a lead-source picker

Front-end sources are in the repo's `widgets/` folder (bundled into the wheel as `dqkit/_bundled/widgets`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dqkit.widgets.autocomplete import AddressAutocomplete

if TYPE_CHECKING:
    from dqkit.widgets.dashboard import LeadAuditDashboard

__all__ = ["AddressAutocomplete", "LeadAuditDashboard"]


def __getattr__(name: str) -> Any:
    # The dashboard pulls in pandas and plotly: load it only when asked for.
    if name == "LeadAuditDashboard":
        from dqkit.widgets.dashboard import LeadAuditDashboard

        return LeadAuditDashboard
    raise AttributeError(f"module 'dqkit.widgets' has no attribute {name!r}")
