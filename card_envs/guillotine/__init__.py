"""Guillotine: rules (pure), view (what a player may know), env (PettingZoo glue)."""
