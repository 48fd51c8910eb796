// Facedown's service worker: once the client has loaded, it opens without a network (the
// Physical Scoreboard is used where the network is poor).  Written by hand, small on purpose:
//
// - a page (a navigation): the network first, so a new build is used as soon as it is there;
//   when the network fails, the last index.html kept (every route of the client is index.html);
// - the built files under /assets/ (names carry a content hash, they never change): the cache
//   first, else the network, and kept;
// - the manifest and icons: the cache first, else the network, and kept;
// - everything else (/api/, /ws, other origins): not touched, the browser fetches it as usual.
//
// On install it fetches "/" and keeps it with every /assets/ file it names, so the first load
// is enough to open the client offline.  An activated worker drops the caches of older versions.

const CACHE = "facedown-v1";
const SHELL = "/";
const STATIC = ["/manifest.webmanifest", "/icon.svg", "/icon-192.png", "/icon-512.png"];

/** The /assets/ files an index.html names (its script and styles). */
function assetsOf(html) {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

/** Keep ``html`` as the client's page with every asset it names; the assets of older builds,
 * which the page no longer names, are dropped. */
async function keepPage(html, headers) {
  const cache = await caches.open(CACHE);
  const assets = assetsOf(html);
  const missing = [];
  for (const asset of assets) if (!(await cache.match(asset))) missing.push(asset);
  await cache.addAll(missing);
  // The server's headers (its Content-Security-Policy among them) without those of the bytes
  // on the wire: the text kept is decoded, whatever compression a proxy used.
  const kept = new Headers(headers);
  for (const name of ["content-encoding", "content-length", "transfer-encoding"]) kept.delete(name);
  await cache.put(SHELL, new Response(html, { headers: kept }));
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/assets/") && !assets.includes(path)) await cache.delete(request);
  }
}

async function keepShell() {
  const response = await fetch(SHELL, { cache: "no-cache" });
  if (response.ok) await keepPage(await response.text(), response.headers);
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(STATIC);
      await keepShell();
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

async function page(event) {
  const request = event.request;
  try {
    const response = await fetch(request);
    const html = response.ok ? await response.clone().text() : "";
    if (html.includes('<div id="app">')) {
      // The client's page as it is now, and the assets it names, for the next time offline
      // (the page is answered meanwhile; a failure to keep it keeps the older one).
      event.waitUntil(keepPage(html, response.headers).catch(() => undefined));
    }
    return response;
  } catch (error) {
    const kept = await caches.match(SHELL);
    if (kept) return kept;
    throw error;
  }
}

async function file(request) {
  const kept = await caches.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname.startsWith("/api/")) return;
    event.respondWith(page(event));
  } else if (url.pathname.startsWith("/assets/") || STATIC.includes(url.pathname)) {
    event.respondWith(file(request));
  }
});
