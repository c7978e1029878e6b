"""Collector's full-information state: the shared round's (:mod:`card_envs.set_collecting.state`)."""

from card_envs.set_collecting.state import Codec, layout, table

__all__ = ["Codec", "layout", "table"]
