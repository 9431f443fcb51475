"""tenfold serve and tenfold hint: levels, solutions and hints over real HTTP on loopback, and the cache."""

from __future__ import annotations

import http.client
import json
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import export_fixtures as fx
from level_reference import reference_check
from processes import lines_until
from cli.answer_cache import AnswerCache
from cli.api import Api, load_packs
from cli.main import app
from cli.http_server import make_server
from solver.bitboard import bb_cell
from solver.board import Board
from solver.pieces import get_piece
from solver.variants import find_variant

runner = CliRunner()


@pytest.fixture(scope="module")
def packs_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("packs")
    fx.write_json(folder / "fixture.json", fx.pack("fixture-pack"))
    fx.write_json(folder / "loose-level.json", fx.halloween_level("loose"))  # not a pack: not served
    return folder


@pytest.fixture()
def server(packs_dir, tmp_path):
    """A real server on 127.0.0.1 and an ephemeral port, in a thread; yields (host, port, api)."""
    api = Api(load_packs(packs_dir), AnswerCache(tmp_path / "cache.sqlite3"))
    httpd = make_server(api, "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[0], httpd.server_address[1], api
    httpd.shutdown()
    httpd.server_close()
    api.cache.close()


def request(conn: http.client.HTTPConnection, method: str, path: str, body=None, raw: bytes | None = None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    return response.status, json.loads(payload), response


def wait_until(condition, seconds: float = 10) -> None:
    """Look every 10 ms until ``condition()`` holds or ``seconds`` pass (the caller asserts)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def tray_cli_json(question: dict) -> dict:
    args = ["tray", "--rules", question["rules"], "--board", question["board"],
            "--tray", ",".join(question["tray"]), "--streak", str(question.get("streak", 0)), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def random_questions(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    questions = []
    for i in range(count):
        rules = ("halloween", "arabic", "sudoku")[i % 3]
        shapes = find_variant(rules).shapes
        density = rng.choice((0.1, 0.25, 0.35, 0.5, 0.7))
        filled = sum(bb_cell(r, c) for r in range(10) for c in range(10) if rng.random() < density)
        stones = sum(bb_cell(rng.randrange(10), rng.randrange(10)) for _ in range(rng.randrange(3))) & ~filled
        question = {"rules": rules, "board": Board(filled, stones).text(),
                    "tray": [rng.choice(shapes) for _ in range(rng.randint(1, 3))]}
        if rng.random() < 0.5:
            question["streak"] = rng.randrange(4)
        questions.append(question)
    return questions


def test_200_hints_in_a_row_equal_tenfold_tray(server):
    host, port, api = server
    questions = random_questions(200)
    conn = http.client.HTTPConnection(host, port, timeout=30)
    started = time.perf_counter()
    answers = []
    for question in questions:
        status, answer, response = request(conn, "POST", "/hint", question)
        assert status == 200, answer
        answers.append(answer)
    elapsed = time.perf_counter() - started
    conn.close()
    for question, answer in zip(questions, answers):
        assert answer == tray_cli_json(question), question
    assert any(a["placeable"] for a in answers) and any(not a["placeable"] for a in answers)
    print(f"200 hints over HTTP: {elapsed:.2f} s")


def spelled_tray_replays(question: dict, answer: dict) -> None:
    """The plan, and each safe first move, find their pieces in the tray by the ids it was given
    (as a client matching strings does), and the plan places all of it."""
    tray = list(question["tray"])
    for move in answer["plan"]:
        tray.remove(move["piece"])
    assert not tray
    assert answer["safe_moves"] and all(m["piece"] in question["tray"] for m in answer["safe_moves"])
    # a safe spot of a shape the tray spells two ways is listed under each spelling (each slot can
    # take it), and nothing else: the canonical answer's spots, once per spelling of their piece
    canonical = tray_cli_json({**question, "tray": [get_piece(p).id for p in question["tray"]]})["safe_moves"]
    spellings = {get_piece(p).id: sorted({q for q in question["tray"] if get_piece(q).id == get_piece(p).id})
                 for p in question["tray"]}
    expected = sorted((name, m["row"], m["col"]) for m in canonical for name in spellings[m["piece"]])
    assert sorted((m["piece"], m["row"], m["col"]) for m in answer["safe_moves"]) == expected


def test_hints_name_pieces_as_the_tray_spells_them(server):
    """Masks of canonical shapes (``#/#`` is 2x1) and a shape spelled two ways (``#`` and 1x1):
    tray, hint and POST /hint answer in the request's spelling; the cache, keyed by the
    canonical question, answers a differently spelled request in that request's spelling."""
    host, port, api = server
    board = "#########./#########./" + "/".join(["." * 10] * 8)
    spelled = {"rules": "halloween", "board": board, "tray": ["#", "#/#", "1x1"]}
    canonical = {**spelled, "tray": ["1x1", "2x1", "1x1"]}
    conn = http.client.HTTPConnection(host, port, timeout=30)
    status, answer, response = request(conn, "POST", "/hint", spelled)
    assert status == 200 and response.getheader("X-Tenfold-Cache") == "miss"
    spelled_tray_replays(spelled, answer)
    assert answer == tray_cli_json(spelled)
    status, again, response = request(conn, "POST", "/hint", canonical)
    assert status == 200 and response.getheader("X-Tenfold-Cache") == "hit"
    spelled_tray_replays(canonical, again)
    assert again == tray_cli_json(canonical)
    conn.close()
    assert answer["best_score"] == again["best_score"] == 34  # 2x1 clears both rows (30), and 1 + 2 + 1 cells
    assert {m["piece"] for m in answer["plan"]} == {"#", "#/#", "1x1"}
    hint = runner.invoke(app, ["hint", "--rules", "halloween", "--board", board, "--tray", "#,#/#,1x1", "--json"])
    assert hint.exit_code == 0 and json.loads(hint.output) == answer
    drawn = runner.invoke(app, ["tray", "--rules", "halloween", "--board", board, "--tray", "#,#/#,1x1"])
    steps = [line.split("  +")[0] for line in drawn.output.splitlines() if line.startswith("step ")]
    assert drawn.exit_code == 0 and steps == [f"step {i}: {json.dumps(m)}" for i, m in enumerate(answer["plan"], 1)]
    expert = runner.invoke(app, ["hint", "--rules", "halloween", "--board", board, "--tray", "#,#/#,1x1", "--json",
                                 "--policy", "expert", "--time-limit", "0.2"])
    assert expert.exit_code == 0, expert.output
    plan = [m["piece"] for m in json.loads(expert.stdout)["plan"]]  # (a limit overrun: a note on stderr)
    assert sorted(plan) == sorted(spelled["tray"])


def test_hint_equals_tray_through_the_real_command():
    question = {"rules": "sudoku", "board": "##########/" + "/".join(["#.#.#.#.#."] * 9), "tray": ["1x1", "2x2", "3x1"]}
    args = ["--rules", question["rules"], "--board", question["board"], "--tray", ",".join(question["tray"]), "--json"]
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    tray = subprocess.run([tenfold, "tray", *args], capture_output=True, text=True, timeout=60)
    hint = subprocess.run([tenfold, "hint", *args], capture_output=True, text=True, timeout=60)
    assert tray.returncode == hint.returncode == 0, tray.stderr + hint.stderr
    assert json.loads(hint.stdout) == json.loads(tray.stdout) == tray_cli_json(question)


def test_hint_bad_input_is_one_line_exit_2():
    result = runner.invoke(app, ["hint", "--rules", "chess", "--tray", "1x1"])
    assert result.exit_code == 2 and "unknown variant 'chess'" in result.output and "Traceback" not in result.output


def read_until_closed(conn: socket.socket) -> bytes:
    """Everything the server sends before it closes the connection (it does after a bad request)."""
    chunks = []
    while chunk := conn.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


EMPTY_BOARD = "/".join(["." * 10] * 10)

MALFORMED = [
    (b"{not json", "body: invalid JSON"),
    (b"[1, 2]", "body: expected a JSON object"),
    (b"null", "got null"),  # JSON's words, not Python's (NoneType)
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD,
                 "tray": ["." * 30000 + "#"]}).encode(), "at most 10 rows of 10"),  # padding, echoed in answers
    (b"\xff\xfe", "body: not UTF-8"),
    (json.dumps({"board": "", "tray": ["1x1"]}).encode(), "field rules: missing"),
    (json.dumps({"rules": "chess", "board": EMPTY_BOARD, "tray": ["1x1"]}).encode(), "field rules"),
    (json.dumps({"rules": "halloween", "board": "..", "tray": ["1x1"]}).encode(), "field board: expected 10 rows"),
    (json.dumps({"rules": "halloween", "board": "/".join(["." * 9 + "x"] + ["." * 10] * 9), "tray": ["1x1"]}).encode(),
     "row 0, column 9"),
    (json.dumps({"rules": "halloween", "board": 7, "tray": ["1x1"]}).encode(), "field board"),
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": []}).encode(), "field tray"),
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1", "9x9"]}).encode(),
     "field tray[1]"),
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"], "streak": -1}).encode(),
     "field streak"),
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"], "streak": "2"}).encode(),
     "field streak"),
    (json.dumps({"rules": "arabic", "board": EMPTY_BOARD, "tray": ["1x1"], "tokens": 1001}).encode(),
     "field tokens: expected an integer 0 to 1,000, got 1001"),
    (json.dumps({"rules": "arabic", "board": EMPTY_BOARD, "tray": ["1x1"],
                 "streak": 10 ** 4000}).encode(),
     "characters)"),  # clipped, not echoed whole
    (b'{"rules": "halloween", "board": "\\ud800", "tray": ["1x1"]}', "field board: a string holds a lone surrogate"),
    (json.dumps({"rules": "arabic", "board": EMPTY_BOARD, "tray": ["1x1"], "policy": "expert"}).encode(),
     "field policy: the server answers as tenfold tray does (the best plan, by search), not with tenfold hint's "
     "policy; it reads rules, board, tray, streak, tokens (and passes over fields it does not know)"),
    (json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"], "tokens": 2}).encode(),
     "field tokens: variant halloween has no tokens, got 2"),
]


def test_malformed_requests_get_400_and_the_server_stays_up(server):
    host, port, _ = server
    conn = http.client.HTTPConnection(host, port, timeout=10)
    for raw, problem in MALFORMED:
        status, body, _ = request(conn, "POST", "/hint", raw=raw)
        assert status == 400, (raw, body)
        assert problem in body["error"], (raw, body)
    assert request(conn, "GET", "/hint")[0] == 405
    status, body, _ = request(conn, "GET", "/nowhere")
    assert status == 404
    assert all(route in body["error"] for route in ("GET /health", "GET /levels/{pack}", "POST /hint"))
    # garbage that is not HTTP at all, a lying Content-Length, and a body too large
    for garbage in (b"BR\x00W /hint HTTP/1.1\r\n\r\n", b"POST /hint HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                    b"POST /hint HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n{}"):
        with socket.create_connection((host, port), timeout=10) as raw_conn:
            raw_conn.sendall(garbage)
            reply = read_until_closed(raw_conn)
            assert reply.split()[1] in (b"400", b"413", b"501"), reply[:80]
            assert "error" in json.loads(reply.split(b"\r\n\r\n", 1)[1])
    # a request line the server cannot parse still gets a status line and headers (the standard
    # library would answer as HTTP/0.9, the JSON body alone)
    for garbage, status in ((b"\x00\x01\x02 hello there\r\n\r\n", b"400"), (b"GET / HTTP/2.0\r\n\r\n", b"505"),
                            (b"GET\r\n\r\n", b"400")):
        with socket.create_connection((host, port), timeout=10) as raw_conn:
            raw_conn.sendall(garbage)
            reply = read_until_closed(raw_conn)
            assert reply.startswith(b"HTTP/1.") and reply.split()[1] == status, (garbage, reply[:80])
            assert "error" in json.loads(reply.split(b"\r\n\r\n", 1)[1])
    conn.close()
    conn = http.client.HTTPConnection(host, port, timeout=10)
    status, body, _ = request(conn, "POST", "/hint", {"rules": "halloween", "board": EMPTY_BOARD,
                                                      "tray": ["1x1"]})
    assert status == 200 and body["placeable"] is True
    assert request(conn, "GET", "/health")[1] == {"ok": True, "packs": 1}


def test_a_post_without_a_length_is_told_so(server):
    """A POST with neither Content-Length nor chunked encoding has an empty body by HTTP's rules;
    it was answered 'body: invalid JSON at line 1, column 1' (a docs audit): 411, naming the
    headers. One with Content-Length: 0 is an empty body, as before."""
    host, port, _ = server
    status, body = raw_exchange(host, port, b"POST /hint HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, body) == (411, {"error": "body: a POST needs a header Content-Length or "
                                             "Transfer-Encoding: chunked"})
    status, body = raw_exchange(host, port, b"POST /hint HTTP/1.1\r\nContent-Length: 0\r\nConnection: close"
                                            b"\r\n\r\n")
    assert status == 400 and body["error"].startswith("body: invalid JSON")


def test_a_body_refused_by_its_headers_is_refused_before_it_is_asked_for(server):
    """``Expect: 100-continue``: a body too long, or a POST without a length, was invited (100
    Continue) and only then refused (an audit); a body the headers allow is invited and served."""
    host, port, _ = server
    question = json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"]}).encode()
    for headers, status in ((b"Content-Length: 100000\r\n", 413), (b"", 411)):
        with socket.create_connection((host, port), timeout=10) as raw_conn:
            raw_conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n" + headers + b"\r\n")
            reply = read_until_closed(raw_conn)
        assert reply.startswith(b"HTTP/1.1 %d" % status) and b"100 Continue" not in reply, reply[:80]
    with socket.create_connection((host, port), timeout=10) as raw_conn:
        raw_conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(question))
        assert raw_conn.recv(4096).startswith(b"HTTP/1.1 100 Continue")
        raw_conn.sendall(question)
        reply = read_until_closed(raw_conn)
    assert reply.startswith(b"HTTP/1.1 200") and json.loads(reply.split(b"\r\n\r\n", 1)[1])["placeable"] is True


def raw_exchange(host: str, port: int, data: bytes) -> tuple[int, dict]:
    """``data`` sent on a fresh connection, whose answer is read until the server closes it."""
    with socket.create_connection((host, port), timeout=10) as raw_conn:
        raw_conn.sendall(data)
        reply = read_until_closed(raw_conn)
    return int(reply.split()[1]), json.loads(reply.split(b"\r\n\r\n", 1)[1])


def chunked(body: bytes, sizes: list[int]) -> bytes:
    """``body`` in chunks of the given sizes (the rest in one more), with an extension and a trailer."""
    out, start = [], 0
    for size in [*sizes, len(body)]:
        part = body[start:start + size]
        start += len(part)
        if part:
            out.append(b"%x;note=1\r\n%s\r\n" % (len(part), part))
    return b"".join(out) + b"0\r\nX-Trailer: 1\r\n\r\n"


def test_a_chunked_body_is_read_and_unreadable_bodies_are_named(server):
    host, port, _ = server
    question = json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1", "3x3"]}).encode()
    conn = http.client.HTTPConnection(host, port, timeout=10)
    plain = request(conn, "POST", "/hint", raw=question)
    conn.close()
    assert plain[0] == 200
    head = b"POST /hint HTTP/1.1\r\nConnection: close\r\n"
    for sizes in ([1], [5, 7, 1], [len(question)], [3] * 40):
        status, body = raw_exchange(host, port, head + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(question, sizes))
        assert (status, body) == (200, plain[1]), sizes
    bad = [
        (b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked(question, []), 400, "not both"),
        (b"Transfer-Encoding: gzip\r\n\r\n", 501, "expected chunked, got 'gzip'"),
        (b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "a chunk size, in hexadecimal"),
        (b"Transfer-Encoding: chunked\r\n\r\n3\r\nshort\r\n0\r\n\r\n", 400, "does not end where its size says"),
        (b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % (10 ** 7), 413, "more than"),
        (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "given 2 times with different values"),
        (b"Content-Length: +2\r\n\r\n{}", 400, "not a size: '+2'"),
        # past Python's 4,300-digit conversion limit: it got no reply at all
        (b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}", 413, "more than"),
        (b"Content-Length: " + b"0" * 5000 + b"2\r\n\r\n{}", 400, "field rules: missing"),  # read whole
    ]
    for headers, status, needle in bad:
        answer = raw_exchange(host, port, head + headers)
        assert answer[0] == status and needle in answer[1]["error"], (headers, answer)
    # the same Content-Length twice is one length
    status, body = raw_exchange(host, port, head + b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n%s"
                                % (len(question), len(question), question))
    assert (status, body) == (200, plain[1])


def test_levels_and_solutions(server):
    host, port, _ = server
    conn = http.client.HTTPConnection(host, port, timeout=10)
    status, level, _ = request(conn, "GET", "/levels/fixture-pack/h1")
    assert status == 200 and level["id"] == "h1" and level["format"] == "tenfold.level/1"
    assert level == next(lv for lv in fx.pack()["levels"] if lv["id"] == "h1") | {"limit": 6, "tokens": 0}
    for name in ("h1", "s1"):  # s1 (Sultan) scores its tokens left too
        data = next(lv for lv in fx.pack()["levels"] if lv["id"] == name)
        status, answer, _ = request(conn, "GET", f"/levels/fixture-pack/{name}/solution")
        assert status == 200 and answer["valid"] is True and answer["solution"] == data["solution"]
        wins, why, score = reference_check(data)  # the solution replayed on the reference rules
        assert wins, why
        assert answer["score"] == score and answer["placements"] == sum("piece" in m for m in data["solution"])
    status, answer, _ = request(conn, "GET", "/levels/fixture-pack/h2%20no%20solution/solution")
    assert status == 404 and "has no solution" in answer["error"]
    assert request(conn, "GET", "/levels/fixture-pack/zz")[0] == 404
    assert request(conn, "GET", "/levels/other/h1")[0] == 404
    status, listing, _ = request(conn, "GET", "/levels")
    assert listing["packs"][0]["levels"] == ["h1", "s1", "h2 no solution"]  # the loose level file is not a pack


def test_a_packs_level_ids_come_all_or_a_page_at_a_time():
    """GET /levels/{pack} gives every level id, or with ?offset=N&limit=M the page asked for, and
    always the pack's count: a client of a pack of 100,000 levels takes them a page at a time.
    Pages laid end to end give the whole list, for every page size; a bad offset or limit is a
    400 naming it; other query parameters (a browser's cache-buster) are passed over."""
    from cli.api import Api
    from solver.level import parse_pack

    levels = [dict(fx.halloween_level(f"L{i:02d}")) for i in range(23)]
    api = Api({"big": parse_pack({**fx.pack("big"), "levels": levels})})
    ids = [f"L{i:02d}" for i in range(23)]
    whole = api.handle("GET", "/levels/big")
    assert whole.status == 200 and whole.body == {"id": "big", "title": fx.pack()["title"], "total": 23,
                                                  "offset": 0, "levels": ids}
    assert api.handle("GET", "/levels/big?v=7").body == whole.body
    for size in range(1, 25):
        pages = [api.handle("GET", f"/levels/big?offset={start}&limit={size}").body for start in range(0, 23, size)]
        assert [page["offset"] for page in pages] == list(range(0, 23, size))
        assert all(page["total"] == 23 and len(page["levels"]) <= size for page in pages)
        assert [i for page in pages for i in page["levels"]] == ids
    assert api.handle("GET", "/levels/big?offset=30").body["levels"] == []
    assert api.handle("GET", "/levels/big?limit=5").body["levels"] == ids[:5]
    for query, name in (("offset=-1", "offset"), ("limit=0", "limit"), ("limit=100001", "limit"),
                        ("offset=x", "offset"), ("limit=1&limit=2", "limit"), ("offset=", "offset")):
        bad = api.handle("GET", f"/levels/big?{query}")
        assert bad.status == 400 and bad.body["error"].startswith(f"query {name}: expected a whole number"), query
    listing = api.handle("GET", "/levels").body
    assert listing["packs"] == [whole.body]



def test_the_cache_stamp_covers_every_source_an_answer_is_made_from(tmp_path, monkeypatch):
    """An answer cached by another release is never served: the stamp in every key hashes the
    sources of solver/ and cli/, their subpackages too (a review: it read solver/*.py alone,
    while a level hint's answer is put together in cli/api.py, and Ten's rules are solver/ten/)."""
    import importlib.resources
    import shutil

    import cli.answer_cache as answer_cache

    copies = {}
    for package in ("solver", "cli"):
        copies[package] = tmp_path / package
        shutil.copytree(importlib.resources.files(package), copies[package],
                        ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(answer_cache.resources, "files", lambda package: copies[package])
    stamps = []
    for edited in (None, "cli/api.py", "solver/ten/field.py", "solver/engine.py"):
        if edited is not None:
            with open(tmp_path / edited, "a") as fh:
                fh.write("\n# another release\n")
        answer_cache.solver_stamp.cache_clear()
        stamps.append(answer_cache.solver_stamp())
    answer_cache.solver_stamp.cache_clear()
    assert len(set(stamps)) == len(stamps), stamps

def test_cache_answers_a_repeated_question(server, tmp_path):
    host, port, api = server
    question = {"rules": "arabic", "board": "/".join(["#########."] * 3 + ["." * 10] * 7), "tray": ["3x1", "1x1"]}
    conn = http.client.HTTPConnection(host, port, timeout=10)
    first = request(conn, "POST", "/hint", question)
    second = request(conn, "POST", "/hint", dict(reversed(list(question.items()))))  # same question, other order
    assert first[2].getheader("X-Tenfold-Cache") == "miss" and second[2].getheader("X-Tenfold-Cache") == "hit"
    assert first[1] == second[1] == tray_cli_json(question)
    assert api.cache.hits == 1
    # the cache outlives the server: a new one on the same file answers from it
    again = Api({}, AnswerCache(tmp_path / "cache.sqlite3"))
    response = again.handle("POST", "/hint", json.dumps(question).encode())
    assert response.status == 200 and response.headers["X-Tenfold-Cache"] == "hit" and response.body == first[1]
    again.cache.close()


def test_serve_verbose_answers_with_stderr_closed(packs_dir, tmp_path):
    """A daemon started with descriptor 2 closed: ``serve --verbose`` logs each request to stderr,
    whose write failed every request ("Empty reply from server", a review); its notes and logs are
    now passed over, and the requests answered."""
    import os

    with socket.socket() as probe:  # a free port (the startup line that names one goes to stderr)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    proc = subprocess.Popen([tenfold, "serve", "--port", str(port), "--verbose", "--packs", str(packs_dir),
                             "--db", str(tmp_path / "c.db")], stdout=subprocess.DEVNULL,
                            preexec_fn=lambda: os.close(2))
    try:
        deadline, answer = time.monotonic() + 60, None
        while answer is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                answer = request(conn, "GET", "/levels/fixture-pack/s1")
                conn.close()
            except ConnectionRefusedError:
                time.sleep(0.1)
        assert answer is not None and answer[0] == 200 and answer[1]["mode"] == "sultan", answer
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0


def test_serve_keeps_a_sigterm_ignored_as_it_started_ignored(packs_dir, tmp_path):
    """``(trap '' TERM; tenfold serve)``: as every command keeps a stop signal ignored from the
    start, serve does (a review: its own handler took it anyway); SIGINT still stops it."""
    import os
    import signal

    tenfold = str(Path(sys.executable).with_name("tenfold"))
    proc = subprocess.Popen([tenfold, "serve", "--port", "0", "--packs", str(packs_dir),
                             "--db", str(tmp_path / "c.db")],
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
    try:
        lines_until(proc, "serving")  # (fails the test if it never comes)
        os.kill(proc.pid, signal.SIGTERM)
        time.sleep(1)
        assert proc.poll() is None  # still serving
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and err.rstrip().endswith("stopped"), err


def test_handler_never_raises_without_sockets():
    api = Api({}, None)
    for method, path, body in [("POST", "/hint", b"\x00"), ("GET", "/levels/%ff%fe/x/y", b""),
                               ("BREW", "/", b""), ("GET", "/levels/a/b/c/d/e", b"")]:
        response = api.handle(method, path, body)
        assert 400 <= response.status < 500 and isinstance(response.body["error"], str)


def test_serve_command_binds_loopback_and_answers(packs_dir, tmp_path):
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    proc = subprocess.Popen([tenfold, "serve", "--port", "0", "--packs", str(packs_dir),
                             "--db", str(tmp_path / "c.db")],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = lines_until(proc, "serving", 30)[-1]
        assert "http://127.0.0.1:" in line, line
        # the fixture's one pack (its loose level is no pack) and the cache with its default size
        assert line.startswith("serving 1 packs on http://127.0.0.1:"), line
        assert line.rstrip().endswith(f"(cache: {tmp_path / 'c.db'}, up to 512 MiB)"), line
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert request(conn, "GET", "/levels/fixture-pack/s1")[1]["mode"] == "sultan"
        conn.close()
    finally:
        proc.terminate()
        try:  # (once, in a clean clone's CI with the machine loaded, it had not stopped within 10 s)
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"the server did not stop within 30 s of SIGTERM; its stderr: {err!r}")
    assert err.rstrip().endswith("stopped"), err


def test_serve_bad_packs_folder_is_exit_2(tmp_path):
    result = runner.invoke(app, ["serve", "--packs", str(tmp_path / "missing"), "--db", str(tmp_path / "c.db")])
    assert result.exit_code == 2 and "is not a folder" in result.output


def test_serve_refuses_a_packs_folder_it_may_not_read(tmp_path, monkeypatch):
    """A helper's audit: as a user who may not read the folder, serve started with "serving 0
    packs" (a glob passes such a folder over); it is refused, exit 2, naming it. (The tests run
    as root, whom a mode of 000 does not stop: the refusal is the one the file system gives.)"""
    import os

    import cli.api

    real = os.listdir

    def listdir(path="."):
        if str(path) == str(tmp_path):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(cli.api.os, "listdir", listdir)
    result = runner.invoke(app, ["serve", "--packs", str(tmp_path), "--db", str(tmp_path / "c.db")])
    assert result.exit_code == 2, result.output
    assert result.output == f"error: --packs: cannot read the folder {tmp_path}: Permission denied\n"
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []  # no cache made


def test_a_field_the_hint_does_not_know_is_ignored(server):
    """Only the options a hint would be wrong to ignore (policy, method, time_limit) are refused."""
    host, port, _ = server
    question = {"rules": "sudoku", "board": EMPTY_BOARD, "tray": ["2x2"]}
    conn = http.client.HTTPConnection(host, port, timeout=30)
    plain = request(conn, "POST", "/hint", question)
    tagged = request(conn, "POST", "/hint", {**question, "client": "godot-4", "request_id": 17})
    conn.close()
    assert plain[0] == tagged[0] == 200 and plain[1] == tagged[1]


def test_a_stored_solution_that_fails_is_served_with_its_problem(tmp_path):
    """A pack whose solution repeats its first move: one placement made, not two, and why."""
    data = fx.pack("broken")
    level = data["levels"][0]
    level["solution"] = [level["solution"][0], level["solution"][0]] + level["solution"][1:]
    fx.write_json(tmp_path / "broken.json", data)
    api = Api(load_packs(tmp_path), None)
    answer = api.handle("GET", f"/levels/broken/{level['id']}/solution").body
    assert answer["valid"] is False and answer["placements"] == 1
    assert answer["problem"].startswith("solution[1]: illegal")
    fine = api.handle("GET", f"/levels/broken/{data['levels'][1]['id']}/solution").body
    assert fine["valid"] is True and "problem" not in fine


def test_head_and_options_answer_what_a_route_takes(server):
    """HEAD is a GET route's status and headers with no body; OPTIONS says what the route takes
    (204, no body); without --cors-origin no CORS header is sent."""
    host, port, _ = server
    conn = http.client.HTTPConnection(host, port, timeout=10)
    for path in ("/levels/fixture-pack", "/levels/fixture-pack/nope", "/health"):
        status, body, _ = request(conn, "GET", path)
        conn.request("HEAD", path)
        head = conn.getresponse()
        assert head.read() == b"" and head.status == status
        assert int(head.getheader("Content-Length")) == len(json.dumps(body).encode())
    for path, allow in (("/hint", "POST, OPTIONS"), ("/levels/fixture-pack", "GET, HEAD, OPTIONS")):
        conn.request("OPTIONS", path)
        reply = conn.getresponse()
        assert (reply.status, reply.read(), reply.getheader("Allow")) == (204, b"", allow)
        assert reply.getheader("Content-Length") is None and reply.getheader("Access-Control-Allow-Origin") is None
    status, body, reply = request(conn, "PUT", "/levels")
    assert status == 405 and reply.getheader("Allow") == "GET, HEAD, OPTIONS"
    conn.request("HEAD", "/hint")
    reply = conn.getresponse()
    assert reply.status == 405 and reply.read() == b""
    assert request(conn, "GET", "/health")[0] == 200  # the connection is still good after all that


def test_cors_origin_lets_a_browser_page_preflight_and_call_the_hint(server):
    """--cors-origin's server sends the headers; another server of the same process (the
    fixture's) keeps sending none: the setting is the server's, not the handler class's."""
    plain_host, plain_port, api = server
    httpd = make_server(api, "127.0.0.1", 0, cors_origin="http://localhost:8080")
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        _cors_answers(*httpd.server_address[:2])
    finally:
        httpd.shutdown()
        httpd.server_close()
    conn = http.client.HTTPConnection(plain_host, plain_port, timeout=10)
    conn.request("OPTIONS", "/hint", headers={"Origin": "http://localhost:8080"})
    reply = conn.getresponse()
    assert reply.status == 204 and reply.read() == b"" and reply.getheader("Access-Control-Allow-Origin") is None


def _cors_answers(host: str, port: int) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("OPTIONS", "/hint", headers={"Origin": "http://localhost:8080",
                                              "Access-Control-Request-Method": "POST",
                                              "Access-Control-Request-Headers": "content-type"})
    reply = conn.getresponse()
    assert reply.status == 204 and reply.read() == b""
    assert reply.getheader("Access-Control-Allow-Origin") == "http://localhost:8080"
    assert reply.getheader("Access-Control-Allow-Methods") == "POST, OPTIONS"
    assert reply.getheader("Access-Control-Allow-Headers") == "Content-Type"
    question = {"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"]}
    status, body, reply = request(conn, "POST", "/hint", question)
    assert status == 200 and body == tray_cli_json(question)
    assert reply.getheader("Access-Control-Allow-Origin") == "http://localhost:8080"
    assert reply.getheader("Vary") == "Origin" and reply.getheader("Access-Control-Allow-Methods") is None
    # a page reads only a few headers unless told: the cache's verdict is exposed
    assert "X-Tenfold-Cache" in reply.getheader("Access-Control-Expose-Headers").split(", ")
    assert reply.getheader("X-Tenfold-Cache") in ("hit", "miss", "shared")


@pytest.mark.parametrize("origin", ["localhost:8080", "http://x.org/page", "ftp://x.org", "", "http://"])
def test_cors_origin_must_be_an_origin(origin):
    result = runner.invoke(app, ["serve", "--port", "0", "--cors-origin", origin])
    assert result.exit_code == 2 and "--cors-origin: expected * or an origin" in result.output, result.output


def test_cors_origin_is_a_scheme_host_and_port_alone():
    """An origin (docs/cli.md: e.g. http://localhost:8080, or *) is http(s), a host and an optional
    port, and no more: a query, a fragment, a space or a character that is not ASCII makes it no
    origin a browser sends, and it is refused naming the option and what it was given."""
    from cli.serve_cmd import check_origin
    from solver.errors import RulesError

    for origin in ("*", "http://localhost:8080", "https://example.org", "http://127.0.0.1:1"):
        check_origin(origin)
    for origin in ("http://x.org?a=1", "http://x.org#top", "http://exämple.org", "http://x .org",
                   "ws://x.org", "http://x.org/"):
        with pytest.raises(RulesError, match=r"^--cors-origin: expected \* or an origin like http://localhost:8080 "):
            check_origin(origin)


def test_the_same_question_asked_meanwhile_waits_for_the_one_solve(monkeypatch):
    """Concurrent identical hints are solved once: the others wait for that answer ("shared"); if
    that solve fails, each waiter solves the question itself."""
    import cli.api

    solve, calls, fail = cli.api.answer_hint, [], [False]

    def slow(question):
        calls.append(question)
        time.sleep(0.3)
        if fail[0]:
            fail[0] = False
            raise RuntimeError("solver bug")
        return solve(question)

    monkeypatch.setattr(cli.api, "answer_hint", slow)
    question = {"rules": "sudoku", "board": "/".join(["#########."] * 2 + ["." * 10] * 8), "tray": ["2x1", "1x1"]}
    for failing in (False, True):
        api, calls[:] = Api({}, None), []
        fail[0] = failing
        replies = [None] * 4

        def ask(i):
            replies[i] = api.handle("POST", "/hint", json.dumps(question).encode())

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
        threads[0].start()
        wait_until(lambda: calls)  # the first is solving when the others ask
        for thread in threads[1:]:
            thread.start()
        for thread in threads:
            thread.join()
        kinds = sorted(reply.headers.get("X-Tenfold-Cache", str(reply.status)) for reply in replies)
        if failing:  # the first answers 500; the three waiters then each solve it themselves
            assert kinds == ["500", "miss", "miss", "miss"] and len(calls) == 4
        else:
            assert kinds == ["miss", "shared", "shared", "shared"] and len(calls) == 1
        assert all(reply.body == tray_cli_json(question) for reply in replies if reply.status == 200)
        assert api._in_flight == {}


def test_a_hint_body_with_a_byte_order_mark_reads_as_without_and_long_errors_are_clipped():
    """Files may start with a byte-order mark, and so may a body (it got 400 "Unexpected UTF-8
    BOM"); an error quoting a value 50,000 characters long keeps its start and end."""
    api = Api({}, None)
    question = {"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1", "2x2"]}
    plain = api.handle("POST", "/hint", json.dumps(question).encode())
    marked = api.handle("POST", "/hint", "\ufeff".encode() + json.dumps(question).encode())
    assert plain.status == marked.status == 200 and plain.body == marked.body
    huge = api.handle("POST", "/hint", json.dumps({**question, "rules": "r" * 50_000}).encode())
    assert huge.status == 400 and len(huge.body["error"]) <= 600
    assert huge.body["error"].startswith("field rules: ") and "characters)" in huge.body["error"]


def test_a_question_answered_between_a_requests_two_looks_is_not_solved_again(tmp_path):
    """A request that misses the cache just before another request's solve keeps its answer, and
    reaches the table of solves under way just after that solve has left it, looks in the cache
    again rather than solving the question twice (a concurrency audit, with a delay put there)."""
    first_done = threading.Event()
    solves, late_looked = [], []

    class Racing(AnswerCache):
        def get(self, question, again=False):
            answer = super().get(question, again)
            if threading.current_thread().name == "late" and not again:
                late_looked.append(answer)
                first_done.wait(10)  # the first request's solve ends, kept, in between
            return answer

    api = Api({}, Racing(tmp_path / "cache.sqlite3"))
    question = {"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"]}

    def solve():
        solves.append(1)
        return {"answer": 42}

    answers = {}
    late = threading.Thread(name="late", target=lambda: answers.update(late=api._answer_once(question, solve)))
    late.start()
    wait_until(lambda: late_looked)  # its first look made (a miss: nothing is kept yet)
    answers["first"] = api._answer_once(question, solve)
    first_done.set()
    late.join(10)
    assert late_looked == [None]
    assert answers == {"first": ({"answer": 42}, "miss"), "late": ({"answer": 42}, "hit")}
    assert len(solves) == 1 and (api.cache.hits, api.cache.misses) == (1, 1)  # as the two answers say


def test_hint_fields_are_taken_to_their_bounds_and_refused_past_them():
    """docs/cli.md: tokens and streak up to 1,000 (the server's fields as the options); a tray of 1
    to 3 pieces; true is not an integer; a missing board is named as a missing rules or tray is;
    an option the server does not take is refused whatever its value (null and 0 too)."""
    api = Api({}, None)

    def ask(**fields):
        body = {"rules": "arabic", "board": EMPTY_BOARD, "tray": ["1x1"], **fields}
        return api.handle("POST", "/hint", json.dumps({k: v for k, v in body.items() if v != "leave out"}).encode())

    assert ask(tokens=1000).status == 200 and ask(streak=1000).status == 200
    for fields, needle in (({"tokens": True}, "field tokens: expected an integer 0 to 1,000, got true"),
                           ({"streak": False}, "field streak: expected an integer 0 to 1,000, got false"),
                           ({"tray": ["1x1"] * 4}, "field tray: expected a list of 1 to 3 piece ids"),
                           ({"board": "leave out"}, "field board: missing"),
                           ({"time_limit": 1}, "field time_limit: the server answers"),
                           ({"policy": None}, "field policy: the server answers"),
                           ({"method": 0}, "field method: the server answers")):
        bad = ask(**fields)
        assert bad.status == 400 and bad.body["error"].startswith(needle), (fields, bad.status, bad.body)


def test_a_level_hint_next_step_takes_the_tokens_before_the_placement():
    """docs/json.md level_hint: ``next`` is the tokens up to and including the first placement. A
    1x5 fits this board only turned, upright in column 0: the next step is the turn and the
    placement both."""
    from solver.level import parse_pack

    level = {"format": "tenfold.level/1", "id": "turn", "variant": "arabic", "mode": "standard", "tokens": 1,
             "board": [".#########"] * 10, "trays": [["1x5"]], "goals": [{"score": 10}]}
    api = Api({"p": parse_pack({**fx.pack("p"), "levels": [level]})})
    answer = api.handle("POST", "/levels/p/turn/hint", b'{"moves": []}')
    assert answer.status == 200, answer.body
    step = answer.body["next"]
    assert [m.get("token") for m in step] == ["rotate", None], step
    assert step[0]["piece"] == "1x5" and step[1]["piece"] == "5x1" and step[1]["col"] == 0, step


def test_a_path_past_a_route_is_no_route():
    """Only the routes docs/json.md lists answer: a solution's path with more after it is a 404,
    not the solution."""
    from solver.level import parse_pack

    api = Api({"fixture-pack": parse_pack(fx.pack())})
    assert api.handle("GET", "/levels/fixture-pack/h1/solution").status == 200
    for path in ("/levels/fixture-pack/h1/solution/more", "/levels/fixture-pack/h1/solution/x/y"):
        answer = api.handle("GET", path)
        assert answer.status == 404 and answer.body["error"].startswith("no such route"), (path, answer.body)


def test_a_tray_spelling_one_piece_twice_alike_lists_each_safe_move_once():
    """A tray of two ``#/#`` (2x1 drawn as a mask) is answered as the tray of two 2x1 is, the
    pieces named as the tray spells them: each safe first move once, not once a slot."""
    api = Api({}, None)

    def ask(tray):
        question = {"rules": "halloween", "board": EMPTY_BOARD, "tray": tray}
        answer = api.handle("POST", "/hint", json.dumps(question).encode())
        assert answer.status == 200, answer.body
        return answer.body

    canonical, spelled = ask(["2x1", "2x1"]), ask(["#/#", "#/#"])
    assert canonical["safe_moves"] and all(m["piece"] == "2x1" for m in canonical["safe_moves"])
    assert spelled["safe_moves"] == [{**m, "piece": "#/#"} for m in canonical["safe_moves"]]


def test_a_body_of_64_kib_exactly_is_read_and_a_byte_more_is_413(server):
    """docs/cli.md: a request body of at most 64 KiB: one of 65,536 bytes is answered, a length of
    65,537 refused by its header."""
    host, port, _ = server
    question = json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"]}).encode()
    body = question + b" " * (64 * 1024 - len(question))
    conn = http.client.HTTPConnection(host, port, timeout=10)
    status, answer, _ = request(conn, "POST", "/hint", raw=body)
    conn.close()
    assert status == 200 and answer["placeable"] is True, answer
    status, answer = raw_exchange(host, port, b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 65537\r\n\r\n")
    assert status == 413 and "65537" in answer["error"], answer
    head = b"POST /hint HTTP/1.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
    for sizes in ([64 * 1024], [40_000]):  # the same 65,536 bytes chunked: its chunks' sum is the size
        status, answer = raw_exchange(host, port, head + chunked(body, sizes))
        assert status == 200 and answer["placeable"] is True, (sizes, answer)


def test_a_chunked_body_with_bare_line_feeds_is_read(server):
    """RFC 9112 7.1 and 2.2: a chunk's lines may end in a bare LF, which a recipient may take as
    a line's end; the server reads them so (its chunk size lines already are)."""
    host, port, _ = server
    question = json.dumps({"rules": "halloween", "board": EMPTY_BOARD, "tray": ["1x1"]}).encode()
    body = b"%x\n%s\n%x\n%s\n0\n\n" % (10, question[:10], len(question) - 10, question[10:])
    status, answer = raw_exchange(host, port, b"POST /hint HTTP/1.1\r\nConnection: close\r\n"
                                              b"Transfer-Encoding: chunked\r\n\r\n" + body)
    assert status == 200 and answer["placeable"] is True, answer


def test_every_body_is_labelled_json(server):
    """docs/json.md serve: every body is JSON, Content-Type: application/json (an answer, an API
    error, and an error the socket layer finds)."""
    host, port, _ = server
    conn = http.client.HTTPConnection(host, port, timeout=10)
    for method, path, body in (("GET", "/health", None), ("GET", "/levels/nowhere", None),
                               ("POST", "/hint", b"{not json")):
        conn.request(method, path, body=body)
        response = conn.getresponse()
        json.loads(response.read())
        assert response.getheader("Content-Type") == "application/json", (method, path, response.status)
    conn.close()
    with socket.create_connection((host, port), timeout=10) as raw_conn:
        raw_conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\n\r\n")  # no length: 411 from the socket layer
        head = read_until_closed(raw_conn).split(b"\r\n\r\n", 1)[0].lower()
    assert b" 411 " in head.split(b"\r\n")[0] and b"\r\ncontent-type: application/json\r\n" in head + b"\r\n"


def test_a_body_cut_short_by_the_client_is_a_400(server):
    """A client that ends its side before its Content-Length's bytes came sent a bad request (400,
    naming it), not a slow one (408: the deadline passed)."""
    host, port, _ = server
    with socket.create_connection((host, port), timeout=10) as raw_conn:
        raw_conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}")
        raw_conn.shutdown(socket.SHUT_WR)
        reply = read_until_closed(raw_conn)
    assert reply.split()[1] == b"400", reply[:80]
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1]) == {"error": "body: shorter than its Content-Length"}
