// App-wide state: the language, the presets from the server, the current route.

import { getModes, getPresets, type ModeInfo } from "./api";
import { hasText, initialLocale, translate, type Locale, type Params, type TextKey } from "./i18n";
import type { Ruleset } from "./protocol";
import { parseReplay, parseRoute, routePath, type Route } from "./router";
import { browserStore, LOCALE_KEY, seatToken } from "./session";

export const store = browserStore();

export const app = $state<{
  locale: Locale;
  presets: Record<string, Ruleset> | null;
  modes: Record<string, Record<string, ModeInfo>> | null;
  route: Route;
}>({
  locale: initialLocale(store.getItem(LOCALE_KEY), typeof navigator === "undefined" ? [] : navigator.languages),
  presets: null,
  modes: null,
  route: parseRoute(
    typeof location === "undefined" ? "/" : location.pathname,
    typeof location === "undefined" ? "" : location.hash,
  ),
});

/** The text for ``key`` in the current language (reactive in templates). */
export function t(key: TextKey, params: Params = {}): string {
  return translate(app.locale, key, params);
}

export function setLocale(locale: Locale): void {
  app.locale = locale;
  store.setItem(LOCALE_KEY, locale);
  document.documentElement.lang = locale;
}

export function navigate(route: Route, replace = false): void {
  const path = routePath(route);
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  app.route = route;
  window.scrollTo(0, 0);
}

export function listenToHistory(): void {
  window.addEventListener("popstate", () => {
    app.route = parseRoute(location.pathname, location.hash);
  });
  // A seat link pasted into the address bar of an open table changes only the fragment (no
  // page load): load the page, which takes the seat from the fragment as any opening does.
  window.addEventListener("hashchange", () => {
    if (seatToken(location.hash)) location.reload();
    else if (parseReplay(location.hash)) app.route = parseRoute(location.pathname, location.hash);
  });
}

let loading: Promise<void> | null = null;

export function loadPresets(): Promise<void> {
  loading ??= Promise.all([getPresets(), getModes()])
    .then(([p, m]) => {
      app.presets = p;
      app.modes = m;
    })
    .catch(() => {
      loading = null;
    });
  return loading;
}

export function presetName(name: string): string {
  const key = `preset.${name}`;
  return hasText(key) ? t(key) : name;
}
