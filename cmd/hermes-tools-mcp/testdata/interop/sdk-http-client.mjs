// sdk-http-client.mjs drives a Streamable HTTP MCP server with the official
// TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// .ci/npm/package.json): N clients at once, each with its own session, each
// listing the tools, running the plan, then ending its session. Used by
// http_test.go.
//
// Usage:
//   node sdk-http-client.mjs --url URL [--token T] [--clients N] [--plan JSON] [--progress JSON] [--memory-add PREFIX]
//
// --progress '{"name":"web_extract","arguments":{...}}' makes client 0 also
// run that call with an onprogress callback and report what arrived.
// --memory-add PREFIX makes client n also save the memory entry "PREFIX n",
// all clients at once, to check concurrent sessions' writes to the home.
//
// Output (stdout, one line):
//   {"serverInfo":{...},"protocolVersion":"...","tools":[...],
//    "clients":[{"sessionId":"...","calls":[{"name","result"}|{"name","error"}],"error":"..."}],
//    "progress":{"events":[...],"result":{...},"late":0}}
// Any failure is reported in the output, never thrown, so the Go test sees
// every client's outcome.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

function die(msg) {
  process.stderr.write(`sdk-http-client: ${msg}\n`);
  process.exit(1);
}

function findNpmDir() {
  if (process.env.HERMES_INTEROP_NPM_DIR) return resolve(process.env.HERMES_INTEROP_NPM_DIR);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const cand = join(dir, ".ci", "npm");
    if (existsSync(join(cand, "node_modules"))) return cand;
    const up = dirname(dir);
    if (up === dir) die("cannot find .ci/npm/node_modules above this script; set HERMES_INTEROP_NPM_DIR or run `make test`");
    dir = up;
  }
}

const opts = { url: "", token: "", clients: 1, plan: [], progress: null, memoryAdd: "" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [k, v] = [argv[i], argv[i + 1]];
  if (v === undefined) die(`${k} needs a value`);
  switch (k) {
    case "--url": opts.url = v; break;
    case "--token": opts.token = v; break;
    case "--clients": opts.clients = Number(v); break;
    case "--plan": opts.plan = JSON.parse(v); break;
    case "--progress": opts.progress = JSON.parse(v); break;
    case "--memory-add": opts.memoryAdd = v; break;
    default: die(`unknown flag ${k}`);
  }
}
if (!opts.url) die("--url is required");

const requireFromNpm = createRequire(join(findNpmDir(), "package.json"));
const { Client } = requireFromNpm("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = requireFromNpm("@modelcontextprotocol/sdk/client/streamableHttp.js");

const out = { serverInfo: null, protocolVersion: null, tools: [], clients: [], progress: null };

async function runClient(n) {
  const rec = { sessionId: null, calls: [], memoryAdd: null, error: null };
  const headers = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers } });
  const client = new Client({ name: `hermes-http-interop-${n}`, version: "0.0.0" });
  try {
    await client.connect(transport);
    rec.sessionId = transport.sessionId ?? null;
    const listed = await client.listTools();
    if (n === 0) {
      out.serverInfo = client.getServerVersion() ?? null;
      out.protocolVersion = transport.protocolVersion ?? null;
      out.tools = listed.tools.map((t) => t.name);
    }
    for (const call of opts.plan) {
      const args = call.arguments ?? {};
      try {
        rec.calls.push({ name: call.name, result: await client.callTool({ name: call.name, arguments: args }) });
      } catch (e) {
        rec.calls.push({ name: call.name, error: String(e?.message ?? e) });
      }
    }
    if (opts.memoryAdd) {
      const args = { action: "add", target: "memory", content: `${opts.memoryAdd} ${n}` };
      rec.memoryAdd = await client.callTool({ name: "memory", arguments: args });
    }
    if (n === 0 && opts.progress) {
      const events = [];
      let done = false;
      let late = 0;
      const result = await client.callTool(
        { name: opts.progress.name, arguments: opts.progress.arguments ?? {} },
        undefined,
        { onprogress: (p) => { if (done) late++; else events.push(p); }, timeout: 30000 },
      );
      done = true;
      out.progress = { events, result, late };
    }
    await transport.terminateSession();
  } catch (e) {
    rec.error = String(e?.message ?? e);
  }
  await client.close().catch(() => {});
  return rec;
}

out.clients = await Promise.all(Array.from({ length: opts.clients }, (_, n) => runClient(n)));
process.stdout.write(JSON.stringify(out) + "\n");
