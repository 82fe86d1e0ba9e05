"""Notebook widgets: `AddressAutocomplete` (type an address, pick a suggestion, get the 7-line address).

Front-end sources are in the repo's `widgets/` folder (bundled into the wheel as `dqkit/_bundled/widgets`).
"""

from dqkit.widgets.autocomplete import AddressAutocomplete

__all__ = ["AddressAutocomplete"]
