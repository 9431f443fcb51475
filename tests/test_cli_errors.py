"""Bad input through the ``tenfold`` CLI: one line naming what and where, exit code 2, no traceback.

Also ``tenfold show`` on a board and a level, and ``tenfold play`` determinism.
"""

from __future__ import annotations

import errno
import json
import os
import re
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.entry import EXIT_READER_LEFT
from cli.main import app

EMPTY = "/".join(["." * 10] * 10)
runner = CliRunner()


def level_data(**changes) -> dict:
    data = {
        "format": "tenfold.level/1",
        "id": "cli-1",
        "variant": "sudoku",
        "mode": "classic",
        "board": ["S........."] + ["#########."] + ["." * 10] * 8,
        "trays": [["1x1", "3x3", "L3-nw"]],
        "goals": [{"score": 100}],
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def write(tmp_path, name: str, content) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def assert_bad_input(result, *needles: str) -> str:
    """Exit code 2, exactly one line of output, no traceback; returns that line."""
    out = result.output
    assert result.exit_code == 2, out
    assert "Traceback" not in out
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def replay(tmp_path, moves, *extra: str, rules: str = "halloween", board: str | None = None):
    args = ["replay", "--rules", rules, "--moves", write(tmp_path, "moves.json", moves), *extra]
    if board is not None:
        args += ["--board", board]
    return runner.invoke(app, args)


ONE = [{"piece": "1x1", "row": 0, "col": 0}]


def test_board_with_too_few_rows(tmp_path):
    assert_bad_input(replay(tmp_path, ONE, board="/".join(["." * 10] * 9)), "10 rows", "9")


def test_board_with_a_short_row(tmp_path):
    rows = ["." * 10] * 10
    rows[6] = "." * 9
    assert_bad_input(replay(tmp_path, ONE, board="/".join(rows)), "row 6", "10 characters")


def test_board_with_an_unknown_character_names_row_and_column(tmp_path):
    rows = ["." * 10] * 10
    rows[4] = "....x....."
    line = assert_bad_input(replay(tmp_path, ONE, board="/".join(rows)), "row 4", "column 4")
    assert "'x'" in line


def test_board_file_with_an_unknown_character(tmp_path):
    rows = ["." * 10] * 10
    rows[2] = ".......Q.."
    path = write(tmp_path, "board.txt", "\n".join(rows) + "\n")
    assert_bad_input(replay(tmp_path, ONE, board=path), "row 2", "column 7", "'Q'")


def test_unknown_piece_id(tmp_path):
    assert_bad_input(replay(tmp_path, [{"piece": "9x9", "row": 0, "col": 0}]), "9x9", "moves[0]")


def test_unknown_variant(tmp_path):
    assert_bad_input(replay(tmp_path, ONE, rules="tetris"), "tetris", "variant")


def test_a_move_off_the_board(tmp_path):
    moves = ONE + [{"piece": "1x5", "row": 3, "col": 7}]
    assert_bad_input(replay(tmp_path, moves), "moves[1]", "1x5", "row 3", "col 7")


def test_a_row_outside_the_board(tmp_path):
    assert_bad_input(replay(tmp_path, [{"piece": "1x1", "row": 10, "col": 0}]), "moves[0]", "row")


def test_a_removal_outside_the_board(tmp_path):
    for row, col in ((10, 0), (0, -1)):
        assert_bad_input(replay(tmp_path, [{"token": "remove", "row": row, "col": col}], rules="sudoku",
                                board="#" + EMPTY[1:]), "moves[0]", f"row {row}, col {col}", "not a cell")


def test_a_sultan_replay_needs_the_modes_four_stones(tmp_path):
    """As ``play`` does: Sultan's Labyrinth is played on a board of four stones, so a replay
    in that mode on a board of another count is refused (it was replayed as a stoneless game)."""
    for board in (None, "S" + EMPTY[1:]):
        assert_bad_input(replay(tmp_path, ONE, "--mode", "sultan", rules="arabic", board=board),
                         "--board", "sultan needs exactly 4 stones", f"found {0 if board is None else 1}")
    four = "S" * 4 + EMPTY[4:]
    result = replay(tmp_path, [{"piece": "1x1", "row": 5, "col": 5}], "--mode", "sultan", rules="arabic", board=four)
    assert result.exit_code == 0 and "score: 1 " in result.output, result.output


def test_an_overlapping_move(tmp_path):
    moves = [{"piece": "2x2", "row": 0, "col": 0}, {"piece": "1x1", "row": 1, "col": 1}]
    assert_bad_input(replay(tmp_path, moves), "moves[1]", "overlaps", "row 1, col 1")


def test_a_move_onto_a_stone(tmp_path):
    board = "S" + EMPTY[1:]
    assert_bad_input(replay(tmp_path, ONE, board=board), "moves[0]", "stone")


def test_a_token_the_variant_lacks(tmp_path):
    assert_bad_input(replay(tmp_path, [{"token": "swap", "piece": "1x1"}], rules="arabic"), "swap", "arabic")
    assert_bad_input(replay(tmp_path, [{"token": "remove", "row": 0, "col": 0}], board="#" + EMPTY[1:]),
                     "remove", "halloween")


def test_a_token_the_player_no_longer_has(tmp_path):
    moves = [{"token": "remove", "row": 0, "col": c} for c in range(4)]
    assert_bad_input(replay(tmp_path, moves, "--tokens", "3", rules="sudoku", board="####" + EMPTY[4:]),
                     "moves[3]", "no tokens")


def test_removing_a_stone(tmp_path):
    assert_bad_input(replay(tmp_path, [{"token": "remove", "row": 0, "col": 0}], rules="sudoku",
                            board="S" + EMPTY[1:]), "stone", "row 0, col 0")


def test_a_move_missing_a_field(tmp_path):
    assert_bad_input(replay(tmp_path, [{"piece": "1x1", "row": 0}]), "moves[0]", "col")


def test_invalid_json_moves(tmp_path):
    assert_bad_input(replay(tmp_path, '[{"piece": "1x1", "row": 0,'), "--moves", "JSON")


def test_moves_not_a_list(tmp_path):
    assert_bad_input(replay(tmp_path, {"piece": "1x1"}), "--moves", "list")


def test_missing_moves_file(tmp_path):
    result = runner.invoke(app, ["replay", "--rules", "sudoku", "--moves", str(tmp_path / "nope.json")])
    assert_bad_input(result, "nope.json")


def test_negative_streak(tmp_path):
    assert_bad_input(replay(tmp_path, ONE, "--streak", "-1"), "streak")


@pytest.mark.parametrize("field", ["id", "variant", "mode", "board", "trays", "goals", "format"])
def test_level_missing_a_field(tmp_path, field):
    data = level_data()
    del data[field]
    assert_bad_input(runner.invoke(app, ["show", write(tmp_path, "level.json", data)]), field)


@pytest.mark.parametrize("changes, needles", [
    ({"variant": "chess"}, ("variant", "chess")),
    ({"mode": "blitz"}, ("mode", "blitz")),
    ({"trays": [["1x1", "7x7"]]}, ("trays[0][1]", "7x7")),
    ({"reserve": ["2x2", "zz"]}, ("reserve[1]", "zz")),
    ({"board": ["." * 10] * 9}, ("board",)),
    ({"board": ["." * 10] * 4 + ["....x....."] + ["." * 10] * 5}, ("board", "row 4", "column 4", "'x'")),
    ({"board": ["." * 10] * 4 + ["." * 11] + ["." * 10] * 5}, ("board", "row 4")),
    ({"goals": [{"scor": 5}]}, ("goals[0]", "scor")),
    ({"limit": 0}, ("limit",)),
    ({"limit": 5.0}, ("field limit", "5.0", "integer")),  # JSON Schema alone would take 5.0
    ({"tokens": 0.0}, ("field tokens", "integer")),
    ({"limit": 2 ** 63}, ("field limit", "maximum")),  # past the compiled search's int64
    ({"tokens": 10 ** 30}, ("field tokens", "maximum")),
    ({"trays": [["1x1", "#" * 11]]}, ("trays[0][1]", "11 wide", "10x10 board")),
    ({"solution": [{"piece": ["1x1"], "row": 0, "col": 0}]}, ("solution[0]", "string")),
    ({"solution": [{"piece": {"a": 1}, "row": 0, "col": 0}]}, ("solution[0]", "string")),
    ({"variant": "arabic", "mode": "sultan"}, ("stones", "4")),
])
def test_level_with_a_bad_field(tmp_path, changes, needles):
    result = runner.invoke(app, ["show", write(tmp_path, "level.json", level_data(**changes))])
    assert_bad_input(result, *needles)


def test_invalid_json_level(tmp_path):
    result = runner.invoke(app, ["show", write(tmp_path, "level.json", '{"format": "tenfold.level/1", "id": ')])
    assert_bad_input(result, "level.json", "JSON")


def test_show_a_board_inline_and_from_a_file(tmp_path):
    text = "S" + EMPTY[1:-1] + "P"
    for arg in (text, write(tmp_path, "board.txt", text.replace("/", "\n"))):
        result = runner.invoke(app, ["show", arg])
        assert result.exit_code == 0, result.output
        rows = [line for line in result.output.splitlines() if line[:2].strip().isdigit()]
        assert len(rows) == 10
        assert rows[0].split()[1] == "S"
        assert rows[9].split()[-1] == "P"
        assert "\x1b[" not in result.output  # not a terminal: plain text


def test_show_a_level(tmp_path):
    result = runner.invoke(app, ["show", write(tmp_path, "level.json", level_data())])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "cli-1" in out and "sudoku" in out
    assert "1x1" in out and "3x3" in out and "L3-nw" in out
    assert "100" in out


def test_show_a_pack(tmp_path):
    pack = {"format": "tenfold.pack/1", "id": "pk", "title": "Two levels", "generator": {"seed": 1, "version": "t"},
            "levels": [level_data(id="first"), level_data(id="second", variant="halloween", mode="campaign")]}
    result = runner.invoke(app, ["show", write(tmp_path, "pack.json", pack)])
    assert result.exit_code == 0, result.output
    assert "Two levels" in result.output and "first" in result.output and "second" in result.output


def test_show_a_bad_board_argument():
    assert_bad_input(runner.invoke(app, ["show", "...#/..."]), "rows")


@pytest.mark.parametrize("rules", ["halloween", "arabic", "sudoku"])
def test_play_json_is_deterministic(rules):
    outputs = []
    for _ in range(2):
        result = runner.invoke(app, ["play", "--rules", rules, "--seed", "11", "--trays", "15", "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        out.pop("ms_per_tray")  # wall-clock timing, the only field allowed to differ
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert 0 < outputs[0]["trays"] <= 15
    assert outputs[0]["score"] > 0
    other = json.loads(runner.invoke(app, ["play", "--rules", rules, "--seed", "12", "--trays", "15", "--json"]).stdout)
    assert set(other) >= {"score", "trays", "over"}


def test_play_text_shows_the_halloween_rank():
    result = runner.invoke(app, ["play", "--rules", "halloween", "--seed", "2", "--trays", "5"])
    assert result.exit_code == 0, result.output
    assert "score:" in result.output and "rank:" in result.output


def test_play_unknown_mode():
    assert_bad_input(runner.invoke(app, ["play", "--rules", "arabic", "--seed", "1", "--mode", "nope"]), "nope")


def test_play_deals_file_errors(tmp_path):
    def play(content, name):
        return CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals",
                                        write(tmp_path, name, content)])

    assert_bad_input(play("3x3 1x1\n1x2 Q9\n", "a.txt"), "line 2, piece 2", "'Q9'")
    assert_bad_input(play("1x1 1x1 1x1 1x1\n", "b.txt"), "line 1", "1 to 3 piece ids")
    assert_bad_input(play({"trays": [["3x3"], ["1x1", 5]]}, "c.json"), "trays[1][1]", "string")
    assert_bad_input(play({"tray": [["3x3"]]}, "d.json"), "field trays", "missing")
    assert_bad_input(play('{"trays": [["3x3"]', "e.json"), "invalid JSON", "line 1")
    assert_bad_input(play("\n\n", "f.txt"), "no trays")


@pytest.mark.parametrize("text, needles", [
    ('{"format": "tenfold.level/1", "limit": ' + "9" * 5000 + "}", ("level.json", "invalid JSON", "digits")),
    ('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}", ("level.json", "invalid JSON", "nested too deeply")),
    ('{"format": "tenfold.level/1", "id": "\\ud800"}', ("level.json", "field id", "lone surrogate", "\\ud800")),
    ('{"levels": [{"id": "ok"}, {"trays": [["\\udfff"]]}]}', ("field levels[1].trays[0][0]", "lone surrogate")),
    ('{"format": "tenfold.level/1", "id": "a\\u0001b"}', ("field id", "control character", "\\u0001")),
    ('{"format": "tenfold.level/1", "id": "a\\fb"}', ("field id", "control character", "\\u000c")),
    ('{"format": "tenfold.level/1", "id": "a\\bb"}', ("field id", "control character", "\\u0008")),
    ('{"levels": [{"id": "ok", "grade": "x\\u001b[2J"}]}', ("field levels[0].grade", "control character")),
    ('{"levels": [{"id": "ok", "difficulty": NaN}]}',
     ("field levels[0].difficulty", "NaN is not valid JSON (JSON has no NaN or Infinity)")),
    ('{"format": "tenfold.level/1", "x": [1, -Infinity]}', ("field x[1]", "-Infinity", "-Infinity is not valid JSON")),
    ('{"format": "tenfold.level/1", "difficulty": 1e400}', ("field difficulty", "1e400", "too large")),
    # (it read as 0, and a field's range error then quoted "got 0.0", a number the file does not hold)
    ('{"format": "tenfold.level/1", "limit": 1e-400}', ("field limit: 1e-400 is too small a number (it reads as 0)",)),
])
@pytest.mark.parametrize("command", ["show", "solve", "verify"])
def test_json_no_command_can_read_is_one_line(tmp_path, command, text, needles):
    """Valid JSON by its grammar that Python cannot read (an integer past the digit limit,
    nesting past the recursion limit) or that holds no text (a lone surrogate, which no
    output can encode; a control character, which XML cannot hold and a terminal acts on), and
    numbers JSON has not (NaN, Infinity, and one that reads as infinity), which Python reads:
    one line naming the file, the field and the problem."""
    assert_bad_input(runner.invoke(app, [command, write(tmp_path, "level.json", text)]), *needles)


def test_a_move_list_error_names_the_option_and_the_file(tmp_path):
    """replay --moves and solve --after name the file (or stdin) beside the option, as a level
    file's errors name the file; a missing file is named by the option alone."""
    moves = write(tmp_path, "moves.json", "[{\"piece\": \"1x1\", \"row\": 0")
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", moves]),
                     f"--moves {moves}: invalid JSON at line 1")
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", "-"], input="[1]"),
                     "--moves stdin: moves[0]: expected an object like")
    missing = str(tmp_path / "gone.json")
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", missing]),
                     "--moves: no such file '", "gone.json'")


def test_a_piece_that_is_not_text_in_moves_and_deals(tmp_path):
    assert_bad_input(replay(tmp_path, [{"piece": ["1x1"], "row": 0, "col": 0}]),
                     f"--moves {tmp_path / 'moves.json'}: moves[0]", "string")
    deals = write(tmp_path, "deals.json", {"trays": [["1x1"]], "reserve": [["x"]]})
    assert_bad_input(runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals", deals]),
                     "reserve[0]", "string")


@pytest.mark.parametrize("args, allowed", [
    (["solve", "LEVEL"], {"inf"}),
    (["verify", "LEVEL"], {"inf"}),
    (["play", "--rules", "halloween", "--seed", "1", "--trays", "1", "--policy", "expert"], {"0"}),
    (["hint", "--rules", "sudoku", "--tray", "1x1", "--policy", "expert"], {"0"}),
    (["ten", "play", "--seed", "1", "--max-plies", "1"], set()),
])
def test_time_limits_are_seconds(tmp_path, args, allowed):
    """nan and negative seconds are refused everywhere (nan compares false with any clock, so
    a search given it never stopped); 0 only where it means no lookahead, inf only where it
    means no limit."""
    args = [write(tmp_path, "level.json", level_data()) if a == "LEVEL" else a for a in args]
    assert_bad_input(runner.invoke(app, [*args, "--time-limit", "nan"]), "--time-limit", "expected a number, got 'nan'")
    for value in ("-1", "0", "inf"):
        result = runner.invoke(app, [*args, "--time-limit", value])
        if value in allowed:
            assert result.exit_code in (0, 1), (value, result.output)  # verify: 1 for a claim it finds false
        else:
            line = assert_bad_input(result, "--time-limit", "seconds")
            assert line.endswith(f"got {value}"), line
            # (an audit: "expected a number of seconds 0 or more, got inf" contradicted itself)
            assert ("finite" in line) == ("inf" not in allowed), line


@pytest.mark.parametrize("option, value", [("--tokens", "-1"), ("--tokens", "1001"), ("--streak", "-1"),
                                           ("--streak", "99999999999999999999")])
def test_token_and_streak_counts_are_in_range(tmp_path, option, value):
    tray = runner.invoke(app, ["tray", "--rules", "sudoku", "--tray", "1x1", option, value])
    assert_bad_input(tray, option, "0 to 1,000", value)
    expert = runner.invoke(app, ["hint", "--rules", "sudoku", "--tray", "1x1", "--policy", "expert", option, value])
    assert_bad_input(expert, option, "0 to 1,000", value)
    assert_bad_input(replay(tmp_path, ONE, option, value), option, "0 to 1,000", value)


@pytest.mark.parametrize("tray, slot", [("1x1,,2x2", "--tray[1]"), (",1x1", "--tray[0]"), ("1x1,", "--tray[1]")])
def test_a_stray_comma_in_the_tray_is_named(tray, slot):
    """An empty piece id is refused, not dropped: '1x1,,2x2' is more likely a typo than a
    tray of two."""
    for command in ("tray", "hint"):
        result = runner.invoke(app, [command, "--rules", "arabic", "--tray", tray])
        assert_bad_input(result, slot, "empty piece id", repr(tray))


def test_an_empty_board_option_and_an_unknown_mode_are_named(tmp_path):
    assert_bad_input(runner.invoke(app, ["tray", "--rules", "arabic", "--tray", "1x1", "--board", ""]),
                     "--board", "empty", "10 rows")
    assert_bad_input(runner.invoke(app, ["play", "--rules", "arabic", "--seed", "1", "--mode", "nosuch"]),
                     "--mode", "'nosuch'", "sultan")
    assert_bad_input(replay(tmp_path, ONE, "--mode", "nosuch", rules="arabic"), "--mode", "'nosuch'")


def test_show_names_a_missing_file_or_a_folder(tmp_path):
    assert_bad_input(runner.invoke(app, ["show", str(tmp_path / "missing-level.json")]), "no such file",
                     "missing-level.json")
    assert_bad_input(runner.invoke(app, ["show", "./nowhere"]), "no such file")
    assert_bad_input(runner.invoke(app, ["show", str(tmp_path)]), "folder")
    assert_bad_input(runner.invoke(app, ["tray", "--rules", "sudoku", "--tray", "1x1", "--board", "./nofile"]),
                     "--board", "no such file")
    rows = [EMPTY.split("/")[0]] * 9 + ["..........x"]  # ten rows: board text, whatever its ending
    assert_bad_input(runner.invoke(app, ["show", "/".join(rows)]), "row 9", "11")


def pack_file(tmp_path, *ids: str, title: str = "Pack") -> str:
    """A pack of ``level_data`` levels with these ids, written to pack.json."""
    pack = {"format": "tenfold.pack/1", "id": "pk", "title": title, "generator": {"seed": 1, "version": "t"},
            "levels": [level_data(id=level_id) for level_id in ids]}
    return write(tmp_path, "pack.json", pack)


def test_export_into_a_folder_writes_every_file_or_none(tmp_path):
    out = tmp_path / "out"
    (out / "second.json").mkdir(parents=True)  # the second level's place is taken by a folder
    result = runner.invoke(app, ["export", pack_file(tmp_path, "first", "second"), "--format", "json",
                                 "--out", str(out)])
    line = assert_bad_input(result, "second.json", "folder")
    assert ".tmp" not in line
    assert sorted(p.name for p in out.iterdir()) == ["second.json"]  # first.json was not written either


@pytest.mark.parametrize("refused", ["link", "replace"])
def test_an_export_that_fails_while_renaming_puts_every_old_file_back(tmp_path, monkeypatch, refused):
    """The third file may not be replaced (an immutable file, say), refused as its old file is
    set aside (a hard link, else a rename) or as the new one takes its place: the files renamed
    before it are undone, the old files are back as they were, and no temporary file is left."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("first.json", "third.json"):
        (out / name).write_text(f"old {name}")
    real_replace = os.replace

    def link(src, dst, **kwargs):  # no hard links here: the old file is then renamed aside
        raise PermissionError(errno.EPERM, "Operation not permitted")

    def replace(src, dst):
        old_aside = str(src).endswith("third.json") and not str(dst).endswith("third.json")
        new_in = str(dst).endswith("third.json") and str(src).endswith(".tmp")
        if old_aside or (refused == "replace" and new_in):
            raise PermissionError(errno.EPERM, "Operation not permitted")
        return real_replace(src, dst)

    if refused == "link":
        monkeypatch.setattr(os, "link", link)
    monkeypatch.setattr(os, "replace", replace)
    pack = pack_file(tmp_path, "first", "second", "third")
    result = runner.invoke(app, ["export", pack, "--format", "json", "--out", str(out)])
    line = assert_bad_input(result, "third.json", "not permitted")
    assert ".tmp" not in line and ".old" not in line
    assert sorted(p.name for p in out.iterdir()) == ["first.json", "third.json"]
    assert [(out / n).read_text() for n in ("first.json", "third.json")] == ["old first.json", "old third.json"]


def test_an_export_that_runs_out_of_disk_names_the_file_and_leaves_nothing(tmp_path, monkeypatch):
    """A full disk (the error names no file) while writing the second file: the error names its
    place, and neither files nor the folders the export made are left."""
    real_fdopen = os.fdopen
    opened = []

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd, *args, **kwargs):
        opened.append(fd)
        fh = real_fdopen(fd, *args, **kwargs)
        return Full(fh) if len(opened) == 2 else fh

    monkeypatch.setattr(os, "fdopen", fdopen)
    out = tmp_path / "new" / "folder"
    pack = pack_file(tmp_path, "first", "second", "third")
    result = runner.invoke(app, ["export", pack, "--format", "json", "--out", str(out)])
    assert_bad_input(result, str(out / "second.json"), "No space left on device")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.json"]


@pytest.mark.parametrize("after", [False, True], ids=["before-the-step", "after-the-step"])
def test_a_ctrl_c_at_any_step_of_writing_files_leaves_them_as_they_were(tmp_path, monkeypatch, after):
    """A KeyboardInterrupt at every step of writing three files (a new folder; two old files to
    replace) and removing a fourth, raised as the step begins or just after it is done: each time the old files are
    back with their contents and nothing else is left, no folder, no temporary file. A big-pack
    audit's Ctrl-C during export left the new folder with a temporary file, 3 times in 3 (the
    interrupt fell between making the file and noting it)."""
    from cli.atomic import write_files_atomically

    out = tmp_path / "out"
    out.mkdir()
    for name in ("a.json", "c.json", "gone.json"):
        (out / name).write_text(f"old {name}")
    files = {out / "a.json": b"new a", out / "new" / "b.json": b"new b", out / "c.json": b"new c",
             out / "gone.json": None, out / "never-was.json": None}
    def state():
        return {p: p.read_bytes() if p.is_file() else "folder" for p in out.rglob("*")}

    before = state()
    steps = {"os.open": (os, "open"), "os.replace": (os, "replace"), "os.link": (os, "link"),
             "os.chmod": (os, "chmod"), "mkdir": (Path, "mkdir")}
    calls = {"n": 0, "at": 0}

    def interrupting(real):
        def step(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == calls["at"] and not after:
                raise KeyboardInterrupt
            done = real(*args, **kwargs)
            if calls["n"] == calls["at"]:
                raise KeyboardInterrupt
            return done
        return step

    for owner, name in steps.values():
        monkeypatch.setattr(owner, name, interrupting(getattr(owner, name)))
    interrupted = 0
    while True:
        calls.update(n=0, at=calls["at"] + 1)
        try:
            write_files_atomically(files)
        except KeyboardInterrupt:
            interrupted += 1
            assert state() == before, calls["at"]
            continue
        break
    assert interrupted >= 10  # a folder, three files made, three modes, three set aside, three renamed
    assert {p: p.read_bytes() if p.exists() else None for p in files} == files


def test_a_file_replaced_is_never_missing_and_long_names_are_written(tmp_path, monkeypatch):
    """Every place that held a file holds one (its old bytes or its new) at each step of the
    writing, as a kill between two steps would find it: the old file was renamed aside before
    the new one came, and a kill there (a helper's audit, with strace) left no file at all.
    And a name of 250 bytes is written: the temporary file's name (``.NAME.HEX.tmp.old``) went
    past a name's 255 bytes."""
    from cli.atomic import write_files_atomically

    long_name = "n" * 245 + ".json"
    places = [tmp_path / "a.json", tmp_path / "b.json", tmp_path / long_name]
    for place in places:
        place.write_bytes(b"old")
    seen = []

    def checking(real):
        def step(*args, **kwargs):
            seen.append({p.name[:8]: p.read_bytes() if p.is_file() else None for p in places})
            return real(*args, **kwargs)
        return step

    for name in ("replace", "link", "unlink"):
        monkeypatch.setattr(os, name, checking(getattr(os, name)))
    write_files_atomically({place: b"new " + place.name[:1].encode() for place in places})
    monkeypatch.undo()
    assert len(seen) >= 6 and all(None not in state.values() for state in seen)
    assert [p.read_bytes() for p in places] == [b"new a", b"new b", b"new n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in places)  # no temporary file left


def test_files_made_as_they_are_written_are_all_or_none(tmp_path):
    """``write_files_atomically`` takes a function that makes a file's bytes where it takes the
    bytes (export makes each level's file as it writes it): each is called once, in order, as
    its file is written; one that fails leaves the old files as they were and nothing else."""
    from cli.atomic import write_files_atomically
    from solver.errors import FormatError

    out = tmp_path / "out"
    out.mkdir()
    (out / "a.json").write_text("old a")
    made = []

    def maker(name, fail=False):
        def make():
            made.append(name)
            if fail:
                raise FormatError(f"level {name}: no")
            return f"new {name}".encode()
        return make

    with pytest.raises(FormatError, match="level c: no"):
        write_files_atomically({out / "a.json": maker("a"), out / "new" / "b.json": b"new b",
                                out / "c.json": maker("c", fail=True), out / "d.json": maker("d")})
    assert made == ["a", "c"]
    assert {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*")} == {"a.json": "old a"}
    made.clear()
    write_files_atomically({out / "a.json": maker("a"), out / "new" / "b.json": b"new b", out / "d.json": maker("d")})
    assert made == ["a", "d"]
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()} == {
        "a.json": b"new a", "new/b.json": b"new b", "d.json": b"new d"}



def test_a_file_to_remove_is_never_one_written_and_may_be_gone_already(tmp_path):
    """``write_files_atomically``'s None (a file to remove with the writing) leaves a file that
    the writing writes through a link (a review: the call wrote through page-2.html, a link to
    page-3.html, then removed page-3.html and returned, the new bytes gone); and a file to remove
    that is gone by its turn is no error (it undid the whole writing)."""
    from cli.atomic import write_files_atomically

    (tmp_path / "page-3.html").write_text("old 3")
    (tmp_path / "page-2.html").symlink_to("page-3.html")
    write_files_atomically({tmp_path / "page-2.html": b"new 2", tmp_path / "page-3.html": None})
    assert (tmp_path / "page-2.html").is_symlink() and (tmp_path / "page-2.html").read_bytes() == b"new 2"

    (tmp_path / "stale.html").write_text("stale")

    def make():  # another process removes the stale file while this one writes
        (tmp_path / "stale.html").unlink()
        return b"new index"

    write_files_atomically({tmp_path / "index.html": make, tmp_path / "stale.html": None})
    assert (tmp_path / "index.html").read_bytes() == b"new index" and not (tmp_path / "stale.html").exists()

def test_an_export_to_a_symbolic_link_replaces_the_file_it_points_to(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = runner.invoke(app, ["export", write(tmp_path, "level.json", level_data(id="one")), "--format", "json",
                                 "--out", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and json.loads(target.read_text())["id"] == "one"


@pytest.mark.parametrize("changes, needles", [
    ({"limit": 10 ** 4000}, ("field limit", "(3,9", "characters)", "greater than the maximum of 1000000")),
    ({"trays": [["#" * 5000]]}, ("trays[0][0]", "(4,9", "characters)", "5000 wide")),
])
def test_a_huge_value_is_clipped_in_its_message(tmp_path, changes, needles):
    data = json.dumps(level_data(**changes))  # json writes the 4,001-digit integer Python reads back whole
    line = assert_bad_input(runner.invoke(app, ["show", write(tmp_path, "level.json", data)]), *needles)
    assert len(line) < 400


def test_an_empty_mode_is_not_the_default_mode(tmp_path):
    assert_bad_input(replay(tmp_path, ONE, "--mode", "", rules="arabic"), "no mode ''")
    assert replay(tmp_path, ONE, rules="arabic").exit_code == 0  # no --mode at all: the default


@pytest.mark.parametrize("args, needles", [
    (["tray", "--streak", "abc"], ["error: --streak: expected an integer, got 'abc'", "tenfold tray --help"]),
    (["play", "--trays", "0"], ["error: --trays: expected 1 or more, got 0", "tenfold play --help"]),
    (["solve"], ["Missing argument", "tenfold solve --help"]),
    # (a missing option read "error: --seed:  (see ...)": its message is click's format alone)
    (["play", "--rules", "halloween"], ["error: Missing option '--seed'.", "tenfold play --help"]),
    (["solve", "--bogus", "x"], ["No such option: --bogus", "tenfold solve --help"]),
    (["nosuch"], ["No such command 'nosuch'", "tenfold --help"]),
    (["ten", "nosuch"], ["No such command 'nosuch'", "tenfold ten --help"]),
    (["show", "a", "b"], ["unexpected extra argument", "(b)"]),
])
def test_a_usage_error_is_one_line_too(args, needles):
    """What the option parser refuses reads as the commands' own errors do, not as a framed box."""
    line = assert_bad_input(runner.invoke(app, args), *needles)
    assert line.startswith("error: ")


@pytest.mark.parametrize("command, argument", [
    (["show"], "BOARD_OR_LEVEL"), (["solve"], "LEVEL_OR_PACK.json"), (["verify"], "LEVEL_OR_PACK.json"),
    (["export"], "LEVEL_OR_PACK.json"), (["render"], "PACK_OR_LEVEL.json"), (["ten", "wins"], "POSITION.json"),
    (["ten", "solve"], "POSITION.json"), (["generate"], "KIND"),
])
def test_a_missing_argument_is_named_as_the_docs_name_it(command, argument):
    """A command's file argument is named in its errors and help as docs/cli.md writes it (the
    parameter's own name read 'Missing argument 'path'', and the help's usage ``{path}``)."""
    assert_bad_input(runner.invoke(app, command), f"Missing argument '{argument}'.")
    if command != ["generate"]:  # (the docs write its two kinds: sultan|halloween)
        docs = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
        assert f"tenfold {' '.join(command)} {argument}" in docs
    usage = runner.invoke(app, [*command, "--help"]).stdout
    assert argument in usage.split("Usage:", 1)[1].splitlines()[0], usage[:300]


def test_every_help_shows_flags_as_flags_and_they_take_no_value():
    """typer 0.29's help wrote each flag as '--json <bool>', as if it took a value (which '--json
    true' refuses); every command's help, the groups' too, shows its flags bare."""
    import typer.main

    root = typer.main.get_command(app)
    paths = [[]] + [[name] for name in root.commands]
    paths += [["ten", name] for name in root.commands["ten"].commands]
    flags = 0
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.output, (path, result.output)
        for line in result.output.splitlines():
            cells = line.strip("│ ").split()
            if cells and cells[0] in ("--json", "--help", "--version", "--verbose", "--solution", "--fixed-rounds"):
                flags += 1
                assert not cells[1].startswith("<"), (path, line)
    assert flags > len(paths)  # --help everywhere, and more
    assert_bad_input(runner.invoke(app, ["ten", "wins", "-", "--json", "true"]), "unexpected extra argument(s) (true)")


def test_every_option_is_in_its_commands_section_of_the_cli_guide():
    """docs/cli.md has a section per command (``ten``'s subcommands share one); each option the
    command takes is named there, and no section names an option its command does not take
    (but as another command's: serve's ``solve --after``)."""
    import re

    import typer.main

    text = (Path(__file__).parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## `tenfold (\w+)`\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    root = typer.main.get_command(app)
    commands = {name: [cmd] for name, cmd in root.commands.items() if name != "ten"}
    commands["ten"] = list(root.commands["ten"].commands.values())
    assert set(sections) == set(commands)
    named = 0
    for name, cmds in commands.items():
        takes = {opt for cmd in cmds for p in cmd.params for opt in p.opts if opt.startswith("--")} - {"--help"}
        missing = {opt for opt in takes if not re.search(re.escape(opt) + r"(?![\w-])", sections[name])}
        assert not missing, (name, sorted(missing))
        own = re.sub(r"`(\w+) [^`]*`", lambda m: "" if m[1] in commands and m[1] != name else m[0], sections[name])
        stray = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", own)) - takes  # (`tray --json` is tray's)
        assert not stray, (name, sorted(stray))
        named += len(takes)
    assert named > 60


def test_help_and_a_bare_group_still_show_the_help():
    assert runner.invoke(app, ["solve", "--help"]).exit_code == 0
    bare = runner.invoke(app, ["ten"])
    assert bare.exit_code == 2 and "wins" in bare.output


def _commands(group):
    """Every command of a typer app, its sub-apps' too."""
    yield from group.registered_commands
    for sub in group.registered_groups:
        yield from _commands(sub.typer_instance)


def test_every_command_summary_is_one_line():
    """The command list shows a summary's line breaks as they are written (rich keeps them), so each
    command's first paragraph is one line; details go in the paragraphs after it."""
    commands = list(_commands(app))
    assert len(commands) >= 14
    for command in commands:
        summary = command.callback.__doc__.split("\n\n")[0]
        assert "\n" not in summary.strip(), command.callback.__name__


def _options_taking(kind: type):
    """(command, parameter, its typer option) for every option of every command that takes a
    ``kind`` (or nothing: an optional one)."""
    import inspect
    import typing

    for command in _commands(app):
        hints = typing.get_type_hints(inspect.unwrap(command.callback), include_extras=True)
        for name, hint in hints.items():
            base, *extras = typing.get_args(hint) if typing.get_origin(hint) is typing.Annotated else (None,)
            if base in (kind, typing.Optional[kind]):
                yield command.callback.__name__, name, extras[0]


def test_every_integer_option_takes_an_integer_spelled_as_one_within_its_range():
    """typer's integers (pydantic's lax mode, from typer 0.29) took '--count 1.0' as 1, '1_0' as
    10 and ' 2' as 2; and typer leaves a parser's value out of its range check."""
    import typer

    options = list(_options_taking(int))
    assert len(options) >= 19
    for command, name, option in options:
        assert option.parser is not None, (command, name)
        for bad in ("1.0", "1_0", " 2", "2 ", "\u0663", "0x1", "1e3", "+", ""):
            with pytest.raises(typer.BadParameter, match="expected an integer, got"):
                option.parser(bad)
        low = 0 if option.min is None else option.min
        assert option.parser(str(low)) == low and option.parser(f"+{low}") == low, (command, name)
        assert option.parser("0" * 5000 + str(low)) == low  # (leading zeros are no digits of its size)
        # (an option with no top to its range is capped at 100 digits: the message says so, where
        # "expected 0 or more" alone was a range the value was in)
        cap = re.escape(" (of at most 100 digits)") if option.max is None else ""
        with pytest.raises(typer.BadParameter, match=f"{cap}, got an integer of 101 digits"):
            option.parser("1" * 101)
        with pytest.raises(typer.BadParameter, match=f"{cap}, got a negative integer of 101 digits"):
            option.parser("-" + "1" * 101)
        if option.max is None:
            assert option.parser("9" * 100) == int("9" * 100)  # 100 digits: taken
        if option.min is not None:
            with pytest.raises(typer.BadParameter, match=f"expected {option.min:,} (to|or more)"):
                option.parser(str(option.min - 1))
        if option.max is not None:
            assert option.parser(str(option.max)) == option.max
            with pytest.raises(typer.BadParameter, match=f"to {option.max:,}, got"):
                option.parser(str(option.max + 1))


def test_every_number_option_takes_a_number_written_as_one():
    """As the integers: typer took '--time-limit 1_0' as 10 s and 'infinity' as inf."""
    import typer

    options = list(_options_taking(float))
    assert len(options) >= 6
    for command, name, option in options:
        assert option.parser is not None, (command, name)
        for bad in ("1_0", " 5", "5 ", "infinity", "nan", "0x1", "1e", ".", "", "\u0665"):
            with pytest.raises(typer.BadParameter, match="expected a number, got"):
                option.parser(bad)
        for good, value in (("2", 2.0), ("0.5", 0.5), (".5", 0.5), ("5.", 5.0), ("1e-3", 0.001), ("-1", -1.0),
                            ("inf", float("inf")), ("INF", float("inf")), ("+inf", float("inf")),
                            ("-inf", float("-inf"))):
            assert option.parser(good) == value, (command, name, good)
        # (a float made 1e-400 0 and 1e400 inf, and a range error then quoted "got 0.0")
        # (and said what it reads as, not a range that may not be the option's: solve's takes no 0)
        for beyond, reads in (("1e-400", "0"), ("-0.1e-330", "0"), ("1e400", "infinity"), ("-2e308", "infinity"),
                              ("1.8e308", "infinity")):
            with pytest.raises(typer.BadParameter) as refused:
                option.parser(beyond)
            assert str(refused.value) == f"{beyond} is too {'small' if reads == '0' else 'large'} a number " \
                                         f"(it reads as {reads})"
        for edge, value in (("0e999", 0.0), ("-0.0e-400", 0.0), ("5e-324", 5e-324), ("1.7e308", 1.7e308)):
            assert option.parser(edge) == value, (command, name, edge)


def test_an_integer_spelled_otherwise_is_refused_by_the_command(tmp_path):
    out = tmp_path / "p.json"
    for value in ("1.0", "1_0"):
        generate = runner.invoke(app, ["generate", "halloween", "--count", value, "--seed", "1", "--out", str(out)])
        assert_bad_input(generate, "--count", f"expected an integer, got '{value}'")
    assert not out.exists()
    assert_bad_input(runner.invoke(app, ["serve", "--port", "70000"]), "error: --port: expected 0 to 65,535, got 70000")
    # past Python's own limit for int() (4,300 digits), whose message named sys.set_int_max_str_digits
    assert_bad_input(runner.invoke(app, ["serve", "--port", "1" + "0" * 5000]),
                     "error: --port: expected 0 to 65,535, got an integer of 5,001 digits")
    assert_bad_input(runner.invoke(app, ["ten", "play", "--seed", "1", "--depth", "13"]), "--depth", "1 to 12, got 13")
    assert_bad_input(runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1" + "0" * 100]),
                     "error: --seed: expected 0 or more (of at most 100 digits), got an integer of 101 digits")


CHECKERED = "/".join(("#." * 5) if r % 2 == 0 else (".#" * 5) for r in range(10))


def test_tray_text_draws_a_removal_after_it_and_writes_moves_as_json():
    """A token step shows the board it leaves (the stone gone); every step's move is the JSON a
    moves file takes; the expert's text claims no count of safe moves it never made."""
    result = runner.invoke(app, ["tray", "--rules", "arabic", "--board", CHECKERED, "--tray", "1x2", "--tokens", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    step = next(i for i, line in enumerate(lines) if line.startswith("step 1: "))
    move = json.loads(lines[step][len("step 1: "):].rsplit("  +", 1)[0])
    assert move["token"] == "remove"
    drawn = lines[step + 2 + move["row"]].split()[1:]  # below the column header
    assert CHECKERED.split("/")[move["row"]][move["col"]] == "#" and drawn[move["col"]] == "."
    assert "safe first moves" in result.stdout
    expert = runner.invoke(app, ["hint", "--rules", "sudoku", "--tray", "2x1,1x1", "--policy", "expert",
                                 "--time-limit", "0.1"])
    assert expert.exit_code == 0 and "best score:" in expert.stdout and "safe first moves" not in expert.stdout
    assert_bad_input(runner.invoke(app, ["hint", "--rules", "sudoku", "--tray", "2x1", "--policy", "expert",
                                         "--method", "cpsat"]), "--method cpsat", "--policy best")
    for command in ("tray", "hint"):  # (hint took an empty method as its default: a review)
        assert_bad_input(runner.invoke(app, [command, "--rules", "sudoku", "--tray", "2x1", "--method", ""]),
                         "--method: expected one of search, cpsat, got ''")


def test_an_empty_path_and_a_closed_pipe(tmp_path):
    assert_bad_input(runner.invoke(app, ["show", ""]), "show: empty")
    import subprocess
    import sys
    from pathlib import Path

    shipped = json.loads((Path(__file__).parents[1] / "levels" / "halloween-2026.json").read_text())
    # more than a pipe holds (64 KiB), so the writer is still writing when the reader leaves
    shipped["levels"] = [{**lv, "id": f"{lv['id']}-{n}"} for n in range(10) for lv in shipped["levels"]]
    path = write(tmp_path, "big-pack.json", shipped)
    script = f"import sys; from cli.main import main; sys.argv = ['tenfold', 'show', {path!r}]; main()"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=Path(__file__).parents[1])
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    # no "Broken pipe" error, no traceback; 141 (128 + SIGPIPE) as a shell reports a program the
    # signal ended: it was 1, which verify's false claims and generate's shortfall mean
    assert proc.wait(timeout=120) == EXIT_READER_LEFT == 141 and err == "", err
    # the help and the version, which typer writes (and ended with exit 1 where the reader had
    # left), and a command's JSON: the reader gone before anything is written
    for args in (["--help"], ["--version"], ["ten", "--help"],
                 ["tray", "--rules", "sudoku", "--tray", "1x1", "--json"]):
        script = f"import sys; from cli.main import main; sys.argv = ['tenfold', *{args!r}]; main()"
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=Path(__file__).parents[1])
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == EXIT_READER_LEFT and err == "", (args, err)


@pytest.mark.parametrize("args", [["show", "LEVEL"], ["solve", "LEVEL", "--json"], ["ten", "wins", "--help"],
                                  ["--version"]])
def test_stdout_that_cannot_be_written_is_named(tmp_path, args):
    """A full disk (/dev/full) or a stdout open for reading: one line naming stdout, exit 2, no
    traceback (it said 'error: No space left on device' as if of a file; '--help' was a traceback;
    the interpreter's last flush a second error)."""
    import subprocess
    import sys

    level = write(tmp_path, "level.json", level_data())
    argv = [level if a == "LEVEL" else a for a in args]
    script = f"import sys; from cli.main import main; sys.argv = ['tenfold', *{argv!r}]; main()"
    for target, why in (("/dev/full", "No space left on device"), (os.devnull, "Bad file descriptor")):
        with open(target, "w" if target == "/dev/full" else "r") as out:
            proc = subprocess.run([sys.executable, "-c", script], stdout=out, stderr=subprocess.PIPE, text=True,
                                  cwd=Path(__file__).parents[1], timeout=300)
        assert proc.returncode == 2 and proc.stderr == f"error: stdout: {why}\n", (target, proc.stderr)


def test_a_stdout_whose_encoding_lacks_a_character_shows_a_question_mark():
    """A latin-1 terminal (PYTHONIOENCODING=latin-1): show's stars were a traceback (a review)."""
    import subprocess
    import sys

    shipped = Path(__file__).parents[1] / "levels" / "halloween-2026.json"
    script = f"import sys; from cli.main import main; sys.argv = ['tenfold', 'show', {str(shipped)!r}, " \
             "'--level', 'halloween-001']; main()"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=Path(__file__).parents[1],
                          env={**os.environ, "PYTHONIOENCODING": "latin-1"}, timeout=300)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert b"stars: ? " in proc.stdout and b"?? " in proc.stdout


def test_progress_is_silent_off_a_terminal():
    """A pipe or a log gets no progress label (typer's bar prints its label even there)."""
    result = runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--trays", "3"])
    assert result.exit_code == 0 and result.stderr == "" and "score" in result.stdout


@pytest.mark.parametrize("args, needles", [
    (["tray", "--rules", "halloween", "--tray", "1x1", "--tokens", "1"], ["--tokens", "halloween has no tokens"]),
    (["hint", "--rules", "halloween", "--tray", "1x1", "--tokens", "2"], ["--tokens", "halloween has no tokens"]),
    (["tray", "--rules", "nope", "--tray", "1x1"], ["--rules: unknown variant 'nope'"]),
    (["tray", "--rules", "arabic", "--tray", "1x1,zz"], ["--tray[1]: unknown piece id 'zz'"]),
    (["tray", "--rules", "arabic", "--tray", "1x1,1x1,1x1,1x1"],
     ["--tray: expected 1 to 3 comma-separated piece ids, got '1x1,1x1,1x1,1x1'"]),  # a tray holds 3 (RULES.md)
    (["tray", "--rules", "arabic", "--tray", "1x1,../.."], ["--tray[1]: piece '../..': a mask needs at least one '#'"]),
    (["tray", "--rules", "arabic", "--tray", "#x#"], ["--tray[0]: piece '#x#': row 0, column 1: expected '#' or '.'"]),
    (["tray", "--rules", "arabic", "--tray", "##/#"], ["piece '##/#': every row of a mask must have the same"]),
])
def test_options_name_themselves_in_errors(args, needles):
    assert_bad_input(runner.invoke(app, args), *needles)


@pytest.mark.parametrize("text, needles", [
    ("[1]", ["stdin: expected a JSON object with a field format", "got a JSON array"]),
    ('{"id": "x"}', ["stdin: field format: missing (expected 'tenfold.level/1' or 'tenfold.pack/1')"]),
    ('{"format": "tenfold.lvl/1"}', ['got "tenfold.lvl/1"']),
])
def test_show_reads_stdin_and_names_a_missing_format(text, needles):
    assert_bad_input(runner.invoke(app, ["show", "-"], input=text), *needles)


def test_show_draws_a_level_from_stdin():
    result = runner.invoke(app, ["show", "-"], input=json.dumps(level_data()))
    assert result.exit_code == 0 and "cli-1" in result.stdout, result.output


def test_show_one_level_of_a_pack(tmp_path):
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "x"},
            "levels": [level_data(id="a"), level_data(id="b")]}
    path = write(tmp_path, "pack.json", pack)
    one = runner.invoke(app, ["show", path, "--level", "b"])
    assert one.exit_code == 0 and "level b" in one.stdout and "level a" not in one.stdout, one.output
    assert_bad_input(runner.invoke(app, ["show", path, "--level", "c"]), "no level with id 'c'")
    assert_bad_input(runner.invoke(app, ["show", EMPTY, "--level", "a"]), "--level", "not a board")


def test_show_names_pieces_as_the_level_does_and_shows_grade_and_stars(tmp_path):
    data = level_data(trays=[["##/#.", "3x3", "#"]], grade="hard", stars=[10, 20, 30])
    result = runner.invoke(app, ["show", write(tmp_path, "level.json", data)])
    assert result.exit_code == 0, result.output
    assert "trays: [##/#. 3x3 #]" in result.stdout
    assert "grade: hard  stars: ★ 10  ★★ 20  ★★★ 30" in result.stdout


def test_hint_policies_are_best_and_expert():
    """play's greedy (the most points one placement at a time) is not a hint policy: refused,
    saying why, not taken for best (the whole tray's plan)."""
    args = ["hint", "--rules", "arabic", "--tray", "2x2,1x3", "--json"]
    assert_bad_input(runner.invoke(app, [*args, "--policy", "greedy"]), "--policy", "greedy is a policy of play")
    assert_bad_input(runner.invoke(app, [*args, "--policy", "smart"]), "--policy", "'smart'")


def test_an_empty_pack_an_empty_out_and_a_file_in_the_path_are_named(tmp_path):
    """From the generator reviewer: verify and solve passed a pack of no levels ("0 levels: 0
    ok"); export --out '' wrote into the working folder; a file where a folder of --out should
    be gave a bare "File exists"."""
    empty = write(tmp_path, "empty.json", {"format": "tenfold.pack/1", "id": "p", "title": "t",
                                           "generator": {"seed": 1, "version": "x"}, "levels": []})
    for command in ("verify", "solve"):
        assert_bad_input(runner.invoke(app, [command, empty]), "field levels", "has no levels")
    level = write(tmp_path, "level.json", level_data())
    for args in (["export", level, "--format", "svg", "--out", ""], ["render", level, "--out", " "]):
        assert_bad_input(runner.invoke(app, args), "--out", "empty")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    for args in (["export", level, "--format", "json", "--out", str(blocker / "x.json")],
                 ["render", level, "--out", str(blocker / "site")],
                 ["generate", "sultan", "--count", "1", "--seed", "1", "--out", str(blocker / "p.json")]):
        assert_bad_input(runner.invoke(app, args), f"error: --out: {blocker}: is a file, not a folder")
    assert blocker.read_text() == "a file" and sorted(p.name for p in tmp_path.iterdir()) == [
        "blocker", "empty.json", "level.json"]
    nowhere = "/sys/tenfold-nowhere"  # a folder no one can make, root included (Linux: sysfs, often read-only)
    for args in (["export", level, "--format", "json", "--out", f"{nowhere}/x.json"],
                 ["render", level, "--out", f"{nowhere}/site"],
                 ["generate", "sultan", "--count", "1", "--seed", "1", "--out", f"{nowhere}/p.json"]):
        assert_bad_input(runner.invoke(app, args), f"error: --out: {nowhere}")


@pytest.mark.parametrize("command", [["show"], ["solve"], ["verify"], ["export", "--format", "json", "--out", "OUT"]])
def test_a_wrong_level_id_reads_the_same_in_every_command(tmp_path, command):
    """``--level`` naming another level than a single level file's: one message everywhere."""
    path = write(tmp_path, "level.json", level_data())
    args = [str(tmp_path / "x.json") if a == "OUT" else a for a in command]
    result = runner.invoke(app, [args[0], path, *args[1:], "--level", "nope"])
    assert_bad_input(result, "--level: ", "holds the single level 'cli-1', not 'nope'")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("command", [["solve"], ["verify"], ["show"], ["export", "--format", "json", "--out", "x"]])
def test_a_folder_given_as_the_input_file_is_named(tmp_path, command):
    assert_bad_input(runner.invoke(app, [command[0], str(tmp_path), *command[1:]]), "is a folder, not a file")


def test_play_holds_a_sultan_board_to_its_four_stones():
    """As a Sultan level file is: exactly 4 stones (3 here), the board option named."""
    board = "S..S....../" + "/".join(["." * 10] * 8) + "/.........S"
    result = runner.invoke(app, ["play", "--rules", "arabic", "--mode", "sultan", "--seed", "1", "--board", board])
    assert_bad_input(result, "--board: mode sultan needs exactly 4 stones, found 3")


def test_export_of_one_level_to_a_path_ending_in_a_slash_writes_nothing(tmp_path):
    """``--out site/`` asks for a folder, which one level cannot fill (it wrote a file ``site``)."""
    level = write(tmp_path, "level.json", level_data())
    result = runner.invoke(app, ["export", level, "--format", "json", "--out", str(tmp_path / "site") + "/"])
    assert_bad_input(result, "site/ is a folder; one level needs a file name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.json"]


def test_play_refuses_a_negative_seed_and_an_empty_board():
    """Python's generator reads seed -1 as 1, so -1 replayed seed 1's game; ``--board ''`` played
    the default board, where ``replay`` refuses it."""
    for command in (["play", "--rules", "halloween", "--seed", "-1"], ["ten", "play", "--seed", "-1"]):
        assert_bad_input(runner.invoke(app, command), "--seed", "expected 0 or more, got -1")
    assert_bad_input(runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--board", ""]),
                     "--board: empty")


def test_a_board_row_that_is_not_a_string_is_named(tmp_path):
    board = ["." * 10] * 9 + [5]
    for command in ("show", "solve"):
        assert_bad_input(runner.invoke(app, [command, write(tmp_path, "level.json", level_data(board=board))]),
                         "field board: row 9", "got integer")


def test_a_file_with_a_byte_order_mark_reads_as_without(tmp_path):
    """Some editors start UTF-8 files with a byte-order mark: every command reads past it (show
    took such a level for board text of two rows)."""
    path = tmp_path / "level.json"
    path.write_text("\ufeff" + json.dumps(level_data()), encoding="utf-8")
    for args in (["show", str(path)], ["solve", str(path), "--json"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    assert json.loads(runner.invoke(app, ["solve", str(path), "--json"]).stdout)["best_score"] is not None


def test_fields_a_solutions_moves_carry_are_kept_when_the_level_is_written(tmp_path):
    """RULES.md §3: unknown fields are kept. A move's own (a note, say) were dropped by export and
    the pack server, which write the level again."""
    data = level_data(solution=[{"piece": "1x1", "row": 9, "col": 9, "note": "first"},
                                {"token": "remove", "row": 1, "col": 0, "why": "room"}],
                      tokens=3, shown={"by": "designer"})
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["export", write(tmp_path, "level.json", data), "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text())
    assert written["solution"] == data["solution"] and written["shown"] == {"by": "designer"}


# --- options found by the CLI audit of 2026-12-04 ----------------------------

def shipped_pack() -> str:
    from pathlib import Path

    return str(Path(__file__).parents[1] / "levels" / "halloween-2026.json")


def test_export_refuses_to_write_over_the_file_it_exports(tmp_path):
    """``--out`` naming the source (a level, or one level of a pack) would replace it: refused,
    the source unchanged; a symbolic link to it is the same file."""
    src = tmp_path / "pack"  # (a name of no format: one of another format's is refused as such)
    src.write_bytes(open(shipped_pack(), "rb").read())
    before = src.read_bytes()
    for out in (src, tmp_path / "link"):
        if out.name == "link":
            out.symlink_to(src)
        for fmt in ("svg", "json"):
            result = runner.invoke(app, ["export", str(src), "--format", fmt, "--level", "halloween-002",
                                         "--out", str(out)])
            assert_bad_input(result, "--out", "is the file being exported")
            assert src.read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_writers_refuse_a_device_or_a_pipe(tmp_path, kind):
    """An atomic write renames a new file into place, which would replace a FIFO or a device
    node (the audit's /dev/full was): refused before anything is written, through a link too."""
    target = tmp_path / "target"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/null")
    result = runner.invoke(app, ["export", shipped_pack(), "--format", "svg", "--level", "halloween-002",
                                 "--out", str(target)])
    line = assert_bad_input(result, "not a regular file")
    assert ("/dev/null" if kind == "device" else str(target)) in line
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    if kind == "fifo":
        import stat

        assert stat.S_ISFIFO(os.stat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]


@pytest.mark.parametrize("args, needles", [
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", " "], ["--out", "empty"]),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "-"], ["--out", "not to stdout"]),
    (["export", "@PACK", "--format", "svg", "--out", "-"], ["--out", "not to stdout"]),
    (["render", "@PACK", "--out", "-"], ["--out", "not to stdout"]),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "@TMP/../stdout-link"],
     ["--out", "is a stream of this process"]),  # a link to /dev/stdout: the file stdout goes to replaced
    (["export", "@PACK", "--format", "svg", "--out", "/proc/self/fd/9/x.svg"], ["--out", "a stream of this process"]),
    (["export", "@PACK", "--format", "svg", "--out", "/dev/fd/1"], ["--out", "a stream of this process"]),
    (["export", "@PACK", "--format", "svg", "--out", "//proc/self/fd/1"], ["--out", "a stream of this process"]),
    (["export", "@PACK", "--format", "svg", "--out", "@TMP/../fd-link/1"], ["--out", "a stream of this process"]),
    (["export", "@PACK", "--format", "svg", "--out", "@TMP/../proc-fd/../fd/1"],  # the link before the ..
     ["--out", "a stream of this process"]),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "@TMP/p.json", "--workers", "65"],
     ["--workers", "1 to 64", "65"]),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "@TMP/p.json", "--backend", "dask",
      "--scheduler", "garbage"], ["--scheduler", "'garbage'", "tcp://"]),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "@TMP/p.json", "--backend", "dask",
      "--scheduler", " "], ["--scheduler", "empty"]),
    (["solve", "@PACK", "--level", "halloween-002", "--node-limit", str(2 ** 63)], ["--node-limit"]),
    (["solve", "@PACK", "--level", "nosuch"], ["--level", "'nosuch'"]),
    (["solve", "@PACK", "--seed", "3"], ["--seed", "give --grade too"]),
    (["solve", "@PACK", "--grade", "--after", "@TMP/moves.json"], ["--grade", "not the rest of a game (--after)"]),
    (["solve", ""], ["empty", "a file name"]),
    (["verify", " "], ["empty", "a file name"]),
    (["ten", "wins", "@PACK"], ["halloween-2026.json", "field format", "tenfold.ten/1"]),
    (["serve", "--host", ""], ["--host", "empty"]),
    (["serve", "--packs", ""], ["--packs", "empty"]),
    (["serve", "--db", " "], ["--db", "empty"]),
    (["serve", "--port", "0", "--host", "\udcff"], ["--host", "not text"]),  # the byte 0xff, as argv reads it
    (["render", "@EMPTY", "--out", "@TMP/page"], ["field levels", "no levels to render"]),  # as export refuses it
    (["serve", "--port", "0", "--db", "@EMPTY/x.db"], ["--db", "-empty.json is a file, not a folder"]),
])
def test_bad_options_found_by_the_audit(tmp_path, args, needles):
    empty = tmp_path.parent / f"{tmp_path.name}-empty.json"  # (beside tmp_path, which must stay empty)
    for name, target in (("stdout-link", "/dev/stdout"), ("fd-link", "/dev/fd"), ("proc-fd", "/proc/self/fd")):
        if not (tmp_path.parent / name).is_symlink():
            (tmp_path.parent / name).symlink_to(target)
    empty.write_text(json.dumps({"format": "tenfold.pack/1", "id": "e", "title": "", "levels": [],
                                 "generator": {"seed": 1, "version": "1"}}))
    args = [a.replace("@PACK", shipped_pack()).replace("@TMP", str(tmp_path)).replace("@EMPTY", str(empty))
            for a in args]
    assert_bad_input(runner.invoke(app, args), *needles)
    assert list(tmp_path.iterdir()) == []  # no partial file, no pack


@pytest.mark.parametrize("args, needles", [
    (["show", "/dev/null"], ["/dev/null", "expected 10 rows, found 0"]),
    (["tray", "--rules", "halloween", "--tray", "1x1", "--board", "/dev/null"], ["--board", "expected 10 rows"]),
    (["replay", "--rules", "halloween", "--moves", "@MOVES", "--board", "/dev/null"], ["--board", "expected 10 rows"]),
    (["render", "@PACK", "--out", "/dev/null"], ["--out", "/dev/null", "device or a pipe", "expected a folder"]),
])
def test_a_device_is_read_as_a_file_not_reported_missing(tmp_path, args, needles):
    """An audit of bad input: ``show /dev/null`` and ``--board /dev/null`` said "no such file",
    where --moves, --deals and solve read it (an input may be a device or a pipe: a shell's
    ``<(...)``); render's --out /dev/null was called a file."""
    moves = write(tmp_path, "moves.json", [])
    args = [a.replace("@PACK", shipped_pack()).replace("@MOVES", moves) for a in args]
    line = assert_bad_input(runner.invoke(app, args), *needles)
    assert "no such file" not in line


def test_generate_refuses_a_pipe_at_out_or_at_its_partial_file_before_it_runs(tmp_path):
    """A generator audit: --out naming a pipe (or /dev/null) was refused only after the whole
    run, its partial file left beside it; a pipe at OUT.partial.jsonl made the run wait for ever.
    Both are refused at once, nothing written."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    args = ["generate", "sultan", "--count", "1", "--seed", "1"]
    assert_bad_input(runner.invoke(app, [*args, "--out", str(fifo)]), "--out", "not a regular file")
    os.mkfifo(tmp_path / "pack.json.partial.jsonl")
    assert_bad_input(runner.invoke(app, [*args, "--out", str(tmp_path / "pack.json")]), "--out",
                     "pack.json.partial.jsonl exists and is not a partial file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.json", "pack.json.partial.jsonl"]


def test_board_text_through_a_pipe_is_read(tmp_path):
    fifo = tmp_path / "board"
    os.mkfifo(fifo)
    text = "#########./" + "/".join(["." * 10] * 9)
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    result = runner.invoke(app, ["tray", "--rules", "halloween", "--tray", "1x1", "--board", str(fifo), "--json"])
    writer.join(10)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["plan"] == [{"piece": "1x1", "row": 0, "col": 9}]


def test_a_folder_named_like_a_pack_is_passed_over_with_a_note(tmp_path, capsys):
    from cli.api import load_packs

    (tmp_path / "sub.json").mkdir()
    (tmp_path / "pack.json").write_text(Path(shipped_pack()).read_text())
    assert list(load_packs(tmp_path)) == ["halloween-2026"]
    assert capsys.readouterr().err == f"note: {tmp_path / 'sub.json'} is a folder, not a pack file; not served\n"


def test_a_name_too_long_for_the_file_system_is_shown_short(tmp_path):
    """A 100,000-character board is board text of the wrong shape, not an echo of itself as a
    file name; a path past the file system's limit is named in at most a line's length."""
    long = "x" * 100_000
    line = assert_bad_input(runner.invoke(app, ["tray", "--rules", "sudoku", "--tray", "1x1", "--board", long]),
                            "--board", "10 rows")
    assert len(line) < 200
    for args in (["solve", long + ".json"], ["export", shipped_pack(), "--format", "svg", "--out",
                                             str(tmp_path / long / "a.svg")]):
        line = assert_bad_input(runner.invoke(app, args), "too long")
        assert len(line) < 300
    assert list(tmp_path.iterdir()) == []


def test_only_one_input_reads_stdin(tmp_path):
    result = runner.invoke(app, ["replay", "--rules", "arabic", "--moves", "-", "--board", "-"], input="[]")
    assert_bad_input(result, "--board and --moves", "stdin")
    result = runner.invoke(app, ["replay", "--rules", "arabic", "--moves", "-", "--json"], input="[]")
    assert result.exit_code == 0 and json.loads(result.stdout)["score"] == 0


def test_ten_solve_takes_inf_for_no_time_limit():
    from pathlib import Path

    position = str(Path(__file__).parents[1] / "docs" / "examples" / "ten-position.json")
    runs = [runner.invoke(app, ["ten", "solve", position, "--depth", "2", "--json", *extra])
            for extra in ([], ["--time-limit", "inf"])]
    assert [r.exit_code for r in runs] == [0, 0]
    assert runs[0].stdout == runs[1].stdout


def test_serve_leaves_no_new_cache_when_it_cannot_listen(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "fresh.db"
        result = runner.invoke(app, ["serve", "--port", str(port), "--db", str(db)])
        assert_bad_input(result, "cannot listen", str(port))
    assert list(tmp_path.iterdir()) == []


def test_serve_names_the_option_of_a_path_the_file_system_refuses(tmp_path):
    """A --packs or --db path with a name too long for the file system gave the file system's
    error alone (``error: /tmp/aaa...: File name too long``), not which option held it."""
    long_name = tmp_path / ("a" * 300)
    for option, value in (("--packs", str(long_name)), ("--db", str(long_name / "cache.db"))):
        result = runner.invoke(app, ["serve", "--port", "0", option, value])
        assert_bad_input(result, f"error: {option}: /", ": File name too long")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command,needles", [
    (["play", "--rules", "sudoku", "--mode", "battle", "--seed", "1"], ["--mode battle: a mode of 2 boards"]),
    (["replay", "--rules", "sudoku", "--mode", "battle", "--moves", "m.json"], ["--mode battle: a mode of 2 boards"]),
    (["play", "--rules", "halloween", "--seed", "1", "--time-limit", "2"],
     ["--time-limit: the expert's lookahead per tray, not a setting of --policy greedy"]),
    (["play", "--rules", "arabic", "--mode", "speed", "--seed", "1", "--policy", "expert", "--time-limit", "46"],
     ["--time-limit: mode speed gives 45 s a tray, got 46"]),
    (["play", "--rules", "arabic", "--mode", "speed", "--seed", "1", "--policy", "expert", "--time-limit",
      "45.0000001"], ["--time-limit: mode speed gives 45 s a tray, got 45.0000001"]),  # (it read "got 45")
    (["hint", "--rules", "halloween", "--tray", "1x1", "--time-limit", "3"],
     ["--time-limit: a setting of the expert's lookahead or of --method cpsat, not of --policy best with "
      "--method search"]),
    (["hint", "--rules", "halloween", "--tray", "1x1", "--fixed-rounds"],
     ["--fixed-rounds: a setting of the expert's lookahead, not of --policy best"]),
    *((["tray", "--rules", "halloween", "--tray", "1x1", *method, "--time-limit", "3"],
       ["--time-limit: a limit for --method cpsat; the search has none"]) for method in ([], ["--method", "search"])),
    *((["tray", "--rules", "halloween", "--tray", "1x1", "--method", "cpsat", "--time-limit", limit],
       ["--time-limit: expected a number of seconds above 0, or inf for no limit, got"]) for limit in ("0", "-1")),
    *((["hint", "--rules", "halloween", "--tray", "1x1", "--policy", "expert", "--method", method],
       [f"--method {method}: the expert plans with its own search"]) for method in ("search", "cpsat")),
    (["generate", "halloween", "--count", "1", "--seed", "-1", "--out", "never.json"],
     ["--seed", "expected 0 or more, got -1"]),
])
def test_settings_a_command_would_ignore_are_refused(command, needles, tmp_path, monkeypatch):
    """A mode ``play`` cannot play, and a setting of a policy other than the one asked for, were
    accepted and silently ignored (exit 0); a negative pack seed named the pack ``halloween--1``."""
    monkeypatch.chdir(tmp_path)
    assert_bad_input(runner.invoke(app, command), *needles)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("typed, quoted", [("-0", "-0"), ("-1e3", "-1000"), ("-0.5", "-0.5"), ("-1e-5", "-1e-05"),
                                            ("0e7", "0"), ("-inf", "-inf")])
def test_a_time_limit_out_of_range_is_quoted_as_a_number(typed, quoted):
    """A time limit out of range is quoted as a person writes the number: ``-0`` read ``-0.0``
    and ``-1e3`` read ``-1000.0``."""
    line = assert_bad_input(runner.invoke(app, ["tray", "--rules", "halloween", "--tray", "1x1", "--method", "cpsat",
                                                "--time-limit", typed]))
    assert line.endswith(f"above 0, or inf for no limit, got {quoted}"), line


def test_version_names_the_release_and_the_generator_version():
    from importlib.metadata import version

    from generator.pack import GENERATOR_VERSION

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    expected = f"tenfold {version('tenfold')}, generator version {GENERATOR_VERSION} (as packs record it)\n"
    assert result.stdout == expected


def test_a_long_value_is_clipped_in_every_error_line(tmp_path):
    """Options and fields quoting a value tens of thousands of characters long printed it whole
    (a 50 KB error line); the line keeps the field and what was expected, and the value's ends."""
    long = "m" * 50_000
    for command, start in [
        (["show", write(tmp_path, "mode.json", level_data(mode=long))], "mode"),
        (["tray", "--rules", long, "--tray", "1x1"], "error: "),
        (["generate", long, "--count", "1", "--seed", "1", "--out", str(tmp_path / "p.json")], "error: KIND: "),
        (["play", "--rules", "sudoku", "--seed", "1", "--mode", long], "error: --mode: "),
    ]:
        line = assert_bad_input(runner.invoke(app, command))
        assert len(line) <= 620 and start in line and "characters)" in line, line[:200]


def test_messages_spell_values_as_json_does(tmp_path):
    """null and true, not Python's None and True."""
    moves = write(tmp_path, "moves.json", [{"piece": "1x1", "row": None, "col": 0}])
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", moves]),
                     "field 'row' must be an integer, got null")
    moves = write(tmp_path, "moves.json", [{"piece": "1x1", "row": True, "col": 0}])
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", moves]), "got true")
    moves = write(tmp_path, "moves.json", [{"piece": None, "row": 0, "col": 0}])
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "halloween", "--moves", moves]),
                     f"--moves {moves}: moves[0]: piece id must be a string, got null")
    deals = write(tmp_path, "deals.txt", "1x1 1x1 1x1 1x1\n")
    assert_bad_input(runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals", deals]),
                     'expected a tray of 1 to 3 piece ids, got ["1x1", "1x1", "1x1", "1x1"]')
    for change, needle in [({"variant": None}, 'field variant: null is not one of ["halloween", "arabic", "sudoku"]'),
                           ({"trays": False}, "field trays: expected a list, got false"),
                           ({"limit": "5"}, 'field limit: expected an integer, got "5"'),
                           ({"best": [1]}, "field best: expected an object or null, got [1]"),
                           ({"trays": [["1x1"] * 4]}, 'field trays[0]: expected at most 3 items, got 4: ["1x1", '),
                           ({"trays": [[]]}, "field trays[0]: expected at least 1 item, got none"),
                           ({"goals": [{"score": 5, "pumpkins": True}]},
                            'field goals[0]: expected exactly one of the fields score, pumpkins, place_all (other '
                            'fields are kept), got {"score": 5, "pumpkins": true}')]:
        assert_bad_input(runner.invoke(app, ["show", write(tmp_path, "level.json", {**level_data(), **change})]),
                         needle)
    shown = runner.invoke(app, ["show", write(tmp_path, "level.json", {
        **level_data(), "best": {"score": None, "proof": "infeasible"}, "grade": None, "stars": True})])
    assert shown.exit_code == 0
    assert "best: null (infeasible)" in shown.stdout and "grade: null  stars: true" in shown.stdout


def test_a_tab_or_space_inside_a_board_row_is_named_and_a_missing_board_file_is_said(tmp_path):
    """Rows were trimmed, so a tab before a row read as a row of 9 and spaces around a / passed;
    a board file name that is not a file (boards/b1) was taken for board text of 2 rows; a board
    argument too long for a file name was reported as a file-system error."""
    rows = ["." * 10] * 10
    board = write(tmp_path, "tab.txt", "\n".join(["\t" + "." * 9] + rows[1:]) + "\n")
    assert_bad_input(runner.invoke(app, ["show", board]), "row 0, column 0: unknown character '\\t'")
    spaced = "/".join(rows[:1] + [" " + "." * 9] + rows[2:])
    assert_bad_input(runner.invoke(app, ["tray", "--rules", "halloween", "--tray", "1x1", "--board", spaced]),
                     "--board: row 1, column 0: unknown character ' '")
    for command in (["show", "boards/b1"], ["tray", "--rules", "halloween", "--tray", "1x1", "--board", "boards/b1"]):
        assert_bad_input(runner.invoke(app, command), "expected 10 rows, found 2 (nor is 'boards/b1' a file)")
    line = assert_bad_input(runner.invoke(app, ["show", "." * 100_000]))
    assert "expected 10 rows, found 1" in line and "too long" not in line
    padded = write(tmp_path, "padded.txt", "\n\n" + "\n".join(r + "  " for r in rows) + "\n\n")
    assert runner.invoke(app, ["show", padded]).exit_code == 0  # blank lines and line ends an editor left


def test_a_key_given_twice_in_one_object_is_refused(tmp_path):
    """Python's reader keeps the last of two equal keys silently: a level saying "id" twice
    loaded as the second."""
    text = json.dumps(level_data()).replace('"id": "cli-1"', '"id": "first", "id": "second"')
    assert '"id": "second"' in text
    for command in ("show", "solve", "verify"):
        assert_bad_input(runner.invoke(app, [command, write(tmp_path, "twice.json", text)]),
                         'invalid JSON: the key "id" appears twice in one object')


def test_an_id_is_one_line_of_text(tmp_path):
    """Ids show in one-line outputs (verify's line per level), URLs and file names."""
    for bad in ("a\nb", "tab\there", "a\u2028b", "a\u0085b", "a\n", "a\r\n", "\n"):
        assert_bad_input(runner.invoke(app, ["show", write(tmp_path, "id.json", level_data(id=bad))]),
                         "field id: expected one line of text (no line break or tab), got " + json.dumps(bad))


def test_a_pack_exported_to_a_file_name_is_refused(tmp_path):
    """``export PACK --out pack.json`` made a folder named pack.json holding a file per level."""
    pack = write(tmp_path, "pack.json", {"format": "tenfold.pack/1", "id": "p", "title": "t",
                                         "generator": {"seed": 1, "version": "1"}, "levels": [level_data()]})
    for fmt in ("json", "svg", "tmx"):
        assert_bad_input(runner.invoke(app, ["export", pack, "--format", fmt, "--out", str(tmp_path / f"out.{fmt}")]),
                         f"out.{fmt} names a .{fmt} file; a whole pack is written as a file per level into a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.json"]
    folder = tmp_path / "levels"
    assert runner.invoke(app, ["export", pack, "--format", "json", "--out", str(folder)]).exit_code == 0
    assert [p.suffix for p in folder.iterdir()] == [".json"]


@pytest.mark.parametrize("command", [["show", "-"], ["solve", "-"], ["verify", "-"], ["ten", "wins", "-"],
                                     ["ten", "solve", "-"], ["render", "-", "--out", "OUT"]])
def test_stdin_is_named_stdin(command, tmp_path):
    """Errors in a file read from - started "-:" (show said stdin); and Python's reader ends some
    messages with "at", for a position it adds and we give as line and column."""
    args = [str(tmp_path / "site") if a == "OUT" else a for a in command]
    line = assert_bad_input(runner.invoke(app, args, input='{"bad\n'))
    assert line == "error: stdin: invalid JSON at line 1, column 6: Invalid control character"


@pytest.mark.parametrize("closing, args, needle", [
    ("<&-", ["show", "-"], "error: stdin: - reads stdin, which is closed; give a file"),
    ("<&-", ["tray", "--rules", "halloween", "--tray", "1x1", "--board", "-"], "error: --board: - reads stdin, which"),
    (">&-", ["tray", "--rules", "halloween", "--tray", "1x1", "--json"], "error: stdout is closed"),
])
def test_a_closed_stdin_or_stdout_is_one_line(closing, args, needle):
    """A helper's audit: with descriptor 0 closed, ``-`` was an AttributeError traceback; with 1
    closed, the text commands failed so, and the --json ones printed nothing and exited 0."""
    import shlex
    import subprocess
    import sys

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    done = subprocess.run(["bash", "-c", f"{shlex.join([tenfold, *args])} {closing}"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith(needle) and len(done.stderr.splitlines()) == 1, done


def test_a_closed_stderr_passes_over_notes_and_errors(tmp_path):
    """With descriptor 2 closed, notes and error lines are passed over and the exit code tells
    (a review: serve --verbose failed every request, its log line written to no stderr)."""
    import subprocess
    import sys

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    done = subprocess.run(["bash", "-c", f'"{tenfold}" show "{tmp_path}/nosuch.json" 2>&-'], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and done.stderr == "", done
    done = subprocess.run(["bash", "-c", f'"{tenfold}" tray --rules halloween --tray 1x1 --json 2>&-'],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout)["placeable"], done


def test_a_command_whose_work_is_its_files_runs_with_stdout_closed(tmp_path):
    """export, render, generate and serve write files (or serve them): with stdout closed they
    do their work and pass over the lines they print (a review: refused, a daemon's start broke);
    with --json their answer is stdout's, refused as the other commands' are."""
    import subprocess
    import sys

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    out = tmp_path / "site"
    done = subprocess.run(["bash", "-c", f'"{tenfold}" export "{shipped_pack()}" --format json --out "{out}" >&-'],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done
    assert len(list(out.iterdir())) == len(json.loads(Path(shipped_pack()).read_text())["levels"])
    done = subprocess.run(["bash", "-c", f'"{tenfold}" generate sultan --count 1 --seed 1 --out "{tmp_path}/p.json" '
                                         "--json >&-"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: stdout is closed"), done
    assert not (tmp_path / "p.json").exists()


def test_an_input_past_the_cap_is_refused_whatever_it_comes_from(tmp_path, monkeypatch):
    """``show /dev/zero`` read until memory ran out (a helper's audit): an input holds at most
    ``INPUT_MOST`` bytes (1 GiB; lowered here), a file, a pipe or stdin; one at the cap is read."""
    import cli.inputs as inputs

    monkeypatch.setattr(inputs, "INPUT_MOST", 2_000)
    board = "/".join(["." * 10] * 10)
    big = board + " " * 2_000
    (tmp_path / "big.txt").write_text(big)
    (tmp_path / "fits.txt").write_text(board + " " * (2_000 - len(board)))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(big))
    writer.start()
    for source, given in [(str(tmp_path / "big.txt"), None), (str(fifo), None), ("-", big)]:
        result = runner.invoke(app, ["show", source], input=given)
        assert_bad_input(result, "cannot read", "more than 2,000 bytes", "expected a level, pack, board")
    writer.join(timeout=10)
    assert runner.invoke(app, ["show", str(tmp_path / "fits.txt")]).exit_code == 0


def test_a_full_partial_file_is_named_with_its_option(tmp_path):
    """A file size limit (or a full disk) while generate logs its results said only "error: File
    too large" (a helper's audit): the error names --out and the partial file."""
    import subprocess
    import sys

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    out = tmp_path / "g.json"
    done = subprocess.run(["bash", "-c", f'ulimit -f 1; "{tenfold}" generate halloween --count 1 --seed 3 '
                                         f'--out "{out}"'], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert done.stderr == f"error: --out: {out}.partial.jsonl: File too large\n"
    assert not out.exists()


def test_an_error_line_that_cannot_be_written_still_exits_with_its_code(monkeypatch):
    """A terminal that hung up fails every write to it (EIO): the error line is passed over and
    the exit code tells (a review: the line's own write failed, a traceback and exit 1)."""
    import typer

    real = typer.echo

    def hung_up(message=None, *args, err=False, **kwargs):
        if err:
            raise OSError(errno.EIO, "Input/output error")
        return real(message, *args, err=err, **kwargs)

    monkeypatch.setattr(typer, "echo", hung_up)
    result = runner.invoke(app, ["show", "no/such/board"])
    assert result.exit_code == 2 and result.output == "" and isinstance(result.exception, SystemExit), result


def test_stdin_from_a_terminal_says_so_and_ends_at_one_ctrl_d():
    """``show -`` at a terminal: a note on stderr says it reads the terminal (it looked hung), and
    one Ctrl-D ends the input (a review: reading in blocks of a MiB waited for a second one)."""
    import pty
    import subprocess
    import sys

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    master, slave = pty.openpty()
    proc = subprocess.Popen([tenfold, "show", "-"], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    os.close(slave)
    try:
        os.write(master, ("/".join(["#........."] * 10) + "\n").encode())
        os.write(master, b"\x04")  # Ctrl-D at the start of a line: the end of the input
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        os.close(master)
    assert proc.returncode == 0, err
    assert err == "stdin: reading from the terminal (-: stdin); end with Ctrl-D\n"
    assert out.count("#") == 10


def test_export_refuses_a_pack_of_no_levels_and_writes_nothing(tmp_path):
    """docs/rules-choices.md: a pack with no levels can be shown, but export refuses it (there is
    nothing to draw): exit 2 naming the pack, and no folder made (it wrote "wrote 0 files")."""
    empty = write(tmp_path, "empty.json", {"format": "tenfold.pack/1", "id": "p", "title": "t",
                                           "generator": {"seed": 1, "version": "x"}, "levels": []})
    for fmt in ("json", "tmj", "png"):
        assert_bad_input(runner.invoke(app, ["export", empty, "--format", fmt, "--out", str(tmp_path / "out")]),
                         "pack p", "has no levels")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.json"]


def test_a_pack_exported_onto_an_existing_file_says_a_pack_needs_a_folder(tmp_path):
    """A whole pack is a file per level in a folder: an --out that is a file already (or a
    device) is refused saying so, and the file is left as it was."""
    pack = pack_file(tmp_path, "one")
    existing = tmp_path / "notes"
    existing.write_text("mine")
    assert_bad_input(runner.invoke(app, ["export", pack, "--format", "json", "--out", str(existing)]),
                     f"--out: {existing} is a file; a whole pack needs a folder (or pass --level)")
    assert existing.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["notes", "pack.json"]
    assert_bad_input(runner.invoke(app, ["export", pack, "--format", "svg", "--out", "/dev/null"]),
                     "--out: /dev/null is not a folder but a device or a pipe; a whole pack needs a folder")


def test_every_file_is_on_the_disk_before_any_is_renamed_into_place(tmp_path, monkeypatch):
    """docs/cli.md: each file is flushed to the disk before it is renamed into place (a power
    cut then leaves each place its old file or the whole new one, never an empty file): every
    new file's bytes are fsynced, all three before the first rename."""
    import cli.atomic
    from cli.atomic import write_files_atomically

    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append("fsync")
        return real_fsync(fd)

    def replace(src, dst):
        events.append("replace")
        return real_replace(src, dst)

    monkeypatch.setattr(cli.atomic.os, "fsync", fsync)
    monkeypatch.setattr(cli.atomic.os, "replace", replace)
    (tmp_path / "a.json").write_text("old a")
    places = [tmp_path / "a.json", tmp_path / "b.json", tmp_path / "sub" / "c.json"]
    write_files_atomically({place: b"new " + place.name[:1].encode() for place in places})
    assert events.index("replace") == 3 and events[:3] == ["fsync"] * 3, events  # (the folders' syncs come after)
    assert [p.read_bytes() for p in places] == [b"new a", b"new b", b"new c"]


def test_written_files_get_the_mode_a_plain_write_would_give(tmp_path):
    """A file written all or none is made as a temporary file (mode 0600), then given the mode
    a plain open() would: the umask's for a new file (0644 under umask 022: a web server or
    another user may read an exported level), the old file's for one it replaces."""
    from cli.atomic import write_files_atomically

    old = tmp_path / "old.json"
    old.write_text("old")
    old.chmod(0o640)
    umask = os.umask(0o022)
    try:
        write_files_atomically({tmp_path / "new.json": b"new", old: b"newer"})
    finally:
        os.umask(umask)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644
    assert old.stat().st_mode & 0o777 == 0o640 and old.read_text() == "newer"


def test_play_deals_json_refuses_what_is_not_a_list_of_trays(tmp_path):
    """--deals JSON: trays and reserve are lists (an object or a string is not read as one, item
    by item), a tray holds 1 to 3 piece ids (an empty one is refused too), and a file with a
    reserve but no tray holds no trays."""
    def play(content, name):
        return CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals",
                                        write(tmp_path, name, content)])

    assert_bad_input(play({"trays": [["3x3"], []]}, "a.json"), "trays[1]", "1 to 3 piece ids", "got []")
    assert_bad_input(play({"trays": [["3x3"]], "reserve": {"1x1": 1}}, "b.json"), "field reserve",
                     "list of piece ids")
    assert_bad_input(play({"trays": [["3x3"]], "reserve": "1x1"}, "c.json"), "field reserve", "list of piece ids")
    assert_bad_input(play({"trays": {"first": ["3x3"]}}, "d.json"), "field trays", "list of trays")
    assert_bad_input(play({"trays": "3x3"}, "e.json"), "field trays", "list of trays")
    assert_bad_input(play({"trays": [], "reserve": ["1x1"]}, "f.json"), "no trays")


def test_play_deals_text_takes_commas_as_well_as_spaces(tmp_path):
    """docs/cli.md: one tray per line, its piece ids separated by spaces or commas."""
    deals = write(tmp_path, "deals.txt", "1x1,1x2, 2x1\n3x3 ,1x1\n")
    result = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--deals", deals, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["trays"] == 2
    assert sorted(m["piece"] for m in answer["moves"]) == ["1x1", "1x1", "1x2", "2x1", "3x3"]


def test_a_swap_draws_the_deals_reserve_in_order_and_past_its_end_is_one_line(tmp_path):
    """A swap takes the reserve's next piece, the first one first; a swap with none left is
    refused as the move's error (exit 2), not a crash."""
    deals = write(tmp_path, "deals.json", {"trays": [["1x1", "1x2", "2x1"]], "reserve": ["3x3", "2x2"]})
    moves = write(tmp_path, "moves.json", [{"token": "swap", "piece": "1x1"}, {"piece": "3x3", "row": 0, "col": 0}])
    result = runner.invoke(app, ["replay", "--rules", "sudoku", "--tokens", "1", "--deals", deals, "--moves",
                                 moves, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["score"] == 90  # RULES.md: 10 per cell, nine cells, nothing cleared
    deals = write(tmp_path, "deals.json", {"trays": [["1x1", "1x2", "2x1"]], "reserve": ["3x3"]})
    moves = write(tmp_path, "moves.json", [{"token": "swap", "piece": "1x1"}, {"token": "swap", "piece": "1x2"}])
    assert_bad_input(runner.invoke(app, ["replay", "--rules", "sudoku", "--tokens", "2", "--deals", deals,
                                         "--moves", moves]), "moves[1]", "reserve is used up")


def test_a_board_read_from_stdin(tmp_path):
    """--board - reads the board text from stdin, as every file argument takes -."""
    rows = ["." * 10] * 9 + ["#########."]
    result = runner.invoke(app, ["tray", "--rules", "halloween", "--board", "-", "--tray", "1x1", "--json"],
                           input="\n".join(rows) + "\n")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    # the 1x1 in the gap clears the bottom row: 1 cell + 10 for one zone (RULES.md, Halloween)
    assert answer["best_score"] == 11 and answer["plan"] == [{"piece": "1x1", "row": 9, "col": 9}]


def test_a_ten_row_board_error_is_not_taken_for_a_file_name(tmp_path):
    """Board text of ten rows is board text: its error says what is wrong in it, and not that no
    file has that name (which only text of another row count may have been meant as)."""
    rows = ["." * 10] * 10
    rows[3] = "...x......"
    line = assert_bad_input(replay(tmp_path, ONE, board="/".join(rows)), "row 3", "column 3", "'x'")
    assert "nor is" not in line
    line = assert_bad_input(replay(tmp_path, ONE, board="/".join(["." * 10] * 11)), "rows", "11")
    assert "nor is" in line


def test_a_path_from_home_that_is_not_there_is_a_missing_file(tmp_path):
    """A name starting ~ reads as a path (docs: /, ./, ../ or ~), not as board text."""
    assert_bad_input(runner.invoke(app, ["show", "~/tenfold-audit-no-such-board"]), "no such file",
                     "tenfold-audit-no-such-board")


def test_a_drawn_board_puts_each_cell_under_its_column_and_beside_its_row():
    """The text board (show, tray, play): a ruler of column numbers, each row after its number, a
    cell exactly under its column's number, cells one space apart, highlighted cells as *, and no
    colour where stdout is not a terminal."""
    from cli.draw import draw_board
    from solver.bitboard import bb_cell
    from solver.board import parse_board

    rows = ["." * 10 for _ in range(10)]
    rows[2], rows[7] = "..#.......", "S........P"
    board = parse_board("/".join(rows))
    for drawn in (draw_board(board, highlight=bb_cell(4, 6), colour=False), draw_board(board, bb_cell(4, 6))):
        assert "\x1b" not in drawn  # (pytest's stdout is not a terminal)
        lines = drawn.split("\n")
        assert len(lines) == 11
        ruler = lines[0]
        for r in range(10):
            line = lines[r + 1]
            expected = list(rows[r])
            if r == 4:
                expected[6] = "*"
            assert int(line[:3]) == r, line
            assert line[3:].split(" ") == expected, line
            assert [line[ruler.index(str(c))] for c in range(10)] == expected, (ruler, line)


def test_a_drawn_board_takes_colour_from_stdout_being_a_terminal_unless_told(monkeypatch):
    """The board is written to stdout, so colour follows stdout (a terminal), not stderr; an
    explicit ``colour`` wins either way. Coloured or not, the same characters are drawn."""
    import io
    import sys

    from cli.draw import draw_board
    from solver.bitboard import bb_cell
    from solver.board import parse_board

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    board = parse_board("/".join(["S..#.....P"] + ["." * 10] * 9))
    plain = draw_board(board, bb_cell(5, 5), colour=False)
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    coloured = draw_board(board, bb_cell(5, 5))
    assert "\x1b[" in coloured and re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    assert draw_board(board, bb_cell(5, 5), colour=False) == plain
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert draw_board(board, bb_cell(5, 5)) == plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", draw_board(board, bb_cell(5, 5), colour=True)) == plain
    assert "\x1b[" in draw_board(board, bb_cell(5, 5), colour=True)


def test_tray_text_shows_each_step_on_the_board_it_lands_on_and_counts_the_safe_moves():
    """Halloween, hand counted (RULES.md): with a clearing placement just before (--streak 1),
    a 1x1 that fills row 0 scores 1 + 10 + 5; the second 1x1 then clears nothing (+1). Each
    step's board is the one the piece lands on, its cell drawn as '*'; after a tray of two 1x1s
    every one of the 91 empty cells is a safe first move. Where no piece fits, the text says so."""
    board = "/".join(["#########."] + ["." * 10] * 9)
    result = runner.invoke(app, ["tray", "--rules", "halloween", "--board", board, "--tray", "1x1,1x1",
                                 "--streak", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    steps = [i for i, line in enumerate(lines) if line.startswith("step ")]
    assert len(steps) == 2, lines
    assert lines[steps[0]] == 'step 1: {"piece": "1x1", "row": 0, "col": 9}  +16'
    assert lines[steps[1]].startswith('step 2: {"piece": "1x1", ') and lines[steps[1]].endswith("  +1")
    drawn = [line.split()[1:] for line in lines[steps[0] + 2:steps[0] + 12]]  # below the column header
    assert drawn[0] == ["#"] * 9 + ["*"] and sum(row.count("*") for row in drawn) == 1, drawn
    assert lines[-1] == "best score: 17   safe first moves: 91"
    full = runner.invoke(app, ["tray", "--rules", "halloween", "--board", CHECKERED, "--tray", "2x2"])
    assert full.exit_code == 0 and full.stdout.splitlines()[-1] == "not placeable", full.output


def test_play_names_an_unknown_policy():
    """A policy play does not have is bad input: one line naming --policy and the policies it has."""
    assert_bad_input(runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--policy", "smart"]),
                     "--policy", "'smart'", "greedy", "expert")


def test_play_text_says_game_over_and_the_tokens_bonus_only_where_they_apply(tmp_path):
    """docs/cli.md: play prints the score and the trays survived. Hand counted (RULES.md): on a
    board of single cells no 2x2 fits, so Halloween's game is over at its first tray (score 0,
    rank Frightened Novice); three 1x1s on an empty Arabic board score 1 each and clear nothing,
    and the mode's 3 tokens left add 100 each."""
    deals = write(tmp_path, "deals.txt", "2x2 2x2 2x2\n")
    over = runner.invoke(app, ["play", "--rules", "halloween", "--seed", "1", "--board", CHECKERED, "--deals", deals])
    assert over.exit_code == 0, over.output
    assert over.stdout.splitlines()[-3:] == ["score: 0", "trays survived: 0 (game over)", "rank: Frightened Novice"]
    deals = write(tmp_path, "ones.txt", "1x1 1x1 1x1\n")
    fits = runner.invoke(app, ["play", "--rules", "arabic", "--seed", "1", "--deals", deals])
    assert fits.exit_code == 0, fits.output
    assert fits.stdout.splitlines()[-2:] == ["score: 303 (tokens left: 3, their bonus included)", "trays survived: 1"]


def test_show_gives_a_levels_limit_and_tokens_and_a_packs_count_of_levels(tmp_path):
    """A level is drawn with its limit, its tokens and its goals; a pack's first line counts its levels."""
    level = level_data(limit=7, tokens=2)
    result = runner.invoke(app, ["show", write(tmp_path, "level.json", level)])
    assert result.exit_code == 0, result.output
    assert "limit: 7 placements  tokens: 2  goals: score 100" in result.stdout.splitlines()
    shown = runner.invoke(app, ["show", pack_file(tmp_path, "a", "b", "c", title="Three levels")])
    assert shown.exit_code == 0 and shown.stdout.startswith("pack pk: Three levels (3 levels)\n"), shown.output


@pytest.mark.parametrize("command", ["generate", "export", "render", "serve"])
def test_each_command_whose_work_is_its_files_passes_over_a_closed_stdout(command, monkeypatch):
    """docs/cli.md: a closed stdout is an error, but for generate, export, render and serve
    without --json, whose work is their files: those run, their lines passed over; with --json
    (and for a command that answers on stdout) it is one line on stderr and exit 2."""
    import sys

    import cli.main

    monkeypatch.setattr(sys, "stdout", None)
    cli.main._closed_streams([command, "IN", "--out", "OUT"])
    assert sys.stdout is not None and sys.stdout.name == os.devnull
    sys.stdout.close()
    for argv in ([command, "IN", "--out", "OUT", "--json"], ["show", "IN"]):
        monkeypatch.setattr(sys, "stdout", None)
        with pytest.raises(SystemExit) as done:
            cli.main._closed_streams(argv)
        assert done.value.code == 2


def test_generate_names_an_out_too_long_for_the_file_system_in_a_lines_length(tmp_path):
    """docs/cli.md: a long value is clipped to its ends. A --out folder past the file system's
    name limit is named with its option and the system's reason, the path clipped (it was the
    whole path, clipped only where the line as a whole is), before any candidate is built."""
    folder = "x" * 300
    line = assert_bad_input(runner.invoke(app, ["generate", "halloween", "--count", "1", "--seed", "1",
                                                "--out", str(tmp_path / folder / "p.json")]),
                            "error: --out: ", "File name too long")
    assert len(line) < 200 and folder not in line and line.endswith("/p.json: File name too long")
    assert list(tmp_path.iterdir()) == []
