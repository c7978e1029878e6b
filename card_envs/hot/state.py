"""Hot's full-information state: the shared round's (:mod:`card_envs.set_collecting.state`, the engine the
two games share) plus the game totals, the deal number and the last deal's points."""

from card_envs.set_collecting.state import Codec, layout, table

__all__ = ["Codec", "layout", "table"]
