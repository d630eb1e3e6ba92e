"""mini-swe-agent's loop over AgentboxEnvironment, a scripted policy standing in for the model.

The loop is mini-swe-agent's DefaultAgent in miniature: the model answers with one bash command
per step; the environment runs it and the output is the next observation; a command whose output
starts with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT ends the run with what follows as the
submission. The "model" here is a list of answers a model would give to fix a failing test, so
the run needs no network and no API key; the assertions check what the sandbox really did.
Run: AGENTBOX_URL=unix:/path/to/agentbox.sock python3 scripted_agent.py
"""
from __future__ import annotations

import re
from typing import Dict, List

from agentbox_environment import AgentboxEnvironment

TASK = "tests fail: fix calc.py so that `python3 test_calc.py` passes"

SCRIPT = [  # what a model answered, step by step (one ```bash block each)
    "```bash\ncat > calc.py <<'PY'\ndef add(a, b):\n    return a - b\nPY\n"
    "printf 'from calc import add\\nassert add(2, 3) == 5, add(2, 3)\\nprint(\"ok\")\\n' > test_calc.py\n```",
    "```bash\npython3 test_calc.py\n```",
    "```bash\nsed -i 's/a - b/a + b/' calc.py && python3 test_calc.py\n```",
    "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat calc.py\n```",
]


class ScriptedModel:
    """mini-swe-agent's Model interface (query(messages) -> {"content": ...}), scripted."""

    def __init__(self, answers: List[str]) -> None:
        self.answers = list(answers)
        self.n_calls = 0

    def query(self, messages: List[Dict[str, str]]) -> Dict[str, str]:
        self.n_calls += 1
        return {"content": self.answers.pop(0)}


def run(model: ScriptedModel, env: AgentboxEnvironment, task: str, step_limit: int = 10):
    messages = [{"role": "system", "content": "You run bash commands."},
                {"role": "user", "content": task}]
    observations = []
    for _ in range(step_limit):
        answer = model.query(messages)["content"]
        messages.append({"role": "assistant", "content": answer})
        actions = re.findall(r"```bash\s*\n(.*?)\n```", answer, re.DOTALL)
        if len(actions) != 1:
            raise RuntimeError("format error: want exactly one bash block")
        out = env.execute(actions[0])
        observations.append(out)
        lines = out["output"].lstrip().splitlines(keepends=True)
        if lines and lines[0].strip() == "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT":
            return "".join(lines[1:]), observations
        messages.append({"role": "user", "content": f"<returncode>{out['returncode']}</returncode>\n"
                                                    f"<output>\n{out['output']}</output>"})
    raise RuntimeError("step limit reached")


def main() -> None:
    # No .pyc: the fix lands in the same second as the first run, and a cached calc.pyc of the
    # same mtime would hide it from the next one.
    env = AgentboxEnvironment(timeout=30, env={"PYTHONDONTWRITEBYTECODE": "1"},
                              policy={"memory": "256M", "pids": 64})
    try:
        submission, obs = run(ScriptedModel(SCRIPT), env, TASK)
        assert obs[1]["returncode"] == 1 and "AssertionError: -1" in obs[1]["output"], obs[1]
        assert obs[2] == {"output": "ok\n", "returncode": 0}, obs[2]
        assert "return a + b" in submission, submission
        # The sandbox held: no network, the host's files out of reach, a runaway command cut.
        net = env.execute("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 2)'")
        assert net["returncode"] != 0, net
        assert env.execute("ls /root /home 2>&1; true")["output"].count("No such file") == 2
        slow = env.execute("sleep 30", timeout=1)
        assert slow["returncode"] == 124 and "timed out" in slow["output"], slow
        assert env.get_template_vars()["sandbox"] == env.sandbox.id
        print("mini-swe-agent environment: solved in", len(obs), "steps; submission:")
        print(submission, end="")
    finally:
        env.cleanup()


if __name__ == "__main__":
    main()
