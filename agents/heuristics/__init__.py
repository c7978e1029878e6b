"""One rule-based policy per game: ``choose(view, mask, rules, rng) -> action``.

Each module states its strategy in its docstring. ``view`` is the game's decoded PlayerView,
``mask`` the legal actions, ``rules`` the game's rules object (the configuration only: it is
never given the state).
"""
