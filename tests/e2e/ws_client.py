#!/usr/bin/env python3
"""A WebSocket client of serve's terminal (GET /v1/sandboxes/{id}/exec/tty), Python's standard
library only, run by tests/e2e/serve.sh and tests/docker/runsc.sh.

    ws_client.py ADDRESS PATH STEP...

ADDRESS is unix:SOCKET or tcp:HOST:PORT. Each STEP, in order:
    early:JSON      a text message sent in the same write as the upgrade request, before the
                    101 (steps of this kind come first)
    text:JSON       a text message (the first one is the exec body with rows and cols)
    fragments:JSON  the same as three fragments with a ping between them
    keys:TEXT       a binary message (Python escapes: keys:\\x03 is Ctrl-C)
    wait:WORD       read until the terminal has shown WORD
    ping:DATA       a ping, then read until its pong
    raw:HEX         bytes as they are (a frame the protocol forbids)
    hold / flush    the frames of the steps between are sent in one write (one packet)
    gone            vanish: close the socket without a close frame, print, stop
    close           a close frame (1000)
Then it reads until the server closes and prints one JSON line: {"status": the HTTP status,
"output": what the terminal showed, "texts": the text messages, "close": the close code (null:
none), "pongs": the pongs' data, "body": a refusal's body}. Extra request headers come from
WS_HEADERS ("Name: value" lines separated by "|"). Waits for events, never for a guess of time;
every read is bounded by a hang guard (WS_TIMEOUT seconds, 60 by default)."""
import base64, json, os, socket, struct, sys

address, path, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
state = {"status": None, "output": b"", "texts": [], "close": None, "pongs": [], "body": ""}


def connect():
    if address.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX)
        s.connect(address[5:])
        return s, "localhost"
    host, port = address[4:].rsplit(":", 1)
    return socket.create_connection((host, int(port))), host + ":" + port


def frame(opcode, payload, fin=True):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Reader:
    def __init__(self, sock, rest):
        self.sock, self.buf = sock, rest

    def need(self, n):
        while len(self.buf) < n:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def message(self):
        b0, b1 = self.need(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self.need(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self.need(8))[0]
        assert not b1 & 0x80, "the server masked a frame"
        return b0 & 0x0F, self.need(n)


def handshake(sock, host):
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(h.strip() + "\r\n" for h in os.environ.get("WS_HEADERS", "").split("|") if h)
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: 13\r\n{extra}\r\n").encode() +
                 b"".join(frame(1, s[6:].encode()) for s in steps if s.startswith("early:")))
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(4096)
        if not data:
            break
        head += data
    head, _, rest = head.partition(b"\r\n\r\n")
    state["status"] = int(head.split(b" ")[1])
    if state["status"] != 101:
        length = [int(h.split(b":")[1]) for h in head.split(b"\r\n")
                  if h.lower().startswith(b"content-length:")]
        while len(rest) < (length[0] if length else 0):
            rest += sock.recv(4096)
        state["body"] = rest.decode(errors="replace")
    return rest


def take(opcode, payload):
    """Records a server message; False once it closed."""
    if opcode == 2:
        state["output"] += payload
    elif opcode == 1:
        state["texts"].append(json.loads(payload))
    elif opcode == 10:
        state["pongs"].append(payload.decode())
    elif opcode == 8:
        state["close"] = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
        return False
    return True


def read_until(reader, done):
    while not done():
        if not take(*reader.message()):
            raise EOFError


class Sender:
    """sendall, or (between hold and flush) gathering for one write."""

    def __init__(self, sock):
        self.sock, self.held = sock, None

    def sendall(self, data):
        if self.held is None:
            self.sock.sendall(data)
        else:
            self.held += data


def run(raw_sock, reader):
    sock = Sender(raw_sock)
    for step in steps:
        kind, _, arg = step.partition(":")
        if kind == "early":
            continue
        elif kind == "hold":
            sock.held = b""
        elif kind == "flush":
            raw_sock.sendall(sock.held)
            sock.held = None
        elif kind == "text":
            sock.sendall(frame(1, arg.encode()))
        elif kind == "fragments":
            data, third = arg.encode(), max(1, len(arg) // 3)
            sock.sendall(frame(1, data[:third], fin=False) + frame(9, b"mid") +
                         frame(0, data[third:2 * third], fin=False) + frame(0, data[2 * third:]))
        elif kind == "keys":
            sock.sendall(frame(2, arg.encode().decode("unicode_escape").encode("latin-1")))
        elif kind == "wait":
            read_until(reader, lambda: arg.encode() in state["output"])
        elif kind == "ping":
            sock.sendall(frame(9, arg.encode()))
            read_until(reader, lambda: arg in state["pongs"])
        elif kind == "raw":
            sock.sendall(bytes.fromhex(arg))
        elif kind == "gone":
            raw_sock.close()
            return
        elif kind == "close":
            sock.sendall(frame(8, struct.pack(">H", 1000)))
    try:
        while take(*reader.message()):
            pass
        if "close" not in steps:  # answers the server's close
            sock.sendall(frame(8, struct.pack(">H", 1000 if state["close"] == 1005 else state["close"])))
    except (EOFError, OSError):
        pass


sock, host = connect()
sock.settimeout(float(os.environ.get("WS_TIMEOUT", "60")))
rest = handshake(sock, host)
if state["status"] == 101:
    try:
        run(sock, Reader(sock, rest))
    except EOFError:
        pass
state["output"] = state["output"].decode(errors="replace")
print(json.dumps(state))
