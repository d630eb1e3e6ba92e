// MCP 2026-07-28 (stateless) beside the 2025 revisions: the official TypeScript SDK v2 client
// pinned to 2026-07-28 over stdio and Streamable HTTP, raw requests for what the SDK does not
// send (header checks, errors, Tasks), both eras on one stdio process, logging, and workspace
// files as resources.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  MODERN, connectHttp, connectModern, hostProcesses, listSandboxes, makeStateDir, modernMeta, postModern,
  rawStdio, removeStateDir, settle, skipReason, sleep, startServe, text,
} from './helpers.mjs';

const skip = skipReason();

// Waits up to `ms` for `predicate` to hold.
async function waitFor(predicate, ms = 5000) {
  for (let waited = 0; waited < ms && !predicate(); waited += 100) await sleep(100);
  return predicate();
}

describe('2026-07-28 over stdio with the SDK v2 client', { skip: skip || false }, () => {
  let stateDir;
  let client;

  before(async () => {
    stateDir = makeStateDir();
    ({ client } = await connectModern({ stateDir }));
  });

  after(async () => {
    await client?.close();
    removeStateDir(stateDir);
  });

  test('server/discover negotiated the modern era', () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getServerVersion().name, 'agentbox');
    assert.ok(client.getServerCapabilities().tools);
    assert.ok(client.getServerCapabilities().extensions['io.modelcontextprotocol/tasks']);
  });

  test('tools: list and call, the sandbox persisting between calls', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'bash'));
    let r = await client.callTool({ name: 'bash', arguments: { command: 'cd /tmp && X=7' } });
    assert.equal(r.isError, false, text(r));
    r = await client.callTool({ name: 'bash', arguments: { command: 'echo $X $PWD' } });
    assert.equal(text(r).trim(), '7 /tmp');
    r = await client.callTool({ name: 'exec', arguments: { command: 'exit 3' } });
    assert.equal(r.structuredContent.exit_code, 3);
  });

  test('resources: workspace files listed, read as text or blob, templates', async () => {
    await client.callTool({ name: 'bash', arguments: {
      command: 'cd /workspace && mkdir -p docs && echo hello > docs/a.md && printf "\\x00\\x01\\xff" > b.bin' } });
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('file:///workspace/docs/a.md'), uris.join(' '));
    assert.ok(uris.includes('file:///workspace/b.bin'), uris.join(' '));
    const a = await client.readResource({ uri: 'file:///workspace/docs/a.md' });
    assert.equal(a.contents[0].text, 'hello\n');
    assert.equal(a.contents[0].mimeType, 'text/markdown');
    const b = await client.readResource({ uri: 'file:///workspace/b.bin' });
    assert.equal(Buffer.from(b.contents[0].blob, 'base64').toString('hex'), '0001ff');
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(resourceTemplates[0].uriTemplate, 'file:///workspace/{+path}');
    await assert.rejects(client.readResource({ uri: 'file:///workspace/none.txt' }),
      (e) => e.code === -32602);
    await assert.rejects(client.readResource({ uri: 'file:///etc/passwd' }), (e) => e.code === -32602);
  });
});

describe('both eras on one stdio process, logging', { skip: skip || false }, () => {
  let stateDir;
  let mcp;

  before(() => {
    stateDir = makeStateDir();
    mcp = rawStdio(stateDir);
  });

  after(async () => {
    await mcp?.close();
    removeStateDir(stateDir);
  });

  test('initialize, then a modern request: each is served in its own era', async () => {
    const init = await mcp.send('initialize', {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    assert.equal(init.result.protocolVersion, '2025-11-25');
    assert.ok(init.result.capabilities.logging);
    assert.deepEqual((await mcp.send('ping')).result, {});
    const list = await mcp.send('tools/list', { _meta: modernMeta() });
    assert.equal(list.result.resultType, 'complete');
    assert.equal(list.result.cacheScope, 'public');
    assert.equal(list.result._meta['io.modelcontextprotocol/serverInfo'].name, 'agentbox');
    const modernPing = await mcp.send('ping', { _meta: modernMeta() });
    assert.equal(modernPing.error.code, -32601);
    const discover = await mcp.send('server/discover', { _meta: modernMeta() });
    assert.deepEqual(discover.result.supportedVersions.slice(0, 2), [MODERN, '2025-11-25']);
    // initialize in the modern era is an unknown method, as are the other removed ones.
    assert.equal((await mcp.send('initialize', { _meta: modernMeta() })).error.code, -32601);
    const wrong = await mcp.send('tools/list', { _meta: {
      'io.modelcontextprotocol/protocolVersion': '1900-01-01',
      'io.modelcontextprotocol/clientCapabilities': {} } });
    assert.equal(wrong.error.code, -32022);
    assert.deepEqual(wrong.error.data, { supported: [MODERN], requested: '1900-01-01' });
  });

  test('logging/setLevel (2025) turns notifications/message on; logLevel (2026) per request', async () => {
    const call = { name: 'exec', arguments: { command: 'true' } };
    let before = mcp.notifications.length;
    await mcp.send('tools/call', call);
    assert.equal(mcp.notifications.slice(before).filter((n) => n.method === 'notifications/message').length, 0);
    assert.deepEqual((await mcp.send('logging/setLevel', { level: 'debug' })).result, {});
    before = mcp.notifications.length;
    await mcp.send('tools/call', call);
    const logs = mcp.notifications.slice(before).filter((n) => n.method === 'notifications/message');
    assert.ok(logs.some((n) => n.params.level === 'debug' && /exec answered/.test(n.params.data)),
      JSON.stringify(logs));
    assert.equal((await mcp.send('logging/setLevel', { level: 'loud' })).error.code, -32602);
    before = mcp.notifications.length;
    await mcp.send('tools/call', { ...call, _meta: modernMeta() });  // no logLevel: no logs
    await mcp.send('tools/call', { name: 'exec', arguments: { command: 'exit 1' },
      _meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'debug' }) });
    const modernLogs = mcp.notifications.slice(before).filter((n) => n.method === 'notifications/message');
    assert.equal(modernLogs.filter((n) => n.params.level === 'debug').length, 1, JSON.stringify(modernLogs));
  });

  test('resources: pages of 100, symlinks out of /workspace refused, 2025 not-found code', async () => {
    const made = await mcp.send('tools/call', { name: 'bash', arguments: { command:
      'cd /workspace && mkdir -p many && for i in $(seq 1 150); do echo $i > many/f$i; done && ln -sf /etc/passwd out' } });
    assert.equal(made.result.isError, false, JSON.stringify(made));
    const first = await mcp.send('resources/list', {});
    assert.equal(first.result.resources.length, 100);
    assert.ok(first.result.nextCursor);
    const second = await mcp.send('resources/list', { cursor: first.result.nextCursor });
    const all = [...first.result.resources, ...second.result.resources].map((r) => r.uri);
    assert.equal(all.filter((u) => u.startsWith('file:///workspace/many/')).length, 150);
    assert.equal(new Set(all).size, all.length);
    assert.ok(!all.includes('file:///workspace/out'), 'a symlink is listed');
    const out = await mcp.send('resources/read', { uri: 'file:///workspace/out' });
    assert.equal(out.error.code, -32002, JSON.stringify(out));  // 2025: resource not found
    assert.equal((await mcp.send('resources/list', { cursor: 'bogus' })).error.code, -32602);
  });

  test('Tasks over stdio: a long bash call becomes a task, polled to its result', async () => {
    const meta = modernMeta({ tasks: true });
    const created = await mcp.send('tools/call',
      { name: 'bash', arguments: { command: 'sleep 2; echo finished' }, _meta: meta });
    assert.equal(created.result.resultType, 'task', JSON.stringify(created));
    const done = await settle(async () =>
      (await mcp.send('tasks/get', { taskId: created.result.taskId, _meta: meta })).result);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.match(done.result.content[0].text, /finished/);
    // A quick call is answered at once, even when the client could take a task.
    const quick = await mcp.send('tools/call', { name: 'bash', arguments: { command: 'echo now' }, _meta: meta });
    assert.equal(quick.result.resultType, 'complete');
    assert.match(quick.result.content[0].text, /now/);
  });
});

describe('2026-07-28 over Streamable HTTP', { skip: skip || false }, () => {
  let stateDir;
  let server;
  let client;

  before(async () => {
    stateDir = makeStateDir();
    server = await startServe(stateDir);
    ({ client } = await connectModern(server.url));
  });

  after(async () => {
    await client?.close();
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
  });

  test('the SDK v2 client: discover, tools, resources, no session', async () => {
    assert.equal(client.getProtocolEra(), 'modern');
    const r = await client.callTool({ name: 'bash', arguments: { command: 'echo hi > f.txt; cat f.txt' } });
    // The output, then the effect report's summary line (docs/mcp.md).
    const [out, effects] = text(r).trim().split('\n');
    assert.equal(out, 'hi');
    assert.match(effects, /^\[effects: \/workspace: 1 created/);
    const read = await client.readResource({ uri: 'file:///workspace/f.txt' });
    assert.equal(read.contents[0].text, 'hi\n');
    // Stateless: the tenant's calls share one sandbox, and a legacy session beside it has its own.
    const again = await postModern(server.url, 'tools/call', { name: 'exec', arguments: { command: 'cat f.txt' } });
    assert.equal(again.body.result.structuredContent.stdout, 'hi\n');
    assert.equal(again.headers.get('mcp-session-id'), null);
    const legacy = await connectHttp(server.url);
    const other = await legacy.client.callTool({ name: 'exec', arguments: { command: 'cat f.txt' } });
    assert.notEqual(other.structuredContent.exit_code, 0);
    await legacy.client.close();
  });

  test('errors the transport says: 400 for versions and headers, 404 for an unknown method', async () => {
    const discover = await postModern(server.url, 'server/discover');
    assert.equal(discover.status, 200);
    assert.deepEqual(discover.body.result.supportedVersions.slice(0, 1), [MODERN]);
    const version = await postModern(server.url, 'tools/list', {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
        headers: { 'mcp-protocol-version': '1900-01-01' } });
    assert.equal(version.status, 400);
    assert.equal(version.body.error.code, -32022);
    const mismatch = await postModern(server.url, 'tools/list', {}, { headers: { 'mcp-method': 'tools/call' } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error.code, -32020);
    const name = await postModern(server.url, 'tools/call',
      { name: 'exec', arguments: { command: 'true' } }, { headers: { 'mcp-name': 'bash' } });
    assert.equal(name.status, 400);
    assert.equal(name.body.error.code, -32020);
    const ping = await postModern(server.url, 'ping');
    assert.equal(ping.status, 404);
    assert.equal(ping.body.error.code, -32601);
    const noTasks = await postModern(server.url, 'tasks/get', { taskId: 'x' });
    assert.equal(noTasks.status, 400);
    assert.equal(noTasks.body.error.code, -32021);
    const unknown = await postModern(server.url, 'tasks/get', { taskId: 'x' }, { meta: { tasks: true } });
    assert.equal(unknown.body.error.code, -32602);
  });

  test('Tasks: a long command is a task, tasks/cancel kills its process tree', async () => {
    const opts = { meta: { tasks: true } };
    const created = await postModern(server.url, 'tools/call',
      { name: 'exec', arguments: { argv: ['sleep', '4242'] } }, opts);
    assert.equal(created.body.result.resultType, 'task', JSON.stringify(created.body));
    const { taskId } = created.body.result;
    const working = await postModern(server.url, 'tasks/get', { taskId }, opts);
    assert.equal(working.body.result.status, 'working');
    assert.equal(working.body.result.resultType, 'complete');
    assert.equal(hostProcesses('sleep 4242').length, 1);
    const cancel = await postModern(server.url, 'tasks/cancel', { taskId }, opts);
    assert.equal(cancel.status, 200);
    const done = await settle(async () => (await postModern(server.url, 'tasks/get', { taskId }, opts)).body.result);
    assert.equal(done.status, 'cancelled', JSON.stringify(done));
    assert.ok(await waitFor(() => hostProcesses('sleep 4242').length === 0), 'sleep 4242 survived');
  });

  test('Tasks: a background process is a task that ends with its output', async () => {
    const opts = { meta: { tasks: true } };
    const created = await postModern(server.url, 'tools/call',
      { name: 'bash', arguments: { command: 'sleep 1; echo from-background', background: true } }, opts);
    assert.equal(created.body.result.resultType, 'task', JSON.stringify(created.body));
    assert.match(created.body.result._meta['dev.agentbox/process'], /^p\d+$/);
    const done = await settle(async () =>
      (await postModern(server.url, 'tasks/get', { taskId: created.body.result.taskId }, opts)).body.result);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.match(done.result.content[0].text, /from-background/);
    assert.equal(done.result.isError, false);
  });

  test('the stateless sandbox belongs to the tenant and is listed like any other', () => {
    assert.equal(listSandboxes(stateDir).length >= 1, true);
  });
});
