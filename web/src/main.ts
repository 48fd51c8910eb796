import { mount } from "svelte";
import App from "./App.svelte";
import "./style.css";

const target = document.getElementById("app");
if (!target) throw new Error("no #app element");
export default mount(App, { target });

// The service worker (public/sw.js) keeps the built client, so that once loaded it opens
// without a network: the Physical Scoreboard is used where the network is poor.  Browsers
// allow one only in a secure context (https, or localhost); elsewhere the client runs without.
if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  });
}
