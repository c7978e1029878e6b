"""The arguments every interface takes, checked the same way: ``reset``'s ``seed`` and
``options``, and an action index.

``env()``, ``raw_env()``, ``parallel_env()`` and ``vector_env`` all use these, so a bad argument
gets the same ValueError (naming the argument and what is allowed) wherever it is passed.

Unknown reset options: every interface ignores them with a ``UserWarning`` naming them and the
options it knows. PettingZoo's own API tests reset with an option no environment knows
(``{"options": 1}``), so an error would fail them; a warning still tells a person who mistyped
``deck``.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Iterable, Mapping

import numpy as np


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int >= 0 (any integer ``operator.index`` accepts), or None; else a
    ValueError naming ``seed``."""
    if seed is None:
        return None
    if not isinstance(seed, (bool, np.bool_)):
        try:
            value = operator.index(seed)
        except TypeError:
            pass
        else:
            if value >= 0:
                return value
    raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")


def check_reset_options(options: Any, known: Iterable[str], where: str) -> Mapping[str, Any]:
    """``options`` as a mapping (None: empty); a ValueError naming ``options`` when it is not one.
    Unknown names are ignored with a warning naming them and the ``known`` ones (see the module
    docstring)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be None or a dict of reset options ({', '.join(map(repr, known))}), "
                         f"got {type(options).__name__} {options!r}")
    bad_keys = [k for k in options if not isinstance(k, str)]
    if bad_keys:
        raise ValueError(f"reset options are named by str, got {bad_keys!r}; {where} knows {sorted(known)}")
    unknown = sorted(set(options) - set(known))
    if unknown:
        warnings.warn(f"ignoring unknown reset option(s) {unknown}; {where} knows {sorted(known)}", stacklevel=3)
    return options


def action_index(action: Any) -> int | None:
    """``action`` as an int if it is an integer (a Python int, or a numpy or torch integer scalar:
    anything ``operator.index`` accepts, bools excepted), else None."""
    if isinstance(action, (bool, np.bool_)):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None
