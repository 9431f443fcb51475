"""The HTTP layer over ``cli.api``: standard library HTTP, one thread a connection. A request
comes in whole within its deadline, the connections served at once are capped, and a stop answers
the requests it took before it ends."""

from __future__ import annotations

import io
import json
import selectors
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cli.api import MAX_BODY, Api, Response
from solver.errors import clipped

# what socketserver's loop waits on: poll where there is one (select stops at 1,024 descriptors)
_ServerSelector = getattr(selectors, "PollSelector", selectors.SelectSelector)
STOPPING = "the server is stopping"  # the 503's error, to a request a stopping server will not answer


class ApiHandler(BaseHTTPRequestHandler):
    server_version = "tenfold"
    protocol_version = "HTTP/1.1"  # keep-alive: a client can ask many hints on one connection
    timeout = 30  # a silent client frees its thread
    # a request line the server cannot parse is answered as HTTP/1.0 (status line, headers, JSON
    # body), not as the standard library's HTTP/0.9 default, which sends the body alone
    default_request_version = "HTTP/1.0"
    quiet = True
    # TCP_NODELAY: the headers and the body are two writes, and with Nagle's algorithm the body
    # waited for the client's delayed ACK of the headers, about 40 ms on every keep-alive answer
    disable_nagle_algorithm = True
    # --cors-origin: the origin browsers may call the API from (a web game on another port or
    # host); None sends no CORS headers, so browsers keep pages of other origins out
    cors_origin: str | None = None

    def setup(self) -> None:
        super().setup()
        # every read of a request waits at most until the request's deadline (handle_one_request)
        self.deadline = time.monotonic() + self.timeout
        self.rfile.close()  # (the socket's own reader: the socket stays open)
        self.rfile = io.BufferedReader(_DeadlineReader(self), io.DEFAULT_BUFFER_SIZE)

    def handle_one_request(self) -> None:
        """One request, which must come in whole (its line, headers and body) within ``timeout``
        seconds of the connection's turn: a client that sends a byte now and then (slowloris)
        would otherwise hold its connection, and with 64 such all of the server, for ever. Its
        read then times out: the connection closes, a body being read is answered 408."""
        self.deadline = time.monotonic() + self.timeout
        super().handle_one_request()

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_OPTIONS(self) -> None:
        self._serve("OPTIONS")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def _serve(self, method: str) -> None:
        with self.server.requests() as admitted:
            if not admitted:  # the server is stopping: it answers what it took, nothing new
                return self._refuse(503, STOPPING)
            cut = threading.Event()  # set if the stop ends the body's read (``ApiServer.reading``)
            try:
                with self.server.reading(self.connection, cut):
                    body = self._read_body(method)
            except (TimeoutError, BodyError) as err:
                if cut.is_set():  # (a body refused for what it is, 411 or 413, is refused so still)
                    return self._refuse(503, STOPPING)
                if isinstance(err, TimeoutError):  # (``_read_body`` says which end did not come)
                    return self._refuse(408, f"{err} (the request did not come in whole within {self.timeout} s)")
                return self._refuse(err.status, str(err))
            self._send(self.server.api.handle(method, self.path, body), head=method == "HEAD")

    def _refuse(self, status: int, message: str) -> None:
        """An error answer that ends the connection (what is left of a body is unread)."""
        self.close_connection = True
        self._send(Response(status, {"error": message}), head=self.command == "HEAD")

    def handle_expect_100(self) -> bool:
        """``Expect: 100-continue``: a body its headers already refuse (too long, no length), or
        that a stopping server would not read, is refused before the client is asked to send it."""
        if self.server.stopping:
            self._refuse(503, STOPPING)
            return False
        try:
            self._body_length(self.command)
        except BodyError as err:
            self._refuse(err.status, str(err))
            return False
        return super().handle_expect_100()

    def _read_body(self, method: str) -> bytes:
        """The request's body: Content-Length bytes, or a chunked body; ``BodyError`` otherwise."""
        length = self._body_length(method)
        try:
            if length is None:
                return read_chunked(self.rfile, MAX_BODY)
            body = self.rfile.read(length) if length else b""
        except TimeoutError:  # (the reader's deadline passed)
            raise TimeoutError("body: its chunks did not end" if length is None
                               else "body: shorter than its Content-Length") from None
        if len(body) < length:
            raise BodyError(400, "body: shorter than its Content-Length")
        return body

    def _body_length(self, method: str) -> int | None:
        """The body's length by its headers, None for a chunked body; ``BodyError`` for headers
        that refuse it (a POST with neither: its body would be empty, and a client that meant to
        send one reads best that the length is missing, not that nothing parses)."""
        lengths = self.headers.get_all("Content-Length") or []
        coding = ",".join(self.headers.get_all("Transfer-Encoding") or []).strip().lower()
        if method == "POST" and not lengths and not coding:
            raise BodyError(411, "body: a POST needs a header Content-Length or Transfer-Encoding: chunked")
        if coding:
            if lengths:  # RFC 9112 6.3: both at once is how requests are smuggled past proxies
                raise BodyError(400, "headers Transfer-Encoding and Content-Length: expected one of them, not both")
            if coding != "chunked":
                raise BodyError(501, f"header Transfer-Encoding: expected chunked, got {clipped(coding)!r}")
            return None
        if len(set(lengths)) > 1:
            raise BodyError(400, f"header Content-Length: given {len(lengths)} times with different values")
        length_text = lengths[0].strip() if lengths else "0"
        if not (length_text.isascii() and length_text.isdigit()):
            raise BodyError(400, f"header Content-Length: not a size: {clipped(length_text)!r}")
        digits = length_text.lstrip("0") or "0"  # leading zeros count towards Python's conversion limit
        if len(digits) > len(str(MAX_BODY)):
            raise BodyError(413, f"body: {clipped(length_text)} bytes, more than {MAX_BODY}")
        length = int(digits)
        if length > MAX_BODY:
            raise BodyError(413, f"body: {length} bytes, more than {MAX_BODY}")
        return length

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors http.server finds itself (a bad request line or header) answer in JSON too."""
        self._refuse(code, message or self.responses.get(code, ("error",))[0])

    def _send(self, response: Response, head: bool = False) -> None:
        """The response; ``head``: its status and headers alone (a HEAD request)."""
        self.send_response(response.status)
        data = b""
        if response.body is not None:
            data = json.dumps(response.body).encode("utf-8")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        for name, value in cors_headers(self.cors_origin):
            self.send_header(name, value)
        if self.cors_origin is not None and "Allow" in response.headers and response.status == 204:
            # the answer to a preflight
            self.send_header("Access-Control-Allow-Methods", response.headers["Allow"])
            self.send_header("Access-Control-Allow-Headers", "Content-Type")
            self.send_header("Access-Control-Max-Age", "600")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def cors_headers(origin: str | None) -> list[tuple[str, str]]:
    """The CORS headers of every answer with --cors-origin (the busy 503 too): the origin allowed,
    and the answers' own headers a page may read (browsers show a page only a few by default)."""
    if origin is None:
        return []
    headers = [("Access-Control-Allow-Origin", origin)]
    if origin != "*":
        headers.append(("Vary", "Origin"))
    headers.append(("Access-Control-Expose-Headers", "X-Tenfold-Cache, Retry-After"))
    return headers


class _DeadlineReader(io.RawIOBase):
    """A handler's socket, read with no more time than is left before its request's deadline
    (``TimeoutError`` past it); other uses of the socket (the answer's writing) keep the
    handler's timeout."""

    def __init__(self, handler: ApiHandler) -> None:
        self.handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.handler.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not come in whole in time")
        sock = self.handler.connection
        sock.settimeout(min(left, self.handler.timeout))
        try:
            return sock.recv_into(buffer)
        finally:
            sock.settimeout(self.handler.timeout)


class BodyError(Exception):
    """A request body that cannot be read: the HTTP status to answer and why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def read_chunked(stream, limit: int) -> bytes:
    """A ``Transfer-Encoding: chunked`` body (RFC 9112 7.1) of at most ``limit`` bytes; chunk
    extensions and trailer fields are read and dropped."""
    parts: list[bytes] = []
    total = 0
    while True:
        line = stream.readline(1026)
        size_text = line.split(b";", 1)[0].strip()
        hexadecimal = size_text and all(c in b"0123456789abcdefABCDEF" for c in size_text)
        size = int(size_text, 16) if hexadecimal else -1
        if size < 0 or not line.endswith(b"\n"):
            got = clipped(line.decode("latin-1"))
            raise BodyError(400, f"body: a chunk size, in hexadecimal, expected; got {got!r}")
        if size == 0:
            break
        total += size
        if total > limit:
            raise BodyError(413, f"body: more than {limit} bytes")
        data = stream.read(size)
        if len(data) < size or stream.readline(3) not in (b"\r\n", b"\n"):
            raise BodyError(400, "body: a chunk does not end where its size says")
        parts.append(data)
    for _ in range(100):  # trailer fields, up to the blank line that ends the body
        line = stream.readline(8192)
        if line in (b"\r\n", b"\n", b""):
            return b"".join(parts)
    raise BodyError(400, "body: more than 100 trailer fields")


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the listen backlog (the standard library's 5 reset clients at 40 at once)

    # Connections served at once, each on its own thread (an idle keep-alive one holds its thread
    # for up to ApiHandler.timeout); one more is answered 503 and closed at once, so that clients
    # that open connections without end cannot exhaust the process's threads and memory.
    max_connections = 64

    def __init__(self, address: tuple[str, int], api: Api, handler: type[ApiHandler] = ApiHandler):
        super().__init__(address, handler)
        self.api = api
        self._slots = threading.BoundedSemaphore(self.max_connections)
        # connections holding a slot that no thread has taken over yet: exactly one of the loop
        # that accepted (if starting the thread fails) and the thread frees it
        self._handed = threading.Lock()
        self._untaken: set = set()
        self.stopping = False
        self.under_way = 0  # requests being answered
        self._quiet = threading.Condition()
        # connections of requests whose bodies are coming in, each with the event set if the stop cuts it
        self._reading: dict[socket.socket, threading.Event] = {}

    @contextmanager
    def requests(self) -> Iterator[bool]:
        """Counts a request while it is answered; yields False (do not answer) once stopping."""
        with self._quiet:
            if self.stopping:
                admitted = False
            else:
                admitted = True
                self.under_way += 1
        try:
            yield admitted
        finally:
            if admitted:
                with self._quiet:
                    self.under_way -= 1
                    self._quiet.notify_all()

    @contextmanager
    def reading(self, connection: socket.socket, cut: threading.Event) -> Iterator[None]:
        """An admitted request's body is read inside this. A stop ends the read at once (the
        connection's reading side shut, so the read finds the body's end, and ``cut`` set: the
        request is answered 503): a client that sent its headers and no body, or trickles its
        body, would otherwise hold the stop for up to the timeout."""
        with self._quiet:
            self._reading[connection] = cut
            if self.stopping:
                _stop_reading(connection, cut)
        try:
            yield
        finally:
            with self._quiet:
                self._reading.pop(connection, None)

    def finish(self, drop: threading.Event | None = None) -> int:
        """Stop taking requests and wait for those under way to be answered, until ``drop`` is
        set (``serve``'s handlers set it at a second signal) or a KeyboardInterrupt (where no such
        handler is set); a request whose body is still coming in is answered 503 at once. The
        number of requests left unanswered."""
        with self._quiet:
            self.stopping = True
            for connection, cut in self._reading.items():
                _stop_reading(connection, cut)
            answering = self.under_way - len(self._reading)  # (those still reading are refused at once)
            if answering and not (drop and drop.is_set()):
                sys.stderr.write(f"stopping: answering the {answering} request(s) under way first "
                                 f"(Ctrl-C again to drop them)\n")
            try:
                while self.under_way and not (drop and drop.is_set()):
                    self._quiet.wait(0.2)
            except KeyboardInterrupt:
                pass
            return self.under_way

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            self._busy(request)
            return
        with self._handed:
            self._untaken.add(request)
        try:
            super().process_request(request, client_address)
        except BaseException:
            # Starting the thread failed, or an interrupt came while it started (Thread.start
            # waits for it; ``serve`` runs this loop on a thread signals never reach, but the class
            # holds where it runs on the main one): the slot is freed here only if the thread never
            # took it. Freeing it twice raised ValueError in place of the KeyboardInterrupt, which
            # the accepting loop then logged and went on: the server did not stop.
            if self._take(request):
                self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        mine = self._take(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            if mine:
                self._slots.release()

    def _take(self, request) -> bool:
        """Whether the caller is the first to take over ``request``'s slot."""
        with self._handed:
            if request in self._untaken:
                self._untaken.remove(request)
                return True
            return False

    def _busy(self, request) -> None:
        """503 to a connection past ``max_connections``, without reading its request."""
        self._unread_503(request, f"the server is busy ({self.max_connections} connections open); try again",
                         headers="Retry-After: 1\r\n")

    def accept_until(self, stop: threading.Event) -> None:
        """``serve_forever``'s loop, ended by ``stop``: its own end, ``shutdown()``, waits for
        ever where the loop never ran (a stop just as the server starts: a review, 11 in 40)."""
        with _ServerSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            while not stop.is_set():
                if selector.select(0.1):
                    self._handle_request_noblock()

    def refuse_waiting(self) -> None:
        """503 to the connections still waiting to be taken as the server stops (once the
        accepting loop has ended): closing the listening socket reset them (a concurrency audit:
        16 of a burst of 40 while hints were being solved). At most one backlog's worth, so that
        clients connecting without end cannot hold the stop off."""
        self.socket.setblocking(False)
        for _ in range(self.request_queue_size):
            try:
                request, _ = self.socket.accept()
            except OSError:  # none left (or the socket already closed)
                return
            self._unread_503(request, STOPPING)

    def _unread_503(self, request, message: str, headers: str = "") -> None:
        """503 with ``message`` (and ``headers``, each ending in CRLF) to a connection whose request
        is not read, then closed."""
        body = json.dumps({"error": message}).encode("utf-8")
        cors = "".join(f"{name}: {value}\r\n" for name, value in cors_headers(self.RequestHandlerClass.cors_origin))
        head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n{headers}{cors}Connection: close\r\n\r\n")
        try:  # without blocking the loop that accepts: the answer fits the socket's buffer, and
            request.setblocking(False)  # what of the request has come is read, so that the close
            request.sendall(head.encode("ascii") + body)  # sends the answer rather than a reset
            request.recv(65536)  # (best effort: a client still sending may see a reset)
        except OSError:
            pass
        finally:
            self.shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        # A connection that broke mid-request is that client's problem; the server goes on. A
        # client that went away (a reset, a closed pipe: common, and a flood under load) is said
        # with --verbose only. One write a line: connections' threads write at once.
        err = sys.exc_info()[1]
        if self.RequestHandlerClass.quiet and isinstance(err, (ConnectionResetError, BrokenPipeError,
                                                               ConnectionAbortedError)):
            return
        sys.stderr.write(f"note: request from {client_address[0]} failed: {err!r}\n")


def _stop_reading(connection: socket.socket, cut: threading.Event) -> None:
    """Shut ``connection``'s reading side: a read under way on another thread returns at once, as
    at the end of the stream (what has come is still read first); the answer can still be
    written. ``cut`` is set."""
    cut.set()
    try:
        connection.shutdown(socket.SHUT_RD)
    except OSError:  # (the client has gone)
        pass


def make_server(api: Api, host: str = "127.0.0.1", port: int = 0, *, verbose: bool = False,
                cors_origin: str | None = None) -> ApiServer:
    """A server whose handlers log (``verbose``) and send CORS headers as told: settings of
    this server's own handler class, so that another server in the process keeps its own."""
    handler = type("ServedHandler", (ApiHandler,), {"quiet": not verbose, "cors_origin": cors_origin})
    return ApiServer((host, port), api, handler)
