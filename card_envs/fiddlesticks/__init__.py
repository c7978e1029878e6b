"""Fiddlesticks (Shithead/Palace family): rules (pure), view (what a player may know), env (PettingZoo glue)."""
