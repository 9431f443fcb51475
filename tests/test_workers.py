"""Worker processes (``solver/workers.py``): ``solve`` and ``verify`` of a pack with
``--workers`` give the same output as one process, claims found false all the same, bad counts
refused; no worker left behind by Ctrl-C (also as the workers start) or by a parent killed
outright; a worker killed outright is an error, not a wait for ever."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.workers import WorkerDied, answers_in_order

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def shipped(name: str) -> dict:
    return json.loads((ROOT / "levels" / name).read_text(encoding="utf-8"))


def open_level(level_id: str) -> dict:
    """An empty board and two trays of big pieces, with a best claim to re-prove: a search far
    longer than a test waits for."""
    return {"format": "tenfold.level/1", "id": level_id, "variant": "halloween", "mode": "campaign",
            "board": ["." * 10] * 10, "trays": [["3x3", "1x5", "L5-nw"], ["2x2", "5x1", "1x3"]],
            "limit": 6, "goals": [{"score": 1}], "best": {"score": 1, "proof": "optimal", "bound": 1}}


def mixed_pack(tmp_path: Path) -> tuple[str, set[str]]:
    """The shipped Halloween pack's first ten levels, two of them with a false claim (a best one
    point too high; a solution whose first move is off the board), one with no claims at all, and
    two Sultan levels: a pack file, and the ids whose claims are false."""
    pack = shipped("halloween-2026.json")
    levels = copy.deepcopy(pack["levels"][:10]) + copy.deepcopy(shipped("sultan-2026.json")["levels"][:2])
    levels[3]["best"]["score"] += 1
    levels[6]["solution"][0] = {**levels[6]["solution"][0], "row": 9, "col": 9}
    for key in ("solution", "best", "stars"):
        levels[8].pop(key, None)
    pack["levels"] = levels
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    return str(path), {levels[3]["id"], levels[6]["id"]}


@pytest.mark.parametrize("workers", ["2", "3"])
def test_verify_by_workers_gives_what_one_process_gives(tmp_path, workers):
    path, false_ids = mixed_pack(tmp_path)
    one = runner.invoke(app, ["verify", path, "--json"])
    many = runner.invoke(app, ["verify", path, "--json", "--workers", workers])
    assert one.exit_code == many.exit_code == 1, (one.output, many.output)
    assert many.stdout == one.stdout
    verdicts = json.loads(many.stdout)
    assert len(verdicts) == 12
    assert {v["id"] for v in verdicts if v["status"] == "fail"} == false_ids
    assert all(v["status"] == "ok" for v in verdicts if v["id"] not in false_ids)
    text = runner.invoke(app, ["verify", path, "--workers", workers])
    lines = text.stdout.splitlines()
    assert text.exit_code == 1 and len(lines) == 12
    assert [line.split(":")[0].split()[-1] for line in lines] == [v["id"] for v in verdicts]  # the pack's order
    assert {line.split()[1].rstrip(":") for line in lines if line.startswith("FAIL")} == false_ids


def test_solve_by_workers_gives_what_one_process_gives(tmp_path):
    """Proven answers, and a bound the node limit ends (the same on every machine)."""
    pack = shipped("halloween-2026.json")
    pack["levels"] = pack["levels"][:6] + [open_level("open")] + pack["levels"][6:9]
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    args = ["solve", str(path), "--json", "--node-limit", "200000", "--time-limit", "inf"]
    one = runner.invoke(app, args)
    many = runner.invoke(app, [*args, "--workers", "2"])
    assert one.exit_code == many.exit_code == 0, (one.output, many.output)
    assert many.stdout == one.stdout
    answers = json.loads(many.stdout)
    assert [a["id"] for a in answers] == [lv["id"] for lv in pack["levels"]]
    assert [a["proof"] for a in answers].count("bound") == 1 and answers[6]["proof"] == "bound"
    text = runner.invoke(app, ["solve", str(path), "--node-limit", "200000", "--workers", "2"])
    assert text.exit_code == 0
    assert text.stdout.splitlines()[-1] == "10 levels: 10 solvable, 9 proven"


@pytest.mark.parametrize("command", ["solve", "verify"])
@pytest.mark.parametrize("workers", ["0", "65", "-1"])
def test_a_worker_count_out_of_range_is_refused(command, workers):
    result = runner.invoke(app, [command, str(ROOT / "levels" / "sultan-2026.json"), "--workers", workers])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: --workers: expected 1 to 64, got {workers}"
    assert result.stdout == ""


def _square(n: int) -> int:
    """n squared, slowly for every third n: later items finish first, and must wait their turn."""
    if n % 3 == 0:
        time.sleep(0.02)
    return n * n


def _fails_on_three(n: int) -> int:
    if n == 3:
        raise ValueError("three")
    return n


def test_answers_come_in_order_and_a_workers_error_reaches_the_caller():
    assert list(answers_in_order(_square, list(range(40)), 3)) == [n * n for n in range(40)]
    assert list(answers_in_order(_square, [5], 8)) == [25]  # (one worker for one item)
    seen = []
    with pytest.raises(ValueError, match="three"):
        for value in answers_in_order(_fails_on_three, [1, 2, 3, 4], 2):
            seen.append(value)
    assert seen == [1, 2]


def _killed_on_three(n: int) -> int:
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_a_worker_killed_outright_is_an_error_naming_its_item():
    """multiprocessing.Pool's imap waited for good for the task of a worker that died (a review:
    verify --workers 2 with one worker SIGKILLed)."""
    seen = []
    with pytest.raises(WorkerDied, match=r"^a worker process ended \(killed by SIGKILL, perhaps for want of "
                                         r"memory\) while on item 3$"):
        for value in answers_in_order(_killed_on_three, [1, 2, 3, 4, 5], 2, name=lambda n: f"item {n}"):
            seen.append(value)
    assert seen == [1, 2]


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (one its dead parent left to be reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def _start(tmp_path: Path, command: str = "verify") -> tuple[subprocess.Popen, list[int]]:
    """``verify`` (or ``solve``) ``--workers 2`` of three levels that take minutes each, once both
    workers search."""
    pack = {"format": "tenfold.pack/1", "id": "slow", "title": "slow", "generator": {"seed": 0, "version": "0"},
            "levels": [open_level(f"open-{i}") for i in range(3)]}
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    tenfold = str(Path(sys.executable).with_name("tenfold"))  # the console script, as a user runs it
    proc = subprocess.Popen([tenfold, command, str(path), "--workers", "2", "--time-limit", "inf"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240  # (a cold numba cache compiles the search first: about 40 s)
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers = [p for p in _children(proc.pid) if _running(p)]
        assert proc.poll() is None, proc.communicate()
    assert len(workers) == 2
    time.sleep(1.0)  # both searching
    return proc, workers


def _gone(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command, said", [
    ("verify", "verified 0 of 3 levels; 0 ok, 0 FAIL (a false claim), 0 OPEN (not settled)"),
    ("solve", "after 0 of 3 levels (the levels under way were dropped)")])
def test_ctrl_c_ends_the_workers_and_says_how_far_it_got(tmp_path, command, said):
    proc, workers = _start(tmp_path, command)
    try:
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == f"interrupted: {said}"
    assert "Traceback" not in err
    assert out == ("" if command == "verify" else "0 levels: 0 solvable, 0 proven\n")
    assert _gone(workers, 5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_killed_outright_ends_the_command_with_an_error(tmp_path):
    proc, workers = _start(tmp_path)
    os.kill(workers[0], signal.SIGKILL)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    assert err.strip().splitlines()[-1].startswith("error: a worker process ended (killed by SIGKILL, perhaps for "
                                                   "want of memory) while on level open-")
    assert _gone(workers, 5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_to_the_process_group_as_the_workers_start():
    """A terminal's Ctrl-C reaches every process of the command. Sent as the workers were being
    forked, 18 of 40 went wrong (a review): two hung for good (a lock left held in a fork's hook,
    then the next fork), five were lost (the command finished), eleven printed a worker's
    traceback. Six runs here, each at another moment."""
    levels = ROOT / "levels" / "halloween-2026.json"
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    outcomes = []
    for run in range(6):
        proc = subprocess.Popen([tenfold, "verify", str(levels), "--workers", "3", "--time-limit", "1"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 240
        while proc.poll() is None and not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(run * 0.0008)
        workers = _children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            outcomes.append(("hung", err[-300:]))
            continue
        clean = "Traceback" not in err and "Exception ignored" not in err
        outcomes.append((proc.returncode, clean, _gone(workers, 5)))
    assert outcomes == [(130, True, True)] * 6, outcomes


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl's parent-death signal")
def test_workers_die_with_a_parent_killed_outright(tmp_path):
    proc, workers = _start(tmp_path)
    proc.kill()
    proc.wait(timeout=30)  # (not communicate: workers left alive would hold its pipes open)
    proc.stdout.close()
    proc.stderr.close()
    gone = _gone(workers, 5)
    for pid in workers:  # (not to leave them searching when the test fails)
        if _running(pid):
            os.kill(pid, signal.SIGKILL)
    assert gone


def _own_pid(n: int) -> int:
    return os.getpid()


def test_every_worker_asked_for_gets_an_item_at_once():
    """Three items, three workers: each worker is handed one item before any answer comes back,
    so three processes answer, none of them the caller (one worker fed, or one too few forked,
    still gave the answers in order, a worker short)."""
    pids = list(answers_in_order(_own_pid, [0, 1, 2], 3))
    assert len(set(pids)) == 3 and os.getpid() not in pids


def test_the_ends_of_the_worker_range_are_taken():
    """1 and 64 workers are in range ("expected 1 to 64"): neither is refused."""
    from solver.workers import MAX_WORKERS, check_workers

    assert MAX_WORKERS == 64
    check_workers(1)
    check_workers(64)


def test_workers_told_to_stop_end_at_once(monkeypatch):
    """Done, each worker is told to stop and ends of itself: none is still there to be killed
    when the call returns (a worker that read "stop" and waited on was killed after five
    seconds, which kept every pack's command waiting past its last answer). From a mutation
    audit."""
    from multiprocessing.context import ForkProcess

    killed = []
    real_kill = ForkProcess.kill
    monkeypatch.setattr(ForkProcess, "kill", lambda self: (killed.append(self.pid), real_kill(self)))
    assert list(answers_in_order(_square, [1, 2], 2)) == [1, 4]
    assert killed == []
