"""Collector's table as a picture: the shared round's (:mod:`card_envs.set_collecting.picture`),
drawn for Collector's rules (their variant: one deal, no totals or dealer)."""

from __future__ import annotations

from card_envs.set_collecting.picture import scene

__all__ = ["scene"]
