// The OpenAI Agents SDK (@openai/agents, from npm) with agentbox as its shell. A scripted Model
// stands in for the LLM: it answers the Runner's requests with the tool calls a model would
// make, so the real agent loop (tool dispatch, outputs fed back, final output) runs in CI with
// no network and no API key. Run: AGENTBOX_URL=unix:/path/agentbox.sock node openai-agents.mjs
import assert from "node:assert/strict";
import { Agent, Runner, Usage, setTracingDisabled } from "@openai/agents";
import { Sandbox } from "@agentbox/client";

import { AgentboxShell, agentboxOpenAITool } from "./agentbox-tools.mjs";

setTracingDisabled(true);

// The Model interface of @openai/agents-core: each getResponse is one model turn.
class ScriptedModel {
  constructor(turns) {
    this.turns = turns;
    this.requests = [];
  }
  async getResponse(request) {
    this.requests.push(request);
    return { usage: new Usage(), output: this.turns.shift()(request), responseId: `r${this.requests.length}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error("the scripted model does not stream");
  }
}

const call = (callId, command) => [
  { type: "function_call", callId, name: "bash", arguments: JSON.stringify({ command, timeout: null }), status: "completed" },
];
const say = (text) => [
  { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] },
];
// (python3 -B: no calc.pyc, whose mtime, the second of the first run, could hide the fix.)
// The output the Runner fed back for a call, from the input of the next request.
const outputOf = (request, callId) => {
  const item = request.input.find((i) => i.type === "function_call_result" && i.callId === callId);
  return typeof item.output === "string" ? item.output : item.output.text;
};

await Sandbox.with({ memory: "256M" }, async (sandbox) => {
  const model = new ScriptedModel([
    () => call("c1", "printf 'def add(a, b):\\n    return a - b\\n' > calc.py && python3 -B -c 'import calc; print(calc.add(2, 3))'"),
    (req) => (outputOf(req, "c1").includes("-1") ? call("c2", "sed -i 's/a - b/a + b/' calc.py && python3 -B -c 'import calc; print(calc.add(2, 3))'") : say("unexpected")),
    (req) => call("c3", outputOf(req, "c2").includes("\n5\n") ? "curl -sS --max-time 3 http://example.com || echo offline" : "false"),
    (req) => say(`fixed: add(2, 3) is 5; network: ${outputOf(req, "c3").includes("offline") ? "none" : "reachable"}`),
  ]);
  const agent = new Agent({ name: "fixer", instructions: "Fix calc.py.", model, tools: [agentboxOpenAITool(sandbox)] });
  const result = await new Runner({ tracingDisabled: true }).run(agent, "add(2, 3) should be 5", { maxTurns: 8 });
  assert.equal(result.finalOutput, "fixed: add(2, 3) is 5; network: none");
  assert.equal(model.requests.length, 4);
  assert.match(await sandbox.readText("calc.py"), /return a \+ b/);

  // The Shell interface, as shellTool({ shell }) would call it for a model's shell_call.
  const shell = new AgentboxShell(sandbox);
  const out = await shell.run({ commands: ["cat calc.py | wc -l", "sleep 5"], timeoutMs: 500 });
  assert.deepEqual(out.output.map((o) => o.outcome.type), ["exit", "timeout"]);
  assert.equal(out.output[0].stdout.trim(), "2");
  console.log(`openai-agents: ${result.finalOutput} (${model.requests.length} model turns)`);
});
