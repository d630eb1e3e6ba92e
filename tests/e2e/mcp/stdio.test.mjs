// `agentbox mcp` driven over stdio by the official MCP TypeScript SDK, as an MCP client would.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import {
  AGENTBOX, agentbox, connect, hostProcesses, listSandboxes, makeStateDir, removeStateDir, skipReason,
  sleep, text,
} from './helpers.mjs';

const skip = skipReason();

describe('agentbox mcp over stdio', { skip: skip || false }, () => {
  let stateDir;
  let client;

  before(async () => {
    stateDir = makeStateDir();
    ({ client } = await connect(stateDir));
  });

  after(async () => {
    await client?.close();
    removeStateDir(stateDir);
  });

  test('initialize: server info, tools capability, latest protocol', () => {
    assert.equal(client.getServerVersion().name, 'agentbox');
    assert.ok(client.getServerCapabilities().tools);
    assert.match(client.getInstructions() ?? '', /sandbox/);
  });

  test('tools/list names every tool with an object input schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['bash', 'exec', 'list_files', 'process_kill', 'process_list',
      'process_output', 'process_stdin', 'read_file', 'session_log', 'snapshot_create',
      'snapshot_delete', 'snapshot_diff', 'snapshot_list', 'snapshot_restore',
      'str_replace_based_edit_tool', 'write_file']);
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object');
  });

  test('ping', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  test('exec: exit code 3 is data, not an error', async () => {
    const r = await client.callTool({ name: 'exec', arguments: { command: 'echo out; echo err >&2; exit 3' } });
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.exit_code, 3);
    assert.equal(r.structuredContent.reason, 'exited');
    assert.equal(r.structuredContent.stdout, 'out\n');
    assert.equal(r.structuredContent.stderr, 'err\n');
    assert.equal(JSON.parse(r.content[0].text).exit_code, 3);
  });

  test('exec: argv, cwd and env', async () => {
    const r = await client.callTool({
      name: 'exec',
      arguments: { argv: ['sh', '-c', 'pwd; echo $GREETING'], cwd: '/tmp', env: { GREETING: 'hi' } },
    });
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.stdout, '/tmp\nhi\n');
  });

  test('bash: cwd and exported variables persist, restart forgets them', async () => {
    const call = (command) => client.callTool({ name: 'bash', arguments: { command } });
    await call('cd /tmp');
    assert.equal(text(await call('pwd')), '/tmp\n');
    await call('export AGENTBOX_E2E=persisted; greet() { echo "hello $1"; }');
    assert.equal(text(await call('echo $AGENTBOX_E2E; greet you')), 'persisted\nhello you\n');
    const failed = await call('echo before; false');
    assert.equal(failed.isError, false);
    assert.match(text(failed), /before\n\[exit code: 1\]/);
    const exited = await call('cd /workspace && exit 4');
    assert.match(text(exited), /\[exit code: 4\]/);
    assert.equal(text(await call('pwd')), '/workspace\n');
    await call('cd /tmp');
    assert.match(text(await client.callTool({ name: 'bash', arguments: { restart: true } })), /restarted/);
    assert.equal(text(await call('pwd; echo "[$AGENTBOX_E2E]"')), '/workspace\n[]\n');
  });

  test('str_replace_based_edit_tool: create, view, str_replace, insert', async () => {
    const edit = (args) => client.callTool({ name: 'str_replace_based_edit_tool', arguments: args });
    const p = '/workspace/notes.txt';
    let r = await edit({ command: 'create', path: p, file_text: 'alpha\nbeta\ngamma\n' });
    assert.equal(r.isError, false);
    assert.equal(text(r), `File created successfully at: ${p}`);
    r = await edit({ command: 'create', path: p, file_text: 'again' });
    assert.equal(r.isError, true);
    assert.match(text(r), /File already exists/);
    r = await edit({ command: 'view', path: p });
    assert.equal(text(r), `Here's the result of running \`cat -n\` on ${p}:\n     1\talpha\n     2\tbeta\n     3\tgamma\n`);
    r = await edit({ command: 'str_replace', path: p, old_str: 'beta', new_str: 'BETA' });
    assert.equal(r.isError, false);
    assert.match(text(r), /^The file \/workspace\/notes.txt has been edited\. Here's the result of running `cat -n` on a snippet of \/workspace\/notes.txt:\n/);
    assert.match(text(r), /     2\tBETA\n/);
    r = await edit({ command: 'str_replace', path: p, old_str: 'delta', new_str: 'x' });
    assert.equal(r.isError, true);
    assert.equal(text(r), `No replacement was performed, old_str \`delta\` did not appear verbatim in ${p}.`);
    r = await edit({ command: 'insert', path: p, insert_line: 1, new_str: 'inserted' });
    assert.equal(r.isError, false);
    r = await edit({ command: 'view', path: p, view_range: [1, 2] });
    assert.equal(text(r), `Here's the result of running \`cat -n\` on ${p}:\n     1\talpha\n     2\tinserted\n`);
    r = await edit({ command: 'view', path: '/workspace' });
    assert.match(text(r), /up to 2 levels deep in \/workspace, excluding hidden items:\n\/workspace\n[^]*\/workspace\/notes.txt\n/);
    r = await edit({ command: 'view', path: '/workspace/missing.txt' });
    assert.equal(r.isError, true);
    assert.match(text(r), /does not exist/);
  });

  test('write_file, read_file, list_files', async () => {
    let r = await client.callTool({ name: 'write_file', arguments: { path: '/workspace/dir/a.txt', content: 'héllo\n' } });
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.bytes_written, 7);
    r = await client.callTool({ name: 'read_file', arguments: { path: 'dir/a.txt' } });
    assert.equal(text(r), 'héllo\n');
    r = await client.callTool({ name: 'list_files', arguments: { path: '/workspace/dir' } });
    assert.deepEqual(r.structuredContent.entries.map((e) => [e.name, e.type, e.size]), [['a.txt', 'file', 7]]);
    r = await client.callTool({ name: 'list_files', arguments: {} });
    assert.ok(r.structuredContent.entries.some((e) => e.name === 'dir' && e.type === 'dir'));
  });

  test('paths outside /workspace are refused with isError', async () => {
    for (const [name, args] of [
      ['read_file', { path: '/etc/passwd' }],
      ['read_file', { path: '../../etc/passwd' }],
      ['write_file', { path: '/tmp/../etc/x', content: 'x' }],
      ['list_files', { path: '/' }],
      ['str_replace_based_edit_tool', { command: 'view', path: '/etc/passwd' }],
      ['str_replace_based_edit_tool', { command: 'create', path: '/etc/evil', file_text: 'x' }],
    ]) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
    }
  });

  test('a timeout is isError with "timeout"', async () => {
    const r = await client.callTool({ name: 'exec', arguments: { command: 'sleep 10', timeout: 1 } });
    assert.equal(r.isError, true);
    assert.match(text(r), /timeout/);
    assert.equal(r.structuredContent.reason, 'timeout');
    assert.equal(r.structuredContent.exit_code, 124);
  });

  test('bad arguments are a tool error, an unknown tool a protocol error', async () => {
    const r = await client.callTool({ name: 'exec', arguments: { argv: 'ls' } });
    assert.equal(r.isError, true);
    assert.match(text(r), /argv/);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool|-32602/);
  });

  test('progress notifications arrive for a 3 s command', async () => {
    const updates = [];
    const r = await client.callTool(
      { name: 'exec', arguments: { command: 'for i in 1 2 3; do echo tick $i; sleep 1; done' } },
      undefined,
      { onprogress: (p) => updates.push(p) },
    );
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.stdout, 'tick 1\ntick 2\ntick 3\n');
    assert.ok(updates.length >= 2, `only ${updates.length} progress notifications`);
    for (let i = 1; i < updates.length; i++) assert.ok(updates[i].progress > updates[i - 1].progress);
    assert.ok(updates.some((u) => /tick/.test(u.message ?? '')), JSON.stringify(updates));
  });

  test('cancellation kills the command on the host', async () => {
    const marker = 'sleep 30.0427';  // unique, so other tests' sleeps do not count
    const controller = new AbortController();
    const call = client.callTool({ name: 'exec', arguments: { command: `${marker}; echo done` } },
      undefined, { signal: controller.signal });
    for (let i = 0; i < 50 && hostProcesses(marker).length === 0; i++) await sleep(100);
    assert.ok(hostProcesses(marker).length > 0, 'the command never started');
    controller.abort('changed my mind');
    await assert.rejects(call);
    for (let i = 0; i < 50 && hostProcesses(marker).length > 0; i++) await sleep(100);
    assert.deepEqual(hostProcesses(marker), []);
    // The session goes on.
    const r = await client.callTool({ name: 'exec', arguments: { command: 'echo still here' } });
    assert.equal(r.structuredContent.stdout, 'still here\n');
  });

  test('parallel calls run concurrently', async () => {
    const started = Date.now();
    const calls = [1, 2, 3].map(() => client.callTool({ name: 'exec', arguments: { command: 'sleep 1' } }));
    for (const r of await Promise.all(calls)) assert.equal(r.isError, false);
    assert.ok(Date.now() - started < 2800, `took ${Date.now() - started} ms`);
  });
});

describe('sandbox lifecycle', { skip: skip || false }, () => {
  let stateDir;
  before(() => { stateDir = makeStateDir(); });
  after(() => removeStateDir(stateDir));

  test('no sandbox before the first tool call; removed when the session ends', async () => {
    const { client } = await connect(stateDir);
    await client.listTools();
    assert.deepEqual(listSandboxes(stateDir), []);
    await client.callTool({ name: 'exec', arguments: { command: 'true' } });
    assert.equal(listSandboxes(stateDir).length, 1);
    await client.close();
    assert.deepEqual(listSandboxes(stateDir), []);
  });

  test('a named sandbox is used and kept', async () => {
    agentbox(stateDir, ['create', '--name', 'e2e-kept']);
    const { client } = await connect(stateDir, ['--sandbox', 'e2e-kept']);
    await client.callTool({ name: 'write_file', arguments: { path: 'kept.txt', content: 'kept' } });
    await client.close();
    const boxes = listSandboxes(stateDir);
    assert.equal(boxes.length, 1);
    assert.equal(agentbox(stateDir, ['exec', 'e2e-kept', '--', 'cat', 'kept.txt']), 'kept');
    agentbox(stateDir, ['rm', '-f', 'e2e-kept']);
  });

  test('SIGTERM also removes the session sandbox', async () => {
    const { client, transport } = await connect(stateDir);
    await client.callTool({ name: 'exec', arguments: { command: 'true' } });
    assert.equal(listSandboxes(stateDir).length, 1);
    const pid = transport.pid;
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 50 && listSandboxes(stateDir).length > 0; i++) await sleep(100);
    assert.deepEqual(listSandboxes(stateDir), []);
    await client.close();
  });
});

describe('raw JSON-RPC robustness', { skip: skip || false }, () => {
  test('malformed input gets JSON-RPC errors and the server keeps answering', async () => {
    const stateDir = makeStateDir();
    const child = spawn(AGENTBOX, ['mcp'], {
      env: { ...process.env, AGENTBOX_STATE_DIR: stateDir },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = [];
    let buffer = '';
    child.stdout.on('data', (d) => {
      buffer += d;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const send = (s) => child.stdin.write(s + '\n');
    send('{not json');
    send('[]');
    send('"just a string"');
    send('{"jsonrpc":"2.0","id":1,"method":"no/such/method"}');
    send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}');
    send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}');
    send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1,2]}');
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}');
    send('{"jsonrpc":"2.0","id":5,"method":"ping"}');
    for (let i = 0; i < 50 && lines.length < 8; i++) await sleep(100);
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    // tools/call runs on worker threads, so answers may come in any order: sort by id.
    const codes = lines.map((l) => [l.id ?? null, l.error?.code ?? 'ok'])
      .sort((a, b) => (a[0] ?? -1) - (b[0] ?? -1));
    assert.deepEqual(codes, [
      [null, -32700], [null, -32600], [null, -32600], [1, -32601], [2, -32602], [3, -32602],
      [4, -32602], [5, 'ok'],
    ]);
    assert.equal(child.exitCode, 0);
    removeStateDir(stateDir);
  });
});
