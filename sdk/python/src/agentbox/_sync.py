"""The blocking transport: http.client over a unix socket or TCP, one connection a request."""
from __future__ import annotations

import http.client
import json
import socket
from typing import Any, Iterator, Optional, Tuple

from ._endpoint import Endpoint, headers
from .errors import AgentboxError, Unavailable, error_from_answer


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: Optional[float]) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.timeout is not None:
            sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class Transport:
    def __init__(self, endpoint: Endpoint, timeout: Optional[float]) -> None:
        self.endpoint = endpoint
        self.timeout = timeout

    def _connection(self) -> http.client.HTTPConnection:
        if self.endpoint.unix_path is not None:
            return _UnixConnection(self.endpoint.unix_path, self.timeout)
        return http.client.HTTPConnection(self.endpoint.host, self.endpoint.port,
                                          timeout=self.timeout)

    def open(self, method: str, target: str, body: Optional[bytes] = None,
             content_type: Optional[str] = None, accept: str = "application/json"
             ) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Sends the request; an error answer is raised, a good one returned unread."""
        conn = self._connection()
        try:
            conn.request(method, target, body=body,
                         headers=headers(self.endpoint, content_type,
                                         len(body) if body is not None else None, accept))
            response = conn.getresponse()
        except OSError as e:
            conn.close()
            where = self.endpoint.unix_path or f"{self.endpoint.host}:{self.endpoint.port}"
            raise Unavailable(f"cannot reach agentbox serve at {where}: {e}", "unavailable") from e
        if response.status >= 400:
            data = response.read()
            conn.close()
            raise error_from_answer(response.status, data)
        return conn, response

    def call(self, method: str, target: str, body: Optional[bytes] = None,
             content_type: Optional[str] = None, accept: str = "application/json") -> bytes:
        conn, response = self.open(method, target, body, content_type, accept)
        try:
            return response.read()
        finally:
            conn.close()

    def json(self, method: str, target: str, body: Optional[bytes] = None,
             content_type: Optional[str] = None) -> Any:
        data = self.call(method, target, body, content_type)
        return json.loads(data) if data else None

    def lines(self, method: str, target: str, body: Optional[bytes],
              content_type: Optional[str], accept: str) -> Iterator[Any]:
        """An NDJSON answer, one parsed object per line as it arrives."""
        conn, response = self.open(method, target, body, content_type, accept)
        try:
            while True:
                line = response.readline()
                if not line:
                    return
                if line.strip():
                    yield json.loads(line)
        except OSError as e:
            raise AgentboxError(f"the stream broke: {e}", "unavailable") from e
        finally:
            conn.close()
