// How much of "What happened" a table shows.  Every line is public, but a written record of
// every swap of a round is a memory aid, and only a table with Recollection gives one: without
// it the log shows the lines of the last few moves, what a player at a real table has just seen
// happen (and may have missed); with Recollection, and in a replay, it shows them all.

/** The moves (the table's changes, by seq: an action, or a move a timer played) shown at a
 *  table without Recollection: about one player's turn (draw, a power, replace, end the turn). */
export const RECENT_MOVES = 4;

/** The lines to show, in order: all of them when ``full`` (Recollection), else the lines of the
 *  last ``moves`` moves that have a line (each line carries the seq of the move it tells). */
export function shownLines<T extends { seq: number }>(lines: readonly T[], full: boolean, moves = RECENT_MOVES): T[] {
  if (full) return [...lines];
  let seen = 0;
  let last: number | null = null;
  let start = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].seq !== last) {
      if (seen === moves) break;
      seen += 1;
      last = lines[i].seq;
    }
    start = i;
  }
  return lines.slice(start);
}
