"""The round Collector and Hot share, and everything built on it once for both games.

Both games play the same round (hidden commitments of PLAY and ACQUIRE, the reveal, the
resolution and the check): :mod:`~card_envs.set_collecting.engine` holds it, with the rules both
games subclass; the other modules here are that round's view and observation, its full-information
state, its batched kernels, its determinization, its picture and the parallel API. What tells the
games apart is a :class:`~card_envs.set_collecting.variant.SetVariant` (the take, the contest
fallbacks, whether the game runs over scored deals), one per game, which the shared modules ask.
Each game's folder (``card_envs/collector/``, ``card_envs/hot/``) has the same modules as every
other game: its rules declare its variant (``VARIANT``) and the game's scoring; the other modules
bind the shared ones to it.
"""
