"""Errors of the agentbox API, as exceptions: one class per API error code (docs/api.md, Errors).

Every error the server answers is JSON ``{"error": "one line", "code": "not_found"}``; the
exception carries both, and the HTTP status.
"""
from __future__ import annotations

from typing import Dict, Optional, Type


class AgentboxError(Exception):
    """An error answer of the API (or a transport failure: ``code`` ``"unavailable"``)."""

    def __init__(self, message: str, code: str = "internal", status: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, status={self.status})"


class InvalidArgument(AgentboxError):
    """400: a bad body, key or value."""


class Unauthenticated(AgentboxError):
    """401: no token, or a wrong one."""


class PermissionDenied(AgentboxError):
    """403: a path escaping /workspace, a host path the server does not take."""


class NotFound(AgentboxError):
    """404: no such sandbox, file, process or route (or another tenant's)."""


class Conflict(AgentboxError):
    """409: a name the tenant already has (already_exists), a busy sandbox (failed_precondition)."""


class ResourceExhausted(AgentboxError):
    """413 / 429: too large, or over a quota (retry after a while)."""


class Unavailable(AgentboxError):
    """503: the sandbox is dead, the host cannot make one; or the server cannot be reached."""


class Internal(AgentboxError):
    """500: a bug."""


_BY_CODE: Dict[str, Type[AgentboxError]] = {
    "invalid_argument": InvalidArgument,
    "permission_denied": PermissionDenied,
    "not_found": NotFound,
    "already_exists": Conflict,
    "failed_precondition": Conflict,
    "resource_exhausted": ResourceExhausted,
    "unavailable": Unavailable,
    "internal": Internal,
}


def error_from_answer(status: int, body: bytes, fallback: Optional[str] = None) -> AgentboxError:
    """The exception for an error answer: its JSON body's code, else the status's meaning."""
    import json

    message, code = fallback or f"HTTP {status}", ""
    try:
        data = json.loads(body.decode("utf-8"))
        if isinstance(data, dict):
            message = str(data.get("error", message))
            code = str(data.get("code", ""))
    except (ValueError, UnicodeDecodeError):
        if body:
            message = body.decode("utf-8", "replace").strip() or message
    if status == 401:
        return Unauthenticated(message, code or "unauthenticated", status)
    cls = _BY_CODE.get(code)
    if cls is None:
        cls = {400: InvalidArgument, 403: PermissionDenied, 404: NotFound, 409: Conflict,
               413: ResourceExhausted, 429: ResourceExhausted, 503: Unavailable}.get(status, Internal)
    return cls(message, code or "internal", status)
