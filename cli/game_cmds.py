"""``tenfold replay``, ``tenfold play`` and ``tenfold show``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import cli_errors, emit_json
from cli.console import progress
from cli.draw import draw_board
from cli.inputs import (board_arg, board_text_arg, is_file, read_named_json, read_text_arg, refuse_missing_path,
                        source_name)
from cli.options import (check_seconds, check_streak_and_tokens, float_option, int_option, mode_arg, number_text,
                         variant_arg)
from cli.tray_cmd import RulesOpt
from generator.render import field_text, stars_text
from solver.board import Board, parse_board
from solver.deals import RandomDeals, parse_deals
from solver.engine import Game, Streak
from solver.errors import RulesError
from solver.jsontext import load_json
from solver.level import Level, Pack, parse_level_or_pack, pick_level
from solver.moves import Move, parse_moves, parse_turns
from solver.policy import POLICIES
from solver.selfplay import expert_clock, mode_start_board, new_random_game, play_game
from solver.variants import Mode


@cli_errors
def replay(
    rules: RulesOpt,
    moves: Annotated[str, typer.Option(help="JSON file (- for stdin) with a flat list of moves, a turn every 3 "
                                            "placements, or a list of turns, each a list of moves with 1 to 3 "
                                            "placements (a level's trays of fewer pieces)")],
    board: Annotated[Optional[str], typer.Option(
        help="one-line board text or a file (- for stdin; default: empty)")] = None,
    streak: Annotated[int, int_option(help="consecutive clearing placements before the first move (Arabic: 1 or"
                                                      " more says the last turn cleared)")] = 0,
    mode: Annotated[Optional[str], typer.Option(help="mode whose token count (and stone count) applies "
                                                     "(default: the variant's)")] = None,
    tokens: Annotated[Optional[int], int_option(help="tokens available (default: the mode's)")] = None,
    deals: Annotated[Optional[str], typer.Option(
        help="the trays dealt, a file as play --deals takes: each move must be of the tray in play, and a "
             "turn ends where a tray does")] = None,
    seed: Annotated[Optional[int], int_option(
        help="the seeded supply play --seed dealt from, as --deals (0 or more)", min=0)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Replay a move list; a turn ends every 3 placements, or as its turns or the trays dealt say.

    --seed or --deals replays a game of play against the trays it dealt."""
    check_streak_and_tokens(streak, tokens, rules)
    variant = variant_arg(rules)
    start = board_arg(board)
    game_mode = mode_arg(variant, mode)
    one_board(game_mode, "replay replays")
    check_mode_stones(game_mode, start)
    if deals is not None and seed is not None:
        raise RulesError("--deals and --seed: each says what was dealt; give one of them")
    data, where = read_named_json(moves, "--moves")
    turns = parse_turns(data, f"{where}: moves")
    carried, count = Streak.carried_in(streak), tokens if tokens is not None else game_mode.tokens
    if deals is None and seed is None:
        game = Game(variant, start, carried, count)
    else:
        if turns is not None:
            raise RulesError(f"{where}: moves: a list of turns, where the trays dealt (--deals, --seed) say "
                             "where turns end: give a flat list")
        stream = (RandomDeals(variant, seed) if deals is None
                  else parse_deals(read_text_arg(deals, "--deals"), f"--deals {deals}"))
        game = Game.dealt(variant, stream, start, count, carried)
    if turns is None:  # a flat list: the engine ends a turn every three placements, or where a tray empties
        _replay(game, parse_moves(data, f"{where}: moves"), f"{where}: moves")
    else:
        for t, turn in enumerate(turns):
            _replay(game, turn, f"{where}: moves[{t}]")
            if game.placements_in_turn:  # (a turn of three ended at its third placement)
                game.end_turn()
    if json_out:  # the shape issue #2 fixed: score is the points the moves gained
        emit_json({"score": game.score, "board": game.board.text(), "streak": game.streak.run})
        return
    typer.echo(draw_board(game.board))
    typer.echo(f"score: {game.score}  streak: {game.streak.run}  placements: {game.placements}")
    if variant.token_bonus:
        typer.echo(f"tokens left: {game.tokens}  final score (their bonus included): {game.final_score}")


def _replay(game: Game, moves: list[Move], where: str) -> None:
    for i, move in enumerate(moves):
        try:
            game.apply(move)
        except RulesError as err:
            raise RulesError(f"{where}[{i}]: {err}") from None


def one_board(game_mode: Mode, doing: str) -> None:
    """A mode of several boards (Sudoku's Battle Matrix, whose clears drop tiles on the other
    board) is refused: a command plays one board, which would be another game."""
    if game_mode.players > 1:
        raise RulesError(f"--mode {game_mode.name}: a mode of {game_mode.players} boards; {doing} one board "
                         "(the same game without the opponent is the variant's default mode)")


def check_mode_stones(game_mode: Mode, start: Board) -> None:
    """A mode with fixed stones (Sultan's Labyrinth: 4) is played on a board with that many."""
    if problem := game_mode.stones_problem(start.stones.bit_count()):
        raise RulesError(f"--board: {problem}")


@cli_errors
def play(
    rules: RulesOpt,
    seed: Annotated[int, int_option(help="seed of the deal stream (but with --deals), of the mode's seeded "
                                           "stones and of the expert's sampling (0 or more: Python's generator "
                                           "reads -1 as 1); the same seed plays the same game, but where "
                                           "--time-limit gives the expert a clock", min=0)],
    mode: Annotated[Optional[str], typer.Option(help="game mode (default: the variant's)")] = None,
    trays: Annotated[Optional[int], int_option(
        help="stop after this many trays (default: 100, or every tray of --deals)", min=1)] = None,
    policy: Annotated[str, typer.Option(help="greedy or expert")] = "greedy",
    time_limit: Annotated[Optional[float], float_option(
        "--time-limit", help="expert: a clock of this many seconds of lookahead per tray, spent when the "
                             "board gets tight; the game then follows the machine's speed and load (default: no "
                             "clock, every lookahead round is run; 0: no lookahead)")] = None,
    board: Annotated[Optional[str], typer.Option(
        help="starting board, one-line text or a file (- for stdin; default: empty, or the mode's seeded "
                  "stones)")] = None,
    deals: Annotated[Optional[str], typer.Option(
        help="a file of the trays to deal, in order, instead of the seeded supply: one tray per line "
             "(piece ids separated by spaces or commas), or JSON (a list of trays, or {\"trays\": ..., "
             "\"reserve\": ...}); the game stops when they run out")] = None,
    fixed_rounds: Annotated[bool, typer.Option(
        "--fixed-rounds", help="expert: run every lookahead round whatever --time-limit says (but 0), so the "
                               "same seed plays the same game on any machine and under any load (the default "
                               "without --time-limit)")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Play a seeded game with a policy and report score and trays survived.

    Sudoku's sprint mode ends the game at the placement that reaches 5,000 points."""
    variant = variant_arg(rules)
    if policy not in POLICIES:
        raise RulesError(f"--policy: unknown policy {policy!r} (expected one of {', '.join(POLICIES)})")
    game_mode = mode_arg(variant, mode)
    one_board(game_mode, "play plays")
    time_limit, clock = _expert_clock(policy, time_limit, fixed_rounds, game_mode)
    start = board_arg(board) if board is not None else mode_start_board(game_mode, seed)
    check_mode_stones(game_mode, start)
    if deals is None:
        game = new_random_game(variant, seed, start, game_mode.tokens)
        trays = 100 if trays is None else trays
    else:
        script = parse_deals(read_text_arg(deals, "--deals"), f"--deals {deals}")
        trays = script.trays_left if trays is None else min(trays, script.trays_left)
        game = Game.dealt(variant, script, start, game_mode.tokens)
    with progress(range(trays), length=trays, label=f"{variant.name} seed {seed}") as bar:
        result = play_game(game, _policy(policy, time_limit, seed, clock), trays,
                           on_tray=lambda g: bar.update(1), target=game_mode.target)
    if json_out:  # the shape issue #8 fixed; a mode with a target score (sprint) says if it ended there
        answer = {"score": result.score, "trays": result.trays, "over": result.over,
                  "ms_per_tray": round(result.ms_per_tray, 3)}
        if game_mode.target is not None:
            answer["reached"] = result.reached
        # what replay takes to play the game again (with this --seed or --deals): its board and its
        # moves, a flat list
        answer["start"] = start.text()
        answer["moves"] = [move.to_json() for move in result.moves]
        emit_json(answer)
        return
    typer.echo(draw_board(result.game.board))
    typer.echo(f"score: {result.score}"
               + (f" (tokens left: {result.game.tokens}, their bonus included)" if variant.token_bonus else ""))
    typer.echo(f"trays survived: {result.trays}{' (game over)' if result.over else ''}")
    if result.reached:
        typer.echo(f"{game_mode.name}: reached {game_mode.target:,} points in tray {result.trays + 1}")
    if hasattr(variant, "rank"):
        typer.echo(f"rank: {variant.rank(result.score)}")


def _expert_clock(policy: str, time_limit: float | None, fixed_rounds: bool, game_mode: Mode) -> tuple[float, bool]:
    """``--time-limit`` and ``--fixed-rounds`` checked (settings of the expert alone; the time within
    the clock of a mode that has one), then the expert's seconds a tray and whether they are a clock
    (``expert_clock``)."""
    if time_limit is not None:
        check_seconds(time_limit, allow_zero=True)
        if policy != "expert":
            raise RulesError(f"--time-limit: the expert's lookahead per tray, not a setting of --policy {policy}")
        mode_clock = game_mode.seconds_per_tray
        if mode_clock is not None and time_limit > mode_clock:
            raise RulesError(f"--time-limit: mode {game_mode.name} gives {mode_clock} s a tray, "
                             f"got {number_text(time_limit)}")
    if fixed_rounds and policy != "expert":
        raise RulesError(f"--fixed-rounds: a setting of the expert's lookahead, not of --policy {policy}")
    return expert_clock(time_limit, fixed_rounds, game_mode)


def _policy(name: str, time_limit: float, seed: int, clock: bool):
    """``clock``: the expert's lookahead stops at ``time_limit`` seconds a tray (with whole rounds
    done), else it runs every round: the same game on any machine (before 2026-12-06 the clock was
    the default, at 0.3 s, and the same seed died at tray 76 or lived to 200 with the host's load)."""
    if name == "expert":
        from solver.expert import ExpertPolicy

        return ExpertPolicy(time_limit=time_limit, seed=seed, clock=clock)
    return POLICIES[name]


def _describe_level(level: Level) -> str:
    goals = ", ".join(f"{k} {v}" if k == "score" else k for g in level.goals for k, v in g.items())
    trays = "  ".join("[" + " ".join(t) + "]" for t in level.spelled_trays)  # as the file names its pieces
    lines = [
        f"level {level.id}  ({level.variant.name}, {level.mode})",
        draw_board(level.board),
        f"trays: {trays}",
        f"limit: {level.limit} placements  tokens: {level.tokens}  goals: {goals}",
    ]
    if level.best:
        lines.append(f"best: {field_text(level.best.get('score'))} ({field_text(level.best.get('proof'))})")
    extras = [f"{name}: {stars_text(level.raw[name]) if name == 'stars' else field_text(level.raw[name])}"
              for name in ("grade", "stars") if name in level.raw]
    if extras:
        lines.append("  ".join(extras))
    return "\n".join(lines)


@cli_errors
def show(
    what: Annotated[str, typer.Argument(
        help="board text, a board file, or a level/pack JSON file (- for stdin)", metavar="BOARD_OR_LEVEL")],
    level: Annotated[Optional[str], typer.Option("--level", help="only this level of a pack")] = None,
) -> None:
    """Draw a board, a level or a pack (or one of its levels) in the terminal (- reads it from stdin)."""
    source = source_name(what)
    if what == "-" or is_file(Path(what)):
        text = read_text_arg(what, source)
        if text.lstrip().startswith(("{", "[")):  # JSON; board text starts with a row
            item = parse_level_or_pack(load_json(text, source), source)
            if isinstance(item, Pack) and level is None:
                typer.echo(f"pack {item.id}: {item.title} ({len(item.levels)} levels)\n")
                typer.echo("\n\n".join(_describe_level(lv) for lv in item.levels))
                return
            typer.echo(_describe_level(item if level is None else pick_level(item, level, source)))
            return
        board = parse_board(text, source)
    else:
        refuse_missing_path(what, "show")
        board = board_text_arg(what, "board")
    if level is not None:
        raise RulesError("--level: goes with a level or pack file, not a board")
    typer.echo(draw_board(board))


def register(app: typer.Typer) -> None:
    app.command()(replay)
    app.command()(play)
    app.command()(show)
