"""agentbox: a client for the agentbox HTTP API (``agentbox serve``), standard library only.

    from agentbox import Sandbox
    with Sandbox(memory="256M") as sb:
        print(sb.exec("echo hi").stdout)

The server: ``unix:/path`` or ``http://host:port`` (``Client(url, token=...)``), by default
$AGENTBOX_URL or the default socket of ``agentbox serve``; a token from $AGENTBOX_TOKEN.
"""
from .aio import AsyncClient, AsyncProcess, AsyncSandbox
from .client import Client, Process, Sandbox
from .errors import (AgentboxError, Conflict, Internal, InvalidArgument, NotFound,
                     PermissionDenied, ResourceExhausted, Unauthenticated, Unavailable)
from .models import ExecResult, FileEntry, ProcessInfo, ProcessLogs, StreamEvent

__version__ = "0.1.0"
__all__ = [
    "AgentboxError", "AsyncClient", "AsyncProcess", "AsyncSandbox", "Client", "Conflict",
    "ExecResult", "FileEntry", "Internal", "InvalidArgument", "NotFound", "PermissionDenied",
    "Process", "ProcessInfo", "ProcessLogs", "ResourceExhausted", "Sandbox", "StreamEvent",
    "Unauthenticated", "Unavailable",
]
