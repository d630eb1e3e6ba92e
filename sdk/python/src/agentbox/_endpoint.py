"""Where the server is and how to ask it: shared by the sync and asyncio transports."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import quote, urlencode, urlsplit


@dataclass(frozen=True)
class Endpoint:
    """A unix socket path, or a TCP host and port; with a bearer token or none."""

    unix_path: Optional[str]
    host: str
    port: int
    token: Optional[str]

    @property
    def host_header(self) -> str:
        # A unix socket takes any host name; TCP wants the loopback name it listens on.
        if self.unix_path is not None:
            return "localhost"
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def default_socket() -> str:
    """The socket `agentbox serve` listens on by default (docs/api.md, Listening)."""
    if os.path.exists("/run/agentbox/agentbox.sock"):  # the systemd unit's
        return "/run/agentbox/agentbox.sock"
    state = os.environ.get("AGENTBOX_STATE_DIR")
    if not state:
        if os.geteuid() == 0:
            state = "/var/lib/agentbox"
        else:
            base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
            state = os.path.join(base, "agentbox")
    return os.path.join(state, "agentbox.sock")


def parse_endpoint(url: Optional[str], token: Optional[str]) -> Endpoint:
    """``unix:/path``, ``http://host:port``, or None: $AGENTBOX_URL, else the default socket."""
    url = url or os.environ.get("AGENTBOX_URL") or "unix:" + default_socket()
    token = token if token is not None else os.environ.get("AGENTBOX_TOKEN")
    if url.startswith("unix:"):
        return Endpoint(url[len("unix:"):], "localhost", 0, token)
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"agentbox: want unix:/path or http://host:port, got {url!r}")
    return Endpoint(None, parts.hostname, parts.port or 80, token)


def target(path: str, query: Optional[Mapping[str, Any]] = None) -> str:
    """The request target: the path, and the query with booleans as true/false."""
    if not query:
        return path
    items = {k: ("true" if v is True else "false" if v is False else v)
             for k, v in query.items() if v is not None}
    return path + ("?" + urlencode(items) if items else "")


def sandbox_path(sandbox: str, rest: str = "") -> str:
    return "/v1/sandboxes/" + quote(sandbox, safe="") + rest


def headers(endpoint: Endpoint, content_type: Optional[str], length: Optional[int],
            accept: str = "application/json") -> Dict[str, str]:
    h = {"Host": endpoint.host_header, "Accept": accept, "User-Agent": "agentbox-python/0.1.0"}
    if endpoint.token:
        h["Authorization"] = "Bearer " + endpoint.token
    if content_type:
        h["Content-Type"] = content_type
    if length is not None:
        h["Content-Length"] = str(length)
    return h


def json_body(body: Any) -> Tuple[Optional[bytes], Optional[str]]:
    if body is None:
        return None, None
    return json.dumps(body).encode("utf-8"), "application/json"


def exec_body(argv: Any, *, env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
              timeout: Optional[Any] = None, output_limit: Optional[Any] = None,
              stdin: Optional[str] = None, stream: Optional[str] = None,
              detach: bool = False, interactive: bool = False) -> Dict[str, Any]:
    """The body of POST .../exec; a string command runs as ``sh -c``."""
    if isinstance(argv, str):
        argv = ["sh", "-c", argv]
    body: Dict[str, Any] = {"argv": list(argv)}
    for key, value in (("env", dict(env) if env else None), ("cwd", cwd), ("timeout", timeout),
                       ("output_limit", output_limit), ("stdin", stdin), ("stream", stream)):
        if value is not None:
            body[key] = value
    if detach:
        body["detach"] = True
    if interactive:
        body["interactive"] = True
    return body


def create_body(name: Optional[str], policy: Mapping[str, Any]) -> Dict[str, Any]:
    body = {k: v for k, v in policy.items() if v is not None}
    if name is not None:
        body["name"] = name
    return body
