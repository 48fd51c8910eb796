import { describe, expect, it } from "vitest";
import { deviceLink, MemoryStore, parseCode, saveSeat, seatFor, seatToken } from "../src/lib/session";
import { parseRoute } from "../src/lib/router";

// A token as the server signs them (itsdangerous, URL-safe): payload "." signature.
const TOKEN = "eyJwIjoiYWJjZGVmMDEyMzQ1NjciLCJuIjoiQW5uIn0.Xk3-_q9Zr1vO2Pj8yT0wLkQmN4s";

describe("the link that moves a seat to another device", () => {
  it("carries the token in the fragment, which never reaches the server", () => {
    const link = deviceLink("https://play.example", "abc234", TOKEN);
    expect(link).toBe(`https://play.example/t/ABC234#seat=${TOKEN}`);
    const url = new URL(link);
    expect(url.pathname).toBe("/t/ABC234"); // what the server sees
    expect(url.search).toBe("");
    expect(url.hash).toBe(`#seat=${TOKEN}`);
  });

  it("reads the token back from the link, or from location.hash alone", () => {
    const link = deviceLink("http://127.0.0.1:8000", "ABC234", TOKEN);
    expect(seatToken(link)).toBe(TOKEN);
    expect(seatToken(new URL(link).hash)).toBe(TOKEN);
    expect(seatToken(`#other=1&seat=${TOKEN}`)).toBe(TOKEN);
  });

  it("opens the table's page and names the same table", () => {
    const link = deviceLink("http://127.0.0.1:8000", "ABC234", TOKEN);
    expect(parseRoute(new URL(link).pathname)).toEqual({ page: "table", code: "ABC234" });
    expect(parseCode(link)).toBe("ABC234"); // pasted into "join by code" too
  });

  it("finds no token where there is none, or where it is not a token's shape", () => {
    expect(seatToken("")).toBeNull();
    expect(seatToken("http://h/t/ABC234")).toBeNull();
    expect(seatToken("#")).toBeNull();
    expect(seatToken("#seat=")).toBeNull();
    expect(seatToken("#seat=a%20b")).toBeNull(); // a space: not a signed token
    expect(seatToken("#seat=<script>")).toBeNull();
    expect(seatToken(`#seat=${"x".repeat(3000)}`)).toBeNull();
  });

  it("a token taken from a link replaces what this browser kept for that table", () => {
    const store = new MemoryStore();
    saveSeat(store, { code: "ABC234", token: "old", name: "Ann", preset: "cabo", at: 1 });
    const token = seatToken(deviceLink("http://h", "ABC234", TOKEN));
    saveSeat(store, { code: "ABC234", token: token!, name: "", preset: "", at: 2 });
    expect(seatFor(store, "abc234")?.token).toBe(TOKEN);
  });
});
