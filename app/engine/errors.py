"""Errors raised by the scenario engine."""


class PackageError(ValueError):
    """A scenario package is malformed; the message names the file, the field and, where known, the line."""
