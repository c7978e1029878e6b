"""Reading and checking a game's options (the Options table of each environment's docs).

Every game's rules take their options as keyword arguments. An unknown name, a value of the
wrong type or out of range is a ValueError that names the option and what is allowed; the
helpers here say it the same way for every game.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

REWARD_MODES = ("rank", "score")


def build_config(config_class: type, game: str, kwargs: dict[str, Any]):
    """Instantiate the dataclass ``config_class`` from ``kwargs``, rejecting unknown names.

    The dataclass's ``__post_init__`` checks the values (with the helpers below).
    """
    names = [f.name for f in dataclasses.fields(config_class)]
    unknown = sorted(set(kwargs) - set(names))
    if unknown:
        raise ValueError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for {game}; "
            f"allowed options: {', '.join(names)}"
        )
    return config_class(**kwargs)


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` must be an int (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not _is_np_int(value):
        raise ValueError(f"option {name!r} must be an int{_range_text(low, high)}, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"option {name!r} must be{_range_text(low, high)}, got {value}")
    return value


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """``value`` must be one of ``allowed``."""
    allowed = tuple(allowed)
    if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"option {name!r} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    if value not in allowed:
        raise ValueError(f"option {name!r} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool) and not type(value).__name__ == "bool_":
        raise ValueError(f"option {name!r} must be True or False, got {value!r}")
    return bool(value)


def check_seat_or_random(name: str, value: Any, num_players: int) -> int | str:
    """A seat index ``0..num_players-1`` or the string ``"random"``."""
    if value == "random" and isinstance(value, str):
        return value
    if isinstance(value, bool) or not (isinstance(value, int) or _is_np_int(value)):
        raise ValueError(f"option {name!r} must be a seat 0..{num_players - 1} or 'random', got {value!r}")
    if not 0 <= int(value) < num_players:
        raise ValueError(f"option {name!r} must be a seat 0..{num_players - 1} or 'random', got {value!r}")
    return int(value)


def check_reward_mode(value: Any, allowed: Iterable[str] = REWARD_MODES) -> str:
    return check_choice("reward_mode", value, allowed)


def check_rank_only(value: Any, game: str) -> str:
    """``reward_mode`` of a game whose rules define no score shaping: only ``"rank"``."""
    if value != "rank" or not isinstance(value, str):
        raise ValueError(
            f"option 'reward_mode' must be 'rank' for {game}: its rules define no score shaping "
            f"(no reward_mode='score'), got {value!r}"
        )
    return value


def _is_np_int(value: Any) -> bool:
    return type(value).__module__ == "numpy" and "int" in type(value).__name__


def _range_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" in {low}..{high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""
