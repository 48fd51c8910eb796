// Part of the build: no German text left in English.
//
// The types check the rest (lib/i18n.ts): every t(...) and translate(...) takes a key of the
// English catalog (TextKey), a key built at run time names its prefix through keyUnder (checked
// to begin a key) or is a template string over a union, and the German catalog is typed as
// having exactly the English keys, so a misspelt key, a key missing in German or one too many
// fails svelte-check and tsc.  What no type sees is a German text identical to its English one:
// a slip unless it is listed below (names, and words that are the same in both languages).  Any
// finding fails the build with the key.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** The keys of one catalog file (`"key": "text",` lines) with their texts. */
function catalog(name) {
  const text = readFileSync(join(src, "lib", name), "utf8");
  const entries = new Map();
  for (const match of text.matchAll(/^\s*"([^"]+)":\s*\n?\s*"((?:[^"\\]|\\.)*)"/gm)) {
    entries.set(match[1], match[2]);
  }
  return entries;
}

// German texts that are rightly the same as the English ones.
const SAME_IN_BOTH = new Set([
  "app.title",
  "preset.boyo",
  "preset.cabo",
  "preset.kivo",
  "preset.kaboom",
  "settings.jokers",
  "card.joker",
  "act.tap",
  "act.call",
  "power.list",
  "howto.powerLine",
  "log.their",
  "rank.short.A",
  "rank.short.K",
  "home.opponent",
  "reveal.hand",
]);

const en = catalog("i18n_en.ts");
const de = catalog("i18n_de.ts");
const problems = [];

for (const [key, text] of de) {
  if (en.get(key) === text && /[a-z]{3}/.test(text.replace(/\{[^}]*\}/g, "")) && !SAME_IN_BOTH.has(key)) {
    problems.push(`i18n_de.ts: ${key} is still the English text "${text}"`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`text keys: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`text keys: ${de.size} German texts, none left in English by mistake`);
