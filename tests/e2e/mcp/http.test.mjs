// `agentbox serve` driven at /mcp by the official MCP TypeScript SDK's Streamable HTTP client:
// SSE answers with progress, cancellation from another connection, a client that hangs up, and
// the end of a session.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  connectHttp, hostProcesses, listSandboxes, makeStateDir, removeStateDir, skipReason, sleep,
  startServe, text,
} from './helpers.mjs';

const skip = skipReason();

// Waits up to `ms` for `predicate` to hold.
async function waitFor(predicate, ms = 5000) {
  for (let waited = 0; waited < ms && !predicate(); waited += 100) await sleep(100);
  return predicate();
}

const INIT = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

// A raw POST to /mcp, for what the SDK never sends.
async function post(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('agentbox serve /mcp over Streamable HTTP', { skip: skip || false }, () => {
  let stateDir;
  let server;
  let client;
  let transport;
  let seen;

  before(async () => {
    stateDir = makeStateDir();
    server = await startServe(stateDir);
    ({ client, transport, seen } = await connectHttp(server.url));
  });

  after(async () => {
    await client?.close();
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
  });

  test('initialize: a session id, server info, the latest protocol', async () => {
    assert.match(transport.sessionId ?? '', /^[0-9a-f]{32}$/);
    assert.equal(client.getServerVersion().name, 'agentbox');
    assert.ok(client.getServerCapabilities().tools);
    assert.equal(transport.protocolVersion, '2025-11-25');
    // The SDK asks for a server-initiated stream after initialized; 405 tells it there is none.
    // (sent in the background, so it may still be on its way)
    const refused = () => seen.some((s) => s.method === 'GET' && s.status === 405);
    assert.ok(await waitFor(refused), JSON.stringify(seen));
  });

  test('tools/list', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'exec'));
    assert.ok(tools.some((t) => t.name === 'bash'));
  });

  test('progress notifications arrive on the SSE stream of a 3 s command', async () => {
    const updates = [];
    const r = await client.callTool(
      { name: 'exec', arguments: { command: 'for i in 1 2 3; do echo $i; sleep 1; done' } },
      undefined,
      { onprogress: (p) => updates.push(p) },
    );
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.stdout, '1\n2\n3\n');
    assert.ok(updates.length >= 1, 'no progress notification');
    for (let i = 1; i < updates.length; i++) assert.ok(updates[i].progress > updates[i - 1].progress);
    assert.match(updates[0].message ?? '', /^running for \d+s/);
    const call = seen.filter((s) => s.method === 'tools/call').at(-1);
    assert.equal(call.type, 'text/event-stream');
  });

  test('the bash tool over HTTP keeps its shell state', async () => {
    await client.callTool({ name: 'bash', arguments: { command: 'cd /tmp && export X=kept' } });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'pwd; echo $X' } });
    assert.equal(text(r), '/tmp\nkept\n');
  });

  test('an AbortSignal cancels the call and kills its command', async () => {
    const marker = 'sleep 60.0427';  // unique, so other tests' sleeps do not count
    const controller = new AbortController();
    const call = client.callTool({ name: 'exec', arguments: { command: `${marker}; echo done` } },
      undefined, { signal: controller.signal });
    assert.ok(await waitFor(() => hostProcesses(marker).length > 0), 'the command never started');
    const started = Date.now();
    controller.abort('changed my mind');  // the SDK POSTs notifications/cancelled
    await assert.rejects(call);
    assert.ok(Date.now() - started < 2000, `the call took ${Date.now() - started} ms to end`);
    assert.ok(await waitFor(() => hostProcesses(marker).length === 0), 'the command outlived its call');
    // Nothing left in the sandbox either, and the session goes on.
    const r = await client.callTool({ name: 'exec', arguments: { argv: ['ps', '-eo', 'args'] } });
    assert.doesNotMatch(r.structuredContent.stdout, /sleep/);
  });

  test('parallel calls of one session run concurrently', async () => {
    const started = Date.now();
    const calls = [1, 2, 3].map(() => client.callTool({ name: 'exec', arguments: { command: 'sleep 1' } }));
    for (const r of await Promise.all(calls)) assert.equal(r.isError, false);
    assert.ok(Date.now() - started < 2800, `took ${Date.now() - started} ms`);
  });

  test('a client that hangs up mid-call gets its command killed', async () => {
    const other = await connectHttp(server.url);
    const marker = 'sleep 61.0427';
    const call = other.client.callTool({ name: 'exec', arguments: { command: `${marker}; echo done` } });
    call.catch(() => {});
    assert.ok(await waitFor(() => hostProcesses(marker).length > 0), 'the command never started');
    await other.transport.close();  // aborts the POST: the connection closes, nothing is sent
    assert.ok(await waitFor(() => hostProcesses(marker).length === 0), 'the command outlived its client');
  });

  test('GET /mcp is 405 with Allow and a reason', async () => {
    const r = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': transport.sessionId },
    });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'POST, DELETE');
    assert.match((await r.json()).error, /no server-initiated SSE stream/);
  });

  test('MCP-Protocol-Version: supported ones pass, others are 400', async () => {
    const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };
    const sid = { 'mcp-session-id': transport.sessionId };
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const r = await post(server.url, ping, { ...sid, 'mcp-protocol-version': version });
      assert.equal(r.status, 200, version);
      assert.deepEqual((await r.json()).result, {});
    }
    const r = await post(server.url, ping, { ...sid, 'mcp-protocol-version': '1999-01-01' });
    assert.equal(r.status, 400);
    assert.match((await r.json()).error, /unsupported MCP-Protocol-Version/);
  });

  test('Accept: application/json gets one JSON object', async () => {
    const r = await post(server.url, {
      jsonrpc: '2.0', id: 'j', method: 'tools/call',
      params: { name: 'exec', arguments: { command: 'echo plain' }, _meta: { progressToken: 1 } },
    }, { 'mcp-session-id': transport.sessionId });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    const answer = await r.json();
    assert.equal(answer.id, 'j');
    assert.equal(answer.result.structuredContent.stdout, 'plain\n');
  });

  test('a notification is accepted with 202 and no body', async () => {
    const r = await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': transport.sessionId });
    assert.equal(r.status, 202);
    assert.equal(await r.text(), '');
  });
});

describe('MCP session end over HTTP', { skip: skip || false }, () => {
  let stateDir;
  let server;
  before(async () => {
    stateDir = makeStateDir();
    server = await startServe(stateDir);
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
  });

  test('DELETE cancels the call in flight, removes the sandbox, forgets the session', async () => {
    const { client, transport } = await connectHttp(server.url);
    const marker = 'sleep 62.0427';
    const call = client.callTool({ name: 'exec', arguments: { command: `${marker}; echo done` } });
    call.catch(() => {});
    assert.ok(await waitFor(() => hostProcesses(marker).length > 0), 'the command never started');
    assert.equal(listSandboxes(stateDir).length, 1);
    const sessionId = transport.sessionId;
    await transport.terminateSession();
    assert.ok(await waitFor(() => hostProcesses(marker).length === 0), 'the command outlived its session');
    assert.ok(await waitFor(() => listSandboxes(stateDir).length === 0), 'the sandbox outlived its session');
    const r = await post(server.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-session-id': sessionId });
    assert.equal(r.status, 404);
    await client.close();
  });

  test('a session that made no tool call has no sandbox to remove', async () => {
    const { client, transport } = await connectHttp(server.url);
    await client.listTools();
    assert.deepEqual(listSandboxes(stateDir), []);
    await transport.terminateSession();
    await client.close();
  });
});

// The SDK's close() sends no DELETE (nor does the Inspector): such sessions are ended once idle
// for the config's mcp_session_idle_timeout, and their sandboxes removed (issue 17, point 3).
describe('MCP sessions left without DELETE', { skip: skip || false }, () => {
  let stateDir;
  let server;
  before(async () => {
    stateDir = makeStateDir();
    const config = path.join(stateDir, 'serve.json');
    writeFileSync(config, JSON.stringify({ mcp_session_idle_timeout: '2s', mcp_bash_output_chars: 100 }));
    server = await startServe(stateDir, ['--config', config]);
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
  });

  test('three clients that close() without DELETE leave no sandbox behind', async () => {
    for (let i = 0; i < 3; i++) {
      const { client } = await connectHttp(server.url);
      const r = await client.callTool({ name: 'exec', arguments: { command: 'echo hi' } });
      assert.equal(r.structuredContent.stdout, 'hi\n');
      await client.close();
    }
    assert.equal(listSandboxes(stateDir).length, 3, 'each session made its sandbox');
    assert.ok(await waitFor(() => listSandboxes(stateDir).length === 0, 15000),
      `left behind: ${JSON.stringify(listSandboxes(stateDir))}`);
  });

  test('the config\'s mcp_bash_output_chars sets where bash output is cut', async () => {
    const { client } = await connectHttp(server.url);
    const t = text(await client.callTool({ name: 'bash', arguments: { command: 'seq 1 1000' } }));
    assert.ok(t.startsWith('1\n2\n') && t.endsWith('999\n1000\n'), t);
    assert.match(t, /3,793 of 3,893 characters cut from the middle; the full output is in \/workspace\//);
    await client.close();
  });

  test('a call running longer than the idle timeout is not idle', async () => {
    const { client } = await connectHttp(server.url);
    const r = await client.callTool({ name: 'exec', arguments: { command: 'sleep 4; echo done' } });
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.stdout, 'done\n');
    const again = await client.callTool({ name: 'exec', arguments: { command: 'echo still' } });
    assert.equal(again.structuredContent.stdout, 'still\n', 'the session lived through its call');
    await client.close();
  });
});
