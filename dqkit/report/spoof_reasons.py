"""The report's table of why leads got E100: per rule, how many leads, one example and its reason, read from the
spoof columns (`dqkit.contract.lead_flat.SPOOF_COLUMNS`), so an analyst sees what each rule catches and can
overrule it."""

from __future__ import annotations

import pandas as pd


def spoof_reasons(results: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """One row per rule behind the E100 answers (most leads first): leads, an example value and its reason.
    Empty when no lead was flagged with a reason (a vendor's E100 carries none)."""
    rule, why, value = (f"{prefix}spoof_rule", f"{prefix}spoof_why", f"{prefix}result_value")
    columns = ["rule", "leads", "example", "why"]
    if rule not in results.columns or why not in results.columns:
        return pd.DataFrame(columns=columns)
    flagged = results[results[rule].notna() & results[rule].astype(str).ne("")]
    rows = []
    for name, group in flagged.groupby(flagged[rule].astype(str), sort=False):
        first = group.iloc[0]
        example = str(first.get(value, ""))
        example = example.split(": ", 1)[1].split(" (field ", 1)[0] if ": " in example else example
        rows.append({"rule": name, "leads": len(group), "example": example, "why": str(first[why])})
    out = pd.DataFrame(rows, columns=columns)
    return out.sort_values("leads", ascending=False, kind="stable").reset_index(drop=True)
