// A replay in the browser: its steps fetched page by page and kept, and what each card shows.

import type { ReplayRound, ReplayStep } from "./wire";

export const PAGE = 50;

/** Fetches steps ``start`` to ``start + count - 1`` as ``seat`` (null: face up) saw them
 *  (``knowledge``: with every card the seat knew). */
export type FetchSteps = (
  seat: number | null,
  start: number,
  count: number,
  knowledge: boolean,
) => Promise<ReplayStep[]>;

/** The steps seen so far, by viewpoint and page: going back never asks the server again. */
export class StepCache {
  private pages = new Map<string, Promise<ReplayStep[]>>();

  constructor(private readonly fetchSteps: FetchSteps) {}

  async get(seat: number | null, step: number, knowledge = false): Promise<ReplayStep> {
    const start = Math.floor(step / PAGE) * PAGE;
    const key = `${seat ?? "up"}:${knowledge && seat !== null}:${start}`;
    let page = this.pages.get(key);
    if (!page) {
      page = this.fetchSteps(seat, start, PAGE, knowledge && seat !== null);
      this.pages.set(key, page);
      page.catch(() => this.pages.delete(key)); // a failed page is asked for again next time
    }
    const found = (await page)[step - start];
    if (!found) throw new Error(`no step ${step}`);
    return found;
  }
}

/** The round a step belongs to (the last round that starts at or before it). */
export function roundAt(rounds: ReplayRound[], step: number): number {
  let round = rounds[0]?.round ?? 1;
  for (const r of rounds) if (r.step <= step) round = r.round;
  return round;
}

/** The face of the card at ``owner:slot`` in a step (null: face down or no card). */
export function faceAt(step: ReplayStep, owner: number, slot: number): string | null {
  if (step.hands) return step.hands[owner]?.[slot] ?? null;
  const place = `${owner}:${slot}`;
  return step.view.shown[place] ?? step.view.knowledge?.[place] ?? null;
}
