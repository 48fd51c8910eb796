// A browser's User-Agent as people name it: "Chrome on Android", "Firefox on Linux".  Only the
// main browsers and systems are told apart; anything else is "another browser".

import { translate, type Locale } from "./i18n";

export interface Agent {
  browser: string | null;
  system: string | null;
}

// Tried in order: a browser built on another names that one too ("Edg/" comes with "Chrome/",
// "Chrome/" with "Safari/"), so the more particular comes first.
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bVivaldi\//, "Vivaldi"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/(\b|Headless)(Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\b(Macintosh|Mac OS X)\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

function first(table: [RegExp, string][], text: string): string | null {
  for (const [pattern, name] of table) if (pattern.test(text)) return name;
  return null;
}

export function parseAgent(agent: string): Agent {
  return { browser: first(BROWSERS, agent), system: first(SYSTEMS, agent) };
}

/** The agent in words ("" when nothing of it is known: the caller says "an unnamed browser"). */
export function agentName(locale: Locale, agent: string): string {
  const { browser, system } = parseAgent(agent);
  if (!browser && !system) return "";
  if (!system) return translate(locale, "account.agentBrowser", { browser: browser! });
  return translate(locale, "account.agent", {
    browser: browser ?? translate(locale, "account.otherBrowser"),
    system,
  });
}
