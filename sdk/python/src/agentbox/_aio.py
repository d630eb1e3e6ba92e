"""The asyncio transport: HTTP/1.1 on asyncio streams (stdlib has no async HTTP client), one
connection a request (``Connection: close``), Content-Length or chunked answers."""
from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, Optional, Tuple

from ._endpoint import Endpoint, headers
from .errors import AgentboxError, Unavailable, error_from_answer

_MAX_HEAD = 64 * 1024


class _Answer:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int,
                 head: Dict[str, str]) -> None:
        self.reader, self.writer, self.status, self.head = reader, writer, status, head

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, piece by piece, as it arrives."""
        if self.head.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size_line = await self.reader.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    await self.reader.readline()  # the empty trailer
                    return
                data = await self.reader.readexactly(size)
                await self.reader.readexactly(2)  # CRLF
                yield data
        elif "content-length" in self.head:
            left = int(self.head["content-length"])
            while left > 0:
                data = await self.reader.read(min(left, 65536))
                if not data:
                    raise AgentboxError("the answer ended early", "unavailable")
                left -= len(data)
                yield data
        else:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    return
                yield data

    async def body(self) -> bytes:
        return b"".join([c async for c in self.chunks()])

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


class AsyncTransport:
    def __init__(self, endpoint: Endpoint, timeout: Optional[float]) -> None:
        self.endpoint = endpoint
        self.timeout = timeout

    async def _connect(self) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.endpoint.unix_path is not None:
            return await asyncio.open_unix_connection(self.endpoint.unix_path, limit=_MAX_HEAD)
        return await asyncio.open_connection(self.endpoint.host, self.endpoint.port,
                                             limit=_MAX_HEAD)

    async def open(self, method: str, target: str, body: Optional[bytes] = None,
                   content_type: Optional[str] = None, accept: str = "application/json") -> _Answer:
        try:
            reader, writer = await asyncio.wait_for(self._connect(), self.timeout)
        except (OSError, asyncio.TimeoutError) as e:
            where = self.endpoint.unix_path or f"{self.endpoint.host}:{self.endpoint.port}"
            raise Unavailable(f"cannot reach agentbox serve at {where}: {e}", "unavailable") from e
        h = headers(self.endpoint, content_type, len(body) if body is not None else None, accept)
        h["Connection"] = "close"
        head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
        writer.write(head.encode("latin-1") + b"\r\n" + (body or b""))
        await writer.drain()
        status_line = await reader.readline()
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            writer.close()
            raise Unavailable(f"not an HTTP answer: {status_line[:80]!r}", "unavailable")
        fields: Dict[str, str] = {}
        while True:
            line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
            if not line:
                break
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        answer = _Answer(reader, writer, int(parts[1]), fields)
        if answer.status >= 400:
            data = await answer.body()
            await answer.close()
            raise error_from_answer(answer.status, data)
        return answer

    async def call(self, method: str, target: str, body: Optional[bytes] = None,
                   content_type: Optional[str] = None, accept: str = "application/json") -> bytes:
        answer = await self.open(method, target, body, content_type, accept)
        try:
            return await answer.body()
        finally:
            await answer.close()

    async def json(self, method: str, target: str, body: Optional[bytes] = None,
                   content_type: Optional[str] = None) -> Any:
        data = await self.call(method, target, body, content_type)
        return json.loads(data) if data else None

    async def lines(self, method: str, target: str, body: Optional[bytes],
                    content_type: Optional[str], accept: str) -> AsyncIterator[Any]:
        answer = await self.open(method, target, body, content_type, accept)
        pending = b""
        try:
            async for chunk in answer.chunks():
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if line.strip():
                        yield json.loads(line)
            if pending.strip():
                yield json.loads(pending)
        finally:
            await answer.close()
