"""The kinds of tables (``server/modes``): the modes the server plays, pass-and-play, turn-based
tables and their e-mails, ranked play and matchmaking."""
