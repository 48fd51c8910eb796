// Prints the gzipped size of the built JS and CSS, and fails above the budget (150 KB).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET = 150 * 1024;
const root = new URL("../../facedown/web_dist/", import.meta.url).pathname;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

let total = 0;
for (const path of files(root)) {
  if (!/\.(js|css)$/.test(path)) continue;
  const gz = gzipSync(readFileSync(path), { level: 9 }).length;
  total += gz;
  console.log(`  ${path.slice(root.length).padEnd(40)} ${(gz / 1024).toFixed(1)} KB gzipped`);
}
console.log(`built JS+CSS: ${(total / 1024).toFixed(1)} KB gzipped (budget ${BUDGET / 1024} KB)`);
if (total > BUDGET) {
  console.error("error: the built client is over its size budget");
  process.exit(1);
}
