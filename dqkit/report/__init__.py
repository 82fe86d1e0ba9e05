"""The HTML report of verified leads: `dqkit report INPUT -o report.html`, or `write_report(results, path)`."""

from dqkit.report.html import GENERATED_MARK, build_report, result_code_summary, write_report

__all__ = ["GENERATED_MARK", "build_report", "result_code_summary", "write_report"]
