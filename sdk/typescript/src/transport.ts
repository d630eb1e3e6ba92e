// Where the server is and how requests reach it: fetch for TCP, and for a unix socket (which
// fetch cannot dial) a fetch-compatible function on node:http, so one code path serves both.
import { request } from "node:http";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";

import { Unavailable, errorFromAnswer } from "./errors.js";

export type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that sends every request to the unix socket at `socketPath`. */
export function unixSocketFetch(socketPath: string): Fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => (headers[key] = value));
      const body = init.body as Uint8Array | string | undefined | null;
      if (body != null) headers["content-length"] = String(Buffer.byteLength(body));
      const req = request(
        { socketPath, path: url.pathname + url.search, method: init.method ?? "GET", headers },
        (res) => {
          const noBody = res.statusCode === 204 || res.statusCode === 304;
          const stream = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          const answer = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (value !== undefined) answer.set(key, Array.isArray(value) ? value.join(", ") : value);
          }
          resolve(new Response(stream, { status: res.statusCode, headers: answer }));
        },
      );
      req.on("error", reject);
      init.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")));
      if (body != null) req.write(body);
      req.end();
    });
}

/** The socket `agentbox serve` listens on by default (docs/api.md, Listening). */
export function defaultSocket(): string {
  if (existsSync("/run/agentbox/agentbox.sock")) return "/run/agentbox/agentbox.sock";
  let state = process.env.AGENTBOX_STATE_DIR;
  if (!state) {
    state =
      process.getuid?.() === 0
        ? "/var/lib/agentbox"
        : join(process.env.XDG_STATE_HOME || join(homedir(), ".local/state"), "agentbox");
  }
  return join(state, "agentbox.sock");
}

export interface ClientOptions {
  /** `unix:/path` or `http://host:port`; default $AGENTBOX_URL, else the default socket. */
  url?: string;
  /** Bearer token; default $AGENTBOX_TOKEN. */
  token?: string;
  /** A fetch of your own (a proxy, a test double); default: global fetch, or the unix one. */
  fetch?: Fetch;
}

type Query = Record<string, string | number | boolean | undefined>;

export class Transport {
  private readonly base: string;
  private readonly fetch: Fetch;
  private readonly token?: string;
  readonly where: string;

  constructor(options: ClientOptions = {}) {
    const url = options.url ?? process.env.AGENTBOX_URL ?? "unix:" + defaultSocket();
    this.token = options.token ?? process.env.AGENTBOX_TOKEN;
    if (url.startsWith("unix:")) {
      this.where = url.slice("unix:".length);
      this.base = "http://localhost";
      this.fetch = options.fetch ?? unixSocketFetch(this.where);
    } else if (url.startsWith("http://")) {
      this.where = url;
      this.base = url.replace(/\/+$/, "");
      this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    } else {
      throw new TypeError(`agentbox: want unix:/path or http://host:port, got ${url}`);
    }
  }

  /** Sends one request; an error answer is thrown, a good one returned unread. */
  async send(
    method: string,
    path: string,
    options: { query?: Query; json?: unknown; bytes?: Uint8Array | string; type?: string; accept?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const url = new URL(this.base + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: Uint8Array | string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    } else if (options.bytes !== undefined) {
      body = options.bytes;
      headers["content-type"] = options.type ?? "application/octet-stream";
    }
    let response: Response;
    try {
      response = await this.fetch(url, { method, headers, body: body as BodyInit | undefined, signal: options.signal });
    } catch (e) {
      throw new Unavailable(`cannot reach agentbox serve at ${this.where}: ${(e as Error).message}`, "unavailable");
    }
    if (response.status >= 400) throw errorFromAnswer(response.status, await response.text());
    return response;
  }

  async json<T>(method: string, path: string, options: Parameters<Transport["send"]>[2] = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async bytes(method: string, path: string, options: Parameters<Transport["send"]>[2] = {}): Promise<Uint8Array> {
    const response = await this.send(method, path, options);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** An NDJSON answer: one parsed object per line as it arrives. */
  async *lines<T>(method: string, path: string, options: Parameters<Transport["send"]>[2] = {}): AsyncGenerator<T> {
    const controller = new AbortController();
    const response = await this.send(method, path, { ...options, signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += value;
        let nl: number;
        while ((nl = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.trim()) yield JSON.parse(line) as T;
        }
      }
      if (pending.trim()) yield JSON.parse(pending) as T;
    } finally {
      // Leaving early hangs up: the server then kills the command's process tree.
      controller.abort();
      reader.releaseLock();
    }
  }
}
