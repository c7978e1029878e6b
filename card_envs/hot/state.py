"""Hot's full-information state: Collector's (:mod:`card_envs.collector.state`, the engine the
two games share) plus the game totals, the deal number and the last deal's points."""

from card_envs.collector.state import Codec, layout, table

__all__ = ["Codec", "layout", "table"]
