// sdk-http-shutdown.mjs makes one tools/call with the official TypeScript
// SDK client (@modelcontextprotocol/sdk) over Streamable HTTP and reports
// how it ended, so a test can stop the server while the call runs and see
// that callTool rejects with the server's error instead of hanging. Used by
// http_test.go.
//
// Usage:
//   node sdk-http-shutdown.mjs --url URL --token T --call '{"name":...,"arguments":{...}}'
//
// Output (stdout, one line): {"result":{...}} or {"error":"...","code":N}.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

function die(msg) {
  process.stderr.write(`sdk-http-shutdown: ${msg}\n`);
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

const opts = { url: "", token: "", call: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [k, v] = [argv[i], argv[i + 1]];
  if (v === undefined) die(`${k} needs a value`);
  switch (k) {
    case "--url": opts.url = v; break;
    case "--token": opts.token = v; break;
    case "--call": opts.call = JSON.parse(v); break;
    default: die(`unknown flag ${k}`);
  }
}
if (!opts.url || !opts.call) die("--url and --call are required");

const requireFromNpm = createRequire(join(findNpmDir(), "package.json"));
const { Client } = requireFromNpm("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = requireFromNpm("@modelcontextprotocol/sdk/client/streamableHttp.js");

const headers = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers } });
const client = new Client({ name: "hermes-http-shutdown", version: "0.0.0" });
let out;
try {
  await client.connect(transport);
  // The SDK's own timeout is far beyond the test's bound, so an answer
  // that never comes shows as the test's timeout, not as this error.
  const result = await client.callTool({ name: opts.call.name, arguments: opts.call.arguments ?? {} }, undefined, { timeout: 120000 });
  out = { result };
} catch (e) {
  out = { error: String(e?.message ?? e), code: e?.code ?? null };
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close().catch(() => {});
process.exit(0);
