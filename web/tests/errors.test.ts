import { describe, expect, it } from "vitest";
import { ApiError } from "../src/lib/api";
import { ERROR_CODES, STOP_CODES, apiErrorText, errorText, retryKey } from "../src/lib/errors";
import { LOCALES, translate } from "../src/lib/i18n";
import { de } from "../src/lib/i18n_de";
import { en } from "../src/lib/i18n_en";

describe("error texts", () => {
  it("has a text of its own for every code the server sends, in every language", () => {
    expect(ERROR_CODES.length).toBeGreaterThan(40); // from the generated wire.ts
    const missing: string[] = [];
    for (const [locale, catalog] of [
      ["en", en],
      ["de", de],
    ] as const) {
      for (const code of ERROR_CODES) {
        const text = catalog[`error.${code}`];
        if (!text || !text.trim()) missing.push(`${locale}: error.${code}`);
      }
    }
    expect(missing).toEqual([]);
    expect(LOCALES).toEqual(["en", "de"]); // a new language needs its texts too
  });

  it("shows the client's text, never the server's English, for a known code", () => {
    const server = "too many messages: slow down";
    expect(errorText("de", "rate_limited", server)).toBe(de["error.rate_limited"]);
    expect(errorText("en", "rate_limited", server)).toMatch(/wait/);
    expect(errorText("de", "illegal:not_your_turn", "it is not your turn")).toBe("Du bist nicht am Zug.");
    // An English page shows the engine's specific reason; with none, the code's text.
    expect(errorText("en", "illegal:not_in_rules", "turns end by themselves")).toBe("Refused: turns end by themselves");
    expect(errorText("en", "illegal:not_your_turn", "")).toBe(en["error.illegal:not_your_turn"]);
    // A code a newer server sends and this client does not know: the server's message.
    expect(errorText("de", "brand_new", "something new")).toBe("something new");
    expect(errorText("en", "illegal:brand_new", "no")).toBe(translate("en", "error.refused", { message: "no" }));
    expect(errorText("en", "bad_rules", "rounds: at most 50")).toContain("rounds: at most 50");
  });

  it("stops the connection on the codes that need the player, and offers to try again", () => {
    for (const code of STOP_CODES) expect(ERROR_CODES as readonly string[]).toContain(code);
    expect(retryKey("idle")).toBe("error.watchAgain");
    expect(retryKey("too_many_spectators")).toBe("error.tryAgain");
    expect(retryKey("bad_token")).toBeNull();
    expect(STOP_CODES.has("rate_limited")).toBe(false); // wait, do not leave
  });

  it("turns what an HTTP call threw into a text", () => {
    expect(apiErrorText("de", new ApiError("table_closed", "table X is closed"))).toBe(de["error.table_closed"]);
    expect(apiErrorText("en", new ApiError("network", "x"))).toBe(en["error.network"]);
    expect(apiErrorText("en", new ApiError("http_502", "error 502"))).toContain("502");
  });
});
