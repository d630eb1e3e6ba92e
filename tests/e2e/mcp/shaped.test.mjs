// Tools shaped for models (issue 17, point 4), through the official MCP TypeScript SDK over stdio:
// bash's output cut to a model-sized start and end with the whole kept in /workspace, per-call
// timeouts, limits said in words, plain-bash messages, unexported variables that persist,
// annotations, the editor's max_characters, exec's stdin and output_limit, and a --sandbox that
// does not exist refused at start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import {
  AGENTBOX, agentbox, connect, makeStateDir, removeStateDir, skipReason, text,
} from './helpers.mjs';

const skip = skipReason();

describe('MCP tools shaped for models', { skip: skip || false }, () => {
  let stateDir;
  let client;
  const bash = (command, extra = {}) => client.callTool({ name: 'bash', arguments: { command, ...extra } });

  before(async () => {
    stateDir = makeStateDir();
    ({ client } = await connect(stateDir));
  });

  after(async () => {
    await client?.close();
    removeStateDir(stateDir);
  });

  test('every tool is annotated, none open-world (no network)', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const a = tool.annotations;
      assert.ok(a, `${tool.name} has no annotations`);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        assert.equal(typeof a[hint], 'boolean', `${tool.name}.${hint}`);
      }
      assert.equal(a.openWorldHint, false, tool.name);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    assert.equal(byName.read_file.readOnlyHint, true);
    assert.equal(byName.list_files.readOnlyHint, true);
    assert.equal(byName.bash.destructiveHint, true);
    assert.equal(byName.exec.readOnlyHint, false);
  });

  test('bash: a long output keeps its start and end, and the whole is in /workspace', async () => {
    const r = await bash("echo START; head -c 200000 /dev/zero | tr '\\0' x; echo; echo END");
    assert.equal(r.isError, false);
    const t = text(r);
    assert.ok(t.length <= 30500, `returned ${t.length} characters`);
    assert.ok(t.startsWith('START\nxxx'), t.slice(0, 40));
    assert.ok(t.endsWith('xxx\nEND\n'), t.slice(-40));
    const m = /\[\.\.\. ([\d,]+) of ([\d,]+) characters cut from the middle; the full output is in (\/workspace\/\S+) \.\.\.\]/.exec(t);
    assert.ok(m, `no marker in: ${t.slice(14900, 15200)}`);
    assert.equal(m[2], '200,011');
    assert.equal(m[1], '170,011');
    const full = await client.callTool({ name: 'read_file', arguments: { path: m[3] } });
    assert.equal(full.isError, false);
    assert.equal(text(full).length, 200011);
    // A short output is untouched and leaves no file behind.
    assert.equal(text(await bash('echo short')), 'short\n');
  });

  test('bash: a per-call timeout, both shorter and longer than the policy\'s', async () => {
    const short = await bash('sleep 5', { timeout: 0.5 });
    assert.equal(short.isError, true);
    assert.match(text(short), /timeout: the command did not finish within 0\.5 seconds/);
    const over = await bash('true', { timeout: 10000000 });
    assert.equal(over.isError, true);
    assert.match(text(over), /timeout/);
  });

  test('bash: errors and ps read as a plain bash, never the wrapper', async () => {
    const missing = text(await bash('no_such_command_e2e'));
    assert.match(missing, /^bash: line 1: no_such_command_e2e: command not found\n/);
    const syntax = text(await bash('if then'));
    assert.match(syntax, /^bash: -c: line 1: syntax error near unexpected token `then'/);
    assert.doesNotMatch(missing + syntax, /agentbox|line 1[0-9]/);
    const cmdline = text(await bash("tr '\\0' ' ' </proc/$$/cmdline; echo; ps -o args= -p $$ 2>/dev/null || true"));
    assert.doesNotMatch(cmdline, /__agentbox|BASH_ENV|trap/);
    assert.match(cmdline, /^\/bin\/bash -c tr/);
    assert.equal(text(await bash('echo "[$BASH_ENV]"; bash -c \'echo "[$BASH_ENV]"\'')), '[]\n[]\n');
  });

  test('bash: unexported shell variables and arrays persist between calls', async () => {
    await bash('x=41; declare -a arr=(a "b c"); declare -A map=([k]=v); readonly ro=1');
    assert.equal(text(await bash('echo $((x + 1)) "${arr[1]}" ${map[k]} $ro')), '42 b c v 1\n');
    assert.equal(text(await bash('bash -c \'echo "[$x]"\'')), '[]\n', 'not exported to children');
    await bash('set -e; y=kept; false');
    assert.equal(text(await bash('echo $y')), 'kept\n', 'saved after set -e and a failure');
  });

  test('str_replace_based_edit_tool: view honours max_characters', async () => {
    await client.callTool({ name: 'write_file', arguments: { path: 'v.txt', content: 'one\ntwo\nthree\n' } });
    const r = await client.callTool({
      name: 'str_replace_based_edit_tool',
      arguments: { command: 'view', path: '/workspace/v.txt', max_characters: 6 },
    });
    assert.equal(r.isError, false);
    assert.match(text(r), /     1\tone\n     2\ttw<response clipped>/);
    assert.doesNotMatch(text(r), /three/);
  });

  test('exec: stdin and output_limit, as REST takes them', async () => {
    const fed = await client.callTool({ name: 'exec', arguments: { command: 'tr a-z A-Z', stdin: 'hello\n' } });
    assert.equal(fed.isError, false);
    assert.equal(fed.structuredContent.stdout, 'HELLO\n');
    const none = await client.callTool({ name: 'exec', arguments: { command: 'cat; echo eof' } });
    assert.equal(none.structuredContent.stdout, 'eof\n', 'no stdin: /dev/null');
    const capped = await client.callTool({
      name: 'exec', arguments: { command: "head -c 5000 /dev/zero | tr '\\0' y", output_limit: '1K' },
    });
    assert.equal(capped.structuredContent.stdout.length, 1024);
    assert.equal(capped.structuredContent.stdout_truncated, true);
    assert.ok(capped.structuredContent.limits_hit.includes('output'));
    const bad = await client.callTool({ name: 'exec', arguments: { command: 'true', output_limit: 'lots' } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /output_limit/);
  });

  test('exec: structuredContent carries the effect report (workspace changes, walls)', async () => {
    const r = await client.callTool({
      name: 'exec', arguments: { command: 'echo hi > effects-mcp.txt; touch /usr/bin/effects-mcp; true' },
    });
    assert.equal(r.isError, false);
    const effects = r.structuredContent.effects;
    assert.equal(effects.workspace.observed, true);
    assert.ok(effects.workspace.changes.some((c) => c.path === '/workspace/effects-mcp.txt' && c.change === 'created'),
      JSON.stringify(effects.workspace));
    assert.ok(effects.walls.some((w) => w.wall === 'read_only_root' && w.errno === 'EROFS'), JSON.stringify(effects.walls));
  });
});

describe('limits in words, in a sandbox with small limits', { skip: skip || false }, () => {
  let stateDir;
  let client;
  const bash = (command, extra = {}) => client.callTool({ name: 'bash', arguments: { command, ...extra } });

  before(async () => {
    stateDir = makeStateDir();
    agentbox(stateDir, ['create', '--name', 'e2e-small', '--memory', '64M', '--pids', '24', '--timeout', '1']);
    ({ client } = await connect(stateDir, ['--sandbox', 'e2e-small', '--bash-output-chars', '100']));
  });

  after(async () => {
    await client?.close();
    agentbox(stateDir, ['rm', '-f', 'e2e-small']);
    removeStateDir(stateDir);
  });

  test('bash: an OOM kill is said with the limit', async () => {
    // tail holds the one endless line in memory until the cgroup's OOM killer ends it.
    const r = await bash('head -c 400M /dev/zero | tail -n 1 >/dev/null', { timeout: 30 });
    assert.equal(r.isError, true);
    assert.match(text(r), /killed: memory limit 64M reached/);
  });

  test('bash: a refused fork is said with the pids limit', async () => {
    const r = await bash('for i in $(seq 40); do sleep 2 & done 2>/dev/null; wait; echo waited', { timeout: 30 });
    assert.match(text(r), /\[pids limit 24 reached: a process or thread could not be started\]/);
  });

  test('bash: a call may run past the policy timeout when it asks', async () => {
    const r = await bash('sleep 1.5; echo slept', { timeout: 10 });
    assert.equal(r.isError, false, text(r));
    assert.equal(text(r), 'slept\n');
    const d = await bash('sleep 3');
    assert.equal(d.isError, true, 'the policy default (1 s) still applies without `timeout`');
  });

  test('--bash-output-chars sets the cut', async () => {
    const t = text(await bash('seq 1 1000'));
    assert.ok(t.startsWith('1\n2\n'), t);
    assert.ok(t.endsWith('999\n1000\n'), t);
    assert.match(t, /3,793 of 3,893 characters cut/);
  });
});

describe('agentbox mcp --sandbox', { skip: skip || false }, () => {
  test('a sandbox that does not exist fails at start: one line, exit 125', () => {
    const stateDir = makeStateDir();
    const r = spawnSync(AGENTBOX, ['mcp', '--sandbox', 'no-such-box'], {
      env: { ...process.env, AGENTBOX_STATE_DIR: stateDir },
      input: '',
      encoding: 'utf8',
      timeout: 20000,
    });
    removeStateDir(stateDir);
    assert.equal(r.status, 125, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /no-such-box/);
  });
});
