"""Errors for bad input and illegal moves. The CLI turns each into one line and exit code 2."""


class TenfoldError(ValueError):
    """Base class: the message names what was wrong and where."""


class RulesError(TenfoldError):
    """An illegal move, unknown piece or variant, or a token that cannot be used."""


class FormatError(TenfoldError):
    """A malformed board, move, level, pack or position file."""
