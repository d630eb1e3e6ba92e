"""The asyncio client: the same surface as ``client`` with ``await``.

    async with AsyncSandbox(memory="256M") as sb:
        result = await sb.exec("echo hi")
        async for event in sb.stream(["make"]):
            ...
"""
from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Sequence, Union

from . import _endpoint as ep
from ._aio import AsyncTransport
from .errors import error_from_answer
from .models import ExecResult, FileEntry, ProcessInfo, ProcessLogs, StreamEvent

Command = Union[str, Sequence[str]]


class AsyncClient:
    """One agentbox server, as ``Client`` (url, token, timeout), for asyncio."""

    def __init__(self, url: Optional[str] = None, *, token: Optional[str] = None,
                 timeout: Optional[float] = None) -> None:
        self._t = AsyncTransport(ep.parse_endpoint(url, token), timeout)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        pass

    async def health(self) -> bool:
        return (await self._t.call("GET", "/healthz", accept="text/plain")).strip() == b"ok"

    async def list(self) -> List[Dict[str, Any]]:
        return (await self._t.json("GET", "/v1/sandboxes"))["sandboxes"]

    async def create(self, *, name: Optional[str] = None, **policy: Any) -> "AsyncSandbox":
        return await AsyncSandbox(client=self, name=name, **policy).start()

    async def sandbox(self, ref: str) -> "AsyncSandbox":
        return AsyncSandbox(client=self, _info=await self.inspect(ref))

    async def inspect(self, ref: str) -> Dict[str, Any]:
        return await self._t.json("GET", ep.sandbox_path(ref))

    async def remove(self, ref: str, *, force: bool = False) -> None:
        await self._t.json("DELETE", ep.target(ep.sandbox_path(ref), {"force": force or None}))


class AsyncSandbox:
    """One sandbox. ``async with AsyncSandbox(**policy) as sb`` creates it (``await
    AsyncSandbox(**policy).start()`` does too) and removes it, with all it runs, at the end."""

    def __init__(self, *, client: Optional[AsyncClient] = None, name: Optional[str] = None,
                 _info: Optional[Dict[str, Any]] = None, **policy: Any) -> None:
        self.client = client or AsyncClient()
        self._create = ep.create_body(name, policy)
        self.info: Dict[str, Any] = _info or {}
        self.id: str = self.info.get("id", "")

    async def start(self) -> "AsyncSandbox":
        if not self.id:
            body, ctype = ep.json_body(self._create)
            self.info = await self._t.json("POST", "/v1/sandboxes", body, ctype)
            self.id = self.info["id"]
        return self

    async def __aenter__(self) -> "AsyncSandbox":
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.remove(force=True)

    def __repr__(self) -> str:
        return f"AsyncSandbox({self.id!r})"

    @property
    def _t(self) -> AsyncTransport:
        return self.client._t

    def _path(self, rest: str = "") -> str:
        return ep.sandbox_path(self.id, rest)

    async def inspect(self) -> Dict[str, Any]:
        self.info = await self._t.json("GET", self._path())
        return self.info

    async def remove(self, *, force: bool = False) -> None:
        await self._t.json("DELETE", ep.target(self._path(), {"force": force or None}))

    async def exec(self, command: Command, *, env: Optional[Mapping[str, str]] = None,
                   cwd: Optional[str] = None, timeout: Optional[Any] = None,
                   output_limit: Optional[Any] = None, stdin: Optional[str] = None) -> ExecResult:
        body = ep.exec_body(command, env=env, cwd=cwd, timeout=timeout,
                            output_limit=output_limit, stdin=stdin)
        data, ctype = ep.json_body(body)
        return ExecResult.from_json(await self._t.json("POST", self._path("/exec"), data, ctype))

    async def stream(self, command: Command, **options: Any) -> AsyncIterator[StreamEvent]:
        data, ctype = ep.json_body(ep.exec_body(command, stream="ndjson", **options))
        async for event in self._t.lines("POST", self._path("/exec"), data, ctype,
                                         "application/x-ndjson"):
            yield StreamEvent.from_json(event)

    async def read_file(self, path: str) -> bytes:
        return await self._t.call("GET", ep.target(self._path("/files"), {"path": path}),
                                  accept="application/octet-stream")

    async def read_text(self, path: str) -> str:
        return (await self.read_file(path)).decode("utf-8")

    async def write_file(self, path: str, data: Union[bytes, str], *, mode: int = 0o644,
                         parents: bool = True) -> int:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        query = {"path": path, "mode": format(mode, "o"), "parents": parents}
        return (await self._t.json("PUT", ep.target(self._path("/files"), query), raw,
                                   "application/octet-stream"))["bytes"]

    async def list_files(self, path: str = "/workspace") -> List[FileEntry]:
        data = await self._t.json("GET", ep.target(self._path("/files"), {"path": path, "list": 1}))
        return [FileEntry(**e) for e in data["entries"]]

    async def remove_file(self, path: str, *, recursive: bool = False) -> None:
        await self._t.json("DELETE", ep.target(self._path("/files"),
                                               {"path": path, "recursive": recursive or None}))

    async def edit_file(self, path: str, old_str: str, new_str: str) -> None:
        data, ctype = ep.json_body({"path": path, "old_str": old_str, "new_str": new_str})
        await self._t.json("POST", self._path("/files/edit"), data, ctype)

    async def download(self, path: str) -> bytes:
        return await self._t.call("GET", ep.target(self._path("/archive"), {"path": path}),
                                  accept="application/x-tar")

    async def upload(self, directory: str, tar: bytes) -> Dict[str, Any]:
        return await self._t.json("PUT", ep.target(self._path("/archive"), {"path": directory}),
                                  tar, "application/x-tar")

    async def start_process(self, command: Command, *, interactive: bool = False,
                            **options: Any) -> "AsyncProcess":
        data, ctype = ep.json_body(ep.exec_body(command, detach=True, interactive=interactive,
                                                **options))
        info = ProcessInfo.from_json(await self._t.json("POST", self._path("/exec"), data, ctype))
        return AsyncProcess(self, info)

    async def processes(self) -> List["AsyncProcess"]:
        data = await self._t.json("GET", self._path("/processes"))
        return [AsyncProcess(self, ProcessInfo.from_json(p)) for p in data["processes"]]


class AsyncProcess:
    """A background process of a sandbox, for asyncio."""

    def __init__(self, sandbox: AsyncSandbox, info: ProcessInfo) -> None:
        self.sandbox, self.info, self.id = sandbox, info, info.id

    def _path(self, rest: str = "") -> str:
        return self.sandbox._path("/processes/" + self.id + rest)

    async def wait(self, timeout: Optional[float] = None) -> ProcessInfo:
        target = ep.target(self._path("/wait"), {"timeout": timeout})
        self.info = ProcessInfo.from_json(await self.sandbox._t.json("POST", target))
        return self.info

    async def kill(self, signal: Union[str, int] = "TERM") -> ProcessInfo:
        data, ctype = ep.json_body({"signal": signal})
        self.info = ProcessInfo.from_json(
            await self.sandbox._t.json("POST", self._path("/kill"), data, ctype))
        return self.info

    async def write_stdin(self, data: Union[bytes, str], *, close: bool = False) -> ProcessInfo:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        target = ep.target(self._path("/stdin"), {"close": close or None})
        self.info = ProcessInfo.from_json(
            await self.sandbox._t.json("POST", target, raw, "application/octet-stream"))
        return self.info

    async def logs(self, *, since: int = 0, follow: bool = False) -> ProcessLogs:
        target = ep.target(self._path("/logs"), {"since": since, "follow": follow or None})
        out: Dict[str, List[str]] = {"stdout": [], "stderr": []}
        nxt, process = since, None
        async for event in self.sandbox._t.lines("GET", target, None, None,
                                                 "application/x-ndjson"):
            if event["type"] in out:
                out[event["type"]].append(event["data"])
            elif event["type"] == "process":
                nxt, process = int(event["next"]), ProcessInfo.from_json(event["process"])
            elif event["type"] == "error":
                raise error_from_answer(503, json.dumps(event).encode())
        return ProcessLogs("".join(out["stdout"]), "".join(out["stderr"]), nxt, process)
