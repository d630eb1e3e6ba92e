// Background processes as MCP tools, through the official MCP TypeScript SDK: bash's and exec's
// `background`, process_list, process_output (only what is new; wait_seconds), process_kill,
// process_stdin, their errors, and their count in serve's /metrics.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  connect, connectHttp, makeStateDir, removeStateDir, skipReason, sleep, startServe, text,
} from './helpers.mjs';

const skip = skipReason();

describe('background processes over MCP', { skip: skip || false }, () => {
  let stateDir;
  let client;
  const call = (name, args) => client.callTool({ name, arguments: args });

  // process_output until `want` is in what it returned; returns every text it gave.
  async function readUntil(proc, want) {
    const texts = [];
    for (let i = 0; i < 100; i++) {
      const r = await call('process_output', { proc });
      assert.equal(r.isError, false, text(r));
      texts.push(r.structuredContent.output);
      if (texts.join('').includes(want)) return texts;
      await sleep(100);
    }
    assert.fail(`${proc} never wrote ${JSON.stringify(want)}: ${JSON.stringify(texts)}`);
  }

  before(async () => {
    stateDir = makeStateDir();
    ({ client } = await connect(stateDir));
    await client.listTools();  // so the SDK validates structuredContent against each outputSchema
  });

  after(async () => {
    await client?.close();
    removeStateDir(stateDir);
  });

  test('tools/list: the process tools, annotated', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['process_list', 'process_output', 'process_kill', 'process_stdin']) {
      assert.ok(byName[name], name);
      assert.equal(byName[name].annotations.openWorldHint, false, name);
      assert.equal(byName[name].outputSchema.type, 'object', name);
    }
    assert.equal(byName.process_list.annotations.readOnlyHint, true);
    assert.equal(byName.process_output.annotations.readOnlyHint, true);
    assert.equal(byName.process_kill.annotations.destructiveHint, true);
    assert.equal(byName.process_kill.annotations.readOnlyHint, false);
    assert.ok(byName.bash.inputSchema.properties.background);
    assert.ok(byName.exec.inputSchema.properties.interactive);
  });

  test('bash background: listed, output read once each, the exit waited for', async () => {
    await call('bash', { command: 'cd /tmp && export BGVAR=inherited' });
    const started = await call('bash', {
      command: 'pwd; echo "$BGVAR"; echo first; while [ ! -e /workspace/go ]; do sleep 0.05; done; '
        + 'echo second; cd /; export BGVAR=changed; echo third >&2',
      background: true,
    });
    assert.equal(started.isError, false, text(started));
    const proc = started.structuredContent.id;
    assert.match(proc, /^p\d+$/);
    assert.equal(started.structuredContent.state, 'running');
    assert.match(text(started), new RegExp(`^started ${proc} in the background: pwd; `));
    assert.match(text(started), /process_output/);

    const list = await call('process_list', {});
    assert.equal(list.isError, false);
    const listed = list.structuredContent.processes.find((p) => p.id === proc);
    assert.ok(listed, JSON.stringify(list.structuredContent));
    assert.equal(listed.state, 'running');
    assert.deepEqual(listed.argv.slice(0, 2), ['/bin/bash', '-c']);
    assert.match(text(list), new RegExp(`^${proc}  running  pwd; echo`, 'm'));

    // It started in the shell's cwd with its variables; each read gives only what is new.
    const early = await readUntil(proc, 'first\n');
    assert.equal(early.join(''), '/tmp\ninherited\nfirst\n');
    const idle = await call('process_output', { proc });
    assert.equal(text(idle), '[no new output]\n[' + proc + ' is still running]\n');

    // A short wait returns with it still running.
    const t0 = Date.now();
    const waited = await call('process_output', { proc, wait_seconds: 1 });
    assert.ok(Date.now() - t0 >= 900, `returned after ${Date.now() - t0} ms`);
    assert.equal(waited.structuredContent.process.state, 'running');

    await call('write_file', { path: 'go', content: '' });
    const done = await call('process_output', { proc, wait_seconds: 20 });
    assert.equal(done.isError, false, text(done));
    assert.equal(done.structuredContent.output, 'second\nthird\n');
    assert.equal(text(done), `second\nthird\n[${proc} exited with code 0]\n`);
    assert.equal(done.structuredContent.process.state, 'exited');
    assert.equal(done.structuredContent.process.result.exit_code, 0);

    // What it changed in its shell did not persist.
    const fg = await call('bash', { command: 'pwd; echo "$BGVAR"' });
    assert.equal(text(fg), '/tmp\ninherited\n');
    const after = await call('process_list', {});
    assert.match(text(after), new RegExp(`^${proc}  exited with code 0  `, 'm'));
  });

  test('process_kill: TERM (the default) ends a sleep; a second kill is an error', async () => {
    const started = await call('exec', { argv: ['sleep', '300'], background: true });
    assert.equal(started.isError, false, text(started));
    assert.equal(started.structuredContent.state, 'running');
    const proc = started.structuredContent.id;
    const killed = await call('process_kill', { proc });
    assert.equal(killed.isError, false, text(killed));
    assert.equal(text(killed), `sent TERM to ${proc}: ${proc} was killed by signal TERM`);
    assert.equal(killed.structuredContent.state, 'exited');
    assert.equal(killed.structuredContent.result.reason, 'signaled');
    assert.equal(killed.structuredContent.result.signal, 15);
    const again = await call('process_kill', { proc, signal: 'KILL' });
    assert.equal(again.isError, true);
    assert.match(text(again), /^error: process p\d+ has already exited/);
  });

  test('process_stdin: an interactive cat echoes, then ends when its stdin closes', async () => {
    const started = await call('exec', { argv: ['cat'], background: true, interactive: true });
    assert.equal(started.isError, false, text(started));
    assert.equal(started.structuredContent.stdin_open, true);
    assert.match(text(started), /process_stdin/);
    const proc = started.structuredContent.id;
    let r = await call('process_stdin', { proc, data: 'hello\n' });
    assert.equal(r.isError, false, text(r));
    assert.equal(text(r), `wrote 6 bytes to the stdin of ${proc}`);
    assert.deepEqual(await readUntil(proc, 'hello\n').then((t) => t.join('')), 'hello\n');
    r = await call('process_stdin', { proc, data: 'bye\n', close: true });
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.stdin_open, false);
    const done = await call('process_output', { proc, wait_seconds: 20 });
    assert.equal(text(done), `bye\n[${proc} exited with code 0]\n`);
    r = await call('process_stdin', { proc, data: 'late\n' });
    assert.equal(r.isError, true);
    assert.match(text(r), /^error: process p\d+ has exited/);
  });

  test('exec background with stdin: written, then closed', async () => {
    const started = await call('exec', { command: 'tr a-z A-Z', stdin: 'shout\n', background: true });
    assert.equal(started.isError, false, text(started));
    const done = await call('process_output', { proc: started.structuredContent.id, wait_seconds: 20 });
    assert.equal(done.structuredContent.output, 'SHOUT\n');
    assert.equal(done.structuredContent.process.result.exit_code, 0);
  });

  test('errors: unknown and malformed proc, bad signal, stdin of a non-interactive one', async () => {
    let r = await call('process_output', { proc: 'p999' });
    assert.equal(r.isError, true);
    assert.equal(text(r), 'error: no background process p999 in this sandbox (see process_list)');
    r = await call('process_kill', { proc: 'bogus' });
    assert.equal(r.isError, true);
    assert.match(text(r), /^invalid arguments: `proc` must be a process id such as p1/);
    const started = await call('exec', { argv: ['sleep', '300'], background: true });
    const proc = started.structuredContent.id;
    r = await call('process_kill', { proc, signal: 'BOGUS' });
    assert.equal(r.isError, true);
    assert.match(text(r), /^invalid arguments: unknown signal "BOGUS"/);
    r = await call('process_stdin', { proc, data: 'x' });
    assert.equal(r.isError, true);
    assert.match(text(r), /is not open \(start it with exec's background and interactive true\)/);
    r = await call('exec', { argv: ['/no/such/program'], background: true });
    assert.equal(r.isError, true);
    assert.match(text(r), /No such file or directory\n\[p\d+ ended at once: exited with code 127\]$/);
    r = await call('exec', { command: 'cat', interactive: true });
    assert.equal(r.isError, true);
    assert.match(text(r), /`interactive` needs `background`/);
    r = await call('process_kill', { proc, signal: 9 });
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.result.signal, 9);
  });
});

describe('background process tools over Streamable HTTP', { skip: skip || false }, () => {
  let stateDir;
  let serve;
  before(async () => {
    stateDir = makeStateDir();
    serve = await startServe(stateDir);
  });
  after(async () => {
    await serve?.stop();
    removeStateDir(stateDir);
  });

  test('each call is counted in /metrics by tool name', async () => {
    const { client } = await connectHttp(serve.url);
    const started = await client.callTool({ name: 'bash', arguments: { command: 'echo hi', background: true } });
    assert.equal(started.isError, false, text(started));
    const proc = started.structuredContent.id;
    assert.equal((await client.callTool({ name: 'process_list', arguments: {} })).isError, false);
    const out = await client.callTool({ name: 'process_output', arguments: { proc, wait_seconds: 20 } });
    assert.equal(out.structuredContent.output, 'hi\n');
    const bad = await client.callTool({ name: 'process_kill', arguments: { proc: 'p999' } });
    assert.equal(bad.isError, true);
    await client.close();
    const metrics = await (await fetch(new URL('/metrics', serve.url))).text();
    for (const line of [
      'agentbox_mcp_tool_calls_total{tool="bash",result="ok"} 1',
      'agentbox_mcp_tool_calls_total{tool="process_list",result="ok"} 1',
      'agentbox_mcp_tool_calls_total{tool="process_output",result="ok"} 1',
      'agentbox_mcp_tool_calls_total{tool="process_kill",result="error"} 1',
    ]) {
      assert.ok(metrics.split('\n').includes(line), `${line} not in:\n${metrics}`);
    }
  });
});
