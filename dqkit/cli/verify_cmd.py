"""`dqkit verify INPUT -o OUTPUT`: verify every lead of a CSV, Excel (.xlsx) or Parquet file, on the local engine
or a service (`--service URL`, optionally `--prescreen`ed so that only leads worth a call are sent)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pandas as pd

    from dqkit.backends.base import LeadBackend


def register(sub: Any) -> None:
    p = sub.add_parser("verify",
                       help="verify every lead of a CSV, Excel or Parquet file and write it with result columns",
                       description="Verify every lead of INPUT on the local engine (no account, no network) and "
                                   "write OUTPUT: every input row, in order, with the result columns added "
                                   "(result_code, its meaning, phone status, the standardized address, ...). "
                                   "Columns are found by forgiving names (First Name, fname, zipcode, phone, ...); "
                                   "--map names the ones it cannot guess.",
                       epilog="example: dqkit verify data/sample_leads.csv -o checked.csv")
    p.add_argument("input", type=Path, help="file of leads: .csv, .xlsx (the first sheet) or .parquet")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="file to write: .csv, .xlsx or .parquet (by its extension)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="read the lead field FIELD (PHONE_NUMBER, PARTNER_ID, ...) from the file's column COLUMN, "
                        "for columns dqkit does not find by name (repeatable), e.g. --map PHONE_NUMBER=cell")
    p.add_argument("--stage1", choices=("phone_status", "score"), default="phone_status",
                   help="what the first check answers: phone_status (how the phone number looks, the default) or score "
                        "(a match score against --records)")
    p.add_argument("--require-phone", action="store_true",
                   help="treat a lead without a phone number as incomplete (result code E602)")
    p.add_argument("--records", type=Path,
                   help="CSV of known people (name, address, phone) that leads are matched against")
    p.add_argument("--reference", type=Path, action="append", metavar="FILE_OR_ID",
                   help="address reference: an OpenAddresses CSV (or .gz), an index from dqkit index build, or an "
                        "installed reference id (dqkit reference list); repeatable. Streets and house numbers are "
                        "checked against it (ADDRESS_CODE, S102); default: every installed reference")
    p.add_argument("--complete", action="store_true",
                   help="the --reference files hold every street of every ZIP they hold: a street they lack is then "
                        "'not found' (S102); by default it is 'not checked', as a sample's would be")
    p.add_argument("--spoof-list", type=Path, metavar="FILE",
                   help="your own list of fake names, one whole name a line: leads bearing one get E100 (beside "
                        "the bundled lists)")
    p.add_argument("--no-address", action="store_true",
                   help="do not standardize the addresses (faster; no address columns)")
    p.add_argument("--prefix", default="",
                   help="text put before every added column name (default: none), e.g. --prefix lead_")
    p.add_argument("--workers", type=int, metavar="N",
                   help="processes verifying leads on the local engine (default: the processors available; a file "
                        "of fewer than 2,000 leads to answer runs in one)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    from dqkit.cli._service import add_service_options

    add_service_options(p, "lead")
    p.add_argument("--prescreen", action="store_true",
                   help="with --service: answer at home the leads whose whole answer the vendor's own rules give "
                        "from the input alone (--settled-codes), skip the ones your policy says not to pay for "
                        "(--skip-codes), and send only the others; the output's answered_by column says which")
    p.add_argument("--settled-codes", metavar="CODES",
                   help="comma-separated RESULT_CODE values that settle a lead (default: E200,E300,E600,E601; E100 "
                        "or E602 only where a shadow run showed the vendor agrees: dqkit compare "
                        "--settled-codes-out)")
    p.add_argument("--skip-codes", metavar="CODES",
                   help="with --prescreen: comma-separated RESULT_CODE / PHONE_STATUS values of your local engine's "
                        "answer (with --require-phone, --records, --spoof-list) for which a lead is not sent and "
                        "gets no answer, e.g. E805,E808 (a phone that cannot exist)")
    p.add_argument("--price", type=float, metavar="AMOUNT",
                   help="with --service: price of one call, to report the money spent (and what a pre-screen "
                        "saved)")
    p.add_argument("--history", nargs="?", const="", metavar="PATH",
                   help="record this run's counts per lead source for `dqkit history` and drift (PATH, or the "
                        "default store in the user data directory when no PATH is given; DQKIT_HISTORY=1 records "
                        "every run)")
    p.add_argument("--no-escape-formulas", action="store_true",
                   help="write CSV and Excel cells exactly as they are (by default a cell starting with = + - @ "
                        "tab or CR that is not a plain number gets a leading ' so spreadsheets do not run it)")
    p.set_defaults(handler=run)


def local_backend(args: argparse.Namespace) -> LeadBackend:
    from dataclasses import replace

    from dqkit.backends.local import LocalBackend
    from dqkit.engines.lead.engine import LeadProfile

    records = None
    if args.records is not None:
        from dqkit.engines.lead.records import LeadRecords

        records = LeadRecords.from_csv(args.records)
    points = None
    engine: Any = None
    installed: list[str] | None = None
    if getattr(args, "reference", None):
        from dqkit.cli._reference_arg import file_engine, split_references

        files, installed = split_references(args.reference)  # files, or installed ids
        if files:
            engine = file_engine(files, complete=bool(getattr(args, "complete", False)))
            engine.reference = replace(engine.reference, id="files:" + "+".join(p.name for p in files))
            points, installed = engine.points(), None
    spoof_list = None
    if getattr(args, "spoof_list", None) is not None:
        from dqkit.engines.lead.spoof_list import SpoofList

        spoof_list = SpoofList.from_file(args.spoof_list)
    profile = LeadProfile(stage1=args.stage1, require_phone=args.require_phone, records=records,
                          standardize_address=not args.no_address, points=points, spoof_list=spoof_list)
    if installed:  # the installed references named by their ids, for the streets and the answers' names
        return LocalBackend(profile=profile, reference=installed)
    return LocalBackend(profile=profile, address_engine=engine)  # the file's engine names the reference


def verify_frame(df: pd.DataFrame, backend: LeadBackend, mapping: dict[str, str] | None = None,
                 prefix: str = "", *, cache: bool = True, progress: bool | None = None,
                 workers: int | None = None) -> pd.DataFrame:
    """Every input row in order, with the flat result columns of its lead (or its recorded error) added.

    The same pipeline as `df.leads.verify()`: identical leads sent once, results cached, every row kept.
    """
    from dqkit.notebook.leads import verify

    return verify(df, backend=backend, mapping=mapping, prefix=prefix, cache=None if cache else False,
                  progress=progress, workers=workers)


def summary(result_codes: pd.Series) -> str:
    from dqkit.contract.codes import RESULT_CODES

    counts = result_codes.value_counts()
    total = int(counts.sum())
    if not total:
        return "no leads: the input has no data rows"
    lines = [f"{'code':<6} {'leads':>7} {'share':>7}  meaning"]
    for code, n in counts.items():
        if not n:
            continue  # a code of the table no lead got
        rc = RESULT_CODES.get(str(code))
        lines.append(f"{code!s:<6} {n:>7} {n / total:>7.1%}  {rc.condition if rc else 'not processed'}")
    lines.append(f"{'total':<6} {total:>7}")
    return "\n".join(lines)


def chosen_columns(df: pd.DataFrame, mapping: dict[str, str], prefix: str) -> dict[str, str]:
    """The lead field -> column mapping the run will use, printed to stderr with a warning when no ZIP, state or
    street column was found (before any lead is run)."""
    from dqkit.notebook.columns import CLI_MAP_HINT, describe_lead_columns, missing_lead_columns
    from dqkit.notebook.leads import input_columns, lead_fields

    fields = lead_fields(df.columns, mapping, prefix, map_hint=CLI_MAP_HINT)
    print("columns read:\n" + describe_lead_columns(fields), file=sys.stderr)
    missing = missing_lead_columns(fields, input_columns(df.columns, prefix), CLI_MAP_HINT)
    if missing:
        print(f"warning: {missing}", file=sys.stderr)
    return fields


# Options of the local engine: a service run does not send them and they change none of the service's answers.
LOCAL_ONLY: Final = (("require_phone", "--require-phone"), ("records", "--records"), ("reference", "--reference"),
                     ("spoof_list", "--spoof-list"), ("no_address", "--no-address"))


def local_only_options(args: argparse.Namespace) -> list[str]:
    out = [flag for name, flag in LOCAL_ONLY if getattr(args, name, None)]
    if getattr(args, "stage1", "phone_status") != "phone_status":
        out.append("--stage1")
    return out


def _chunked(args: argparse.Namespace, service: Any, df: pd.DataFrame) -> bool:
    """Whether this run goes through `dqkit.cli._verify_chunks`: the local engine to a CSV file, in several
    processes, with nothing after it that needs the whole verified frame (a history record)."""
    from dqkit.cli._leadio import WRITE_FORMATS, table_format
    from dqkit.cli._verify_chunks import chunked_run_fits
    from dqkit.notebook.history import enabled_by_env
    from dqkit.notebook.pipeline import workers_for

    if service is not None or args.history is not None or enabled_by_env() or (args.workers or 1) < 1:
        return False  # (workers below 1 are refused by the ordinary path)
    if table_format(args.output, WRITE_FORMATS, "write") != "CSV":
        return False
    return chunked_run_fits(len(df), workers_for(args.workers), df.columns, args.prefix)


def run(args: argparse.Namespace) -> int:
    import warnings

    from dqkit.cli._leadio import output_for, parse_map, read_summary, read_table, write_table
    from dqkit.cli._service import service_spec
    from dqkit.contract.errors import InputError
    from dqkit.notebook.columns import ColumnWarning
    from dqkit.notebook.history import check_history, enabled_by_env

    if args.history is not None or enabled_by_env():
        check_history(args.history or True)  # a path that is not a store: refused before any work, nothing written
    service = service_spec(args)
    if service is None and (args.prescreen or args.settled_codes or args.skip_codes or args.price is not None):
        raise InputError("--prescreen, --settled-codes, --skip-codes and --price need --service URL: locally every "
                         "lead is answered anyway")
    if (args.settled_codes or args.skip_codes) and not args.prescreen:
        raise InputError("--settled-codes and --skip-codes apply to a pre-screened run: add --prescreen")
    if args.prescreen:
        from dqkit.notebook.prescreen import settled_codes, skip_codes

        settled_codes(args.settled_codes)  # refused before any lead is run
        skip_codes(args.skip_codes)
    output_for(args.output, args.input)  # refused before any lead is run
    if args.reference:
        from dqkit.cli._reference_arg import split_references

        split_references(args.reference)  # a file or an installed id, else refused before anything is read
    mapping = parse_map(args.map)
    if service is not None:
        _say_what_is_not_sent(args, mapping)
    df = read_table(args.input)
    left_out = read_summary(df)  # a report's footer and header block, blank rows: no leads
    fields = chosen_columns(df, mapping, args.prefix)
    progress = False if args.quiet else None
    written = False  # the chunked run writes the output itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)  # said above, in the CLI's terms
        if args.prescreen:
            from dqkit.notebook.prescreen import summary_of, verify_prescreened

            out = verify_prescreened(df, backend=service, local=local_backend(args), settled=args.settled_codes,
                                     skip=args.skip_codes, price=args.price, mapping=fields, prefix=args.prefix,
                                     cache=None if not args.no_cache else False, progress=progress)
            screened = summary_of(out, prefix=args.prefix, price=args.price)
        elif _chunked(args, service, df):  # every core takes its leads to CSV lines (dqkit.cli._verify_chunks)
            from dqkit.cli._verify_chunks import verify_to_csv
            from dqkit.notebook.pipeline import workers_for

            out = verify_to_csv(df, local_backend(args), fields, args.prefix, args.output, cache=not args.no_cache,
                                progress=progress, workers=workers_for(args.workers),
                                escape=not args.no_escape_formulas)
            screened, written = None, True
        else:
            from dqkit.backends.select import lead_backend

            out = verify_frame(df, lead_backend(service) if service is not None else local_backend(args),
                               fields, args.prefix, cache=not args.no_cache, progress=progress,
                               workers=args.workers)
            screened = None
    if not written:
        write_table(out, args.output, escape=not args.no_escape_formulas)
    print(summary(out[f"{args.prefix}result_code"].astype(object).where(out[f"{args.prefix}result_code"].notna(),
                                                                         "(no answer)")))
    if left_out:
        print(left_out)
    if screened is not None:
        print(screened)
    elif service is not None:
        print(_books(out, args.price, service))
    if service is not None:
        print(_provenance(out, args.prefix, service), file=sys.stderr)
    from dqkit.notebook.history import record_run

    if args.history is not None or enabled_by_env():
        from dqkit.contract.errors import DqkitError
        from dqkit.notebook.history import references_used

        used = local_backend(args) if service is None else service
        try:
            run_id = record_run(out, args.history or True, backend=service.url if service and service.url else
                                (service.kind if service else "local"), prefix=args.prefix,
                                label=args.input.name, references=references_used(used))
        except DqkitError as exc:  # the output is written; the run says that its history is not
            print(f"wrote {len(out)} rows to {args.output}", file=sys.stderr)
            raise DqkitError(f"history NOT recorded: {exc}") from None
        print(f"recorded as run {run_id} in the history", file=sys.stderr)
    print(f"wrote {len(out)} rows to {args.output}", file=sys.stderr)
    if service is not None:
        failure = service_failure(out, args.prefix)
        if failure:
            print(f"dqkit verify: error: {failure}", file=sys.stderr)
            return 1
    return 0


def _say_what_is_not_sent(args: argparse.Namespace, mapping: dict[str, str]) -> None:
    """Say, before the run, which options the service does not get, and which columns go as the account's ids."""
    local = local_only_options(args)
    if local:
        use = ("they only decide which leads --skip-codes skips" if args.skip_codes else
               "they change none of its answers")
        print(f"note: {', '.join(local)}: options of the local engine; the service does not get them and {use}",
              file=sys.stderr)
    both = [f for f in ("PARTNER_ID", "CLIENT_ID") if f in {k.upper() for k in mapping}
            and getattr(args, f.lower(), None)]
    if both:
        from dqkit.contract.errors import InputError

        raise InputError(f"{both[0]} is given twice: --{both[0].lower().replace('_', '-')} (the account's) and "
                         f"--map {both[0]}=... (a column); give one")


def _books(out: pd.DataFrame, price: float | None, service: Any) -> str:
    """The calls of a service run, as the service counts them (distinct requests; identical rows are one call)."""
    from dqkit.notebook.frames import BATCH_ATTR

    b = out.attrs.get(BATCH_ATTR, {})
    calls, failed, cached = b.get("answered", 0), b.get("sent", 0) - b.get("answered", 0), b.get("cached", 0)
    text = f"calls to the service in this run: {calls:,} answered"
    text += f", {failed:,} without an answer (not billed; a rerun sends them)" if failed else ""
    text += f"; {cached:,} answers reused from earlier runs (not paid again)" if cached else ""
    if price is not None:
        text += f"; at {price:g} a call: {round(calls * price, 2):,.2f} spent"
    return text


def _provenance(out: pd.DataFrame, prefix: str, service: Any) -> str:
    col = f"{prefix}reference"
    refs = out[col].dropna().astype(str).unique().tolist() if col in out.columns else []
    named = f"reference {', '.join(refs)}" if refs else "the service names no reference"
    return f"answers from {service.url or service.kind}; {named}"


def service_failure(out: pd.DataFrame, prefix: str) -> str:
    """Why a service run failed as a whole ("" when it did not): no lead sent got an answer, or the service refused
    the account (E500 / E501) on every lead it answered. Names the first reason the output holds."""
    import pandas as pd

    from dqkit.notebook.prescreen import ANSWERED_BY, SETTLED_PREFIX, SKIPPED_PREFIX

    def text(name: str) -> pd.Series:
        col = f"{prefix}{name}"
        if col not in out.columns:
            return pd.Series("", index=out.index, dtype=object)
        return out[col].astype(object).where(out[col].notna(), "").astype(str)

    by = text(ANSWERED_BY)
    sent = ~(by.str.startswith(SETTLED_PREFIX) | by.str.startswith(SKIPPED_PREFIX))
    if not sent.any():
        return ""
    rc, kind, value = text("result_code")[sent], text("result_type")[sent], text("result_value")[sent]
    answered = (rc != "") & (kind != "FAILED")
    if not answered.any():
        return (f"the service answered none of the {int(sent.sum()):,} leads sent; the first reason: "
                f"{value.iloc[0] or 'no answer'}")
    refused = rc[answered].isin(("E500", "E501"))
    if refused.all():
        first = value[answered].iloc[0]
        return f"the service refused the account on every lead it answered ({rc[answered].iloc[0]}): {first}"
    return ""
