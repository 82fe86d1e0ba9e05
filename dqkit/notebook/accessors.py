"""Every accessor dqkit adds to pandas (and Dask), registered here and nowhere else.

    df.leads.verify()           each row a lead: ELSGenericMessage flattened into `lead_*` columns
    df.leads.columns()          which input column feeds which seed field (to check before a long run)
    df.leads.audit()            on a verified frame: rates per lead source, faults shown apart
    df.leads.compare(a, b)      shadow run: the same leads through two backends, agreement per field
    df.leads.drift()            each source's rates over the recorded runs, real changes flagged
    df.addr.validate()          each row an address: confidence, corrections, the address found (`addr_*`)
    df.addr.search(top=3)       each row's top suggestions side by side
    df.addr.compare(a, b)       shadow run of validate: two backends, agreement per field
    df.addr.standardize()       each row's US address in USPS Publication 28 form, offline (`std_*`)
    s.addr.validate() / .search() / .standardize()      the same for a Series of one-line addresses

On Dask DataFrames the same `df.leads.verify()`, `df.addr.validate()` and `df.addr.search()` run partition by
partition (see `dqkit.notebook.scaleout`); they are registered as soon as `dask.dataframe` is imported, before or
after dqkit.

Accessors check their input in `__init__` and raise AttributeError only there, and only for input they cannot
serve (pandas turns that into "object has no attribute"); everything else raises dqkit's InputError.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dqkit.backends.select import BackendLike
from dqkit.notebook import addresses, leads
from dqkit.notebook.frames import CacheArg


@pd.api.extensions.register_dataframe_accessor("leads")
class LeadsAccessor:
    """Lead verification of a DataFrame whose rows are leads (seed 000)."""

    def __init__(self, df: pd.DataFrame) -> None:
        self._df = df

    def verify(
        self,
        *,
        backend: BackendLike = None,
        mapping: Mapping[str, str] | None = None,
        prefix: str = leads.PREFIX,
        cache: CacheArg = None,
        progress: bool | None = None,
        concurrency: int | None = None,
        chunk_size: int | None = None,
        prescreen: bool = False,
        settled_codes: Sequence[str] | str | None = None,
        skip_codes: Sequence[str] | str | None = None,
        price: float | None = None,
        history: str | bool | None = None,
        local: Any = None,
        workers: int | None = None,
    ) -> pd.DataFrame:
        """Verify every row as a lead; a new frame: the input's index and columns, then the `lead_*` results.

        backend:     None/"local" (the in-process engine), "vendor", a `dqkit serve` URL, or a backend object.
        mapping:     seed field -> column, for columns the forgiving names do not find ({"ZIP": "postcode"}).
                     The mapping used is `result.attrs["lead_columns"]` (before a run: `df.leads.columns()`);
                     no ZIP, state or street column found is a `ColumnWarning` naming the columns present.
        prefix:      of the result columns.
        cache:       None (the default cache unless switched off), False (none), or a ResultCache.
        progress:    draw a progress bar (default: yes, except under pytest or DQKIT_PROGRESS=0).
        concurrency: requests in flight for HTTP backends.
        chunk_size:  requests per backend call (and per cache write).
        workers:     processes answering on the local engine (default: the processors available; a frame of fewer
                     than 2,000 leads to answer runs in this one, where starting workers costs more than it saves).

        Codes are categoricals over the seed's whole tables (`lead_result_code`, `lead_phone_status`,
        `lead_score_result`, ...), with their meanings and the outcome class beside them, and SCORE_RESULT decoded
        into `lead_score_match_level`, `lead_score_line_class` and `lead_score_validity`. A lead that got no
        answer (a transport error) keeps its row: `lead_result_type` is FAILED and `lead_result_value` says why.

        prescreen:     answer at home the leads whose whole answer the vendor's own rules give from the input
                       alone (`settled_codes`, default `dqkit.notebook.prescreen.DEFAULT_SETTLED`: E200, E300, E600,
                       E601), computed for the lead as the client sends it; skip the leads whose answer on `local`
                       (your engine: records, spoof list, required phone) holds one of `skip_codes` (RESULT_CODE or
                       PHONE_STATUS, e.g. "E805,E808"; no answer is shown for them); send only the others to
                       `backend`. Each row says where its answer came from in `lead_answered_by`; the books (calls
                       answered in this run, answers reused, calls saved, and money at `price` a call) are
                       `dqkit.notebook.prescreen.summary_of(result)`.
        history:       record this run's counts per lead source in a history store (a path, or True for the
                       default store in the user data directory), for `df.leads.drift()` and `dqkit history`.
        """
        if prescreen:
            from dqkit.notebook.prescreen import verify_prescreened

            out = verify_prescreened(self._df, backend=backend, local=local, settled=settled_codes,
                                     skip=skip_codes, price=price, mapping=mapping, prefix=prefix, cache=cache,
                                     progress=progress, concurrency=concurrency, chunk_size=chunk_size)
        else:
            if settled_codes is not None or skip_codes is not None or price is not None or local is not None:
                from dqkit.contract.errors import InputError

                raise InputError("settled_codes=, skip_codes=, local= and price= apply to a pre-screened run: pass "
                                 "prescreen=True")
            out = leads.verify(self._df, backend=backend, mapping=mapping, prefix=prefix, cache=cache,
                               progress=progress, concurrency=concurrency, chunk_size=chunk_size, workers=workers)
        if history:
            from dqkit.notebook.history import record_run

            record_run(out, history, backend=backend, prefix=prefix)
        return out

    def compare(self, a: Any, b: Any, *, mapping: Mapping[str, str] | None = None, prefix: str = leads.PREFIX,
                names: tuple[str, str] | None = None, cache: CacheArg = None,
                progress: bool | None = None) -> Any:
        """Shadow run: the same leads through two backends (or two result frames already made), side by side.

        `a` and `b` are each a backend (as for `verify`) or a verified frame of the same rows. Returns a
        `Comparison`: `.fields` (agreement per result field), `.confusion` (RESULT_CODE of a against b),
        `.disagreements` (the rows that differ, both answers side by side) and `.heatmap()`."""
        from dqkit.notebook.compare import compare_leads

        return compare_leads(self._df, a, b, mapping=mapping, prefix=prefix, names=names, cache=cache,
                             progress=progress)

    def drift(self, history: str | bool | None = True, *, alpha: float | None = None, by: str | None = None) -> Any:
        """Each lead source's rates over the runs recorded in `history` (see `verify(history=...)`), runs grouped
        by what they measured; each new run's changes from its group's previous runs, and trends over them, that
        are statistically real are flagged (false discovery rate `alpha` across that run's tests: default
        `dqkit.notebook.drift.ALPHA`). Returns a `Drift` (`.table`, `.flagged`, `.groups`, `.figure()`).
        `by` shows only one source. The frame itself is not read: drift is about the recorded runs."""
        from dqkit.notebook.drift import ALPHA, drift

        return drift(history, alpha=ALPHA if alpha is None else alpha, source=by)

    def columns(self, mapping: Mapping[str, str] | None = None) -> dict[str, str]:
        """Seed field -> the input column `verify` would read it from."""
        return leads.lead_fields(self._df.columns, mapping, leads.PREFIX)

    def audit(self, by: str | None = None, *, prefix: str = leads.PREFIX) -> pd.DataFrame:
        """On a verified frame: one row per lead source (PARTNER_ID), with percentages that leave caller and
        configuration faults out (see `dqkit.notebook.leads.audit_table`)."""
        return leads.audit_table(self._df, by=by, prefix=prefix)


@pd.api.extensions.register_dataframe_accessor("addr")
class AddressAccessor:
    """Address validation and search of a DataFrame whose rows are addresses (seed 001)."""

    def __init__(self, df: pd.DataFrame) -> None:
        self._df = df

    def validate(
        self,
        *,
        backend: BackendLike = None,
        mapping: Mapping[str, str] | None = None,
        country: str = "USA",
        datasets: Sequence[str] = (),
        prefix: str = addresses.PREFIX,
        cache: CacheArg = None,
        progress: bool | None = None,
        concurrency: int | None = None,
        components: bool = False,
        reference: str | None = None,
        bulk: bool = False,
    ) -> pd.DataFrame:
        """Validate every row as an address; a new frame with the `addr_*` results after the input's columns.

        The address is read from a single-line column (`address`, `full_address`, ...) or from parts (`street`,
        `address2`, `city`, `state`, `zip`, `country`); `mapping` ({"ADDRESS": col} or {"ZIP": col, ...})
        overrides. `country` is used for rows without a country. Results: `addr_confidence` (categorical of the
        11 values) and its meaning, `addr_verified`, `addr_match_type`, `addr_match_confidence`, the 7-line
        address, `addr_global_address_key`, and the corrections (`addr_corrections` and one flag per
        validation_detail name), and where the answer came from: `addr_reference`, `addr_reference_date`,
        `addr_note`. `reference` picks the local engine's data: None (the installed references, see
        `dqkit reference add`), "demo" (the synthetic demo, only when asked), or an installed reference id.
        `components=True` adds the component breakdown (`addr_street_name`, `addr_building_number`,
        `addr_town`, ...). `bulk=True` (with `backend=URL`) sends the rows as the service's bulk batches, polled
        to the end; a rerun after an interruption resumes (the cache, and the batches the server already holds);
        bulk answers carry no `addr_global_address_key`. Other arguments as for `df.leads.verify`.
        """
        return addresses.validate(self._df, backend=backend, mapping=mapping, country=country, datasets=datasets,
                                  prefix=prefix, cache=cache, progress=progress, concurrency=concurrency,
                                  components=components, reference=reference, bulk=bulk)

    def search(
        self,
        top: int = 3,
        *,
        backend: BackendLike = None,
        mapping: Mapping[str, str] | None = None,
        country: str = "USA",
        search_type: str = "singleline",
        datasets: Sequence[str] = (),
        prefix: str = addresses.PREFIX,
        cache: CacheArg = None,
        progress: bool | None = None,
        concurrency: int | None = None,
        reference: str | None = None,
    ) -> pd.DataFrame:
        """The `top` suggestions of every row: `addr_suggestion_1`, `addr_key_1`, `addr_final_1`, ... plus the
        confidence, whether more were available, and the reference (`addr_reference`, `addr_reference_date`,
        `addr_note`); `reference` as for `validate`."""
        return addresses.search(self._df, top=top, backend=backend, mapping=mapping, country=country,
                                search_type=search_type, datasets=datasets, prefix=prefix, cache=cache,
                                progress=progress, concurrency=concurrency, reference=reference)

    def standardize(self, *, mapping: Mapping[str, str] | None = None, prefix: str = "std_") -> pd.DataFrame:
        """USPS Publication 28 form of each row's US address, offline (no backend, no cache): `std_*` columns
        named as in `df.leads.verify()` (std_full_address, std_city, std_zip, std_error_status, ...), the
        delivery line's parts, `std_valid` and `std_corrected`."""
        from dqkit.notebook.standardize import standardize_frame

        return standardize_frame(self._df, mapping=mapping, prefix=prefix)

    def compare(self, a: Any, b: Any, *, mapping: Mapping[str, str] | None = None,
                prefix: str = addresses.PREFIX, names: tuple[str, str] | None = None, cache: CacheArg = None,
                progress: bool | None = None) -> Any:
        """Shadow run: every row validated by two backends (or two validated frames of the same rows), side by
        side; a `Comparison` whose confusion table is of the confidence (see `df.leads.compare`)."""
        from dqkit.notebook.compare import compare_addresses

        return compare_addresses(self._df, a, b, mapping=mapping, prefix=prefix, names=names, cache=cache,
                                 progress=progress)

    def columns(self, mapping: Mapping[str, str] | None = None) -> dict[str, str]:
        """Address field -> the input column validate/search would read it from."""
        from dqkit.notebook.columns import resolve_address_columns

        return resolve_address_columns(self._df.columns, mapping)


def _is_text(s: pd.Series) -> bool:
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    return bool(pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype))


@pd.api.extensions.register_series_accessor("addr")
class AddressSeriesAccessor:
    """A Series of one-line addresses ("1 Main St Springfield IL 62701")."""

    def __init__(self, s: pd.Series) -> None:
        if not _is_text(s):
            raise AttributeError(f"the .addr accessor needs a Series of text addresses, not {s.dtype} values")
        self._s = s

    def _frame(self) -> pd.DataFrame:
        name = self._s.name if self._s.name is not None else "address"
        return self._s.to_frame(name=name)

    def validate(self, **kwargs: Any) -> pd.DataFrame:
        """`df.addr.validate` of the one-column frame of this Series (each value a whole address)."""
        frame = self._frame()
        return addresses.validate(frame, mapping={"STREET1": str(frame.columns[0])}, **kwargs)

    def search(self, top: int = 3, **kwargs: Any) -> pd.DataFrame:
        """`df.addr.search` of the one-column frame of this Series."""
        frame = self._frame()
        return addresses.search(frame, top=top, mapping={"STREET1": str(frame.columns[0])}, **kwargs)

    def standardize(self, *, prefix: str = "std_") -> pd.DataFrame:
        """USPS Publication 28 form of each address, offline: one column per StandardizedAddress part."""
        from dqkit.notebook.standardize import standardize_series

        return standardize_series(self._s, prefix=prefix)


# ---- Dask: registered when dask.dataframe is (or gets) imported, so that `import dqkit.notebook` stays fast.


def _register_dask(dd: types.ModuleType) -> None:
    from dqkit.notebook import scaleout

    if getattr(dd.DataFrame, "_dqkit_registered", False):
        return
    dd.extensions.register_dataframe_accessor("leads")(scaleout.DaskLeadsAccessor)
    dd.extensions.register_dataframe_accessor("addr")(scaleout.DaskAddressAccessor)
    dd.DataFrame._dqkit_registered = True


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `_register_dask` right after `dask.dataframe` finishes importing (then steps aside)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "dask.dataframe":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            original(module)
            try:
                _register_dask(module)
            except Exception as exc:  # never break the user's `import dask.dataframe`
                import warnings

                warnings.warn(f"dqkit: Dask accessors not registered: {exc}", RuntimeWarning, stacklevel=2)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "dask.dataframe" in sys.modules:
    _register_dask(sys.modules["dask.dataframe"])
elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
    sys.meta_path.insert(0, _AfterImport())
