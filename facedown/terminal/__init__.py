"""The terminal game (``facedown play``): you against bots, drawn with Rich.

- ``terminal``: the game loop (:func:`~.terminal.play`).
- ``terminal_board``: the board and the reveal as Rich tables, and the words for cards.
- ``terminal_menu``: the legal actions as a short menu in plain words.

Built on the engine and the bots; used by the command line.
"""
