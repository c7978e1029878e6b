"""Looking at a recorded game: its text screens as a spectator, a seat or with every card
(:func:`screens`, the terminal viewer :func:`show`) and its pictures (:func:`frames`). What a
spectator or a seat is shown depends only on what it could see at that step."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Iterable, Mapping, TextIO

import numpy as np

from card_envs.records.format import _is_int, _num_players
from card_envs.records.reading import parse, read, steps


def frames(line: str | Mapping[str, Any], seat: str | None = None, at: Iterable[int] | None = None) -> list[np.ndarray]:
    """The pictures of a replayed game, one per step (``len(actions) + 1``: the deal, then after
    each action), or only at the steps ``at``: ``(H, W, 3)`` uint8 images of the table as a
    spectator sees it (``env.render()`` in ``render_mode="rgb_array"``: what every seat sees), or
    as ``seat`` (``"player_0"``) sees it (``render_view(seat, mode="rgb_array")``). Every frame
    of a game has the same shape, so they make a video (``card_envs.pictures.save_video``)."""
    rec = parse(line)
    n = len(rec["actions"])
    seats = [f"player_{i}" for i in range(_num_players(rec))]
    if seat is not None and seat not in seats:
        raise ValueError(f"unknown seat {seat!r}; seats: {', '.join(seats)}")
    wanted = set(range(n + 1)) if at is None else set(at)
    bad = sorted(k for k in wanted if not _is_int(k) or not 0 <= k <= n)
    if bad:
        raise ValueError(f"steps must be ints in 0..{n} (the record has {n} actions), got {bad}")
    out = []
    for k, env in steps(rec, render_mode="rgb_array"):
        if k in wanted:
            picture = env.render() if seat is None else env.unwrapped.render_view(seat, mode="rgb_array")
            out.append(np.array(picture, dtype=np.uint8, copy=True))
        if k >= max(wanted, default=-1):
            break
    return out


VIEWS = ("spectator", "seat", "full")


def _item_text(item: Any) -> str:
    from card_envs import pictures as P

    if item is P.BACK:
        return "##"
    if item is P.GAP:
        return ".."
    if item.joker:
        return "RJ" if item.joker == "red" else "BJ"
    return item.rank + ("" if item.suit is None else P.SUIT_LETTERS[item.suit])


def scene_text(table: Any) -> str:
    """A :class:`card_envs.pictures.Table` (the scene a game's picture is drawn from) as text:
    the same cards, ``##`` face down, ``..`` an empty place, ``[..]`` a framed card, ``>`` the
    seat to act. The spectator's text is the spectator picture's scene, so it shows exactly
    what that picture shows."""

    def group(g) -> list[str]:
        cards = [(f"[{_item_text(c)}]" if i in set(g.marks) else _item_text(c)) for i, c in enumerate(g.cards)]
        if g.columns:
            lines = [" ".join(cards[i:i + g.columns]) for i in range(0, len(cards), g.columns)] or [""]
        else:
            lines = [" ".join(cards)]
        head = f"{g.caption}: " if g.caption else ""
        return [head + lines[0]] + [" " * len(head) + line for line in lines[1:]]

    def row(r) -> list[str]:
        out = [("> " if r.highlight else "  ") + " | ".join(t for t in r.label if t.strip())]
        for g in r.groups:
            out += ["      " + line for line in group(g)]
        return out

    lines = [table.title] + [t for t in table.status if t.strip()]
    for r in list(table.rows) + list(table.seats):
        lines += row(r)
    return "\n".join(lines)


def spectator_text(raw: Any) -> str:
    """The table of ``raw`` (an unwrapped env) as a spectator sees it (what every seat sees): the
    text of the spectator picture's scene."""
    from card_envs import pictures as P

    return scene_text(P.picture_module(raw).scene(raw.rules, raw.game_state, 0, False))


def _as_seen(raw: Any, view: str, seat: str | None, actor: str, action: int, name: str) -> str:
    """An action about to be applied, as the viewer saw it: its name where the viewer is the actor
    (or sees everything), else what every seat saw (the rules' ``public_action``: another seat's
    hidden commitment is only "commits")."""
    if view == "full" or (view == "seat" and actor == seat):
        return name
    return raw.public_action_to_string(action)


def actions_seen(line: str | Mapping[str, Any], view: str = "spectator", seat: str | None = None) -> list[str]:
    """Every action of a recorded game as the viewer saw it (``view`` as in :func:`screens`): its
    name where the viewer is the actor or sees everything, else what the table saw (another
    seat's hidden commitment is only "commits")."""
    rec = parse(line)
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    actions = rec["actions"]
    seen = []
    for k, env in steps(rec):
        if k == len(actions):
            break
        actor, action, name = actions[k]
        seen.append(_as_seen(env.unwrapped, view, seat, actor, action, name))
    return seen


def screens(line: str | Mapping[str, Any], view: str = "spectator", seat: str | None = None) -> list[str]:
    """The viewer's text at every step of a replayed game (``len(actions) + 1`` screens): the
    table as a ``"spectator"`` sees it (what every seat sees), as ``seat`` sees it (``view=
    "seat"``: ``render_view(seat)``), or every card (``"full"``: ``render_state()``, hidden cards
    included, said in the first line). Each screen names the action just taken as that viewer saw
    it (another seat's hidden commitment is not named) and, at the end, the result."""
    rec = parse(line)
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    seats = [f"player_{i}" for i in range(_num_players(rec))]
    if view == "seat" and seat not in seats:
        raise ValueError(f"unknown seat {seat!r}; seats: {', '.join(seats)}")
    who = {"spectator": "as a spectator sees it (no hidden card)",
           "seat": f"as {seat} sees it",
           "full": "FULL STATE: every card shown, hidden ones included"}[view]
    # the seed decides every hidden card: only the full view, which shows them anyway, names it
    seed = f" seed {rec['seed']}" if view == "full" else ""
    header = f"{rec['env']} {rec['options']}{seed}, {who}"
    actions = rec["actions"]
    n = len(actions)
    out, seen = [], []
    for k, env in steps(rec):
        raw = env.unwrapped
        if view == "full":
            text = raw.render_state()
        elif view == "seat":
            text = raw.render_view(seat)
        else:
            text = spectator_text(raw)
        # how long the game lasts depends on hidden cards: only the full view says it at every step
        lines = [f"{header} -- step {k}" + (f"/{n}" if view == "full" else "")]
        lines.append("the deal, no action yet" if k == 0 else f"action {k - 1}: {actions[k - 1][0]}: {seen[k - 1]}")
        lines.append(text)
        if k == n:
            if rec["end"] == "illegal":
                lines.append(f"game over: {actions[-1][0]}'s last action was illegal (-1 for it)")
            else:
                lines.append(f"game over ({rec['end']}): scores {rec['scores']}, ranks {rec['ranks']}"
                             + ("" if rec["rewards"] is None else f", rewards {rec['rewards']}"))
        else:
            actor, action, name = actions[k]
            seen.append(_as_seen(raw, view, seat, actor, action, name))
        out.append("\n".join(lines))
    return out


def show(path: str | os.PathLike, game: int = 0, view: str = "spectator", seat: str | None = None,
         step: int = 0, all_steps: bool = False, input_fn: Callable[[str], str] = input,
         out: TextIO | None = None) -> None:
    """The terminal viewer: game ``game`` (0 = the file's first line) of a records file, one
    screen per step (:func:`screens`). Interactive: Enter or ``n`` the next step, ``b`` back, a
    number jumps to that step, ``q`` quits; ``all_steps`` prints every screen from ``step`` to
    the end instead."""
    recs = read(path)
    if not recs:
        raise ValueError(f"{path} holds no game records")
    if not _is_int(game) or not 0 <= game < len(recs):
        raise ValueError(f"{path} holds {len(recs)} game{'s' if len(recs) > 1 else ''}: --game must be in "
                         f"0..{len(recs) - 1}, got {game!r}")
    rec = recs[game]
    n = len(rec["actions"])
    if not _is_int(step) or not 0 <= step <= n:
        raise ValueError(f"--step must be in 0..{n} (game {game} has {n} actions), got {step!r}")
    pages = [f"{path} game {game}: {text}" for text in screens(rec, view, seat)]
    say = lambda text: print(text, file=out or sys.stdout, flush=True)  # noqa: E731
    if all_steps:
        for k in range(step, n + 1):
            say(pages[k] + "\n")
        return
    k = step
    while True:
        say(pages[k])
        try:
            key = input_fn("[Enter/n] next  [b] back  [number] go to step  [q] quit > ").strip().lower()
        except EOFError:
            return
        if key in ("q", "quit", "exit"):
            return
        if key in ("", "n", "next"):
            k = min(k + 1, n)
        elif key in ("b", "back"):
            k = max(k - 1, 0)
        elif key.isdigit() and int(key) <= n:
            k = int(key)
        else:
            say(f"keys: Enter or n (next), b (back), a step number 0..{n}, q (quit); got {key!r}")
