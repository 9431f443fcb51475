"""Errors for bad input and illegal moves. The CLI turns each into one line and exit code 2."""


class TenfoldError(ValueError):
    """Base class: the message names what was wrong and where."""


class RulesError(TenfoldError):
    """An illegal move, unknown piece or variant, or a token that cannot be used."""


class FormatError(TenfoldError):
    """A malformed board, move, level, pack or position file."""


class CpsatTimeout(Exception):
    """CP-SAT's time limit ran out before its answer was proven: no answer, but not bad input
    (the CLI says so and exits 1). Here, not in ``tray_cpsat``, so that the CLI can name it
    without loading OR-Tools."""


# The most characters of an error message as shown: one that quotes a value thousands of
# characters long keeps its start (the field and what was expected) and its end.
MESSAGE_MOST = 600


def clipped(text: str, most: int = 120) -> str:
    """``text`` for an error message: a value thousands of characters long (a piece mask, a
    number) kept to its start and end."""
    if len(text) <= most:
        return text
    keep = (most - 25) // 2
    return f"{text[:keep]}...({len(text) - 2 * keep:,} characters)...{text[-keep:]}"
