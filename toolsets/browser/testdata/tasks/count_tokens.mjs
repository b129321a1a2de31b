// Reads one JSON string per line on stdin and prints, per line, how many
// o200k_base tokens it encodes to, with gpt-tokenizer as pinned in the
// .ci/npm directory given as the first argument (this script lives outside
// it, so the package is resolved from there). Special-token spellings in a
// text are counted as the plain text they are.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { resolve } from "node:path";

const require = createRequire(resolve(process.argv[2], "package.json"));
const { encode } = require("gpt-tokenizer/encoding/o200k_base");

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  process.stdout.write(encode(JSON.parse(line), { disallowedSpecial: new Set() }).length + "\n");
}
