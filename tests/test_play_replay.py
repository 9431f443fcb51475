"""Played games (``tenfold play``, greedy and expert) replayed on the reference rules
(``level_reference``, no code shared with ``solver/``).

Seeded deals from the variant's supply on half-full boards, with 0 or 3 rotate/remove tokens
and no reserve: every move a policy makes must be legal there, the game's score and trays must
be the replay's, and a game that ends ``over`` must be stuck: with no token left, no tray piece
fits there; with tokens left, none can save the whole tray (the tray search's rescue, itself
held to a brute force). ``play --deals FILE --json`` prints the same score, trays and verdict.
"""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

import reference_rules as ref
from cli.main import app
from level_reference import _Play
from solver.board import parse_board
from solver.deals import RandomDeals, ScriptedDeals
from solver.engine import Game
from solver.expert import ExpertPolicy
from solver.moves import Placement, TokenUse
from solver.pieces import placements
from solver.policy import greedy
from solver.selfplay import play_game
from solver.tray import TraySearch
from solver.variants import find_variant
from test_game_over import reference_can_go_on

TRAYS = 12


def start(seed: int):
    """A variant, a half-full board with no complete zone, the trays to deal, and tokens."""
    rng = random.Random(f"play-replay-{seed}")
    name = ("halloween", "arabic", "sudoku")[seed % 3]
    grid = filled_grid(rng, name, 0.3, 0.55)
    deals = RandomDeals(find_variant(name), seed)
    trays = [deals.next_tray() for _ in range(TRAYS)]
    tokens = 0 if name == "halloween" else rng.choice((0, 3))
    return name, grid, trays, tokens


def filled_grid(rng: random.Random, name: str, low: float, high: float) -> list[list[str]]:
    """A grid whose cells are filled at a rate drawn from ``low``..``high``, with no zone of the
    variant complete (redrawn until none is)."""
    while True:
        fill = rng.uniform(low, high)
        grid = [["#" if rng.random() < fill else "." for _ in range(10)] for _ in range(10)]
        if not any(all(grid[r][c] == "#" for r, c in zone) for _, zone in ref.zones(name)):
            return grid


def check_game(seed: int, policy) -> tuple[bool, int]:
    name, grid, trays, tokens = start(seed)
    text = ref.grid_text(grid)
    game = Game.dealt(find_variant(name), ScriptedDeals(trays), parse_board(text), tokens)
    result = play_game(game, policy, TRAYS)
    moves = result.moves
    level = {"variant": name, "mode": "x", "board": text.split("/"), "trays": trays, "tokens": tokens,
             "goals": [{"score": 0}]}
    play = _Play(level)
    for i, move in enumerate(moves):
        why = play.move(move.to_json())
        assert not why, (seed, i, move, why)
    assert (play.score, play.tray) == (result.score, result.trays), seed
    if result.over:
        tray = play.current_tray()
        assert tray and +tray, seed
        pieces = sorted(tray.elements())
        if play.tokens == 0:
            assert not reference_can_go_on(name, play.game.grid, pieces, 0), seed
        else:  # the policies give up where no tokens can save the whole tray (the rescue's own
            # brute-force test stands behind this)
            assert TraySearch(game.variant, game.board, game.streak).rescue(pieces, play.tokens) is None, seed
    else:
        assert result.trays == TRAYS, seed
    return result.over, sum(1 for m in moves if not isinstance(m, Placement))


@pytest.mark.parametrize("chunk", range(2))
def test_greedy_games_replay_on_the_reference_rules(chunk):
    over = [check_game(seed, greedy)[0] for seed in range(chunk, 400, 2)]
    assert 30 <= sum(over) <= len(over) - 30, sum(over)  # games that end stuck, and that last


def test_expert_games_replay_on_the_reference_rules():
    results = [check_game(seed, ExpertPolicy(seed=seed, clock=False, samples=4, candidates=3, survival=0,
                                             leaf_survival=0)) for seed in range(12)]
    assert sum(tokens for _, tokens in results) >= 1, results  # the expert spent tokens somewhere


def test_cli_play_with_the_same_deals_says_the_same(tmp_path):
    for seed in range(12):
        name, grid, trays, tokens = start(seed)
        if tokens != (0 if name == "halloween" else 3):  # play gives the mode's tokens
            continue
        text = ref.grid_text(grid)
        game = Game.dealt(find_variant(name), ScriptedDeals(trays), parse_board(text), tokens)
        result = play_game(game, greedy, TRAYS)
        deals = tmp_path / f"deals-{seed}.json"
        deals.write_text(json.dumps({"trays": trays}))
        out = CliRunner().invoke(app, ["play", "--rules", name, "--seed", "1", "--board", text,
                                       "--deals", str(deals), "--json"])
        assert out.exit_code == 0, out.output
        answer = json.loads(out.stdout)
        assert (answer["score"], answer["trays"], answer["over"]) == (result.score, result.trays, result.over)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sprint_ends_at_the_placement_that_reaches_5000(seed):
    """Sudoku's Sprint to 5,000: the game stops at the placement whose points get there (and not
    one before), where classic play of the same deals goes on."""
    sudoku = find_variant("sudoku")
    target = sudoku.modes["sprint"].target
    scores = []

    def recording(game):
        scores.append(game.score)
        return greedy(game)

    game = Game.dealt(sudoku, RandomDeals(sudoku, seed), None, 3)
    result = play_game(game, recording, 100, target=target)
    assert result.reached and not result.over and result.game.score >= target > max(scores)
    assert result.trays == result.game.turns_completed < 100
    classic = play_game(Game.dealt(sudoku, RandomDeals(sudoku, seed), None, 3), greedy, result.trays + 2)
    assert not classic.reached and classic.trays > result.trays

    out = CliRunner().invoke(app, ["play", "--rules", "sudoku", "--mode", "sprint", "--seed", str(seed)])
    assert out.exit_code == 0, out.output
    assert f"sprint: reached 5,000 points in tray {result.trays + 1}" in out.stdout
    shown = CliRunner().invoke(app, ["play", "--rules", "sudoku", "--mode", "sprint", "--seed", str(seed), "--json"])
    answer = json.loads(shown.stdout)
    assert (answer["score"], answer["trays"], answer["over"]) == (result.score, result.trays, False)
    assert answer["reached"] is True  # the JSON says why the game ended (a docs audit: it did not)
    short = CliRunner().invoke(app, ["play", "--rules", "sudoku", "--mode", "sprint", "--seed", str(seed),
                                     "--trays", "2", "--json"])
    assert json.loads(short.stdout)["reached"] is False  # stopped at the tray cap before 5,000
    classic_json = CliRunner().invoke(app, ["play", "--rules", "sudoku", "--seed", str(seed), "--trays", "2", "--json"])
    keys = {"score", "trays", "over", "ms_per_tray", "start", "moves"}
    assert set(json.loads(classic_json.stdout)) == keys  # no target: no key


def _play_then_replay(args: list[str], tmp_path, free: bool = True) -> tuple[dict, list[str]]:
    """``play ... --json``, then ``replay`` of its ``start`` and ``moves`` against the trays it
    dealt (its ``--seed`` or ``--deals``), and with ``free`` as a free game too (any piece, a turn
    every 3 placements): the game's score, the token uses the replay counts, and the placements."""
    out = CliRunner().invoke(app, ["play", *args, "--json"])
    assert out.exit_code == 0, (args, out.output)
    answer = json.loads(out.stdout)
    rules, mode = args[args.index("--rules") + 1], args[args.index("--mode") + 1] if "--mode" in args else None
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps(answer["moves"]))
    variant = find_variant(rules)
    tokens = [m["token"] for m in answer["moves"] if "token" in m]
    mode_tokens = variant.mode(mode).tokens
    given = "--deals" if "--deals" in args else "--seed"
    dealt = [given, args[args.index(given) + 1]]
    for how in [dealt] + [[]] * free:
        replayed = CliRunner().invoke(app, ["replay", "--rules", rules, *(["--mode", mode] if mode else []), *how,
                                            "--board", answer["start"], "--moves", str(moves), "--json"])
        assert replayed.exit_code == 0, (args, how, replayed.output)
        score = json.loads(replayed.stdout)["score"]
        assert score + (mode_tokens - len(tokens)) * variant.token_bonus == answer["score"], (args, how)
    placements = len(answer["moves"]) - len(tokens)
    ended_inside = answer["over"] or answer.get("reached", False)  # stuck, or the target, within a tray
    if "--deals" not in args:  # (the seeded supply deals trays of 3)
        assert 3 * answer["trays"] <= placements <= 3 * answer["trays"] + (2 if ended_inside else 0), (args, answer)
    return answer, tokens


def test_play_json_moves_replay_to_its_score(tmp_path):
    """``play --json``'s ``start`` and ``moves`` replay (``tenfold replay``) to the game's score,
    its tokens' bonus and its trays: seeded games on half-full boards, where the policies spend
    tokens, and from the modes' own starts (Sultan's seeded stones; Sprint's end at 5,000)."""
    spent: list[str] = []
    overs = 0
    for seed in range(36):
        name, grid, _, _ = start(seed)
        answer, tokens = _play_then_replay(["--rules", name, "--seed", str(seed), "--trays", "12",
                                            "--board", ref.grid_text(grid)], tmp_path)
        assert answer["start"] == ref.grid_text(grid)
        spent += tokens
        overs += answer["over"]
    for seed in (1, 2):  # fuller Sudoku boards, where greedy swaps when no removal saves the tray
        answer, tokens = _play_then_replay(["--rules", "sudoku", "--seed", str(seed), "--trays", "12",
                                            "--board", _full_sudoku_board(seed)], tmp_path)
        spent += tokens
    for seed in range(3):
        answer, tokens = _play_then_replay(["--rules", "arabic", "--mode", "sultan", "--seed", str(seed),
                                            "--trays", "30"], tmp_path)
        assert answer["start"].count("S") == 4
        spent += tokens
        assert _play_then_replay(["--rules", "sudoku", "--mode", "sprint", "--seed", str(seed)], tmp_path)[0]["reached"]
    answer, tokens = _play_then_replay(["--rules", "arabic", "--seed", "4", "--trays", "4", "--board",
                                        ref.grid_text(start(1)[1]), "--policy", "expert", "--fixed-rounds",
                                        "--time-limit", "0.05"], tmp_path)
    spent += tokens
    assert overs >= 5 and {"remove", "rotate", "reroll", "swap"} <= set(spent), (overs, sorted(set(spent)))


def test_play_json_with_deals_of_short_trays_replays_with_those_deals(tmp_path):
    """Trays of 1 to 3 pieces (``--deals``): a free replay ends a turn every 3 placements, which
    pays Arabic's flow bonus elsewhere than the game did (a review: 1,388 for a game of 1,338);
    ``replay --deals`` ends them where the trays do, and gives the game's score every time."""
    differ = 0
    for seed in range(12):
        rng = random.Random(f"short-trays-{seed}")
        name, grid, _, _ = start(3 * seed + 1)  # Arabic
        supply = RandomDeals(find_variant(name), seed)
        deals = tmp_path / f"deals-{seed}.txt"
        deals.write_text("\n".join(" ".join(supply.next_tray()[:rng.randint(1, 3)]) for _ in range(15)))
        answer, _ = _play_then_replay(["--rules", name, "--seed", "1", "--board", ref.grid_text(grid),
                                       "--deals", str(deals)], tmp_path, free=False)
        free = CliRunner().invoke(app, ["replay", "--rules", name, "--board", answer["start"], "--moves",
                                        str(tmp_path / "moves.json"), "--json"])
        tokens = sum("token" in m for m in answer["moves"])
        variant = find_variant(name)
        differ += json.loads(free.stdout)["score"] + (variant.mode(None).tokens - tokens) * variant.token_bonus \
            != answer["score"]
    assert differ >= 1  # the free replay's turns are not the game's, and the deals' are


def test_a_replay_against_the_deals_refuses_a_piece_not_dealt(tmp_path):
    answer, _ = _play_then_replay(["--rules", "halloween", "--seed", "5", "--trays", "3"], tmp_path)
    moves = tmp_path / "moves.json"
    other = CliRunner().invoke(app, ["replay", "--rules", "halloween", "--seed", "6", "--moves", str(moves)])
    assert other.exit_code == 2 and "moves[0]: piece" in other.output and "not in the tray" in other.output
    both = CliRunner().invoke(app, ["replay", "--rules", "halloween", "--seed", "5", "--deals", str(moves),
                                    "--moves", str(moves)])
    assert both.exit_code == 2 and "--deals and --seed" in both.output
    moves.write_text(json.dumps([answer["moves"][:3], answer["moves"][3:6]]))  # the same game, as turns
    turns = CliRunner().invoke(app, ["replay", "--rules", "halloween", "--seed", "5", "--moves", str(moves)])
    assert turns.exit_code == 2 and "give a flat list" in turns.output


@pytest.mark.parametrize("name", ["arabic", "sudoku"])
def test_a_replay_takes_its_streak_and_tokens_with_the_deals_as_without(name, tmp_path):
    """``--streak`` and ``--tokens`` (default: the mode's) hold for a replay against the trays
    dealt as for a free one: a dealt replay that dropped either, or a default one token off,
    survived every test (a mutation audit)."""
    moves = tmp_path / "moves.json"
    deals = tmp_path / "deals.txt"
    deals.write_text("1x1 1x1 1x1\n")
    board = "/".join(["#" * 10] * 10)
    allowed = find_variant(name).mode(None).tokens
    for dealt in ([], ["--seed", "3"], ["--deals", str(deals)]):
        moves.write_text("[]")
        streak = CliRunner().invoke(app, ["replay", "--rules", name, *dealt, "--streak", "5", "--moves", str(moves),
                                          "--json"])
        assert streak.exit_code == 0 and json.loads(streak.stdout)["streak"] == 5, (dealt, streak.output)
        for count, given in ((allowed, []), (1, ["--tokens", "1"])):
            removes = [{"token": "remove", "row": 0, "col": c} for c in range(count + 1)]
            moves.write_text(json.dumps(removes[:count]))
            run = ["replay", "--rules", name, "--board", board, *dealt, *given, "--moves", str(moves)]
            assert CliRunner().invoke(app, run).exit_code == 0, (dealt, given)
            moves.write_text(json.dumps(removes))
            over = CliRunner().invoke(app, run)
            assert over.exit_code == 2 and "no tokens left" in over.output, (dealt, given, over.output)
    refused = CliRunner().invoke(app, ["replay", "--rules", name, "--seed", "-1", "--moves", str(moves)])
    assert refused.exit_code == 2 and "--seed" in refused.output


def test_play_with_fewer_deals_than_trays_asked_plays_them_all_and_is_not_over(tmp_path):
    """``--trays`` past the trays of ``--deals`` plays the deals (a game that ran out of trays is
    not over: ``over`` says the board could take no more)."""
    deals = tmp_path / "deals.txt"
    deals.write_text("1x1 1x1 1x1\n1x2 2x1 1x1\n")
    result = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals", str(deals),
                                      "--trays", "5", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["trays"], answer["over"], len(answer["moves"])) == (2, False, 6), answer


def _full_sudoku_board(seed: int) -> str:
    return ref.grid_text(filled_grid(random.Random(f"x{seed}"), "sudoku", 0.5, 0.7))


@pytest.mark.parametrize("name", ["arabic", "sudoku"])
def test_a_free_replay_spends_each_token_as_the_dealt_game_did(name):
    """A replay (a free game: any piece, a turn every 3 placements) of a dealt game's moves ends
    with its score, board, streak and tokens: a rotate, reroll, swap or refresh only spends its
    token there, what it dealt being in the placements after it. Random legal lines, tokens often."""
    variant = find_variant(name)
    kinds = sorted(variant.token_kinds)
    used = set()
    for seed in range(100):
        rng = random.Random(f"free-replay-{name}-{seed}")
        game = Game.dealt(variant, RandomDeals(variant, seed), None, 3)
        moves = []
        for _ in range(40):
            fits = [Placement(p, s.row, s.col) for p in dict.fromkeys(game.tray or ())
                    for s in placements(p) if not s.mask & game.board.occupied]
            if game.tokens and game.tray and (not fits or rng.random() < 0.15):
                kind = rng.choice(kinds)
                filled = [c for c in range(100) if game.board.filled >> c & 1]
                if kind == "remove" and not filled:
                    continue
                move = TokenUse(kind, piece=rng.choice(game.tray) if kind in ("rotate", "swap") else None,
                                turns=rng.randint(1, 3) if kind == "rotate" else None,
                                **({"row": (c := rng.choice(filled)) // 10, "col": c % 10} if kind == "remove" else {}))
                used.add(kind)
            elif fits:
                move = rng.choice(fits)
            else:
                break
            game.apply(move)
            moves.append(move)
        free = Game(variant, tokens=3)
        for move in moves:
            free.apply(move)
        assert (free.score, free.board, free.streak, free.tokens, free.placements) == (
            game.score, game.board, game.streak, game.tokens, game.placements), (name, seed)
    assert used == set(kinds), used


def test_a_target_met_exactly_ends_the_game_at_that_placement():
    """Sprint "to 5,000": a score equal to the target reaches it. Sudoku scores 10 a cell (RULES.md),
    so with a target of 10 the first 1x1 ends the game and one of 20 the second."""
    sudoku = find_variant("sudoku")
    for target, placed in ((10, 1), (20, 2)):
        game = Game.dealt(sudoku, ScriptedDeals([["1x1", "1x1", "1x1"], ["1x1"]]), None, 0)
        result = play_game(game, greedy, 5, target=target)
        assert result.reached and not result.over, target
        assert (len(result.moves), result.game.score) == (placed, target)


def test_sultans_stones_are_four_seeded_cells_anywhere_on_the_board():
    """RULES.md: Sultan's Labyrinth starts with exactly 4 stones; the same seed places them alike,
    and over 400 seeds each of the 100 cells gets one (a cell left out every time: 0.96**400)."""
    from solver.selfplay import mode_start_board

    mode = find_variant("arabic").modes["sultan"]
    seen = set()
    for seed in range(400):
        board = mode_start_board(mode, seed)
        cells = {(r, c) for r in range(10) for c in range(10) if board.char_at(r, c) == "S"}
        assert len(cells) == 4 and board.text() == mode_start_board(mode, seed).text(), seed
        assert board.text().count("#") == 0
        seen |= cells
    assert seen == {(r, c) for r in range(10) for c in range(10)}


def test_ms_per_tray_is_the_games_milliseconds_over_its_trays():
    """docs/json.md: play's ms_per_tray is milliseconds a tray (a game of no tray: its whole time)."""
    from solver.selfplay import PlayResult

    assert PlayResult(0, 4, False, 2.0, None).ms_per_tray == 500.0
    assert PlayResult(0, 1, True, 0.25, None).ms_per_tray == 250.0
    assert PlayResult(0, 0, True, 0.5, None).ms_per_tray == 500.0


def test_play_game_reports_each_tray_once_when_it_is_placed():
    """``on_tray`` (play's progress) is told once a tray, after its last piece, not at every move."""
    halloween = find_variant("halloween")
    told = []
    game = Game.dealt(halloween, ScriptedDeals([["1x1", "1x1", "1x1"], ["1x2", "2x1"]]), None, 0)
    result = play_game(game, greedy, 5, on_tray=lambda g: told.append(g.turns_completed))
    assert len(result.moves) == 5 and told == [1, 2]


def test_replay_text_says_score_streak_placements_and_the_tokens_left(tmp_path):
    """docs/cli.md: the text gives the score, the streak and, in the variants with tokens, the
    tokens left and the final score with their bonus. Arabic, hand counted (RULES.md): a removal
    spends one of the mode's 3 tokens and scores nothing; the 1x1 then fills row 0: 1 cell + 100
    for one line, and the streak carried in (3) grows by that clearing placement; the 2 tokens
    left are worth 100 each. Halloween has no tokens, so no such line."""
    board = "/".join(["#########.", "#........."] + ["." * 10] * 8)
    moves = [{"token": "remove", "row": 1, "col": 0}, {"piece": "1x1", "row": 0, "col": 9}]
    path = tmp_path / "moves.json"
    path.write_text(json.dumps(moves))
    out = CliRunner().invoke(app, ["replay", "--rules", "arabic", "--board", board, "--streak", "3",
                                   "--moves", str(path)])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[-2:] == ["score: 101  streak: 4  placements: 1",
                          "tokens left: 2  final score (their bonus included): 301"], lines[-2:]
    none = CliRunner().invoke(app, ["replay", "--rules", "arabic", "--board", board, "--tokens", "0",
                                    "--moves", str(path)])
    assert none.exit_code == 2 and "no tokens left" in none.output, none.output  # --tokens 0 is none, not the default
    path.write_text(json.dumps(moves[1:]))
    plain = CliRunner().invoke(app, ["replay", "--rules", "halloween", "--board", board, "--moves", str(path)])
    assert plain.exit_code == 0, plain.output
    # Halloween: 1 cell + 10 for one line; no streak carried in, so no +5
    assert plain.stdout.splitlines()[-1] == "score: 11  streak: 1  placements: 1"


def test_play_deals_100_trays_unless_told_otherwise(monkeypatch, tmp_path):
    """docs/cli.md: play stops after at most --trays trays, default 100, or every tray of --deals."""
    import cli.game_cmds

    asked = []
    real = cli.game_cmds.play_game
    monkeypatch.setattr(cli.game_cmds, "play_game", lambda game, policy, trays, **kw: asked.append(trays)
                        or real(game, policy, 1, **kw))
    deals = tmp_path / "deals.txt"
    deals.write_text("1x1 1x1 1x1\n1x2 2x1 1x1\n")
    for extra in ([], ["--trays", "5"], ["--deals", str(deals)]):
        result = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "1", *extra, "--json"])
        assert result.exit_code == 0, result.output
    assert asked == [100, 5, 2]
