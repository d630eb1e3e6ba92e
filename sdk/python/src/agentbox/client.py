"""The blocking client: ``Client`` (the server) and ``Sandbox`` (one sandbox), both context
managers; ``with Sandbox(memory="256M") as sb:`` makes a sandbox and removes it at the end.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from . import _endpoint as ep
from ._sync import Transport
from .errors import error_from_answer
from .models import ExecResult, FileEntry, ProcessInfo, ProcessLogs, StreamEvent

Command = Union[str, Sequence[str]]


class Client:
    """One agentbox server. ``url``: ``unix:/path`` or ``http://host:port`` (default: $AGENTBOX_URL,
    else the default socket); ``token``: the bearer token (default: $AGENTBOX_TOKEN)."""

    def __init__(self, url: Optional[str] = None, *, token: Optional[str] = None,
                 timeout: Optional[float] = None) -> None:
        self._t = Transport(ep.parse_endpoint(url, token), timeout)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def health(self) -> bool:
        return self._t.call("GET", "/healthz", accept="text/plain").strip() == b"ok"

    def openapi(self) -> Dict[str, Any]:
        return self._t.json("GET", "/v1/openapi.json")

    def list(self) -> List[Dict[str, Any]]:
        """The caller's sandboxes: id, name, backend, state, created_at, workspace."""
        return self._t.json("GET", "/v1/sandboxes")["sandboxes"]

    def create(self, *, name: Optional[str] = None, **policy: Any) -> "Sandbox":
        """A new sandbox; ``policy``: keys of docs/policy.md (memory="256M", timeout=30, env=...)."""
        return Sandbox(client=self, name=name, **policy)

    def sandbox(self, ref: str) -> "Sandbox":
        """An existing sandbox by id, unique id prefix or name."""
        return Sandbox(client=self, _info=self.inspect(ref))

    def inspect(self, ref: str) -> Dict[str, Any]:
        return self._t.json("GET", ep.sandbox_path(ref))

    def remove(self, ref: str, *, force: bool = False) -> None:
        self._t.json("DELETE", ep.target(ep.sandbox_path(ref), {"force": force or None}))


class Sandbox:
    """One sandbox. ``Sandbox(**policy)`` creates one (on ``client`` or a default ``Client()``);
    as a context manager it is removed, with whatever still runs in it, at the end."""

    def __init__(self, *, client: Optional[Client] = None, name: Optional[str] = None,
                 _info: Optional[Dict[str, Any]] = None, **policy: Any) -> None:
        self.client = client or Client()
        if _info is None:
            body, ctype = ep.json_body(ep.create_body(name, policy))
            _info = self.client._t.json("POST", "/v1/sandboxes", body, ctype)
        self.info: Dict[str, Any] = _info
        self.id: str = _info["id"]

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove(force=True)

    def __repr__(self) -> str:
        return f"Sandbox({self.id!r})"

    @property
    def _t(self) -> Transport:
        return self.client._t

    def _path(self, rest: str = "") -> str:
        return ep.sandbox_path(self.id, rest)

    def inspect(self) -> Dict[str, Any]:
        self.info = self._t.json("GET", self._path())
        return self.info

    def remove(self, *, force: bool = False) -> None:
        """Kills everything in it and removes it; a busy one needs ``force`` (else ``Conflict``)."""
        self._t.json("DELETE", ep.target(self._path(), {"force": force or None}))

    def exec(self, command: Command, *, env: Optional[Mapping[str, str]] = None,
             cwd: Optional[str] = None, timeout: Optional[Any] = None,
             output_limit: Optional[Any] = None, stdin: Optional[str] = None) -> ExecResult:
        """Runs one command (a string runs as ``sh -c``) and returns its result; a command that
        fails is a result, not an exception (its ``exit_code`` and ``reason`` say how)."""
        body = ep.exec_body(command, env=env, cwd=cwd, timeout=timeout,
                            output_limit=output_limit, stdin=stdin)
        data, ctype = ep.json_body(body)
        return ExecResult.from_json(self._t.json("POST", self._path("/exec"), data, ctype))

    def stream(self, command: Command, **options: Any) -> Iterator[StreamEvent]:
        """Runs one command, yielding its output as it comes (``stdout``/``stderr`` events),
        then one ``result`` event. Leaving the loop early kills the command's process tree."""
        data, ctype = ep.json_body(ep.exec_body(command, stream="ndjson", **options))
        for event in self._t.lines("POST", self._path("/exec"), data, ctype,
                                   "application/x-ndjson"):
            yield StreamEvent.from_json(event)

    # ---- files beneath /workspace ----

    def read_file(self, path: str) -> bytes:
        return self._t.call("GET", ep.target(self._path("/files"), {"path": path}),
                            accept="application/octet-stream")

    def read_text(self, path: str) -> str:
        return self.read_file(path).decode("utf-8")

    def write_file(self, path: str, data: Union[bytes, str], *, mode: int = 0o644,
                   parents: bool = True) -> int:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        query = {"path": path, "mode": format(mode, "o"), "parents": parents}
        return self._t.json("PUT", ep.target(self._path("/files"), query), raw,
                            "application/octet-stream")["bytes"]

    def list_files(self, path: str = "/workspace") -> List[FileEntry]:
        data = self._t.json("GET", ep.target(self._path("/files"), {"path": path, "list": 1}))
        return [FileEntry(**e) for e in data["entries"]]

    def remove_file(self, path: str, *, recursive: bool = False) -> None:
        self._t.json("DELETE", ep.target(self._path("/files"),
                                         {"path": path, "recursive": recursive or None}))

    def edit_file(self, path: str, old_str: str, new_str: str) -> None:
        """Replaces the one occurrence of ``old_str`` (none or several: ``InvalidArgument``)."""
        data, ctype = ep.json_body({"path": path, "old_str": old_str, "new_str": new_str})
        self._t.json("POST", self._path("/files/edit"), data, ctype)

    def download(self, path: str) -> bytes:
        """A file or directory tree as a tar stream (``tarfile.open(fileobj=io.BytesIO(...))``)."""
        return self._t.call("GET", ep.target(self._path("/archive"), {"path": path}),
                            accept="application/x-tar")

    def upload(self, directory: str, tar: bytes) -> Dict[str, Any]:
        """Extracts a tar stream into an existing directory: {"files", "directories", "bytes"}."""
        return self._t.json("PUT", ep.target(self._path("/archive"), {"path": directory}), tar,
                            "application/x-tar")

    # ---- background processes ----

    def start(self, command: Command, *, interactive: bool = False,
              **options: Any) -> "Process":
        """Starts a background process (`agentbox exec -d`) and returns at once."""
        data, ctype = ep.json_body(ep.exec_body(command, detach=True, interactive=interactive,
                                                **options))
        info = ProcessInfo.from_json(self._t.json("POST", self._path("/exec"), data, ctype))
        return Process(self, info)

    def processes(self) -> List["Process"]:
        data = self._t.json("GET", self._path("/processes"))
        return [Process(self, ProcessInfo.from_json(p)) for p in data["processes"]]


class Process:
    """A background process of a sandbox."""

    def __init__(self, sandbox: Sandbox, info: ProcessInfo) -> None:
        self.sandbox = sandbox
        self.info = info
        self.id = info.id

    def __repr__(self) -> str:
        return f"Process({self.sandbox.id!r}, {self.id!r}, {self.info.state!r})"

    def _path(self, rest: str = "") -> str:
        return self.sandbox._path("/processes/" + self.id + rest)

    def refresh(self) -> ProcessInfo:
        self.info = ProcessInfo.from_json(self.sandbox._t.json("GET", self._path()))
        return self.info

    def wait(self, timeout: Optional[float] = None) -> ProcessInfo:
        """Until it exits (or ``timeout`` seconds: then still ``running``)."""
        target = ep.target(self._path("/wait"), {"timeout": timeout})
        self.info = ProcessInfo.from_json(self.sandbox._t.json("POST", target))
        return self.info

    def kill(self, signal: Union[str, int] = "TERM") -> ProcessInfo:
        data, ctype = ep.json_body({"signal": signal})
        self.info = ProcessInfo.from_json(self.sandbox._t.json("POST", self._path("/kill"), data,
                                                               ctype))
        return self.info

    def write_stdin(self, data: Union[bytes, str], *, close: bool = False) -> ProcessInfo:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        target = ep.target(self._path("/stdin"), {"close": close or None})
        self.info = ProcessInfo.from_json(self.sandbox._t.json("POST", target, raw,
                                                               "application/octet-stream"))
        return self.info

    def logs(self, *, since: int = 0, follow: bool = False) -> ProcessLogs:
        target = ep.target(self._path("/logs"), {"since": since, "follow": follow or None})
        out: Dict[str, List[str]] = {"stdout": [], "stderr": []}
        nxt, process = since, None
        for event in self.sandbox._t.lines("GET", target, None, None, "application/x-ndjson"):
            if event["type"] in out:
                out[event["type"]].append(event["data"])
            elif event["type"] == "process":
                nxt, process = int(event["next"]), ProcessInfo.from_json(event["process"])
            elif event["type"] == "error":
                raise error_from_answer(503, json.dumps(event).encode())
        return ProcessLogs("".join(out["stdout"]), "".join(out["stderr"]), nxt, process)
