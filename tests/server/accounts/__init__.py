"""Who the players are (``server/accounts``): accounts, passwords, sessions and tokens, sign-in
limits, turn e-mails."""
