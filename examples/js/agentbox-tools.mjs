// agentbox as the shell of JS agent frameworks: each tool runs its command in an agentbox
// sandbox (through @agentbox/client and `agentbox serve`) instead of on the host.
import { tool as openaiTool } from "@openai/agents";
import { tool as langchainTool } from "@langchain/core/tools";
import { z } from "zod";

const description =
  "Run a shell command (sh -c) in a sandbox: no network, /workspace is the only writable " +
  "directory and persists between calls, limits on time, memory and processes.";

// What the model reads back: the exit status, how it ended, and the output.
function observation(r) {
  const limits = r.limits_hit.length ? ` limits_hit=${r.limits_hit.join(",")}` : "";
  return `exit_code=${r.exit_code} reason=${r.reason}${limits}\n${r.stdout}${r.stderr}`;
}

/** An OpenAI Agents SDK function tool `bash` that runs in `sandbox`. */
export function agentboxOpenAITool(sandbox, { timeout = 60 } = {}) {
  return openaiTool({
    name: "bash",
    description,
    parameters: z.object({
      command: z.string().describe("the shell command"),
      timeout: z.number().nullable().describe("seconds; null: the default"),
    }),
    execute: async ({ command, timeout: t }) =>
      observation(await sandbox.exec(command, { timeout: t ?? timeout })),
  });
}

/**
 * The OpenAI Agents SDK's Shell interface (for `shellTool({ shell })`, the hosted shell tool's
 * local executor): each command of a shell_call runs in `sandbox`.
 */
export class AgentboxShell {
  constructor(sandbox) {
    this.sandbox = sandbox;
  }
  async run(action) {
    const output = [];
    for (const command of action.commands) {
      const r = await this.sandbox.exec(command, {
        timeout: action.timeoutMs ? action.timeoutMs / 1000 : undefined,
        outputLimit: action.maxOutputLength,
      });
      output.push({
        stdout: r.stdout,
        stderr: r.stderr,
        outcome: r.reason === "timeout" ? { type: "timeout" } : { type: "exit", exitCode: r.exit_code },
      });
    }
    return { output, maxOutputLength: action.maxOutputLength };
  }
}

/** A LangChain tool `bash` that runs in `sandbox`. */
export function agentboxLangChainTool(sandbox, { timeout = 60 } = {}) {
  return langchainTool(
    async ({ command }) => observation(await sandbox.exec(command, { timeout })),
    { name: "bash", description, schema: z.object({ command: z.string().describe("the shell command") }) },
  );
}
