// progress-client.mjs calls one tool on an MCP stdio server with the
// official TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// .ci/npm) and an onprogress callback, then prints one JSON line:
//   {"progress":[{"progress":0,"total":3,"message":"..."}, ...],
//    "result":{...}, "resultAfterProgress":true}
// Used by interop_test.go in this directory.
//
// Usage: HERMES_INTEROP_NPM_DIR=<repo>/.ci/npm node progress-client.mjs \
//          '<tool name>' '<arguments json>' -- <server command> [args...]

import { createRequire } from "node:module";
import { join } from "node:path";

function die(msg) {
  process.stderr.write(`progress-client: ${msg}\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep !== 2 || argv.length < 4) die("usage: progress-client.mjs <tool> <args-json> -- <command> [args...]");
const [tool, argsJSON] = argv;
const command = argv.slice(3);
const npmDir = process.env.HERMES_INTEROP_NPM_DIR;
if (!npmDir) die("HERMES_INTEROP_NPM_DIR is not set");

const req = createRequire(join(npmDir, "package.json"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");

const transport = new StdioClientTransport({
  command: command[0],
  args: command.slice(1),
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "hermes-progress-test", version: "0.0.0" });
await client.connect(transport);

const progress = [];
let done = false;
let lateProgress = 0;
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) }, undefined, {
  timeout: 30000,
  onprogress: (p) => {
    if (done) lateProgress++;
    progress.push(p);
  },
});
done = true;
// Give a notification that was sent after the result a moment to arrive,
// so the test can tell it happened.
await new Promise((r) => setTimeout(r, 200));
await client.close().catch(() => {});
process.stdout.write(JSON.stringify({ progress, result, lateProgress }) + "\n");
