"""Pictures of the table: the drawing every game shares, written once.

A game declares *what* is on its table in a small function (``card_envs/<game>/picture.py``:
``scene(rules, state, observer, private) -> Table``) built from one seat's ``PlayerView``, the
only filter of hidden information; this module decides *how* it looks and draws it with Pillow:

* :class:`Face` (a card face up: its rank and, where the game's view keeps it, its suit),
  :data:`BACK` (a face-down card) and :data:`GAP` (an empty place, e.g. in the Domino layout);
* :class:`Group`: cards under a caption (a hand, the stock, a trick, a grid of ``columns``);
* :class:`Row`: a seat's (or the centre's) label lines and its groups;
* :class:`Table`: a title, status lines (round, whose turn, the last action) and rows.

:func:`draw` turns a Table into an ``(H, W, 3)`` uint8 array. Its size depends only on the
Table's structure (the number of status lines, rows, the groups' ``slots`` and ``columns``), which
each game keeps fixed per configuration, so every frame of a game has the same shape (video).
A group with more cards than its slots fans them (they overlap) rather than growing.

**A spectator's picture** (``env.render()`` with ``render_mode="rgb_array"``) is the scene of seat
0's view with ``private=False``: the game leaves out everything that view holds only because it is
seat 0's (its hand, a card only it drew), so what remains is what every seat shares. The tests
check exactly that: the spectator picture built from every seat's view is byte-identical, and it
does not change when cards hidden from any seat are reshuffled. ``env.render_view(agent,
mode="rgb_array")`` is the same scene with ``private=True``: that seat's own cards face up.

Cards are drawn once per (rank, suit) and cached; a frame pastes them, so one frame takes a few
milliseconds. No image or font file is read: suits are drawn as shapes, text uses Pillow's
built-in font (``ImageFont.load_default(size=...)``).

Video: :func:`save_video` writes frames as a GIF (Pillow alone) or an MP4 (``moviepy``, the
``video`` extra, as Gymnasium's ``save_video`` uses); :func:`play_frames` collects the spectator
frames of one game. ``python -m card_envs.pictures --out docs/pictures`` writes one picture per
game.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

# ------------------------------------------------------------------------------- what is drawn
SUIT_LETTERS = "cdhs"


@dataclass(frozen=True)
class Face:
    """A card face up: ``rank`` as printed (``"10"``, ``"Q"``), ``suit`` 0..3 (c d h s) or None
    where the game's view holds ranks only (Golf, Fiddlesticks, Collector, Hot: suits never matter
    there, so their views drop them). A joker is ``Face("JK", None, joker="red" | "black")``."""

    rank: str
    suit: int | None = None
    joker: str | None = None

    def __post_init__(self) -> None:
        if self.suit is not None and self.suit not in range(4):
            raise ValueError(f"suit must be 0..3 (c d h s) or None, got {self.suit!r}")
        if self.joker not in (None, "red", "black"):
            raise ValueError(f"joker must be None, 'red' or 'black', got {self.joker!r}")


class _Mark:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: a face-down card
BACK = _Mark("BACK")
#: an empty place (drawn as an outline)
GAP = _Mark("GAP")

Item = Any  # Face | BACK | GAP


@dataclass
class Group:
    """Cards under a caption. ``slots``: the width reserved, in cards (more cards fan out to fit;
    default: as many as ``cards``, at least 1). ``columns``: lay the cards out in lines of this
    many (a Golf grid, the Domino layout); the number of lines is then fixed by ``len(cards)``.
    ``marks``: indices of cards to frame (a closed Golf column, the card just played).
    ``numbers``: a label for each place, drawn small at its corner: the position an action names
    (Golf's ``replace 3``, Fiddlesticks' ``blind 2``)."""

    caption: str
    cards: Sequence[Item] = ()
    slots: int | None = None
    columns: int | None = None
    marks: Sequence[int] = ()
    numbers: Sequence[str] | None = None

    @property
    def lines(self) -> int:
        return max(1, math.ceil(len(self.cards) / self.columns)) if self.columns else 1

    @property
    def width_slots(self) -> int:
        if self.columns:
            return self.columns
        return max(1, self.slots if self.slots is not None else len(self.cards))


@dataclass
class Row:
    """One band of the table: a seat (label lines: its name, score, ...) or the centre."""

    label: Sequence[str]
    groups: Sequence[Group] = ()
    highlight: bool = False  # the seat to act

    @property
    def lines(self) -> int:
        return max([g.lines for g in self.groups], default=1)


@dataclass
class Table:
    """The whole picture: ``title`` (the game), ``status`` lines, the ``rows`` across the whole
    width (the centre: stock, piles, trick), then the ``seats``' rows in ``seat_columns`` columns
    (seat order runs along each line)."""

    title: str
    status: Sequence[str] = ()
    rows: Sequence[Row] = field(default_factory=list)
    seats: Sequence[Row] = field(default_factory=list)
    seat_columns: int = 2


# ------------------------------------------------------------------------------- the look
CARD_W, CARD_H = 36, 52
GAP_X = 5
STEP = CARD_W + GAP_X
MARGIN = 10
LABEL_W = 150
CAPTION_H = 16
LINE_H = 17
GROUP_GAP = 14
ROW_PAD = 8
SS = 3  # supersampling of the card sprites (smooth edges)

FELT = (22, 96, 52)
FELT_DARK = (16, 74, 40)
INK = (240, 240, 232)
DIM = (190, 214, 196)
GOLD = (250, 206, 70)
RED = (200, 28, 36)
BLACK = (24, 24, 28)
SLATE = (28, 44, 92)
PAPER = (252, 251, 246)
BACK_BLUE = (40, 70, 150)
BACK_LINE = (90, 122, 200)


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` pixels (no font file is read)."""
    return ImageFont.load_default(size=size)


def _suit_shape(d: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, s: float, color) -> None:
    """A suit symbol of height ``s`` centred at (cx, cy), drawn as shapes (fonts may lack ♣♦♥♠)."""
    h = s / 2
    if suit == 1:  # diamond
        d.polygon([(cx, cy - h), (cx + 0.72 * h, cy), (cx, cy + h), (cx - 0.72 * h, cy)], fill=color)
    elif suit == 2:  # heart
        r = 0.52 * h
        for x in (cx - r, cx + r):
            d.ellipse([x - r, cy - h * 0.55 - r, x + r, cy - h * 0.55 + r], fill=color)
        d.polygon([(cx - 2 * r, cy - h * 0.4), (cx + 2 * r, cy - h * 0.4), (cx, cy + h)], fill=color)
    elif suit == 3:  # spade
        r = 0.5 * h
        d.polygon([(cx, cy - h), (cx - 2 * r, cy + 0.15 * h), (cx + 2 * r, cy + 0.15 * h)], fill=color)
        for x in (cx - r, cx + r):
            d.ellipse([x - r, cy + 0.15 * h - r, x + r, cy + 0.15 * h + r], fill=color)
        d.polygon([(cx, cy), (cx - 0.35 * h, cy + h), (cx + 0.35 * h, cy + h)], fill=color)
    else:  # club
        r = 0.42 * h
        for x, y in ((cx, cy - h + r), (cx - 1.05 * r, cy + 0.15 * h), (cx + 1.05 * r, cy + 0.15 * h)):
            d.ellipse([x - r, y - r, x + r, y + r], fill=color)
        d.polygon([(cx, cy - 0.1 * h), (cx - 0.35 * h, cy + h), (cx + 0.35 * h, cy + h)], fill=color)


def _blank(fill, outline) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (CARD_W * SS, CARD_H * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, CARD_W * SS - 1, CARD_H * SS - 1], radius=4 * SS, fill=fill, outline=outline, width=SS)
    return img, d


def _finish(img: Image.Image) -> Image.Image:
    return img.resize((CARD_W, CARD_H), Image.LANCZOS)


@lru_cache(maxsize=None)
def card_face(face: Face) -> Image.Image:
    """The sprite of a face-up card (RGBA, cached): the rank large at the top, the suit below,
    red for diamonds and hearts, black for clubs and spades, slate blue for a rank-only card."""
    img, d = _blank(PAPER, (120, 120, 120))
    if face.joker is not None:
        color = RED if face.joker == "red" else BLACK
    elif face.suit is None:
        color = SLATE
    else:
        color = RED if face.suit in (1, 2) else BLACK
    w = CARD_W * SS
    f = font(17 * SS if len(face.rank) < 2 else 15 * SS)
    d.text((w / 2, 5 * SS), face.rank, font=f, fill=color, anchor="mt")
    if face.joker is not None:
        cx, cy, r = w / 2, 37 * SS, 8 * SS
        pts = [(cx + r * (1 if k % 2 == 0 else 0.45) * math.sin(k * math.pi / 5),
                cy - r * (1 if k % 2 == 0 else 0.45) * math.cos(k * math.pi / 5)) for k in range(10)]
        d.polygon(pts, fill=color)
    elif face.suit is not None:
        _suit_shape(d, face.suit, w / 2, 36 * SS, 18 * SS, color)
    else:  # rank-only: the rank again, small, upside down at the foot
        d.line([(8 * SS, 30 * SS), (w - 8 * SS, 30 * SS)], fill=(200, 200, 210), width=SS)
        d.text((w / 2, 34 * SS), face.rank, font=font(11 * SS), fill=color, anchor="mt")
    return _finish(img)


@lru_cache(maxsize=None)
def card_back() -> Image.Image:
    """The sprite of a face-down card (RGBA, cached)."""
    img, d = _blank(BACK_BLUE, (230, 230, 240))
    w, h = CARD_W * SS, CARD_H * SS
    inset = 4 * SS
    for k in range(-h, w + h, 6 * SS):
        d.line([(k, inset), (k + h, inset + h)], fill=BACK_LINE, width=SS)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=4 * SS, outline=(230, 230, 240), width=2 * SS)
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, w - 1, h - 1], radius=4 * SS, fill=255)
    img.putalpha(mask)
    return _finish(img)


@lru_cache(maxsize=None)
def card_gap() -> Image.Image:
    """The sprite of an empty place: a faint outline."""
    img = Image.new("RGBA", (CARD_W * SS, CARD_H * SS), (0, 0, 0, 0))
    ImageDraw.Draw(img).rounded_rectangle(
        [0, 0, CARD_W * SS - 1, CARD_H * SS - 1], radius=4 * SS, fill=FELT_DARK + (255,), outline=(70, 130, 90), width=SS
    )
    return _finish(img)


def sprite(item: Item) -> Image.Image:
    if item is BACK:
        return card_back()
    if item is GAP:
        return card_gap()
    if isinstance(item, Face):
        return card_face(item)
    raise ValueError(f"a card in a picture is a Face, BACK or GAP, got {item!r}")


# ------------------------------------------------------------------------------- geometry
@lru_cache(maxsize=4096)
def _caption_width(text: str) -> int:
    return int(math.ceil(font(12).getlength(text))) if text else 0


def _group_width(g: Group) -> int:
    """The cards' width, or the caption's if wider (the caption decides only through its text)."""
    return max(g.width_slots * STEP - GAP_X, _caption_width(g.caption))


def _row_width(row: Row) -> int:
    return LABEL_W + sum(_group_width(g) for g in row.groups) + GROUP_GAP * max(len(row.groups) - 1, 0)


def _row_height(row: Row) -> int:
    return CAPTION_H + row.lines * (CARD_H + GAP_X) - GAP_X + 2 * ROW_PAD


def _seat_grid(table: Table) -> tuple[int, int, list[int]]:
    """(columns, cell width, height of each line of seats)."""
    cols = max(1, min(table.seat_columns, len(table.seats) or 1))
    cell = max([_row_width(r) for r in table.seats], default=0) + GROUP_GAP
    lines = [table.seats[i : i + cols] for i in range(0, len(table.seats), cols)]
    return cols, cell, [max(_row_height(r) for r in line) for line in lines]


def size(table: Table) -> tuple[int, int]:
    """(width, height) in pixels of ``table``'s picture; fixed by its structure alone."""
    cols, cell, seat_heights = _seat_grid(table)
    width = MARGIN * 2 + max([_row_width(r) for r in table.rows] + [cols * cell - GROUP_GAP, 340])
    height = (MARGIN + 24 + LINE_H * len(table.status) + 6 + sum(_row_height(r) for r in table.rows)
              + sum(seat_heights) + MARGIN)
    return width, height


# ------------------------------------------------------------------------------- drawing
def draw(table: Table) -> np.ndarray:
    """The ``(H, W, 3)`` uint8 picture of ``table``."""
    width, height = size(table)
    img = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(img)
    y = MARGIN
    d.text((MARGIN, y), table.title, font=font(18), fill=INK)
    y += 24
    for line in table.status:
        d.text((MARGIN, y), line, font=font(13), fill=DIM)
        y += LINE_H
    y += 6
    for row in table.rows:
        d.line([(MARGIN, y), (width - MARGIN, y)], fill=FELT_DARK, width=1)
        _draw_row(img, d, row, MARGIN, y, width - 2 * MARGIN)
        y += _row_height(row)
    cols, cell, seat_heights = _seat_grid(table)
    for i, h in enumerate(seat_heights):
        d.line([(MARGIN, y), (width - MARGIN, y)], fill=FELT_DARK, width=1)
        for j, row in enumerate(table.seats[i * cols : (i + 1) * cols]):
            _draw_row(img, d, row, MARGIN + j * cell, y, cell - GROUP_GAP, h)
        y += h
    return np.array(img)


def _draw_row(img, d, row: Row, x0: int, y: int, width: int, height: int | None = None) -> None:
    h = height or _row_height(row)
    if row.highlight:
        d.rectangle([x0 - 4, y + 2, x0 + width + 3, y + h - 2], outline=GOLD, width=2)
    ly = y + ROW_PAD
    for k, text in enumerate(row.label):
        color = (GOLD if row.highlight else INK) if k == 0 else DIM
        d.text((x0 + 2, ly), text, font=font(14 if k == 0 else 12), fill=color)
        ly += 16 if k == 0 else 14
    x = x0 + LABEL_W
    for g in row.groups:
        _draw_group(img, d, g, x, y + ROW_PAD)
        x += _group_width(g) + GROUP_GAP


def _draw_group(img: Image.Image, d: ImageDraw.ImageDraw, g: Group, x0: int, y0: int) -> None:
    d.text((x0, y0), g.caption, font=font(12), fill=DIM)
    top = y0 + CAPTION_H
    n = len(g.cards)
    if not n:
        return
    if g.columns:
        places = [(x0 + (i % g.columns) * STEP, top + (i // g.columns) * (CARD_H + GAP_X)) for i in range(n)]
    else:
        room = _group_width(g) - CARD_W
        step = STEP if n <= 1 else min(STEP, room / (n - 1))
        places = [(int(round(x0 + i * step)), top) for i in range(n)]
    marks = set(g.marks)
    for i, (item, (x, y)) in enumerate(zip(g.cards, places)):
        s = sprite(item)
        img.paste(s, (x, y), s)
        if i in marks:
            d.rounded_rectangle([x - 2, y - 2, x + CARD_W + 1, y + CARD_H + 1], radius=5, outline=GOLD, width=2)
        if g.numbers is not None and i < len(g.numbers):
            _badge(d, g.numbers[i], x + CARD_W - 1, y + CARD_H - 1)


def _badge(d: ImageDraw.ImageDraw, text: str, right: int, bottom: int) -> None:
    """A small label on a dark disc, its corner at (right, bottom): a place's number."""
    w = max(11, int(math.ceil(font(10).getlength(text))) + 5)
    d.rounded_rectangle([right - w, bottom - 12, right, bottom], radius=5, fill=FELT_DARK, outline=GOLD)
    d.text((right - w / 2, bottom - 6), text, font=font(10), fill=GOLD, anchor="mm")


# ------------------------------------------------------------------------------- helpers for games
def faces_from_counts(counts: Iterable[int], rank_names: Sequence[str]) -> list[Face]:
    """Rank counts (index = rank) -> rank-only faces, in rank order."""
    return [Face(rank_names[r]) for r, k in enumerate(counts) for _ in range(int(k))]


def seat_name(seat: int, observer: int | None = None) -> str:
    """``player_2``, or ``player_2 (you)`` in that seat's own picture."""
    return f"player_{seat}" + (" (you)" if seat == observer else "")


def picture_module(env: Any):
    """The game's picture module, ``card_envs.<game>.picture`` (:func:`card_envs.contract.part`)."""
    from card_envs.contract import part

    return part(env, "picture")


def action_caption(env: Any, action: int) -> str:
    """How the table saw ``action``, about to be applied: the rules' ``public_action`` (its name,
    or for a hidden choice what everybody saw instead, "commits", "picks a card")."""
    return env.rules.public_action(env.game_state, int(action))


def render_picture(env: Any, agent: str | None = None) -> np.ndarray:
    """The picture of ``env``'s table: a spectator's (``agent`` None) or ``agent``'s own."""
    module = picture_module(env)
    if agent is None:
        table = module.scene(env.rules, env.game_state, 0, False)
    else:
        table = module.scene(env.rules, env.game_state, env._seat[agent], True)
    last = getattr(env, "_last_action", None)  # recorded when the env renders in rgb_array mode
    line = "last action: -" if last is None else f"last action: {last[0]} {last[1]}"
    table.status = list(table.status) + [line]
    return draw(table)


# ------------------------------------------------------------------------------- video
def save_video(frames: Sequence[np.ndarray], path: str | os.PathLike, fps: float = 2) -> str:
    """Write ``frames`` (each ``(H, W, 3)`` uint8, all the same shape) to ``path``.

    ``.gif`` is written with Pillow; ``.mp4``, ``.webm``, ``.avi`` with moviepy (the ``video``
    extra: ``pip install -e ".[video]"`` in the checkout). Returns the path.
    """
    path = os.fspath(path)
    frames = [np.asarray(f) for f in frames]
    if not frames:
        raise ValueError("save_video needs at least one frame")
    shape = frames[0].shape
    for i, f in enumerate(frames):
        if f.dtype != np.uint8 or f.ndim != 3 or f.shape[2] != 3:
            raise ValueError(f"frame {i} must be an (H, W, 3) uint8 array, got {f.dtype} {f.shape}")
        if f.shape != shape:
            raise ValueError(f"frame {i} has shape {f.shape}, frame 0 has {shape}: a video needs one size")
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps!r}")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".gif":
        images = [Image.fromarray(f) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=int(round(1000 / fps)), loop=0)
        return path
    if ext in (".mp4", ".webm", ".avi", ".mov"):
        try:
            from moviepy import ImageSequenceClip
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ImportError("writing a video file needs moviepy, the video extra: pip install -e \".[video]\" in the "
                              "card_envs checkout (or save a .gif)") from e
        clip = ImageSequenceClip(frames, fps=fps)
        clip.write_videofile(path, fps=fps, logger=None, audio=False)
        clip.close()
        return path
    raise ValueError(f"unknown video format {ext!r}: use .gif (Pillow) or .mp4/.webm/.avi/.mov (moviepy)")


def play_frames(
    env: Any, seed: int | None = None, choose: Callable[[Any, str, dict], int] | None = None, max_steps: int = 10_000
) -> Iterator[np.ndarray]:
    """The spectator frames of one game of ``env`` (made with ``render_mode="rgb_array"``):
    one after the reset and one after every action. ``choose(env, agent, obs)`` picks the action
    (default: uniformly random legal actions from a generator seeded with ``seed``)."""
    if getattr(env, "render_mode", None) != "rgb_array":
        raise ValueError(f"play_frames needs an env made with render_mode='rgb_array', got {env.render_mode!r}")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    yield env.render()
    for steps, agent in enumerate(env.agent_iter(max_steps)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if choose is None:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        else:
            action = choose(env, agent, obs)
        env.step(action)
        yield env.render()


def record_video(env: Any, path: str | os.PathLike, seed: int | None = None, fps: float | None = None, **kw) -> str:
    """Play one game of ``env`` (``render_mode="rgb_array"``) and save its frames to ``path``."""
    frames = list(play_frames(env, seed=seed, **kw))
    return save_video(frames, path, fps or env.metadata.get("render_fps", 2))


# ------------------------------------------------------------------------------- docs pictures
#: steps into a seeded random game at which the picture of each game in the documentation is taken
DOC_STEPS = {"golf_v0": 14, "fiddlesticks_v0": 20, "guillotine_v0": 12, "collector_v0": 9, "hot_v0": 9, "guilders_v0": 40}


def doc_picture(name: str, seed: int = 7) -> np.ndarray:
    """A spectator picture of ``name`` (e.g. ``"golf_v0"``) a few steps into a seeded game."""
    import card_envs

    env = card_envs.ENVIRONMENTS[name].env(render_mode="rgb_array")
    frames = play_frames(env, seed=seed)
    picture = next(frames)
    for _ in range(DOC_STEPS.get(name, 10)):
        picture = next(frames, picture)
    return picture


#: frames of the animated picture of each game in the documentation, and its width in pixels
DOC_FRAMES, DOC_WIDTH = 24, 480


def doc_animation(name: str, path: str | os.PathLike, seed: int = 7, frames: int = DOC_FRAMES,
                  width: int = DOC_WIDTH) -> str:
    """The documentation's animated picture of ``name``: the first ``frames`` spectator frames of
    a seeded game of random legal moves at the game's benchmark table (:func:`play_frames`),
    scaled to ``width`` pixels and drawn with one small palette so the GIF stays small (about
    100 KB); saved to ``path`` at the environment's ``render_fps``. Returns the path."""
    import card_envs

    module = card_envs.ENVIRONMENTS[name]
    env = module.env(render_mode="rgb_array", **module.BENCHMARK_CONFIG)
    shots = [Image.fromarray(f) for _, f in zip(range(frames), play_frames(env, seed=seed))]
    w, h = shots[0].size
    scale = min(1.0, width / w)
    shots = [im.resize((round(w * scale), round(h * scale)), Image.LANCZOS) for im in shots]
    palette = shots[len(shots) // 2].quantize(colors=48, method=Image.Quantize.MEDIANCUT)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in shots]
    fps = env.metadata.get("render_fps", 2)
    images[0].save(os.fspath(path), save_all=True, append_images=images[1:], duration=int(round(1000 / fps)),
                   loop=0, optimize=True)
    return os.fspath(path)


def main(argv: Sequence[str] | None = None) -> None:
    import card_envs

    parser = argparse.ArgumentParser(prog="python -m card_envs.pictures", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/pictures", help="folder for <game>.png and the animated <game>.gif "
                        "(default docs/pictures)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("games", nargs="*", help=f"games (default all): {' '.join(card_envs.ENVIRONMENTS)}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(card_envs.ENVIRONMENTS))
    if unknown:
        parser.error(f"unknown game(s) {unknown}; games are {list(card_envs.ENVIRONMENTS)}")
    os.makedirs(args.out, exist_ok=True)
    for name in args.games or card_envs.ENVIRONMENTS:
        path = os.path.join(args.out, name.removesuffix("_v0") + ".png")
        Image.fromarray(doc_picture(name, args.seed)).save(path, optimize=True)
        print(path)
        print(doc_animation(name, os.path.join(args.out, name.removesuffix("_v0") + ".gif"), args.seed))


if __name__ == "__main__":
    main()
