// How many players a table or a scoreboard seats: the engine's limits (MIN_PLAYERS and
// MAX_PLAYERS in facedown/engine/state.py), which the server holds every request to.

export const MIN_PLAYERS = 2;
export const MAX_PLAYERS = 8;
