// @agentbox/client against a live `agentbox serve`: AGENTBOX_URL (a unix socket) and
// AGENTBOX_TCP_URL + AGENTBOX_TCP_TOKEN (a TCP listener with a tokens file), set by
// tests/sdk/run.sh.
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  AgentboxClient, AgentboxError, Conflict, InvalidArgument, NotFound, PermissionDenied,
  Sandbox, Unauthenticated, Unavailable,
} from "../dist/index.js";

const client = new AgentboxClient();

test("Sandbox.with: exec, and the sandbox is gone afterwards", async () => {
  let id;
  const result = await Sandbox.with({ memory: "256M", timeout: 30 }, async (sb) => {
    id = sb.id;
    assert.ok((await client.list()).some((s) => s.id === sb.id));
    assert.equal((await sb.inspect()).policy.memory, 256 * 1024 * 1024);
    return sb.exec(["sh", "-c", "echo hi; echo err >&2; exit 3"]);
  }, client);
  assert.equal(result.exit_code, 3);
  assert.equal(result.reason, "exited");
  assert.equal(result.stdout, "hi\n");
  assert.equal(result.stderr, "err\n");
  assert.deepEqual(result.limits_hit, []);
  assert.deepEqual(result.network, { egress: false, connections: [] });
  await assert.rejects(client.inspect(id), (e) => e instanceof NotFound && e.code === "not_found" && e.status === 404);
});

// What `await using sb = ...` calls at the block's end (the syntax itself is newer than Node 22).
test("Symbol.asyncDispose removes the sandbox", async () => {
  const sb = await client.create();
  try {
    const r = await sb.exec("echo $A $(pwd); cat", { env: { A: "1" }, cwd: "/tmp", stdin: "in" });
    assert.equal(r.stdout, "1 /tmp\nin");
    const slow = await sb.exec(["sleep", "10"], { timeout: 0.5 });
    assert.equal(slow.exit_code, 124);
    assert.ok(slow.limits_hit.includes("timeout"));
  } finally {
    await sb[Symbol.asyncDispose]();
  }
  await assert.rejects(client.inspect(sb.id), NotFound);
});

test("stream: output as it comes, then the result", async () => {
  await Sandbox.with({}, async (sb) => {
    const events = [];
    for await (const e of sb.stream(["sh", "-c", "echo one; echo two >&2; echo three"])) events.push(e);
    assert.equal(events.at(-1).type, "result");
    assert.equal(events.at(-1).result.exit_code, 0);
    assert.equal(events.filter((e) => e.type === "stdout").map((e) => e.data).join(""), "one\nthree\n");
    assert.equal(events.filter((e) => e.type === "stderr").map((e) => e.data).join(""), "two\n");
  }, client);
});

test("files, edits and tar archives", async () => {
  await Sandbox.with({}, async (sb) => {
    assert.equal(await sb.writeFile("src/a.txt", "hello\n"), 6);
    assert.equal(await sb.readText("src/a.txt"), "hello\n");
    await sb.editFile("src/a.txt", "hello", "bye");
    assert.equal(await sb.readText("/workspace/src/a.txt"), "bye\n");
    assert.deepEqual((await sb.listFiles("src")).map((e) => e.name), ["a.txt"]);
    const tar = await sb.download("src");
    assert.ok(tar.length >= 1024 && tar.length % 512 === 0);
    await sb.exec("mkdir copy");
    const extracted = await sb.upload("copy", tar);
    assert.deepEqual([extracted.files, extracted.directories], [1, 1]);
    assert.equal(await sb.readText("copy/src/a.txt"), "bye\n");
    await sb.removeFile("src", { recursive: true });
    await assert.rejects(sb.readFile("src/a.txt"), NotFound);
    await assert.rejects(sb.readFile("../etc/passwd"), PermissionDenied);
  }, client);
});

test("errors carry the API's codes", async () => {
  await assert.rejects(client.create({ memory: "lots" }), (e) => e instanceof InvalidArgument && e.code === "invalid_argument" && e.status === 400);
  await Sandbox.with({ name: "sdk-ts-taken" }, async (sb) => {
    await assert.rejects(client.create({ name: "sdk-ts-taken" }), (e) => e instanceof Conflict && e.code === "already_exists");
    assert.equal((await client.sandbox("sdk-ts-taken")).id, sb.id);
    const busy = sb.stream(["sh", "-c", "echo go; sleep 30"]);
    assert.equal((await busy.next()).value.data, "go\n");
    await assert.rejects(sb.remove(), (e) => e instanceof Conflict && e.code === "failed_precondition" && e.status === 409 && /force=true/.test(e.message));
    await busy.return();
  }, client);
  await assert.rejects(new AgentboxClient({ url: "unix:/nonexistent/agentbox.sock" }).list(), (e) => e instanceof Unavailable && e instanceof AgentboxError);
});

test("background processes", async () => {
  await Sandbox.with({}, async (sb) => {
    const p = await sb.start(["sh", "-c", "read line; echo got $line; exit 7"], { interactive: true });
    await p.writeStdin("x\n", { close: true });
    const done = await p.wait(20);
    assert.equal(done.state, "exited");
    assert.equal(done.result.exit_code, 7);
    assert.equal((await p.logs()).stdout, "got x\n");
    const q = await sb.start("sleep 30");
    await q.kill("KILL");
    assert.equal((await q.wait(20)).result.reason, "signaled");
    assert.deepEqual((await sb.processes()).map((x) => x.id), [p.id, q.id]);
  }, client);
});

test("TCP with a bearer token, over plain fetch", { skip: !process.env.AGENTBOX_TCP_URL }, async () => {
  const tcp = new AgentboxClient({ url: process.env.AGENTBOX_TCP_URL, token: process.env.AGENTBOX_TCP_TOKEN });
  assert.ok(await tcp.health());
  const r = await Sandbox.with({}, (sb) => sb.exec(["echo", "over tcp"]), tcp);
  assert.equal(r.stdout, "over tcp\n");
  const anonymous = new AgentboxClient({ url: process.env.AGENTBOX_TCP_URL, token: "" });
  await assert.rejects(anonymous.list(), (e) => e instanceof Unauthenticated && e.status === 401);
});
