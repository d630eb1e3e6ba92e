// @agentbox/client: a client for the agentbox HTTP API (`agentbox serve`), on fetch, Node 20+.
// Its types are generated from the server's OpenAPI document (src/generated/api.ts).
//
//   await Sandbox.with({ memory: "256M" }, async (sb) => {
//     const r = await sb.exec("echo hi");   // r.exit_code, r.stdout, r.reason
//   });
import type { components } from "./generated/api.js";
import { Unavailable } from "./errors.js";
import { Transport, type ClientOptions } from "./transport.js";

export * from "./errors.js";
export { unixSocketFetch, defaultSocket, type ClientOptions, type Fetch } from "./transport.js";
export type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];
export type ExecResult = Schemas["ExecResult"];
export type StreamEvent = Schemas["StreamEvent"];
export type SandboxInfo = Schemas["Sandbox"];
export type SandboxSummary = Schemas["SandboxSummary"];
export type ProcessInfo = Schemas["Process"];
export type FileEntry = Schemas["DirListing"]["entries"][number];
export type Extracted = Schemas["Extracted"];
/** The policy keys of a create (docs/policy.md) and an optional name. */
export type CreateOptions = Schemas["CreateSandbox"];

/** A command: argv, or a string run as `sh -c`. */
export type Command = string | string[];

export interface ExecOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Seconds, or a duration ("1.5s", "2m"). */
  timeout?: number | string;
  outputLimit?: number | string;
  stdin?: string;
}

function execBody(command: Command, options: ExecOptions = {}): Schemas["ExecRequest"] {
  const body: Schemas["ExecRequest"] = {
    argv: typeof command === "string" ? ["sh", "-c", command] : [...command],
  };
  if (options.env) body.env = options.env;
  if (options.cwd) body.cwd = options.cwd;
  if (options.timeout !== undefined) body.timeout = options.timeout;
  if (options.outputLimit !== undefined) body.output_limit = options.outputLimit;
  if (options.stdin !== undefined) body.stdin = options.stdin;
  return body;
}

const sandboxPath = (ref: string, rest = "") => `/v1/sandboxes/${encodeURIComponent(ref)}${rest}`;

/** One agentbox server. */
export class AgentboxClient {
  readonly transport: Transport;
  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
  }

  async health(): Promise<boolean> {
    const r = await this.transport.send("GET", "/healthz", { accept: "text/plain" });
    return (await r.text()).trim() === "ok";
  }

  async openapi(): Promise<Record<string, unknown>> {
    return this.transport.json("GET", "/v1/openapi.json");
  }

  /** The caller's sandboxes. */
  async list(): Promise<SandboxSummary[]> {
    return (await this.transport.json<Schemas["SandboxList"]>("GET", "/v1/sandboxes")).sandboxes;
  }

  /** A new sandbox: policy keys of docs/policy.md ({ memory: "256M", timeout: 30, name }). */
  async create(options: CreateOptions = {}): Promise<Sandbox> {
    const info = await this.transport.json<SandboxInfo>("POST", "/v1/sandboxes", { json: options });
    return new Sandbox(this, info);
  }

  /** An existing sandbox by id, unique id prefix or name. */
  async sandbox(ref: string): Promise<Sandbox> {
    return new Sandbox(this, await this.inspect(ref));
  }

  async inspect(ref: string): Promise<SandboxInfo> {
    return this.transport.json("GET", sandboxPath(ref));
  }

  async remove(ref: string, options: { force?: boolean } = {}): Promise<void> {
    await this.transport.json("DELETE", sandboxPath(ref), { query: { force: options.force || undefined } });
  }
}

/** One sandbox. `Sandbox.with(options, fn)` (or `await using`) removes it at the end. */
export class Sandbox {
  readonly id: string;
  info: SandboxInfo;
  constructor(readonly client: AgentboxClient, info: SandboxInfo) {
    this.info = info;
    this.id = info.id;
  }

  /** Creates a sandbox (on `client`, or a default one). */
  static async create(options: CreateOptions = {}, client = new AgentboxClient()): Promise<Sandbox> {
    return client.create(options);
  }

  /** Creates a sandbox, runs `fn` with it and removes it, with all it runs, however fn ends. */
  static async with<T>(options: CreateOptions, fn: (sb: Sandbox) => Promise<T>, client = new AgentboxClient()): Promise<T> {
    const sb = await client.create(options);
    try {
      return await fn(sb);
    } finally {
      await sb.remove({ force: true });
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.remove({ force: true });
  }

  private get t(): Transport {
    return this.client.transport;
  }

  private path(rest = ""): string {
    return sandboxPath(this.id, rest);
  }

  async inspect(): Promise<SandboxInfo> {
    this.info = await this.t.json("GET", this.path());
    return this.info;
  }

  /** Kills everything in it and removes it; a busy one needs force (else Conflict, 409). */
  async remove(options: { force?: boolean } = {}): Promise<void> {
    await this.t.json("DELETE", this.path(), { query: { force: options.force || undefined } });
  }

  /** Runs one command and returns its result; a failing command is a result, not an error. */
  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    return this.t.json("POST", this.path("/exec"), { json: execBody(command, options) });
  }

  /** Output events as they come, then one `result` event. Breaking out early kills the command. */
  async *stream(command: Command, options: ExecOptions = {}): AsyncGenerator<StreamEvent> {
    const json = { ...execBody(command, options), stream: "ndjson" as const };
    yield* this.t.lines<StreamEvent>("POST", this.path("/exec"), { json, accept: "application/x-ndjson" });
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.t.bytes("GET", this.path("/files"), { query: { path }, accept: "application/octet-stream" });
  }

  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.readFile(path));
  }

  async writeFile(path: string, data: Uint8Array | string, options: { mode?: number; parents?: boolean } = {}): Promise<number> {
    const query = { path, mode: (options.mode ?? 0o644).toString(8), parents: options.parents ?? true };
    const written = await this.t.json<Schemas["Written"]>("PUT", this.path("/files"), { query, bytes: data });
    return written.bytes ?? 0;
  }

  async listFiles(path = "/workspace"): Promise<FileEntry[]> {
    return (await this.t.json<Schemas["DirListing"]>("GET", this.path("/files"), { query: { path, list: 1 } })).entries;
  }

  async removeFile(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    await this.t.json("DELETE", this.path("/files"), { query: { path, recursive: options.recursive || undefined } });
  }

  /** Replaces the one occurrence of oldStr (none or several: InvalidArgument). */
  async editFile(path: string, oldStr: string, newStr: string): Promise<void> {
    await this.t.json("POST", this.path("/files/edit"), { json: { path, old_str: oldStr, new_str: newStr } });
  }

  /** A file or directory tree as a tar stream. */
  async download(path: string): Promise<Uint8Array> {
    return this.t.bytes("GET", this.path("/archive"), { query: { path }, accept: "application/x-tar" });
  }

  /** Extracts a tar stream into an existing directory. */
  async upload(directory: string, tar: Uint8Array): Promise<Extracted> {
    return this.t.json("PUT", this.path("/archive"), { query: { path: directory }, bytes: tar, type: "application/x-tar" });
  }

  /** Starts a background process (`agentbox exec -d`) and returns at once. */
  async start(command: Command, options: ExecOptions & { interactive?: boolean } = {}): Promise<Process> {
    const json = { ...execBody(command, options), detach: true, interactive: options.interactive || undefined };
    return new Process(this, await this.t.json<ProcessInfo>("POST", this.path("/exec"), { json }));
  }

  async processes(): Promise<Process[]> {
    const list = await this.t.json<Schemas["ProcessList"]>("GET", this.path("/processes"));
    return list.processes.map((p) => new Process(this, p));
  }
}

/** A background process of a sandbox. */
export class Process {
  readonly id: string;
  constructor(readonly sandbox: Sandbox, public info: ProcessInfo) {
    this.id = info.id;
  }

  private path(rest = ""): string {
    return sandboxPath(this.sandbox.id, `/processes/${this.id}${rest}`);
  }

  private get t(): Transport {
    return this.sandbox.client.transport;
  }

  /** Until it exits, or `timeout` seconds (then still running). */
  async wait(timeout?: number): Promise<ProcessInfo> {
    return (this.info = await this.t.json("POST", this.path("/wait"), { query: { timeout } }));
  }

  async kill(signal: string | number = "TERM"): Promise<ProcessInfo> {
    return (this.info = await this.t.json("POST", this.path("/kill"), { json: { signal } }));
  }

  async writeStdin(data: Uint8Array | string, options: { close?: boolean } = {}): Promise<ProcessInfo> {
    return (this.info = await this.t.json("POST", this.path("/stdin"), { query: { close: options.close || undefined }, bytes: data }));
  }

  /** Its output so far (follow: until it exits), and the offset to ask `since` for next. */
  async logs(options: { since?: number; follow?: boolean } = {}): Promise<{ stdout: string; stderr: string; next: number }> {
    const out = { stdout: "", stderr: "", next: options.since ?? 0 };
    const query = { since: options.since, follow: options.follow || undefined };
    for await (const event of this.t.lines<Schemas["ProcessLogEvent"]>("GET", this.path("/logs"), { query, accept: "application/x-ndjson" })) {
      if (event.type === "stdout" || event.type === "stderr") out[event.type] += event.data ?? "";
      if (event.type === "process") {
        out.next = event.next ?? out.next;
        if (event.process) this.info = event.process;
      }
      if (event.type === "error") throw new Unavailable(event.error ?? "the log stream failed", event.code ?? "unavailable", 503);
    }
    return out;
  }
}
