// Part of the build: every text key the client names must have a text in English and German.
//
// A literal key ("table.round") in a t(...) or translate(locale, ...) call must be in both
// catalogs; a key built at run time (`level.${level}`) must have at least one key in both
// catalogs under its fixed prefix.  The catalogs must hold the same keys, and a German text
// identical to its English one is a slip unless it is listed below (names, and words that are
// the same in both languages).  Any finding fails the build with the file and key.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(ts|svelte)$/.test(name) && !/^i18n(_\w+)?\.ts$/.test(name)) out.push(path);
  }
  return out;
}

const en = catalog("i18n_en.ts");
const de = catalog("i18n_de.ts");
const problems = [];

for (const key of en.keys()) if (!de.has(key)) problems.push(`i18n_de.ts: no German text for ${key}`);
for (const key of de.keys()) if (!en.has(key)) problems.push(`i18n_en.ts: no English text for ${key}`);
for (const [key, text] of de) {
  if (en.get(key) === text && /[a-z]{3}/.test(text.replace(/\{[^}]*\}/g, "")) && !SAME_IN_BOTH.has(key)) {
    problems.push(`i18n_de.ts: ${key} is still the English text "${text}"`);
  }
}

// t("key"), t(`prefix.${x}`), translate(locale, "key"), translate(cast.locale, `x.${y}`)
const CALL = /\b(?:t\(|translate\([\w.]+,)\s*(["'`])([a-z][\w.:-]*)(\$\{)?/g;
for (const path of files(src)) {
  const text = readFileSync(path, "utf8");
  for (const match of text.matchAll(CALL)) {
    const [, quote, key, template] = match;
    const where = relative(root, path);
    if (quote === "`" && template) {
      const has = (cat) => [...cat.keys()].some((k) => k.startsWith(key));
      if (!has(en) || !has(de)) problems.push(`${where}: no text under the key prefix ${key}`);
    } else if (!en.has(key) || !de.has(key)) {
      problems.push(`${where}: no text for the key ${key}`);
    }
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`text keys: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`text keys: ${en.size} keys in English and German, every key named in src/ has both`);
