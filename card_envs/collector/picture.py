"""Collector's table as a picture: the shared round's (:mod:`card_envs.set_collecting.picture`),
without Hot's totals and deals."""

from __future__ import annotations

from card_envs import pictures as P
from card_envs.set_collecting import picture as _shared


def scene(rules, state, observer: int, private: bool) -> P.Table:
    """The table seen through ``observer``'s view (see the shared picture)."""
    return _shared.scene(rules, state, observer, private, hot=False)
