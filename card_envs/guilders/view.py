"""What one Guilders player may know, and its encoding.

``view(state, seat)`` is the only place hidden information is filtered. A Guilders player sees (as
the environment's docs say under Observation): the fan's size, the discard pile's size and the
refans left; every score pile, card by card, with each card's value and its place in the pile
(every scored card was shown to all), the cards the evil penalty took out of the game and the
jokers set aside; every call and whether it missed (``miss_calls``: per call, the misses now in
the discard pile, the same for every player; ``own_miss_calls``: those of this player;
``seat_misses``: per seat, its misses there); the discards it drew itself since the discard pile
last went back into the fan (every discard with ``public_discards``); and the turn just played:
who called what, the drawn card if it was shown to all or this player drew it, and what happened.
Nobody sees the fan's cards.

**Why this summary is sufficient (Markov).** Everything that happened between two of a
player's turns is a call and its public result (a match: a shown card in a score pile; a miss:
a face-down card whose only public trace is the call it failed; a joker: shown; a penalty: a
shown card leaving a pile) or a card it saw itself. The score piles, lost cards and jokers set
aside are encoded in full. A fan is always a uniform shuffle of a multiset everybody knows (the
deck; after a refan or a chaotic reshuffle, every card not scored, lost or set aside), so what
was said about the cards of an earlier fan no longer matters, and within the current fan the
posterior over the hidden cards is uniform over the arrangements consistent with the history,
which by exchangeability depends only on ``unseen`` and the multiset of calls the others'
face-down misses failed: ``miss_calls - own_miss_calls`` (see ``card_envs/guilders/odds.py``). Which seat missed
what does not change the chance of any card; ``seat_misses`` keeps who drew them (what each
opponent has seen). The order of a pile matters only for which card the evil joker takes (the
most recent of the highest value), so each scored card's place is kept too.

**Scaling to many players.** Card identities are encoded once for the whole table: per card
identity and copy, the relative seat holding it (``holder``), its value and its place in that
pile, so who holds which scored card costs 3 x 54 x copies floats for any number of players,
and each seat adds only a short summary (score, counts of 1/5/10/15-point cards — what the
evil penalty would take — its misses in the discard pile, whether it acts next or moved last):
8 floats per seat. Every fixed-size segment comes first, so its indices are the same for any
number of players.

**Exact odds.** ``unseen`` is the deck minus every card this player has located (scored, lost,
set aside, or a discard it saw). The next card is ``c`` with the posterior chance computed by
:func:`card_envs.guilders.odds.draw_probabilities` from ``unseen`` and ``miss_calls - own_miss_calls``
(:meth:`PlayerView.match_probabilities` gives every call's chance). The calls are taken as
given: what an opponent's choice of call might betray about its own knowledge is not modelled.

Seats are relative: index 0 is the observer, then the others in turn order, so one policy fits
any seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from card_envs import cards, views
from card_envs.encoding import Layout
from card_envs.guilders import odds
from card_envs.guilders.rules import (
    ACTION_NAMES,
    CARD_BASE,
    EVENT_NAMES,
    JOKER_CALL,
    JOKER_POINTS,
    NUM_ACTIONS,
    RANK_BASE,
    REWARD_SCALE,
    VALUES,
    GuildersRules,
    GuildersState,
)

NUM_CARDS = cards.NUM_CARDS
NUM_EVENTS = len(EVENT_NAMES)
#: scores and points are encoded divided by this (the same scale as score-mode rewards)
SCORE_SCALE = REWARD_SCALE
#: miss counts are encoded divided by this (the cards of one suit)
MISS_SCALE = 13

#: ``EVENTS_OF[bits]``: the event names of a turn's bit flags, in EVENT_NAMES order
EVENT_INDEX = {name: i for i, name in enumerate(EVENT_NAMES)}
EVENTS_OF = tuple(tuple(name for i, name in enumerate(EVENT_NAMES) if bits >> i & 1) for bits in range(1 << NUM_EVENTS))


_card = views.card(cards.to_str)


@views.readable_view(
    card_name=cards.to_str,
    numbering="Guilders: card_envs.cards ints, 13·suit + rank (suits c d h s, ranks A 2 .. K, Ace low), "
    "BJ = 52, RJ = 53; card arrays are counts indexed by these ints; calls are action indices (ACTION_NAMES)",
    fields={
        "known_discards": views.counts(cards.to_str),
        "scored": views.counts(cards.to_str),
        "lost": views.counts(cards.to_str),
        "set_aside": views.counts(lambda i: cards.to_str(cards.JOKERS[i])),
        "unseen": views.counts(cards.to_str),
        "last_call": views.code(ACTION_NAMES),
        "last_card": _card,
        "last_lost_card": _card,
        "miss_calls": views.tally(ACTION_NAMES),
        "own_miss_calls": views.tally(ACTION_NAMES),
        # the score piles, card by card, are the ``piles`` entry below
        "holder": views.OMIT,
        "scored_value": views.OMIT,
        "scored_place": views.OMIT,
    },
    extra={"piles": lambda v: [[[cards.to_str(c), value] for c, value in pile] for pile in v.piles]},
)
@dataclass(eq=False)
class PlayerView:
    """A Guilders player's knowledge. Per-seat arrays are by relative seat (0 = self, then the
    others in turn order); card arrays are indexed by card int (0..51, BJ = 52, RJ = 53) and
    hold counts (several decks hold several copies).

    ``refans_left`` is -1 when unlimited. ``to_act``/``last_mover`` are relative seats (None
    before the first turn or after the last). ``last_card`` is the card drawn last turn if this
    player may know it, else None. ``last_events`` names what happened (see
    ``card_envs.guilders.rules.EVENT_NAMES``); ``last_gain``/``last_loss`` are the mover's points
    won and lost, and ``last_lost_card`` the card the evil penalty took. ``miss_calls[a]`` counts the misses of
    call ``a`` in the discard pile (everyone's), ``own_miss_calls[a]`` this player's, and
    ``seat_misses[k]`` each seat's misses there. The score piles are kept per card identity and
    copy, as the observation encodes them: ``holder[c, j]`` is the relative seat whose pile holds
    copy j of card c (-1: fewer than j + 1 copies of c are scored), ``scored_value[c, j]`` its
    value (0 when not scored) and ``scored_place[c, j]`` its index in that pile (-1), the scored
    copies of a card first, in (relative seat, place) order, so equal piles always give equal
    arrays; :attr:`piles` lists the same piles card by card. ``jokers_can_miss`` (from the
    configuration: good_joker alone) says whether a face-down miss may be a joker.

    ``readable()`` (printed by ``str(view)``) gives the view by name: card counts as the cards
    they count, calls by name (``"rank Q"``), the misses per call as ``{call: count}``, and the
    score piles as ``piles`` (``[card, value]`` in scoring order) in place of the three arrays.
    """

    num_players: int
    fan_size: int
    discard_size: int
    refans_left: int
    turns: int
    known_discards: np.ndarray  # (54,) discards this player knows (its own misses; all if public)
    scored: np.ndarray  # (54,) every card in every score pile
    lost: np.ndarray  # (54,) cards the evil penalty took out of the game
    set_aside: np.ndarray  # (2,) jokers set aside: [BJ, RJ]
    unseen: np.ndarray  # (54,) cards not located: the fan plus the discards this player did not see
    scores: np.ndarray  # (N,) by relative seat
    pile_values: np.ndarray  # (N, 4) cards worth 1, 5, 10, 15 in each score pile
    to_act: int | None
    last_mover: int | None
    last_call: int | None
    last_card: int | None
    last_events: tuple[str, ...]
    last_gain: int
    last_loss: int
    last_lost_card: int | None
    miss_calls: np.ndarray  # (70,) the misses in the discard pile, per call (every seat's)
    own_miss_calls: np.ndarray  # (70,) this player's misses in the discard pile, per call
    seat_misses: np.ndarray  # (N,) misses in the discard pile, by relative seat
    holder: np.ndarray  # (54, copies) relative seat holding each scored copy, -1 = not scored
    scored_value: np.ndarray  # (54, copies) its value in that pile, 0 = not scored
    scored_place: np.ndarray  # (54, copies) its index in that pile (0 = scored first), -1 = not scored
    jokers_can_miss: bool = False

    @property
    def piles(self) -> tuple:
        """(N,) by relative seat: each score pile as a tuple of ``(card, value)`` in scoring
        order (from ``holder``, ``scored_value`` and ``scored_place``)."""
        copies = self.holder.shape[1]
        hold = self.holder.ravel().tolist()
        value = self.scored_value.ravel().tolist()
        place = self.scored_place.ravel().tolist()
        piles = [[] for _ in range(self.num_players)]
        for i, k in enumerate(hold):
            if k >= 0:
                piles[k].append((place[i], i // copies, value[i]))
        return tuple(tuple((c, val) for _, c, val in sorted(p)) for p in piles)

    @property
    def unknown_discards(self) -> int:
        """Discards this player has not seen (drawn and missed by others)."""
        return self.discard_size - int(self.known_discards.sum())

    def standing(self) -> tuple[int, int, int]:
        """(best opponent score, opponents strictly ahead, opponents tied with this player)."""
        me, *others = self.scores.tolist()
        if not others:
            return 0, 0, 0
        return max(others), len([s for s in others if s > me]), others.count(me)

    def draw_probabilities(self) -> np.ndarray:
        """(54,) the exact chance that the next card drawn is each card identity, given this
        view: uniform over the arrangements of ``unseen`` in which every face-down miss of
        the others fails its call (``card_envs.guilders.odds``)."""
        if self.unknown_discards > 0:  # the others' face-down misses: cards known only to fail their call
            misses = self.miss_calls - self.own_miss_calls
        else:  # none, or all shown (public_discards)
            misses = np.zeros(NUM_ACTIONS, dtype=np.int64)
        return odds.draw_probabilities(self.unseen, misses, self.jokers_can_miss)

    def match_probabilities(self) -> np.ndarray:
        """(70,) the chance that each call (action index) matches the next card drawn."""
        return _match_probabilities(self.draw_probabilities().tobytes()).copy()


def match_probabilities(p: np.ndarray) -> np.ndarray:
    """(70,) the chance that each call (action index) matches a card drawn with the chances
    ``p`` (54,)."""
    ordinary = p[:52].reshape(4, 13)  # [suit, rank]
    out = np.empty(len(ACTION_NAMES))
    out[:RANK_BASE] = ordinary.sum(axis=1)
    out[RANK_BASE:CARD_BASE] = ordinary.sum(axis=0)
    out[CARD_BASE:JOKER_CALL] = p[:52]
    out[JOKER_CALL] = p[52:].sum()
    return out


@lru_cache(maxsize=4096)
def _match_probabilities(p: bytes) -> np.ndarray:
    """:func:`match_probabilities` memoized by the bytes of ``p`` (read-only): the heuristic
    asks it at every turn, and the same odds come back often."""
    out = match_probabilities(np.frombuffer(p).copy())
    out.flags.writeable = False
    return out


@lru_cache(maxsize=None)
def _seat_tables(n: int, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, relative)`` for ``seat`` at an n-seat table: ``order[k]`` is the absolute seat
    at relative seat k (k = 0 is ``seat``), and ``relative[p]`` the relative seat of absolute
    seat p, with ``relative[n] = relative[-1] = -1`` so that -1 (no seat) stays -1."""
    order = np.array([(seat + k) % n for k in range(n)], dtype=np.int64)
    relative = np.array([(p - seat) % n for p in range(n)] + [-1], dtype=np.int64)
    order.flags.writeable = relative.flags.writeable = False
    return order, relative


def _in_seat_order(holder: np.ndarray, value: np.ndarray, place: np.ndarray, total: int):
    """The copies of each card (the rows) reordered: the scored ones first, by (relative seat,
    place), then the free slots (-1, 0, -1). Each copy is packed into one sortable int."""
    key = np.where(holder >= 0, (holder * total + place) * (JOKER_POINTS + 1) + value, np.iinfo(np.int64).max)
    key.sort(axis=1)
    free = key == np.iinfo(np.int64).max
    rest, value = np.divmod(key, JOKER_POINTS + 1)
    holder, place = np.divmod(rest, total)
    holder[free], value[free], place[free] = -1, 0, -1
    return holder, value, place


def view(s: GuildersState, seat: int) -> PlayerView:
    """Filter the state down to what ``seat`` may know. The state's numpy mirrors
    (``face_down_counts``, ``miss_all``, ``miss_seat``, ``card_*``) make this a few array copies
    whatever the length of the game."""
    cfg = s.config
    n = cfg.num_players
    known = (s.discard_counts if cfg.public_discards else s.known[seat]).copy()
    scored = s.scored_counts.copy()
    lost = s.lost_counts.copy()
    unseen = s.face_down_counts - known
    order, relative = _seat_tables(n, seat)
    stats = s.stats.take(order, axis=0)
    holder = relative[s.card_holder]  # -1 (free) indexes relative[-1] = -1
    if holder.shape[1] > 1:
        holder, value, place = _in_seat_order(holder, s.card_value, s.card_place, cfg.total_cards)
    else:  # one copy per card: nothing to order
        value, place = s.card_value.copy(), s.card_place.copy()
    cp, mover = s.current_player, s.last_mover
    seen = mover >= 0 and (s.last_public or mover == seat)
    return PlayerView(
        num_players=n,
        fan_size=len(s.fan),
        discard_size=len(s.discards),
        refans_left=s.refans_left,
        turns=s.turn,
        known_discards=known,
        scored=scored,
        lost=lost,
        set_aside=s.aside_counts[52:].copy(),
        unseen=unseen,
        scores=stats[:, 0],
        pile_values=stats[:, 1:],
        to_act=None if cp < 0 else (cp - seat) % n,
        last_mover=None if mover < 0 else (mover - seat) % n,
        last_call=None if mover < 0 else s.last_call,
        last_card=s.last_card if seen else None,
        last_events=EVENTS_OF[s.last_events],
        last_gain=s.last_gain,
        last_loss=s.last_loss,
        last_lost_card=None if s.last_lost_card < 0 else s.last_lost_card,
        miss_calls=s.miss_all.copy(),
        own_miss_calls=s.miss_calls[seat].copy(),
        seat_misses=s.miss_seat[order],
        holder=holder,
        scored_value=value,
        scored_place=place,
        jokers_can_miss=cfg.good_joker and not (cfg.evil_joker or cfg.chaotic_joker),
    )


@lru_cache(maxsize=None)
def layout_for(num_players: int, total_cards: int, max_copies: int, refans: int, max_turns: int, max_score: int) -> Layout:
    n = num_players
    c = f"count / {max_copies}" if max_copies > 1 else "count"
    return Layout(
        [
            ("fan_size", 1, f"cards in the fan / {total_cards}"),
            ("discard_size", 1, f"cards in the discard pile / {total_cards}"),
            ("refans_left", 1, f"refans left / {max(refans, 1)} (0 when unlimited)"),
            ("refans_unlimited", 1, "1 if refan_discards = -1 (unlimited refans)"),
            ("turns", 1, f"turns played / max_turns ({max_turns})"),
            ("known_discards", NUM_CARDS, f"per card, {c}: discards this player knows (drew itself; all if public_discards)"),
            ("scored", NUM_CARDS, f"per card, {c}: cards in all score piles (every match was shown to all)"),
            ("lost", NUM_CARDS, f"per card, {c}: cards the evil penalty took out of the game"),
            ("set_aside", 2, f"{c} of BJ, RJ revealed and set aside"),
            ("unseen", NUM_CARDS, f"per card, {c}: cards this player has not located (the fan + discards it did not see)"),
            ("last_call", len(ACTION_NAMES), "one-hot: the call (action) of the turn just played"),
            ("last_card", NUM_CARDS, "one-hot: the card drawn last turn, if shown to all or drawn by this player"),
            ("last_events", NUM_EVENTS, "last turn: " + ", ".join(EVENT_NAMES)),
            ("last_points", 2, f"last turn: the mover's points [gained, lost] / {SCORE_SCALE:g}", 15 / SCORE_SCALE),
            ("last_lost_card", NUM_CARDS, "one-hot: the card the evil penalty took last turn"),
            (
                "miss_calls",
                NUM_ACTIONS,
                f"per call (action index): misses of it now in the discard pile, every player's / {MISS_SCALE}",
                total_cards / MISS_SCALE,
            ),
            (
                "own_miss_calls",
                NUM_ACTIONS,
                f"per call (action index): this player's misses of it now in the discard pile / {MISS_SCALE}",
                total_cards / MISS_SCALE,
            ),
            ("holder", (NUM_CARDS, max_copies), "per card and copy: (relative seat holding it + 1) / N; 0 = not scored"),
            ("scored_value", (NUM_CARDS, max_copies), f"per card and copy: its value in that score pile / {JOKER_POINTS}"),
            ("scored_place", (NUM_CARDS, max_copies), f"per card and copy: (its place in that score pile, 0 = first scored, + 1) / {total_cards}"),
            (
                "standing",
                3,
                f"best opponent score / {SCORE_SCALE:g}; opponents ahead of, tied with this player / (N-1)",
                max(max_score / SCORE_SCALE, 1.0),
            ),
            ("scores", n, f"score by relative seat (self first) / {SCORE_SCALE:g}", max_score / SCORE_SCALE),
            ("pile_values", (n, len(VALUES)), "per relative seat: cards worth 1, 5, 10, 15 in its score pile", total_cards),
            ("to_act", n, "one-hot relative seat of the player to act"),
            ("last_mover", n, "one-hot relative seat of the player who moved last"),
            ("seat_misses", n, f"per relative seat: its misses now in the discard pile / {MISS_SCALE}", total_cards / MISS_SCALE),
        ]
    )


def layout(rules: GuildersRules) -> Layout:
    cfg = rules.config
    return layout_for(cfg.num_players, cfg.total_cards, rules.max_copies, cfg.refan_discards, cfg.max_turns, rules.max_score)


class Codec:
    """Encodes and decodes PlayerViews for one configuration.

    Every entry of an observation is an integer of the view divided by its segment's scale
    (a one-hot entry: 1 / 1), correctly rounded to float32. :meth:`encode` writes the integers
    into one int64 vector, then divides it as float32 by the per-entry scales
    (``self.divisor``): those integers and scales are below 2**24, exact in float32, so a float32
    division rounds the exact quotient once, as rounding a float64 quotient to float32 does
    (float64 carries more than twice float32's digits). The five scalars at the front (turns
    and ``max_turns`` may be large) are divided in float64 and rounded."""

    def __init__(self, rules: GuildersRules):
        cfg = rules.config
        self.layout = layout(rules)
        self.n = n = cfg.num_players
        self.total = cfg.total_cards
        self.copies = float(rules.max_copies)
        self.refans = max(cfg.refan_discards, 1)
        self.unlimited = cfg.refan_discards < 0
        self.max_turns = cfg.max_turns
        self.size = self.layout.size
        self.jokers_can_miss = cfg.good_joker and not (cfg.evil_joker or cfg.chaotic_joker)
        sl = self.layout.slices
        o = {name: s.start for name, s in sl.items()}
        # the five scalars at the front, at fixed indices
        assert [o["fan_size"], o["discard_size"], o["refans_left"], o["refans_unlimited"], o["turns"]] == [0, 1, 2, 3, 4]
        self.o_last_call, self.o_last_card, self.o_events = o["last_call"], o["last_card"], o["last_events"]
        self.o_points, self.o_lost_card, self.o_standing = o["last_points"], o["last_lost_card"], o["standing"]
        self.o_to_act, self.o_last_mover = o["to_act"], o["last_mover"]
        # the array segments lie in runs end to end: one concatenation writes each run
        self._counts = slice(o["known_discards"], o["unseen"] + NUM_CARDS)
        self._misses_and_piles = slice(o["miss_calls"], sl["scored_place"].stop)
        self._scores, self._pile_values, self._seat_misses = sl["scores"], sl["pile_values"], sl["seat_misses"]
        assert self._counts.stop - self._counts.start == 4 * NUM_CARDS + 2
        assert [o["own_miss_calls"], o["holder"], o["scored_value"], o["scored_place"]] == [
            sl["miss_calls"].stop, sl["own_miss_calls"].stop, sl["holder"].stop, sl["scored_value"].stop]
        #: ``offset[i]``: added to entry i before the division: a scored copy's relative seat and
        #: place are encoded + 1, so that 0 (-1 + 1) means not scored
        self.offset = np.zeros(self.size, dtype=np.int64)
        self.offset[sl["holder"]] = self.offset[sl["scored_place"]] = 1
        self.offset.flags.writeable = False
        #: ``divisor[i]``: the scale entry i is divided by (1 for the five scalars at the front)
        scale = {
            "known_discards": self.copies, "scored": self.copies, "lost": self.copies, "set_aside": self.copies,
            "unseen": self.copies, "last_points": SCORE_SCALE, "miss_calls": MISS_SCALE, "own_miss_calls": MISS_SCALE,
            "holder": n, "scored_value": JOKER_POINTS, "scored_place": self.total, "scores": SCORE_SCALE,
            "seat_misses": MISS_SCALE,
        }
        self.divisor = np.ones(self.size, dtype=np.float32)
        for name, value in scale.items():
            self.divisor[sl[name]] = value
        self.divisor[o["standing"]: o["standing"] + 3] = (SCORE_SCALE, max(n - 1, 1), max(n - 1, 1))
        self.divisor.flags.writeable = False
        # decode's tables. The integers: every entry the view reads as a number, gathered into
        # one array (the six scalars first, then the array fields), each multiplied by its scale
        # before rounding and the offset taken off after; ``_array_parts``: each array field's
        # slice of that array and its shape (None: 1-D).
        scalars = [("fan_size", self.total), ("discard_size", self.total), ("refans_left", self.refans),
                   ("turns", self.max_turns), ("last_points", SCORE_SCALE)]
        arrays = [("known_discards", self.copies), ("scored", self.copies), ("lost", self.copies),
                  ("set_aside", self.copies), ("unseen", self.copies), ("scores", SCORE_SCALE), ("pile_values", 1.0),
                  ("miss_calls", MISS_SCALE), ("own_miss_calls", MISS_SCALE), ("seat_misses", MISS_SCALE),
                  ("holder", n), ("scored_value", JOKER_POINTS), ("scored_place", self.total)]
        index, factors, parts = [], [], []
        for name, factor in scalars + arrays:
            seg = self.layout.by_name[name]
            parts.append((slice(len(index), len(index) + seg.size), seg.shape if len(seg.shape) > 1 else None))
            index += range(seg.start, seg.stop)
            factors += [float(factor)] * seg.size
        self._array_parts = parts[len(scalars):]
        self._read_index = np.array(index, dtype=np.intp)
        self._read_scale = np.array(factors, dtype=np.float64)
        self._read_offset = self.offset[self._read_index]
        # The one-hots and the event flags: their entries gathered; ``_hot_of[i]`` is the field
        # gathered entry i belongs to and its index there.
        hot = ["to_act", "last_mover", "last_call", "last_card", "last_lost_card", "last_events"]
        self._hot_index = np.concatenate([np.arange(sl[name].start, sl[name].stop) for name in hot])
        self._hot_of = [(name, k) for name in hot for k in range(sl[name].stop - sl[name].start)]

    def encode(self, v: PlayerView) -> np.ndarray:
        raw = np.zeros(self.size, dtype=np.int64)  # the integers, divided by ``divisor`` at the end
        n = self.n
        np.concatenate((v.known_discards, v.scored, v.lost, v.set_aside, v.unseen), out=raw[self._counts])
        np.concatenate((v.miss_calls, v.own_miss_calls, v.holder.reshape(-1), v.scored_value.reshape(-1),
                        v.scored_place.reshape(-1)), out=raw[self._misses_and_piles])
        raw[self._scores] = v.scores
        raw[self._pile_values].reshape(v.pile_values.shape)[...] = v.pile_values
        raw[self._seat_misses] = v.seat_misses
        # the scalars and one-hot entries scattered over the rest
        raw[self.o_points], raw[self.o_points + 1] = v.last_gain, v.last_loss
        if n > 1:
            k = self.o_standing
            raw[k], raw[k + 1], raw[k + 2] = v.standing()
        if v.last_call is not None:
            raw[self.o_last_call + v.last_call] = 1
        if v.last_card is not None:
            raw[self.o_last_card + v.last_card] = 1
        if v.last_lost_card is not None:
            raw[self.o_lost_card + v.last_lost_card] = 1
        if v.to_act is not None:
            raw[self.o_to_act + v.to_act] = 1
        if v.last_mover is not None:
            raw[self.o_last_mover + v.last_mover] = 1
        for name in v.last_events:
            raw[self.o_events + EVENT_INDEX[name]] = 1
        raw += self.offset
        x = raw.astype(np.float32)
        x /= self.divisor
        unlimited = v.refans_left < 0
        x[0], x[1], x[2], x[3], x[4] = (
            v.fan_size / self.total,
            v.discard_size / self.total,
            0.0 if unlimited else v.refans_left / self.refans,
            1.0 if unlimited else 0.0,
            v.turns / self.max_turns,
        )
        return x

    def decode(self, x: np.ndarray) -> PlayerView:
        """The PlayerView an observation vector encodes (encode(decode(x)) == x).

        The integers are read back at once: their entries gathered, multiplied by their scales
        in float64, rounded (halves to even, as ``round``) and the offsets taken off; each array
        field is a slice of that one array. A one-hot reads as its first nonzero entry (None
        when all zero), the events as the flags that are nonzero."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape != (self.size,):
            raise ValueError(f"observation must have shape ({self.size},), got {x.shape}")
        real = x[self._read_index] * self._read_scale
        ints = np.rint(real, out=real).astype(np.int64)
        ints -= self._read_offset
        fan_size, discard_size, refans_left, turns, last_gain, last_loss = ints[:6].tolist()
        (known_discards, scored, lost, set_aside, unseen, scores, pile_values, miss_calls, own_miss_calls,
         seat_misses, holder, scored_value, scored_place) = [
            ints[where] if shape is None else ints[where].reshape(shape) for where, shape in self._array_parts]
        hot: dict[str, int] = {}
        events = []
        for i in x[self._hot_index].nonzero()[0].tolist():
            name, k = self._hot_of[i]
            if name == "last_events":
                events.append(EVENT_NAMES[k])
            else:
                hot.setdefault(name, k)
        return PlayerView(
            num_players=self.n,
            fan_size=fan_size,
            discard_size=discard_size,
            refans_left=-1 if x[3] else refans_left,
            turns=turns,
            known_discards=known_discards,
            scored=scored,
            lost=lost,
            set_aside=set_aside,
            unseen=unseen,
            scores=scores,
            pile_values=pile_values,
            to_act=hot.get("to_act"),
            last_mover=hot.get("last_mover"),
            last_call=hot.get("last_call"),
            last_card=hot.get("last_card"),
            last_events=tuple(events),
            last_gain=last_gain,
            last_loss=last_loss,
            last_lost_card=hot.get("last_lost_card"),
            miss_calls=miss_calls,
            own_miss_calls=own_miss_calls,
            seat_misses=seat_misses,
            holder=holder,
            scored_value=scored_value,
            scored_place=scored_place,
            jokers_can_miss=self.jokers_can_miss,
        )


# --------------------------------------------------------------------------- rendering
def _cards_text(counts: np.ndarray) -> str:
    """The cards of a count vector, e.g. ``"7h 7h Qc"``; ``"-"`` when empty."""
    items = [cards.to_str(c) for c in np.flatnonzero(counts) for _ in range(int(counts[c]))]
    return " ".join(items) if items else "-"


def _pile_text(values: np.ndarray) -> str:
    parts = [f"{int(k)}×{v}" for v, k in zip(VALUES, values) if k]
    return " + ".join(parts) if parts else "empty"


def render(v: PlayerView, seat: int | None = None) -> str:
    """A text table of one player's view. ``seat`` (the observer's absolute seat, itself public)
    only names the seats ``player_k``; without it they are "you", "+1", "+2"..."""
    n = v.num_players
    if seat is None:
        names = ["you"] + [f"+{k}" for k in range(1, n)]
    else:
        names = [f"player_{(seat + k) % n}" + (" (you)" if k == 0 else "") for k in range(n)]
    refans = "unlimited" if v.refans_left < 0 else str(v.refans_left)
    head = f"turn {v.turns + 1}, " + (f"{names[v.to_act]} to call" if v.to_act is not None else "game over")
    lines = [
        head,
        f"fan: {v.fan_size} face down   discard pile: {v.discard_size} "
        f"({v.unknown_discards} unseen by you)   refans left: {refans}",
    ]
    if v.last_mover is not None:
        drawn = "an unseen card" if v.last_card is None else cards.to_str(v.last_card)
        what = ", ".join(v.last_events) if v.last_events else "nothing"
        text = f"last turn: {names[v.last_mover]} called {ACTION_NAMES[v.last_call]!r}, drew {drawn}: {what}"
        if v.last_gain:
            text += f" (+{v.last_gain})"
        if v.last_lost_card is not None:
            text += f" (lost {cards.to_str(v.last_lost_card)}, -{v.last_loss})"
        lines.append(text)
    lines.append("scores (you first, then in turn order):")
    width = max(len(name) for name in names)
    piles = v.piles
    for k in range(n):
        pile = " ".join(f"{cards.to_str(c)}={val}" for c, val in piles[k]) if piles[k] else ""
        misses = f"   misses in the discard pile: {int(v.seat_misses[k])}" if v.seat_misses[k] else ""
        lines.append(f"  {names[k]:<{width}} {int(v.scores[k]):>4}   {_pile_text(v.pile_values[k])}"
                     + (f": {pile}" if pile else "") + misses)
    lines.append(f"scored cards: {_cards_text(v.scored)}")
    if v.lost.any():
        lines.append(f"lost to the evil joker: {_cards_text(v.lost)}")
    if v.set_aside.any():
        aside = np.zeros(NUM_CARDS, dtype=np.int64)
        aside[52:] = v.set_aside
        lines.append(f"jokers set aside: {_cards_text(aside)}")
    calls = [f"{ACTION_NAMES[a]!r}×{int(v.miss_calls[a])}" for a in np.flatnonzero(v.miss_calls)]
    if calls:
        lines.append("misses in the discard pile, by call: " + ", ".join(calls))
    mine = [f"{ACTION_NAMES[a]!r}×{int(v.own_miss_calls[a])}" for a in np.flatnonzero(v.own_miss_calls)]
    if mine:
        lines.append("  of them yours: " + ", ".join(mine))
    lines.append(f"discards you know: {_cards_text(v.known_discards)}")
    lines.append(f"unseen by you: {int(v.unseen.sum())} cards (the fan and the discards you have not seen)")
    return "\n".join(lines)


def render_state(s: GuildersState) -> str:
    """Every card, the fan's order included. Debugging only, never for a player."""
    lines = [
        f"turn {s.turn + 1}, player {s.current_player} to call"
        + (" (terminated)" if s.terminated else "")
        + (" (truncated)" if s.truncated else ""),
        f"fan (next draw last): {cards.format_many(s.fan)}",
        "discards: " + " ".join(f"{cards.to_str(c)}@{b}" for c, b in zip(s.discards, s.discard_by)),
        f"refans left: {'unlimited' if s.refans_left < 0 else s.refans_left}",
    ]
    for p, pile in enumerate(s.piles):
        lines.append(
            f"player {p}: {int(s.stats[p, 0])} points: " + " ".join(f"{cards.to_str(c)}={v}" for c, v in pile)
        )
    lines.append(f"lost: {cards.format_many(s.lost)}   set aside: {cards.format_many(s.set_aside)}")
    return "\n".join(lines)


__all__ = ["PlayerView", "view", "Codec", "layout", "render", "render_state"]
