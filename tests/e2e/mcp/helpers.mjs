// Shared set-up for the MCP end-to-end tests: the agentbox binary, a private state dir, and a
// connected client of the official MCP TypeScript SDK (over stdio, or over Streamable HTTP to
// `agentbox serve`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const AGENTBOX = process.env.AGENTBOX || path.resolve(here, '../../../build/agentbox');

// Each test file gets its own state dir under /tmp, so `agentbox ls` sees only its sandboxes.
export function makeStateDir() {
  return mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-mcp-'));
}

export function removeStateDir(stateDir) {
  spawnSync(AGENTBOX, ['gc'], { env: { ...process.env, AGENTBOX_STATE_DIR: stateDir } });
  rmSync(stateDir, { recursive: true, force: true });
}

export function agentbox(stateDir, args) {
  return execFileSync(AGENTBOX, args, {
    env: { ...process.env, AGENTBOX_STATE_DIR: stateDir },
    encoding: 'utf8',
  });
}

export function listSandboxes(stateDir) {
  return JSON.parse(agentbox(stateDir, ['ls', '--json']));
}

// Why a host cannot run these tests (no namespaces, no cgroups...), or '' when it can.
export function skipReason() {
  const probe = spawnSync(AGENTBOX, ['run', '--', 'true'], { encoding: 'utf8' });
  if (probe.error) return `cannot run ${AGENTBOX}: ${probe.error.message}`;
  if (probe.status !== 0) return `this host cannot make sandboxes: ${probe.stderr.trim()}`;
  return '';
}

export async function connect(stateDir, extraArgs = []) {
  const transport = new StdioClientTransport({
    command: AGENTBOX,
    args: ['mcp', ...extraArgs],
    env: { ...process.env, AGENTBOX_STATE_DIR: stateDir },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'agentbox-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

// `agentbox serve` on a free loopback TCP port (the SDK speaks HTTP over TCP only). Resolves to
// { url, stop }: url is the /mcp endpoint; stop() sends SIGTERM and waits for the exit status.
export function startServe(stateDir, extraArgs = []) {
  // No tokens here: loopback only, which the server refuses without --insecure-no-auth.
  const child = spawn(AGENTBOX, ['serve', '--listen', 'tcp:127.0.0.1:0', '--insecure-no-auth', ...extraArgs], {
    env: { ...process.env, AGENTBOX_STATE_DIR: stateDir },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr.on('data', (d) => {
      log += d;
      const m = /listening on tcp:127\.0\.0\.1:(\d+)/.exec(log);
      if (!m || !resolve) return;
      const url = new URL(`http://127.0.0.1:${m[1]}/mcp`);
      const stop = () => { child.kill('SIGTERM'); return exited; };
      resolve({ url, stop, log: () => log });
      resolve = null;
    });
    exited.then((code) => reject(new Error(`agentbox serve exited ${code}: ${log}`)));
  });
}

// A client connected over Streamable HTTP. `seen` records each answer's method and Content-Type,
// so a test can tell a streamed answer from a plain JSON one.
export async function connectHttp(url) {
  const seen = [];
  const recordingFetch = async (input, init) => {
    const response = await fetch(input, init);
    let method = init?.method ?? 'GET';
    try { method = JSON.parse(init.body).method ?? method; } catch { /* GET, DELETE */ }
    seen.push({ method, status: response.status, type: response.headers.get('content-type') });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(url, { fetch: recordingFetch });
  const client = new Client({ name: 'agentbox-e2e-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, seen };
}

export function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// Host processes whose command line is exactly `args`.
export function hostProcesses(args) {
  const out = spawnSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((line) => line.trim() === args);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- The 2026-07-28 revision (stateless): the official SDK v2 client, and raw requests. ---

export const MODERN = '2026-07-28';

// A client of the SDK v2 (@modelcontextprotocol/client) pinned to 2026-07-28: it probes with
// server/discover and then sends every request with the per-request _meta envelope.
export async function connectModern(target) {
  const v2 = await import('@modelcontextprotocol/client');
  let transport;
  if (target instanceof URL) {
    transport = new v2.StreamableHTTPClientTransport(target);
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    transport = new StdioClientTransport({
      command: AGENTBOX, args: ['mcp', ...(target.args ?? [])],
      env: { ...process.env, AGENTBOX_STATE_DIR: target.stateDir }, stderr: 'inherit',
    });
  }
  const client = new v2.Client({ name: 'agentbox-e2e-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport);
  return { client, transport, v2 };
}

// The _meta a 2026-07-28 request carries; `extra` adds to it (a logLevel, a progressToken).
export function modernMeta({ tasks = false, ...extra } = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities':
      tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
    ...extra,
  };
}

let rawId = 1000;

// One 2026-07-28 request POSTed as a conforming client sends it (headers mirroring the body);
// `headers` overrides them. Resolves to { status, body } (body: the JSON-RPC message, the last
// one of an SSE answer) and `messages` (every message of the answer).
export async function postModern(url, method, params = {}, { headers = {}, meta = {} } = {}) {
  const body = { jsonrpc: '2.0', id: rawId++, method, params: { ...params, _meta: modernMeta(meta) } };
  const name = params.name ?? params.uri ?? params.taskId;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN, 'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}), ...headers,
    },
    body: JSON.stringify(body),
  });
  const type = response.headers.get('content-type') ?? '';
  const textBody = await response.text();
  let messages = [];
  if (type.startsWith('text/event-stream')) {
    messages = textBody.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  } else if (textBody) {
    messages = [JSON.parse(textBody)];
  }
  return { status: response.status, headers: response.headers, messages, body: messages.at(-1) };
}

// `agentbox mcp` over its stdin/stdout as raw JSON lines, for what no SDK sends: both eras on
// one process, log levels. send() resolves to the response of a request and collects the
// notifications that came before it.
export function rawStdio(stateDir, extraArgs = []) {
  const child = spawn(AGENTBOX, ['mcp', ...extraArgs], {
    env: { ...process.env, AGENTBOX_STATE_DIR: stateDir }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map();
  const notifications = [];
  let buffer = '';
  child.stdout.on('data', (data) => {
    buffer += data;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.id !== undefined && waiting.has(message.id)) {
        waiting.get(message.id)(message);
        waiting.delete(message.id);
      } else {
        notifications.push(message);
      }
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    notifications,
    send(method, params = {}) {
      const id = rawId++;
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    notify(method, params = {}) {
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
    },
    close() { child.stdin.end(); return exited; },
  };
}

// Polls tasks/get (through `get`, which resolves to the task) until the task leaves "working".
export async function settle(get, ms = 60000) {
  const start = Date.now();
  for (;;) {
    const task = await get();
    if (task.status !== 'working' || Date.now() - start > ms) return task;
    await sleep(Math.min(task.pollIntervalMs ?? 500, 500));
  }
}
