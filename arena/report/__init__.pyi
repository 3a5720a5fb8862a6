"""The public face of ``chaodipi.arena.report`` (its names, imported when first used)."""

from .cells import los_text as los_text
from .cells import score_text as score_text
from .cells import signed_text as signed_text
from .cells import unestimated_text as unestimated_text
from .cells import unmeasured_text as unmeasured_text
from .plots import write_plots as write_plots
from .stats import MIN_PAIRS as MIN_PAIRS
from .stats import Rating as Rating
from .stats import anchored_ratings as anchored_ratings
from .stats import pentanomial_estimate as pentanomial_estimate
from .stats import wilson_interval as wilson_interval
from .summary import FAULTS as FAULTS
from .summary import Column as Column
from .summary import Report as Report
from .summary import build_report as build_report
from .summary import fitted_tables as fitted_tables
from .summary import print_report as print_report
from .summary import print_standings as print_standings
from .tables import csv_cell as csv_cell
from .tables import write_csv as write_csv
from .tables import write_table as write_table

__all__ = [
    "FAULTS",
    "MIN_PAIRS",
    "Column",
    "Rating",
    "Report",
    "anchored_ratings",
    "build_report",
    "csv_cell",
    "fitted_tables",
    "los_text",
    "pentanomial_estimate",
    "print_report",
    "print_standings",
    "score_text",
    "signed_text",
    "unestimated_text",
    "unmeasured_text",
    "wilson_interval",
    "write_csv",
    "write_plots",
    "write_table",
]
