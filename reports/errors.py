"""Errors the reports raise for bad input. The command-line entry points print
the message and exit non-zero; nothing here is meant to be caught silently."""


class ReportError(Exception):
    """Any problem with the input that the user must fix."""


class ResultsFormatError(ReportError):
    """A results file that is missing, truncated, or does not follow the schema."""


class MachineMismatchError(ReportError):
    """Two runs from different machines were given to compare."""
