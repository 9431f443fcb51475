"""tenfold serve at its edges: stopping (SIGINT, SIGTERM) with requests under way, a body that
never arrives, an answer cache that fails, custom pieces sent for ever, a start that fails."""

from __future__ import annotations

import errno
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

import export_fixtures as fx
from processes import lines_until
from cli.answer_cache import AnswerCache
from cli.api import Api, Response
from cli.main import app
from cli.http_server import ApiHandler, make_server
from solver.pieces import SHAPE_CACHE, _get_piece, get_piece, placements
from test_serve import read_until_closed, tray_cli_json, wait_until

QUESTION = {"rules": "arabic", "board": "/".join(["#########."] * 3 + ["." * 10] * 7), "tray": ["3x1", "1x1"]}


class Held(Api):
    """An API whose answers wait until the test lets them go."""

    def __init__(self) -> None:
        super().__init__({}, None)
        self.go = threading.Event()

    def handle(self, method: str, target: str, body: bytes = b"") -> Response:
        self.go.wait(10)
        return Response(200, {"answered": target})


def running(api, cors_origin=None):
    server = make_server(api, "127.0.0.1", 0, cors_origin=cors_origin)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_stopping_answers_the_requests_under_way_and_takes_no_new_ones():
    api = Held()
    server = running(api)
    host, port = server.server_address[:2]
    first = http.client.HTTPConnection(host, port, timeout=10)
    kept = http.client.HTTPConnection(host, port, timeout=10)
    kept.request("GET", "/health")  # a keep-alive connection the server has taken
    api.go.set()
    assert kept.getresponse().read()
    api.go.clear()  # from here on, answers wait again
    # the client may read the answer before the server's thread has counted its request done
    wait_until(lambda: server.under_way == 0)
    assert server.under_way == 0
    reply = {}

    def ask():
        first.request("GET", "/levels")
        response = first.getresponse()
        reply["status"], reply["body"] = response.status, json.loads(response.read())

    asking = threading.Thread(target=ask)
    asking.start()
    wait_until(lambda: server.under_way)
    assert server.under_way == 1
    finishing, left = stop_in_thread(server)
    time.sleep(0.3)
    assert finishing.is_alive() and "status" not in reply  # waiting for the answer under way
    kept.request("GET", "/health")  # a new request on a connection already open: refused, told why
    refused = kept.getresponse()
    assert refused.status == 503 and json.loads(refused.read()) == {"error": "the server is stopping"}
    api.go.set()
    finishing.join(10)
    asking.join(10)
    assert left == [0] and reply == {"status": 200, "body": {"answered": "/levels"}}
    try:  # and the listening socket is closed
        socket.create_connection((host, port), timeout=2).close()
        raise AssertionError("a stopped server took a new connection")
    except OSError:
        pass


def test_a_stopping_server_does_not_invite_a_body_it_will_not_read():
    """``Expect: 100-continue`` on a connection open as the stop begins: 503 at once, with no
    ``100 Continue`` first (the client sent the body, which was never read: a review)."""
    api = Held()
    api.go.set()
    server = running(api)
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    conn.request("GET", "/health")  # a keep-alive connection the server has taken
    assert conn.getresponse().read()
    finishing, _ = stop_in_thread(server)
    wait_until(lambda: server.stopping)
    conn.sock.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n")
    chunks = []
    while chunk := conn.sock.recv(4096):
        chunks.append(chunk)
    reply = b"".join(chunks)
    assert reply.startswith(b"HTTP/1.1 503") and b"100 Continue" not in reply, reply[:80]
    finishing.join(10)
    conn.close()


def stop_in_thread(server) -> tuple[threading.Thread, list[int]]:
    """Stop ``server`` as ``serve`` does (no new connections, then ``finish``) on a thread of its
    own: the thread, and the list ``finish``'s answer (requests left unanswered) goes into."""
    server.shutdown()
    server.server_close()
    left: list[int] = []
    finishing = threading.Thread(target=lambda: left.append(server.finish()))
    finishing.start()
    return finishing, left


def serve_process(tmp_path, db: Path):
    """``tenfold serve`` on a pack of its own and any free port: (process, port, what it wrote to
    stderr up to its serving line, that line included)."""
    packs = tmp_path / "packs"
    packs.mkdir()
    fx.write_json(packs / "fixture.json", fx.pack("fixture-pack"))
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    # SIGINT at its default in the server, as a shell at a terminal starts a command: a child
    # inherits an ignored SIGINT (pytest run as a background job or under nohup), and Python
    # then leaves it ignored, so Ctrl-C would never stop it
    proc = subprocess.Popen([tenfold, "serve", "--port", "0", "--packs", str(packs), "--db", str(db)],
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    said = lines_until(proc, "http://127.0.0.1:")  # notes come first
    return proc, int(said[-1].split("http://127.0.0.1:")[1].split()[0]), said


@contextmanager
def reaped(proc: subprocess.Popen):
    """The server process, killed on the way out if it still runs: a test that fails leaves none."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()


def ask_hint(port: int, cache: str) -> None:
    """POST /hint QUESTION: answered as ``tenfold tray`` answers it, with ``cache`` (hit or miss)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/hint", json.dumps(QUESTION))
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("X-Tenfold-Cache") == cache
    assert json.loads(response.read()) == tray_cli_json(QUESTION)
    conn.close()


def test_sigterm_stops_the_server_as_ctrl_c_does(tmp_path):
    """A service manager's stop (SIGTERM) closes the cache as Ctrl-C does: exit 0, no traceback,
    the database whole and its write-ahead files gone; a new server answers from it."""
    db = tmp_path / "answers.sqlite3"
    for sig, expected_hit in ((signal.SIGTERM, "miss"), (signal.SIGINT, "hit")):
        proc, port, _ = serve_process(_fresh(tmp_path, sig), db)
        ask_hint(port, expected_hit)
        proc.send_signal(sig)
        try:
            err = proc.communicate(timeout=20)[1]
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"{sig.name} did not stop the server within 20 s") from None
        assert proc.returncode == 0 and "Traceback" not in err and "stopped" in err, err
        assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists(), (sig, err)
        check = sqlite3.connect(db)
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        check.close()  # (a with block would leave it open)


def _fresh(tmp_path: Path, sig) -> Path:
    folder = tmp_path / sig.name
    folder.mkdir()
    return folder


@pytest.mark.parametrize("framing, said", [
    (b"Content-Length: 500\r\n\r\n{\"rules\":", "body: shorter than its Content-Length ("),
    # (a chunked body's was said as Content-Length's, which the request did not have: an audit)
    (b"Transfer-Encoding: chunked\r\n\r\n10\r\n{\"rules\":", "body: its chunks did not end ("),
])
def test_a_body_that_never_arrives_is_answered_408(monkeypatch, framing, said):
    monkeypatch.setattr(ApiHandler, "timeout", 1)
    server = running(Api({}, None))
    try:
        with socket.create_connection(server.server_address[:2], timeout=10) as conn:
            conn.sendall(b'POST /hint HTTP/1.1\r\nHost: x\r\n' + framing)
            chunks = []
            while chunk := conn.recv(4096):
                chunks.append(chunk)
        head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"Connection: close" in head
        assert json.loads(body)["error"].startswith(said)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("sent", [
    b"Content-Length: 500\r\n\r\n",  # headers alone
    b"Content-Length: 500\r\n\r\n{\"rules\":",  # a body stopped short
    b"Transfer-Encoding: chunked\r\n\r\n40\r\n{\"rules\":",  # a chunked one
])
def test_a_stop_answers_a_request_whose_body_is_still_coming_503_at_once(monkeypatch, sent):
    """A stop waits for the requests under way, but not for a body that is still coming in: a
    client that sent its headers and no more held it for the whole timeout (30 s by default)."""
    monkeypatch.setattr(ApiHandler, "timeout", 60)
    server = running(Api({}, None))
    with socket.create_connection(server.server_address[:2], timeout=10) as conn:
        conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\n" + sent)
        wait_until(lambda: server.under_way == 1)
        finishing, left = stop_in_thread(server)
        finishing.join(10)
        assert left == [0]  # (within 10 s of a 60 s timeout)
        chunks = []
        while chunk := conn.recv(4096):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503") and b"Connection: close" in head
    assert json.loads(body) == {"error": "the server is stopping"}


def test_a_body_refused_for_what_it_is_keeps_its_status_as_the_stop_begins(monkeypatch):
    """Only a read the stop cut short is answered 503: a body refused for itself (413 here) just as
    the stop begins keeps its own status, which a retry elsewhere would get too."""
    from cli.http_server import BodyError

    def refused(handler, method):
        handler.server.stopping = True  # (the stop begins, but has not cut this read)
        raise BodyError(413, "body: 999999 bytes, more than 65536")

    monkeypatch.setattr(ApiHandler, "_read_body", refused)
    server = running(Api({}, None))
    try:
        with socket.create_connection(server.server_address[:2], timeout=10) as conn:
            conn.sendall(b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 999999\r\n\r\n")
            head = conn.recv(4096)
        assert head.startswith(b"HTTP/1.1 413"), head
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_request_sent_a_byte_at_a_time_is_cut_off_at_the_timeout(monkeypatch, part):
    """A client that sends its request a byte now and then, each byte well within the timeout
    of the one before (slowloris), is cut off when the whole request has taken the timeout: an
    audit's 64 such clients had kept every other client out (503) for as long as they sent.
    Its headers trickling: the connection is closed; its body: answered 408 and closed."""
    monkeypatch.setattr(ApiHandler, "timeout", 1)
    server = running(Api({}, None))
    head = b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
    sent_at_once, trickled = (b"", head) if part == "headers" else (head, b'{"rules": "halloween", "board": "')
    try:
        with socket.create_connection(server.server_address[:2], timeout=10) as conn:
            start = time.monotonic()
            conn.sendall(sent_at_once)
            try:
                for byte in trickled:
                    conn.sendall(bytes([byte]))
                    time.sleep(0.25)
            except OSError:  # the server closed the connection
                pass
            chunks = []
            try:
                while chunk := conn.recv(4096):
                    chunks.append(chunk)
            except ConnectionResetError:
                pass
            took = time.monotonic() - start
    finally:
        server.shutdown()
        server.server_close()
    assert took < 4, took  # the whole request would take about 10 s
    answer = b"".join(chunks)
    if part == "headers":
        assert answer == b""
    else:
        status, _, body = answer.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 408") and b"Connection: close" in status
        assert "did not come in whole within 1 s" in json.loads(body)["error"]


def _exchange(server, data: bytes, pause_after: int | None = None, pause: float = 0.0) -> tuple[bytes, float]:
    """Send ``data`` (waiting ``pause`` s after its first ``pause_after`` bytes), then read until
    the server closes: (the reply, the seconds from the first byte sent)."""
    with socket.create_connection(server.server_address[:2], timeout=10) as conn:
        start = time.monotonic()
        if pause_after is None:
            conn.sendall(data)
        else:  # (no send after the whole of it: one of nothing fails once the server has closed)
            conn.sendall(data[:pause_after])
            time.sleep(pause)
            conn.sendall(data[pause_after:])
        reply = read_until_closed(conn)
    return reply, time.monotonic() - start


def test_a_body_of_exactly_the_largest_size_is_read():
    """The body's limit is the most it may be: 65,536 bytes exactly is read, sent with a length or
    in one chunk (a limit one byte short survived every test: a mutation audit)."""
    from cli.api import MAX_BODY

    server = running(Api({}, None))
    body = json.dumps({"rules": "halloween", "board": "/".join(["." * 10] * 10), "tray": ["1x1"]}).encode()
    body += b" " * (MAX_BODY - len(body))
    head = b"POST /hint HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"

    def framings(body: bytes) -> tuple[bytes, bytes]:  # with a length, and in one chunk
        return (b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
                b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))

    try:
        for exact, over in zip(framings(body), framings(body + b" ")):
            reply, _ = _exchange(server, head + exact)
            assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
            reply, _ = _exchange(server, head + over)
            assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    finally:
        server.shutdown()
        server.server_close()


def test_each_request_of_a_kept_alive_connection_has_the_timeout_from_the_last_answer(monkeypatch):
    """A connection's later requests each get the timeout afresh from the answer before (idle
    time counts): one deadline for the whole connection survived every test (a mutation audit)."""
    monkeypatch.setattr(ApiHandler, "timeout", 2)
    server = running(Api({}, None))
    try:
        conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
        for i in range(3):  # 2.4 s in all, past one timeout, each wait well within one
            if i:
                time.sleep(1.2)
            conn.request("GET", "/health")
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200, i
        conn.close()
    finally:
        server.shutdown()
        server.server_close()


def test_a_body_that_stops_coming_is_cut_at_the_requests_deadline_not_a_timeout_after_its_last_byte(monkeypatch):
    """Each read of the body waits for the time the request has left, not a whole timeout: a byte
    at 1.2 s of a 2 s timeout, then silence, held the request to 3.2 s (a mutation audit)."""
    monkeypatch.setattr(ApiHandler, "timeout", 2)
    server = running(Api({}, None))
    request = b"POST /hint HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{\""
    try:
        reply, took = _exchange(server, request, pause_after=len(request) - 1, pause=1.2)
    finally:
        server.shutdown()
        server.server_close()
    assert reply.startswith(b"HTTP/1.1 408") and took < 2.8, (took, reply[:60])


@pytest.mark.parametrize("past", [0.0001, 0.1, 5.0])
def test_a_read_begun_past_the_deadline_times_out(past):
    """A read that begins once the request's time is up is a time-out (answered 408), whatever
    the time past: a socket given a negative timeout raises ValueError instead (a mutation audit:
    reads up to half a second late did)."""
    from types import SimpleNamespace

    from cli.http_server import _DeadlineReader

    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"x")  # (there is a byte to read: only the clock refuses it)
        handler = SimpleNamespace(deadline=time.monotonic() - past, connection=ours, timeout=1)
        with pytest.raises(TimeoutError, match="did not come in whole in time"):
            _DeadlineReader(handler).readinto(bytearray(8))
        handler.deadline = time.monotonic() + 1
        assert _DeadlineReader(handler).readinto(buffer := bytearray(8)) == 1 and buffer[:1] == b"x"


def test_an_answer_cache_that_fails_costs_only_the_saving(tmp_path, capsys):
    """Another process holds the database's write lock (a second server, a backup), or the
    table is of another shape: hints are still answered, right, with a note on stderr."""
    db = tmp_path / "answers.sqlite3"
    cache = AnswerCache(db)
    api = Api({}, cache)
    cached = api.handle("POST", "/hint", json.dumps(QUESTION).encode())
    other = dict(QUESTION, tray=["1x1"])
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO answers (key, answer) VALUES ('x', '1')")
    try:
        again = api.handle("POST", "/hint", json.dumps(QUESTION).encode())
        new = api.handle("POST", "/hint", json.dumps(other).encode())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (again.status, again.headers["X-Tenfold-Cache"], again.body) == (200, "hit", cached.body)
    assert (new.status, new.headers["X-Tenfold-Cache"], new.body) == (200, "miss", tray_cli_json(other))
    notes = capsys.readouterr().err
    assert "cannot count a hit in the answer cache" in notes and "cannot write the answer cache" in notes
    cache.close()
    old = sqlite3.connect(db)  # a cache of an older shape: no hits column
    old.execute("ALTER TABLE answers DROP COLUMN hits")
    old.commit()
    old.close()
    cache = AnswerCache(db)
    reply = Api({}, cache).handle("POST", "/hint", json.dumps(QUESTION).encode())
    assert (reply.status, reply.headers["X-Tenfold-Cache"], reply.body) == (200, "hit", cached.body)
    cache.close()


def test_custom_pieces_sent_for_ever_are_not_kept_for_ever():
    """Every distinct mask a client sends was cached with no bound: a server's memory grew
    with every request. The caches keyed by piece keep at most SHAPE_CACHE entries, and a
    piece they forgot comes back the same."""
    rng = random.Random(3)
    first = None
    for i in range(SHAPE_CACHE + 600):
        rows = ["".join(rng.choice(".#") for _ in range(5)) for _ in range(5)]
        rows[2] = "#" + rows[2][1:]
        text = "/".join(rows)
        piece = get_piece(text)
        placements(piece.id)
        if first is None:
            first = (text, piece, placements(piece.id))
    assert _get_piece.cache_info().currsize <= SHAPE_CACHE and placements.cache_info().currsize <= SHAPE_CACHE
    text, piece, spots = first
    assert get_piece(text) == piece and placements(piece.id) == spots


def test_a_start_that_fails_leaves_no_folders_behind(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        db = tmp_path / "new" / "sub" / "answers.sqlite3"
        result = CliRunner().invoke(app, ["serve", "--port", str(taken.getsockname()[1]), "--db", str(db)])
    finally:
        taken.close()
    assert result.exit_code == 2 and "cannot listen" in result.output
    assert not (tmp_path / "new").exists()


def test_connections_past_the_cap_are_answered_503_and_the_slots_come_back(monkeypatch):
    """One thread a connection, and an idle keep-alive one holds its thread: past
    ``max_connections`` a connection is answered 503 at once and closed (a client opening
    connections without end cannot exhaust the process); one closed frees its slot."""
    from cli.http_server import ApiServer

    monkeypatch.setattr(ApiServer, "max_connections", 2)
    server = running(Api({}, None))
    address = server.server_address[:2]
    try:
        held = [http.client.HTTPConnection(*address, timeout=10) for _ in range(2)]
        for conn in held:  # two answered connections, kept open: both slots taken
            conn.request("GET", "/health")
            assert conn.getresponse().read()
        with socket.create_connection(address, timeout=10) as extra:
            reply = b""
            while chunk := extra.recv(4096):
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 1" in head
        assert json.loads(body) == {"error": "the server is busy (2 connections open); try again"}
        held[0].close()  # the server's thread sees the close and frees its slot
        wait_until(lambda: server._slots._value)
        again = http.client.HTTPConnection(*address, timeout=10)
        again.request("GET", "/health")
        assert again.getresponse().status == 200
        again.close()
        held[1].request("GET", "/health")  # the connection kept open is still served
        assert held[1].getresponse().status == 200
        held[1].close()
    finally:
        server.shutdown()
        server.server_close()


def test_the_busy_answer_carries_the_cors_headers(monkeypatch):
    """A browser game on --cors-origin could not read the 503 past the connection cap, nor its
    Retry-After (a docs audit): the busy answer carries the CORS headers every other answer
    does, and exposes Retry-After."""
    from cli.http_server import ApiServer

    monkeypatch.setattr(ApiServer, "max_connections", 1)
    server = running(Api({}, None), cors_origin="http://localhost:8080")
    try:
        held = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
        held.request("GET", "/health")
        assert held.getresponse().read()
        with socket.create_connection(server.server_address[:2], timeout=10) as extra:
            reply = b""
            while chunk := extra.recv(4096):
                reply += chunk
        head = reply.partition(b"\r\n\r\n")[0].decode("ascii").split("\r\n")
        assert head[0].startswith("HTTP/1.1 503 ")
        fields = dict(line.split(": ", 1) for line in head[1:])
        assert fields["Access-Control-Allow-Origin"] == "http://localhost:8080" and fields["Vary"] == "Origin"
        assert "Retry-After" in fields["Access-Control-Expose-Headers"].split(", ")
        held.close()
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("thread_ran", [True, False])
def test_a_stop_signal_while_a_connection_thread_starts_stops_the_server(monkeypatch, thread_ran):
    """SIGTERM or Ctrl-C arrives in the accepting loop, and can land inside ``Thread.start``
    (which waits for the new thread) after the thread has run. The slot was then freed twice:
    ValueError('Semaphore released too many times') took the KeyboardInterrupt's place, the loop
    logged it as a failed request and went on serving, and the server never stopped (seen once
    in ``make test-deep``). Here the thread answers its connection before the interrupt lands, or
    the interrupt lands before the thread starts (no answer; the loop frees the slot)."""
    import socketserver
    import types

    class InterruptedStart(threading.Thread):
        def start(self):
            if thread_ran:
                super().start()
                self.join(10)  # the connection answered and its thread done
            raise KeyboardInterrupt

    patched = types.SimpleNamespace(**vars(threading))  # socketserver's own name for the module
    patched.Thread = InterruptedStart
    monkeypatch.setattr(socketserver, "threading", patched)
    server = make_server(Api({}, None), "127.0.0.1", 0)
    try:
        with socket.create_connection(server.server_address[:2], timeout=10) as client:
            client.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            try:
                server._handle_request_noblock()  # one turn of serve_forever's loop
            except KeyboardInterrupt:
                interrupted = True
            else:
                interrupted = False
            reply = b""
            while chunk := client.recv(4096):
                reply += chunk
        assert interrupted, "the interrupt was swallowed: the server would go on serving"
        assert reply.startswith(b"HTTP/1.1 200 ") if thread_ran else reply == b""
        assert server._slots._value == server.max_connections  # its slot freed, and once
    finally:
        server.server_close()


def test_a_damaged_cache_at_the_start_is_skipped_with_a_note(tmp_path):
    """README: a cache that fails (locked, damaged) is skipped with a note, never an error. One
    damaged before the server started was an error (exit 2, 'file is not a database'; a docs
    audit's case): the server now answers without a cache and leaves the file as it was."""
    db = tmp_path / "answers.sqlite3"
    db.write_bytes(b"garbage, not a database\n")
    proc, port, said = serve_process(tmp_path, db)
    with reaped(proc):
        note, line = said
        assert note.startswith(f"note: cannot use the answer cache {db} (DatabaseError: "), note
        assert line.rstrip().endswith("(no cache)"), line
        for _ in range(2):  # asked twice: solved twice, as nothing keeps it
            ask_hint(port, "miss")
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=20)[1]
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert db.read_bytes() == b"garbage, not a database\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.sqlite3", "packs"]


def test_a_cache_path_that_cannot_be_made_is_an_error_naming_the_option(tmp_path):
    """Where no cache can be made at all (here a folder that is a file), the user named a wrong
    path: exit 2, naming --db, and nothing made."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = CliRunner().invoke(app, ["serve", "--port", "0", "--db", str(blocker / "sub" / "answers.sqlite3")])
    assert result.exit_code == 2 and f"error: --db: cannot open {blocker}/sub/answers.sqlite3: " in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def _cannot_listen(api, host, port, **options):
    """``make_server`` where the address is taken."""
    raise OSError(errno.EADDRINUSE, "Address already in use")


def _serve_that_cannot_listen(monkeypatch, args):
    """``serve`` run with its cache and its listening socket stood in for: what it asked of each
    (the cache's size in bytes; the address), and its result (it cannot listen, so it ends)."""
    import cli.serve_cmd

    asked = []

    class Cache:
        def __init__(self, path, max_bytes):
            asked.append(("cache", max_bytes))

        def close(self) -> None:
            pass

    def listen(api, host, port, **options):
        asked.append(("listen", host, port))
        return _cannot_listen(api, host, port)

    monkeypatch.setattr(cli.serve_cmd, "AnswerCache", Cache)
    monkeypatch.setattr(cli.serve_cmd, "make_server", listen)
    return asked, CliRunner().invoke(app, ["serve", *args])


def test_serve_binds_loopback_port_8765_with_a_512_mib_cache_unless_told(tmp_path, monkeypatch):
    """docs/cli.md: ``tenfold serve [--host 127.0.0.1] [--port 8765] ... [--cache-mb N]``, the
    cache keeping at most N MiB (default 512): 512 * 2**20 bytes; the address it cannot listen on
    is named, host and port."""
    packs = ["--packs", str(tmp_path), "--db", str(tmp_path / "c.db")]
    asked, result = _serve_that_cannot_listen(monkeypatch, packs)
    assert result.exit_code == 2, result.output
    assert "error: cannot listen on 127.0.0.1:8765: Address already in use" in result.output
    assert asked == [("cache", 512 * 1024 * 1024), ("listen", "127.0.0.1", 8765)]
    asked, result = _serve_that_cannot_listen(monkeypatch, [*packs, "--cache-mb", "3", "--host", "::1", "--port", "9"])
    assert result.exit_code == 2 and "error: cannot listen on ::1:9: " in result.output, result.output
    assert asked == [("cache", 3 * 1024 * 1024), ("listen", "::1", 9)]


def test_a_cache_path_that_is_a_folder_is_an_error_naming_the_option(tmp_path, monkeypatch):
    """A --db that names an existing folder can hold no cache: the user's path to fix, exit 2
    naming --db, as a path that cannot be made is (not the note of a damaged cache file, which is
    skipped); the folder is left as it was."""
    import cli.serve_cmd

    monkeypatch.setattr(cli.serve_cmd, "make_server", _cannot_listen)  # (were the folder taken, it stops here)
    folder = tmp_path / "answers"
    folder.mkdir()
    result = CliRunner().invoke(app, ["serve", "--packs", str(tmp_path), "--db", str(folder)])
    assert result.exit_code == 2 and f"error: --db: cannot open {folder}: " in result.output, result.output
    assert "note:" not in result.output
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_start_that_cannot_listen_removes_the_new_caches_side_files(tmp_path, monkeypatch):
    """docs/cli.md: a server that never served leaves no new cache. A new cache's journal and
    write-ahead files (here left by a cache whose close keeps them) go with it, and the folders
    made for it."""
    import cli.serve_cmd

    class Cache:
        def __init__(self, path, max_bytes):
            path.parent.mkdir(parents=True)
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{path}{suffix}").write_bytes(b"x")

        def close(self) -> None:
            pass

    monkeypatch.setattr(cli.serve_cmd, "AnswerCache", Cache)
    monkeypatch.setattr(cli.serve_cmd, "make_server", _cannot_listen)
    result = CliRunner().invoke(app, ["serve", "--packs", str(tmp_path), "--db", str(tmp_path / "a" / "b" / "c.db")])
    assert result.exit_code == 2 and "cannot listen" in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_serve_puts_back_the_signal_handlers_it_found(tmp_path, monkeypatch):
    """serve takes SIGTERM from the start and SIGINT once it serves; when it returns (here its
    loop that takes connections failed, exit 1), the handlers it found are back, for whatever
    called it in the same process."""
    from cli.http_server import ApiServer

    def broken(self, stop):
        raise RuntimeError("the loop broke")

    monkeypatch.setattr(ApiServer, "accept_until", broken)
    monkeypatch.setattr(threading, "excepthook", lambda args: None)

    def mine(signum, frame):
        pass

    before = signal.signal(signal.SIGINT, mine), signal.signal(signal.SIGTERM, mine)
    try:
        result = CliRunner().invoke(app, ["serve", "--port", "0", "--packs", str(tmp_path), "--db",
                                          str(tmp_path / "c.db")])
        assert result.exit_code == 1, result.output
        assert signal.getsignal(signal.SIGINT) is mine and signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


def test_ctrl_c_while_a_level_hint_is_searched_answers_it_then_stops(tmp_path):
    """Ctrl-C as a level hint's compiled search runs (in a connection's thread): the hint is
    answered and the server stops, as SIGTERM does. (An audit: the interrupt meant for a search
    in the main thread was held for the hint's search, then raised in its thread: the request got
    no answer, a traceback, and the server went on serving.)"""
    db = tmp_path / "answers.sqlite3"
    proc, port, _ = serve_process(tmp_path, db)
    with reaped(proc):
        def level_hint(level: str) -> http.client.HTTPConnection:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("POST", f"/levels/fixture-pack/{quote(level)}/hint", json.dumps({"moves": []}))
            return conn

        started = time.perf_counter()
        warm = level_hint("h1").getresponse()  # the kernels loaded: the next hint is all search
        assert warm.status == 200, warm.read()
        searched = time.perf_counter() - started
        warm.read()
        asking = level_hint("h2 no solution")  # another level: no answer kept
        time.sleep(min(0.3, searched / 4))
        proc.send_signal(signal.SIGINT)
        answer = asking.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["solvable"] is True
        err = proc.communicate(timeout=30)[1]
    assert proc.returncode == 0 and "Traceback" not in err and "stopped" in err, err


def test_connections_still_waiting_when_the_server_stops_are_answered_503():
    """Connections the accepting loop had not taken yet as the server stopped were reset by the
    closing of the listening socket (a concurrency audit: 16 of a burst of 40): they are answered
    503, 'the server is stopping', as an open connection is."""
    server = make_server(Api({}, None), "127.0.0.1", 0)  # listening; no loop takes connections
    try:
        clients = [socket.create_connection(server.server_address[:2], timeout=10) for _ in range(5)]
        for client in clients:
            client.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        server.refuse_waiting()
    finally:
        server.server_close()
    for client in clients:
        reply = b""
        while chunk := client.recv(4096):
            reply += chunk
        client.close()
        head, body = reply.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 503 ") and json.loads(body) == {"error": "the server is stopping"}


def test_a_stop_under_load_cuts_no_answer_short(tmp_path):
    """Clients opening connection after connection, then SIGTERM: every request the server took
    is answered whole, and those it did not take get 503 or find it closed (an interrupt in the
    accepting loop closed the connection whose thread it was starting: 'Bad file descriptor',
    an answer cut short, 9 stops in 10 in a concurrency audit)."""
    proc, port, _ = serve_process(tmp_path, tmp_path / "answers.sqlite3")
    stop, broken, answered = threading.Event(), [], []

    def client():
        while not stop.is_set():
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/levels/fixture-pack/h1/solution")
            except OSError:  # refused, or reset before the request went: the server has stopped
                return
            try:
                response = conn.getresponse()
                body = json.loads(response.read())
                answered.append(response.status)
                assert response.status == 200 and body["valid"] or response.status == 503, body
            except ConnectionResetError:  # not taken, and reset as the listening socket closed
                pass
            except (http.client.HTTPException, ValueError, AssertionError) as err:  # cut short, or wrong
                broken.append(repr(err))
            finally:
                conn.close()

    clients = [threading.Thread(target=client) for _ in range(12)]
    for thread in clients:
        thread.start()
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    with reaped(proc):
        try:
            err = proc.communicate(timeout=30)[1]
        finally:
            stop.set()
            for thread in clients:
                thread.join(15)
    assert proc.returncode == 0 and "Traceback" not in err and "failed" not in err, err
    assert not broken and answered.count(200) > 10, (broken, len(answered))


def test_a_second_signal_drops_the_answers_under_way_and_still_closes_the_cache(tmp_path):
    """A second signal stops waiting for the answers under way (a note counts them), and the
    cache is still closed, its write-ahead files folded in (they were left behind)."""
    db = tmp_path / "answers.sqlite3"
    proc, port, _ = serve_process(tmp_path, db)
    with reaped(proc):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("POST", f"/levels/fixture-pack/{quote('h2 no solution')}/hint", json.dumps({"moves": []}))
        time.sleep(0.2)  # (the first hint loads the kernels too: about a second)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=30)[1]
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "note: stopped without waiting for 1 request(s) under way" in err and "stopped" in err, err
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists(), err


@pytest.mark.parametrize("verbose", [False, True])
def test_a_client_that_went_away_is_said_with_verbose_only(capsys, verbose):
    """A reset or a closed pipe is the client's business, and under load a flood of notes (a
    concurrency audit): said with --verbose only; any other failure always, one line each."""
    server = make_server(Api({}, None), "127.0.0.1", 0, verbose=verbose)
    try:
        for err in (ConnectionResetError(104, "Connection reset by peer"), BrokenPipeError(32, "Broken pipe"),
                    OSError(9, "Bad file descriptor")):
            try:
                raise err
            except OSError:
                server.handle_error(None, ("127.0.0.1", 5))
    finally:
        server.server_close()
    said = capsys.readouterr().err.splitlines()
    assert said == ([f"note: request from 127.0.0.1 failed: {e}" for e in (
        "ConnectionResetError(104, 'Connection reset by peer')", "BrokenPipeError(32, 'Broken pipe')")]
        if verbose else []) + ["note: request from 127.0.0.1 failed: OSError(9, 'Bad file descriptor')"]


def test_a_stop_just_as_the_server_starts_ends_it(tmp_path):
    """A signal the moment the serving line is out, or that line failing (stderr a pipe no one
    reads), came before the accepting loop ran, and the stop then waited for ever for a loop
    that never started (a review: 11 hangs in 40 starts; only SIGKILL ended it)."""
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    command = [tenfold, "serve", "--port", "0", "--packs", str(tmp_path), "--db", str(tmp_path / "c.db")]
    for n in range(6):
        proc = subprocess.Popen(command, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        said = b""
        while b"serving" not in said and (byte := proc.stderr.read(1)):
            said += byte
        proc.send_signal(signal.SIGINT if n % 2 else signal.SIGTERM)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"start {n}: still running 20 s after the signal") from None
        assert proc.returncode in (0, 130), (n, proc.returncode)
    unread, stderr = os.pipe()
    os.close(unread)
    proc = subprocess.Popen(command, stderr=stderr, stdout=subprocess.DEVNULL)
    os.close(stderr)
    with reaped(proc):
        assert proc.wait(timeout=30) != 0  # its stderr gone: it stops, and says so as it can


def test_the_first_stop_signal_interrupts_and_any_later_one_only_drops():
    """One handler for SIGTERM and SIGINT: the first raises the KeyboardInterrupt that stops the
    server, any later one only stops the wait for the answers under way. (A second handler put
    in place by the stop itself came too late for a second signal 0.2-0.4 ms after the first:
    its KeyboardInterrupt escaped the cleanup, exit 130 and the cache left open.)"""
    from cli.serve_cmd import _Stops

    stops = _Stops()
    with pytest.raises(KeyboardInterrupt):
        stops(signal.SIGTERM, None)
    assert not stops.drop.is_set()
    stops(signal.SIGINT, None)  # no raise
    stops(signal.SIGTERM, None)
    assert stops.drop.is_set()


def test_stop_signals_wait_while_the_accepting_thread_starts():
    """A signal inside Thread.start left the accepting thread not yet started, to run later on
    a closed socket ('Invalid file descriptor', a traceback in 18 of 40 starts): held meanwhile,
    it is taken once the block is done, and a second one held with it only drops."""
    from cli.serve_cmd import _Stops

    for signals in (1, 2):
        stops = _Stops()
        previous = signal.signal(signal.SIGTERM, stops)
        try:
            with pytest.raises(KeyboardInterrupt):
                with stops.held():
                    for _ in range(signals):
                        os.kill(os.getpid(), signal.SIGTERM)
                        time.sleep(0.05)  # (taken by the handler, which holds it)
                    assert stops.count == 0 and not stops.drop.is_set()
            assert stops.count == signals and stops.drop.is_set() == (signals == 2)
        finally:
            signal.signal(signal.SIGTERM, previous)
    stops = _Stops()
    with stops.held():
        pass  # none came: nothing raised
    assert stops.count == 0


def test_a_head_request_refused_gets_no_body():
    """A HEAD answer has no body, refusals too (503 while stopping, 400, 501 sent one)."""
    server = running(Held())
    try:
        host, port = server.server_address[:2]
        server.stopping = True
        with socket.create_connection((host, port), timeout=10) as client:
            client.sendall(b"HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n")
            reply = b""
            while chunk := client.recv(4096):
                reply += chunk
        head, body = reply.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 503 ") and b"Content-Length: 35" in head and body == b"", reply
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_whose_accepting_loop_fails_exits_1(tmp_path, monkeypatch):
    """A loop that takes connections and dies stopped the server with exit 0, 'stopped', as a
    clean stop: a service manager would not restart it."""
    from cli.http_server import ApiServer

    def broken(self, stop):
        raise RuntimeError("the loop broke")

    monkeypatch.setattr(ApiServer, "accept_until", broken)
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # (its traceback, in the real one)
    result = CliRunner().invoke(app, ["serve", "--port", "0", "--packs", str(tmp_path), "--db",
                                      str(tmp_path / "c.db")])
    assert result.exit_code == 1, result.output
    assert "error: the server stopped: its loop that takes connections failed" in result.output
