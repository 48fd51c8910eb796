import { describe, expect, it } from "vitest";
import { parseRoute, routePath } from "../src/lib/router";
import {
  boardCsv,
  chart,
  loadKept,
  nextBase,
  queue,
  roundNotes,
  saveKept,
  sync,
  type Board,
  type BoardAnswer,
  type Fetch,
  type Kept,
} from "../src/lib/scoreboard";
import { MemoryStore } from "../src/lib/session";

const KEY = "k".repeat(24);

function board(totals: number[][]): Board {
  return {
    names: ["Ana", "Bo"],
    preset: "kivo",
    call_name: "Kivo",
    moon: false,
    match_rounds: 3,
    score_limit: null,
    placement: null,
    rounds: totals.map((t, i) => ({
      number: i + 1,
      hand_totals: t,
      caller: -1,
      moon: -1,
      scores: t,
      places: null,
      points: t,
      totals: t,
      reasons: [[], []],
      sudden_death: false,
    })),
    totals: totals.at(-1) ?? [0, 0],
    over: false,
    winners: [],
    next_sudden_death: false,
  };
}

function answer(revision: number): BoardAnswer {
  return { revision, view_key: "v".repeat(24), share_link: "/scoreboard/view/v", board: board([]) };
}

/** A board server in a few lines: revision-checked edits, as the real one answers them. */
function server(start: number, reachable = () => true) {
  let revision = start;
  const seen: string[] = [];
  const fetcher: Fetch = (path, init) => {
    if (!reachable()) return Promise.reject(new TypeError("Failed to fetch"));
    seen.push(`${init?.method ?? "GET"} ${path}`);
    const sent = init?.body ? (JSON.parse(String(init.body)) as { base: number }) : null;
    const base = sent?.base ?? Number(new URL(path, "http://x").searchParams.get("base") ?? revision);
    if (init?.method && base !== revision) {
      const detail = { code: "revision_conflict", message: "the board changed on another device" };
      return Promise.resolve(new Response(JSON.stringify({ detail }), { status: 409 }));
    }
    if (init?.method) revision += 1;
    return Promise.resolve(new Response(JSON.stringify(answer(revision)), { status: 200 }));
  };
  return { fetcher, seen, bump: () => (revision += 1) };
}

const empty = (revision: number): Kept => ({ answer: answer(revision), pending: [], refused: [], message: "" });
const round = { hand_totals: [3, 4], caller: 0, moon: -1 };

describe("scoreboard changes", () => {
  it("gives each queued change the revision it will be made on", () => {
    let kept = queue(empty(5), { kind: "add", round });
    kept = queue(kept, { kind: "undo", number: 1 });
    expect(kept.pending.map((c) => c.base)).toEqual([5, 6]);
    expect(nextBase(kept)).toBe(7);
  });

  it("keeps changes made offline and sends them in order once the network is back", async () => {
    let up = false;
    const s = server(2, () => up);
    let kept = queue(queue(empty(2), { kind: "add", round }), { kind: "edit", number: 1, round });
    const get = () => kept;
    const save = (k: Kept) => (kept = k);
    await sync(s.fetcher, KEY, get, save);
    expect(kept.pending).toHaveLength(2); // nothing was lost while offline
    up = true;
    await sync(s.fetcher, KEY, get, save);
    expect(kept.pending).toHaveLength(0);
    expect(kept.answer?.revision).toBe(4);
    expect(s.seen).toEqual([`POST /api/scoreboards/${KEY}/rounds`, `PUT /api/scoreboards/${KEY}/rounds/1`]);
  });

  it("sets changes aside when another device changed the board first", async () => {
    const s = server(2);
    s.bump(); // the other device's round
    let kept = queue(empty(2), { kind: "add", round });
    kept = await sync(s.fetcher, KEY, () => kept, (k) => (kept = k));
    expect(kept.pending).toHaveLength(0);
    expect(kept.refused).toHaveLength(1);
    expect(kept.message).toContain("another device");
    expect(kept.answer?.revision).toBe(3); // the board as the server has it now
  });

  it("is kept in the browser's storage", () => {
    const store = new MemoryStore();
    const kept = queue(empty(1), { kind: "add", round });
    saveKept(store, KEY, kept);
    expect(loadKept(store, KEY)).toEqual(kept);
    store.setItem(`facedown.board.${KEY}`, "{broken");
    expect(loadKept(store, KEY).pending).toEqual([]);
  });
});

describe("scoreboard chart", () => {
  it("draws each player's running total from 0, higher totals higher up", () => {
    const c = chart(board([[10, 0], [10, 30]]), 100, 50, 0);
    expect(c.lines).toHaveLength(2);
    expect(c.lines[1].points).toEqual([[0, 50], [50, 50], [100, 0]]);
    expect(c.lines[0].points[1]).toEqual([50, 33.33]); // 10 of 30: a third of the way up
    expect([c.low, c.high]).toEqual([0, 30]);
  });
});

describe("scoreboard routes", () => {
  it("parses the editor's and the viewer's links", () => {
    expect(parseRoute(`/scoreboard/${KEY}`)).toEqual({ page: "scoreboard", key: KEY });
    expect(parseRoute(`/scoreboard/view/${KEY}`)).toEqual({ page: "scoreboard-view", key: KEY });
    expect(parseRoute("/scoreboard")).toEqual({ page: "scoreboard-new" });
    expect(parseRoute("/scoreboard/short")).toEqual({ page: "scoreboard-new" });
    expect(routePath({ page: "scoreboard-view", key: KEY })).toBe(`/scoreboard/view/${KEY}`);
  });
});

/** A Cabo or Kaboom board of two players, its rounds given as the server scores them. */
function scored(preset: string, rounds: { totals: number[]; scores: number[]; reasons: string[][]; moon?: number }[]): Board {
  return {
    ...board([]),
    preset,
    moon: true,
    rounds: rounds.map((r, i) => ({
      number: i + 1,
      hand_totals: r.scores,
      caller: -1,
      moon: r.moon ?? -1,
      scores: r.scores,
      places: null,
      points: r.scores,
      totals: r.totals,
      reasons: r.reasons,
      sudden_death: false,
    })),
    totals: rounds.at(-1)?.totals ?? [0, 0],
  };
}

describe("scoreboard notes", () => {
  it("notes Cabo's reset once, then a 100 reached again that stays, and not a 100 kept", () => {
    const b = scored("cabo", [
      { scores: [100, 0], totals: [50, 0], reasons: [["hundred_reset"], ["lowest_scores_zero"]] },
      { scores: [50, 0], totals: [100, 0], reasons: [["moon_against"], ["shot_the_moon"]], moon: 1 },
      { scores: [0, 4], totals: [100, 4], reasons: [["lowest_scores_zero"], []] },
    ]);
    expect(roundNotes(b, 1)).toEqual([{ kind: "reset", player: 0, rule: "once", to: 50 }]);
    expect(roundNotes(b, 2)).toEqual([
      { kind: "moon", player: 1, others: 50 },
      { kind: "stays", player: 0 },
    ]);
    expect(roundNotes(b, 3)).toEqual([]);
    expect(roundNotes(b, 4)).toEqual([]);
  });

  it("notes Kaboom's halving every time it happens", () => {
    const b = scored("kaboom", [
      { scores: [100, 0], totals: [50, 0], reasons: [["hundred_reset"], []] },
      { scores: [50, 0], totals: [50, 0], reasons: [["hundred_reset"], []] },
    ]);
    expect(roundNotes(b, 1)).toEqual([{ kind: "reset", player: 0, rule: "always", to: 50 }]);
    expect(roundNotes(b, 2)).toEqual([{ kind: "reset", player: 0, rule: "always", to: 50 }]);
  });

  it("has nothing to say about an ordinary round", () => {
    expect(roundNotes(board([[3, 4]]), 1)).toEqual([]);
  });
});

describe("scoreboard CSV", () => {
  it("writes the server's CSV: quoting as Python's csv module, formulas defused", () => {
    const b: Board = {
      ...board([[7, 12]]),
      names: ['=Ann', 'Bo "the, boss"'],
      winners: [1],
      totals: [7, 12],
    };
    b.rounds[0].caller = 1;
    expect(boardCsv(b)).toBe(
      'round,caller,moon,\'=Ann hand,\'=Ann score,\'=Ann total,"Bo ""the, boss"" hand","Bo ""the, boss"" score","Bo ""the, boss"" total",winners\r\n' +
        '1,"Bo ""the, boss""",,7,7,7,12,12,12\r\n' +
        'total,,,,,7,,,12,"Bo ""the, boss"""\r\n',
    );
  });

  it("adds place and points columns on a placement board", () => {
    const b: Board = { ...board([[3, 4]]), placement: { points: [2, 0], rounds: 1 } };
    b.rounds[0].places = [1, 2];
    b.rounds[0].points = [2, 0];
    const lines = boardCsv(b).split("\r\n");
    expect(lines[0]).toBe("round,caller,moon,Ana hand,Ana score,Ana place,Ana points,Ana total,Bo hand,Bo score,Bo place,Bo points,Bo total,winners");
    expect(lines[1]).toBe("1,,,3,3,1,2,3,4,4,2,0,4");
    expect(lines[2]).toBe("total,,,,,,,3,,,,,4,");
  });
});
