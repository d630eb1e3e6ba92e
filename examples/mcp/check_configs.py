"""Each MCP config snippet of this directory, as a client would use it: the command it names is
started (with `agentbox` replaced by $AGENTBOX, the binary under test), the MCP handshake is
made over stdio, and a `bash` tool call must run in a sandbox. Prints one line per config."""
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTBOX = os.environ.get("AGENTBOX", "agentbox")


def configs():
    for name in ("claude_desktop_config.json", "cursor-mcp.json"):
        server = json.load(open(os.path.join(HERE, name)))["mcpServers"]["agentbox"]
        yield name, [server["command"], *server["args"]]
    for line in open(os.path.join(HERE, "claude-code.sh")):
        if line.startswith("claude mcp add agentbox -- "):
            yield "claude-code.sh", shlex.split(line.split(" -- ", 1)[1])


def session(argv):
    if argv[0] != "agentbox":
        raise SystemExit(f"the config runs {argv[0]!r}, not agentbox")
    proc = subprocess.Popen([AGENTBOX, *argv[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)

    def ask(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        if "id" in msg:
            return json.loads(proc.stdout.readline())
        return None

    try:
        init = ask({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "examples", "version": "1"}}})
        assert init["result"]["serverInfo"]["name"], init
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = [t["name"] for t in ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]]
        assert "bash" in tools, tools
        call = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "bash", "arguments": {"command": "echo hello from $(hostname)"}}})
        text = "".join(c.get("text", "") for c in call["result"]["content"])
        assert "hello from sandbox" in text, call
        return tools
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def main():
    failed = 0
    for name, argv in configs():
        try:
            tools = session(argv)
            print(f"ok   {name}: {' '.join(argv)} -> {len(tools)} tools, bash ran in the sandbox")
        except Exception as e:  # noqa: BLE001 - one line per config, then the summary
            failed += 1
            print(f"FAIL {name}: {e!r}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
