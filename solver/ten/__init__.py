"""Ten (Steffen Spiele, 2015): positions, rules, winning lines, and solvers for open and hidden tiles.

One module per job: ``position`` reads and writes ``tenfold.ten/1``; ``field``
is the mutable grid the searches share; ``rules`` gives legal moves and applies
them; ``lines`` finds immediate wins and threats; ``search`` solves the open
variant; ``chance`` the hidden one; ``play`` makes seeded positions and games.
"""

from solver.ten.chance import solve_hidden
from solver.ten.lines import WinningMove, lines_to_json, threats, winning_moves
from solver.ten.position import BLACK, WHITE, TenPosition, parse_position, position_to_json
from solver.ten.rules import TenMove, apply_move, legal_moves, parse_move, position_winner
from solver.ten.search import SolveResult, solve_open


def solve(position: TenPosition, depth: int | None = None, time_limit: float | None = None,
          history: dict | None = None) -> SolveResult:
    """The exact open-variant result, or the hidden-variant win probability, within ``depth`` plies."""
    if position.variant == "open":
        return solve_open(position, depth, time_limit, history)
    return solve_hidden(position, depth, time_limit, history)


__all__ = [
    "BLACK", "WHITE", "SolveResult", "TenMove", "TenPosition", "WinningMove", "apply_move", "legal_moves",
    "lines_to_json", "parse_move", "parse_position", "position_to_json", "position_winner", "solve",
    "solve_hidden", "solve_open", "threats", "winning_moves",
]
