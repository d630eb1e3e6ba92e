// LangChain.js (langchain's createAgent, from npm) with agentbox as its bash tool. A scripted
// chat model stands in for the LLM: it returns the tool calls a model would make, so LangChain's
// real agent loop (tool node, ToolMessages fed back) runs in CI with no network.
// Run: AGENTBOX_URL=unix:/path/agentbox.sock node langchain.mjs
import assert from "node:assert/strict";
import { createAgent } from "langchain";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Sandbox } from "@agentbox/client";

import { agentboxLangChainTool } from "./agentbox-tools.mjs";

class ScriptedChatModel extends BaseChatModel {
  constructor(turns) {
    super({});
    this.turns = turns;
    this.calls = 0;
  }
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    this.calls += 1;
    const message = this.turns.shift()(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

const bash = (id, command) => new AIMessage({ content: "", tool_calls: [{ id, name: "bash", args: { command }, type: "tool_call" }] });
const lastTool = (messages) => messages.filter((m) => ToolMessage.isInstance(m)).at(-1).content;

await Sandbox.with({}, async (sandbox) => {
  let answer = "";
  const model = new ScriptedChatModel([
    () => bash("t1", "mkdir -p proj && cd proj && printf 'x = 1\\n' > a.py && ls"),
    (m) => bash("t2", lastTool(m).includes("a.py") ? "cd proj && python3 -c 'import a; print(a.x + 41)'" : "false"),
    (m) => {
      answer = lastTool(m).split("\n")[1];
      return bash("t3", "kill -9 $$"); // a command killed by a signal: a result too
    },
    () => new AIMessage(`answer: ${answer}`),
  ]);
  const agent = createAgent({ model, tools: [agentboxLangChainTool(sandbox)] });
  const state = await agent.invoke({ messages: [new HumanMessage("What is a.x + 41?")] });
  const tools = state.messages.filter((msg) => ToolMessage.isInstance(msg));
  assert.equal(tools.length, 3);
  assert.match(tools[1].content, /^exit_code=0 reason=exited\n42\n/);
  assert.match(tools[2].content, /^exit_code=137 reason=signaled/);
  assert.equal(state.messages.at(-1).content, "answer: 42");
  assert.equal(model.calls, 4);
  console.log(`langchain: ${state.messages.at(-1).content} (${tools.length} tool calls)`);
});
