"""A mini-swe-agent environment backed by an agentbox sandbox.

mini-swe-agent (https://github.com/SWE-agent/mini-swe-agent) runs each action of its agent, a
bash command, through an *environment*: an object with a ``config``, ``execute(command, cwd="",
*, timeout=None) -> {"output": str, "returncode": int}`` and ``get_template_vars() -> dict``
(its LocalEnvironment and DockerEnvironment have exactly this shape). This class has it, so it
drops into mini-swe-agent's ``DefaultAgent(model, env)`` in place of DockerEnvironment:

    from minisweagent.agents.default import DefaultAgent
    agent = DefaultAgent(model, AgentboxEnvironment(memory="1G"), **agent_config)

It is written against that documented interface without importing mini-swe-agent: PyPI cannot
be reached where agentbox's CI runs, so `scripted_agent.py` drives it with mini-swe-agent's
loop and a scripted policy in place of the model. Each command runs in one persistent sandbox
(files carry over between steps, each command's process tree is killed when it ends), with
agentbox's limits instead of the host's shell.
"""
from __future__ import annotations

import platform
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Optional

from agentbox import Client, Sandbox


@dataclass
class AgentboxEnvironmentConfig:
    """What mini-swe-agent's yaml `environment:` section would hold for this environment."""

    cwd: str = "/workspace"
    env: Dict[str, str] = field(default_factory=dict)
    timeout: int = 60  # seconds per command: over it the command's whole tree is killed
    url: Optional[str] = None  # agentbox serve: unix:/path or http://host:port (None: default)
    token: Optional[str] = None
    policy: Dict[str, Any] = field(default_factory=dict)  # create keys: memory, pids, disk_limit...


class AgentboxEnvironment:
    def __init__(self, *, config_class: type = AgentboxEnvironmentConfig, **kwargs: Any) -> None:
        self.config = config_class(**kwargs)
        self.client = Client(self.config.url, token=self.config.token)
        self.sandbox = Sandbox(client=self.client, **self.config.policy)

    def execute(self, command: str, cwd: str = "", *, timeout: Optional[int] = None) -> Dict[str, Any]:
        """Runs `command` with sh -c in the sandbox (as mini-swe-agent's subprocess shell=True
        does), stderr into stdout as a terminal shows them. A timeout is a result (returncode
        124), which the model gets to see, not an exception."""
        result = self.sandbox.exec(["sh", "-c", "exec 2>&1\n" + command],
                                   cwd=cwd or self.config.cwd, env=self.config.env or None,
                                   timeout=timeout or self.config.timeout)
        output = result.stdout
        if result.reason == "timeout":
            output += f"\n[agentbox: the command timed out after {timeout or self.config.timeout} s]"
        elif result.limits_hit:
            output += f"\n[agentbox: limits hit: {', '.join(result.limits_hit)}]"
        return {"output": output, "returncode": result.exit_code}

    def get_template_vars(self) -> Dict[str, Any]:
        """What mini-swe-agent's prompt templates may name ({{system}}, {{cwd}}, ...)."""
        return asdict(self.config) | {"system": "Linux", "machine": platform.machine(),
                                      "sandbox": self.sandbox.id}

    def cleanup(self) -> None:
        if not getattr(self, "_removed", False):
            self._removed = True
            self.sandbox.remove(force=True)

    def __del__(self) -> None:  # as mini-swe-agent's DockerEnvironment: the box goes with us
        try:
            self.cleanup()
        except Exception:
            pass

