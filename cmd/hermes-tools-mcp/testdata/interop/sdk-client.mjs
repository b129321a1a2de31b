// sdk-client.mjs drives an MCP stdio server with the official TypeScript SDK
// client (@modelcontextprotocol/sdk, pinned in .ci/npm/package.json) and
// prints one JSON object describing what it saw. Used by interop_test.go.
//
// Usage:
//   PLAN='[{"name":"skills_list","arguments":{}}]' node sdk-client.mjs [--] <server command> [args...]
//   node sdk-client.mjs --plan '<json>' [--] <server command> [args...]
//
// The SDK is loaded from HERMES_INTEROP_NPM_DIR (default: the nearest
// .ci/npm directory above this script that has node_modules).
//
// Output (stdout, one line):
//   {"serverInfo":{...},"protocolVersion":"...","tools":["..."],
//    "calls":[{"name":"...","arguments":{...},"result":{...}} | {"name":"...","error":"..."}]}
// A call that the client rejects (JSON-RPC error, timeout) is reported in its
// "error" field; failing to start, connect or list tools exits 1.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

function die(msg) {
  process.stderr.write(`sdk-client: ${msg}\n`);
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

function parseArgs(argv) {
  let planText = process.env.PLAN ?? "[]";
  let i = 0;
  if (argv[i] === "--plan") {
    if (argv.length < 2) die("--plan needs a JSON argument");
    planText = argv[i + 1];
    i += 2;
  }
  if (argv[i] === "--") i++;
  const command = argv.slice(i);
  if (command.length === 0) die("usage: [PLAN=<json>] node sdk-client.mjs [--plan <json>] [--] <server command> [args...]");
  let plan;
  try {
    plan = JSON.parse(planText);
  } catch (e) {
    die(`plan is not valid JSON: ${e.message}`);
  }
  if (!Array.isArray(plan) || !plan.every((c) => c && typeof c.name === "string")) {
    die('plan must be a JSON array of {"name": string, "arguments": object}');
  }
  return { command, plan };
}

const { command, plan } = parseArgs(process.argv.slice(2));
const npmDir = findNpmDir();
const requireFromNpm = createRequire(join(npmDir, "package.json"));
let Client, StdioClientTransport;
try {
  ({ Client } = requireFromNpm("@modelcontextprotocol/sdk/client/index.js"));
  ({ StdioClientTransport } = requireFromNpm("@modelcontextprotocol/sdk/client/stdio.js"));
} catch (e) {
  die(`cannot load @modelcontextprotocol/sdk from ${npmDir}: ${e.message}`);
}

const transport = new StdioClientTransport({
  command: command[0],
  args: command.slice(1),
  env: process.env,
  stderr: "inherit",
});
// SDK 1.x has no public getter for the negotiated protocol version; the client
// hands it to the transport right after initialize, so capture it there.
let protocolVersion = null;
transport.setProtocolVersion = (v) => {
  protocolVersion = v;
};

const client = new Client({ name: "hermes-interop-sdk-client", version: "0.0.0" });
const out = { serverInfo: null, protocolVersion: null, tools: [], calls: [] };
try {
  await client.connect(transport);
} catch (e) {
  die(`connect to ${JSON.stringify(command)} failed: ${e.message}`);
}
out.serverInfo = client.getServerVersion() ?? null;
out.protocolVersion = protocolVersion;

try {
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => t.name);
} catch (e) {
  await client.close().catch(() => {});
  die(`tools/list failed: ${e.message}`);
}

for (const call of plan) {
  const args = call.arguments ?? {};
  try {
    const result = await client.callTool({ name: call.name, arguments: args });
    out.calls.push({ name: call.name, arguments: args, result });
  } catch (e) {
    out.calls.push({ name: call.name, arguments: args, error: String(e?.message ?? e) });
  }
}

await client.close().catch((e) => process.stderr.write(`sdk-client: close: ${e.message}\n`));
process.stdout.write(JSON.stringify(out) + "\n");
