"""What the API answers, typed: the exec result, stream events, files, background processes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class ExecResult:
    """One command's result (docs/contract.md §1). ``ok`` is ``exit_code == 0``."""

    exit_code: int
    signal: Optional[int]
    reason: str  # exited, signaled, timeout, oom, error
    duration_ms: float
    cpu_ms: float
    peak_memory_bytes: int
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    limits_hit: List[str]
    error: Optional[str] = None
    error_code: Optional[str] = None
    disk_limit: Optional[Dict[str, Any]] = None
    # {"egress": bool, "connections": [...]}: what the command did on the network (docs/api.md);
    # None when it never ran (reason "error").
    network: Optional[Dict[str, Any]] = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "ExecResult":
        return cls(
            exit_code=int(data["exit_code"]),
            signal=data.get("signal"),
            reason=str(data["reason"]),
            duration_ms=float(data.get("duration_ms", 0)),
            cpu_ms=float(data.get("cpu_ms", 0)),
            peak_memory_bytes=int(data.get("peak_memory_bytes", 0)),
            stdout=str(data.get("stdout", "")),
            stderr=str(data.get("stderr", "")),
            stdout_truncated=bool(data.get("stdout_truncated", False)),
            stderr_truncated=bool(data.get("stderr_truncated", False)),
            limits_hit=list(data.get("limits_hit", [])),
            error=data.get("error"),
            error_code=data.get("error_code"),
            disk_limit=data.get("disk_limit"),
            network=data.get("network"),
        )


@dataclass
class StreamEvent:
    """One event of a streamed exec: ``stdout``/``stderr`` with ``data``, last ``result``."""

    type: str
    data: str = ""
    result: Optional[ExecResult] = None

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "StreamEvent":
        result = data.get("result")
        return cls(type=str(data["type"]), data=str(data.get("data", "")),
                   result=ExecResult.from_json(result) if isinstance(result, dict) else None)


@dataclass
class FileEntry:
    """One entry of a directory listing."""

    name: str
    type: str  # file, dir, symlink, other
    size: int
    mode: int
    mtime: int


@dataclass
class ProcessInfo:
    """A background process (``detach``): ``result`` once it exited (without stdout/stderr)."""

    id: str
    argv: List[str]
    state: str  # running, exited
    started_at: float
    stdin_open: bool
    output_bytes: int
    dropped_bytes: int
    result: Optional[ExecResult] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "ProcessInfo":
        result = data.get("result")
        if isinstance(result, dict):
            result = ExecResult.from_json({"stdout": "", "stderr": "", **result})
        return cls(id=str(data["id"]), argv=list(data["argv"]), state=str(data["state"]),
                   started_at=float(data["started_at"]), stdin_open=bool(data["stdin_open"]),
                   output_bytes=int(data["output_bytes"]), dropped_bytes=int(data["dropped_bytes"]),
                   result=result, raw=data)


@dataclass
class ProcessLogs:
    """A background process's output as its log route streams it."""

    stdout: str
    stderr: str
    next: int  # the offset to ask `since` for next time
    process: Optional[ProcessInfo]
