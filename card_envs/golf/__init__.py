"""Six-card Golf: rules (pure), view (what a player may know), env (PettingZoo glue)."""
