"""Who the players are: accounts, sessions, guest tokens, and the mail the server sends them.

- ``accounts``: sign-up, sign-in and server-side sessions (:class:`~.accounts.Accounts`).
- ``auth``: guest sessions: signed tokens that name a player (:class:`~.auth.Tokens`).
- ``passwords``: argon2id password hashes, off the event loop.
- ``history``: a player's finished matches, from the store.
- ``mail``, ``mail_text``, ``postbox``, ``notify``: turn e-mails: sending, their words, the
  bounds on them, and telling a turn-based table's players that it is their move.

Used by ``play``, ``edge`` and ``api``; imports ``base`` and ``modes`` (the ratings and the
forfeits a history shows).  Names that look alike (the "skeleton" of a name, so that no two
accounts look alike) are ``facedown/names.py``, below the server and the store.
"""
