"""What one Guillotine player may know, and its encoding.

``view(state, seat)`` is the only place hidden information is filtered. A Guillotine player
sees its own hand (the dealer sees it before choosing the contract), the sizes of the other
hands, the deal number and the game's length, the dealer, the contract and which contracts
each dealer has used, every card played this deal and by whom (the current trick with its led
suit and leader, the Domino layout and its anchor rank), every player's taken cards (tricks are
gathered face down, but their cards were seen), who won the first trick, the Domino finishing
order, what the public play proves a player does not hold (a suit it failed to follow; the
playable cards when it passed on a compulsory Domino turn — never anything from a STOP, which
is legal in a bonus whether or not a card fits), the totals and the last deal's points. It
never sees a card in another player's hand.

Why this summary is sufficient (Markov) for the player: the future of a deal depends on the
hands, the cards played (by seat), the current trick, the taken cards, the first trick's winner
(Guillotine's +5), the layout and anchor, the finishing order and the phase; the game's future
on the dealers' used contracts, the deal number, the game's length and the totals. All of those
are encoded except the other hands, and what the public history says about those hands is
exactly: their sizes, the cards no longer in play, and ``known_absent`` (a void or a compulsory
pass is the only play that proves anything about the cards kept; hands only shrink within a
deal, so each such fact stays true until the next deal, when it is cleared). The order of the
plays adds nothing beyond that. The player's own past hands are its current hand plus the
cards it played.

Seats are relative: index 0 is the observer, then the others clockwise, so one policy fits
any seat. Cards are deck indices ``8·suit + rank`` (suits c d h s, ranks 7..A), the play
actions' numbers; card sets are 32-bit masks over them. These are Guillotine's own numbers, not
:mod:`card_envs.cards` ints: card 27 is ``"Ts"`` here and ``cards.to_str(27)`` is ``"2h"``.
Read them with ``PlayerView.card_name(i)`` (or ``card_envs.guillotine.rules.card_name``),
list a mask's indices with ``card_envs.guillotine.rules.cards_of(mask)`` (also
``env.unwrapped.rules.cards_of``), or take the whole view by name with ``view.readable()``
(``str(view)`` prints it: cards by name, contracts, suits and ranks decoded).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from card_envs import views
from card_envs.encoding import Layout
from card_envs.guillotine.rules import (
    CONTRACT_NAMES,
    DOMINO,
    HAND_SIZE,
    NUM_CARDS,
    NUM_CONTRACTS,
    NUM_DEALS,
    NUM_PLAYERS,
    PHASE_NAMES,
    RANK_NAMES,
    TRICK,
    GuillotineRules,
    GuillotineState,
    card_name,
    cards_of,
)

N = NUM_PLAYERS
SCORE_SCALE = 100.0
SUIT_LETTERS = "cdhs"

_mask = views.card_mask(card_name)
_per_seat_mask = views.per_seat(_mask)


@views.readable_view(
    card_name=card_name,
    numbering="Guillotine deck index 8·suit + rank: suits c d h s = 0..3, ranks 7 8 9 T J Q K A = 0..7 "
    "(27 is 'Ts'; not card_envs.cards ints); card sets are 32-bit masks over these indices",
    fields={
        "hand": _mask,
        "trick": views.per_seat(views.card(card_name)),
        "played": _per_seat_mask,
        "taken": _per_seat_mask,
        "known_absent": _per_seat_mask,
        "led_suit": views.code(SUIT_LETTERS),
        "anchor": views.code(RANK_NAMES),
        "contract": views.code(CONTRACT_NAMES),
        "used_contracts": views.per_seat(views.flags(CONTRACT_NAMES)),
    },
    extra={"layout": lambda v: _mask(v.layout)},
)
@dataclass
class PlayerView:
    """A Guillotine player's knowledge. Lists are by relative seat (0 = self, then clockwise);
    card sets are masks over deck indices (bit ``8·suit + rank``; ``card_name(i)`` names one,
    ``readable()`` gives the whole view by name, ``str(view)`` prints it).

    ``trick[k]`` is the card seat k put on the current trick (None if it has not played to it).
    ``contract`` and ``led_suit``, ``trick_leader``, ``first_trick_winner``, ``anchor`` (the
    Domino anchor rank 0..7 = 7..A) are None until they exist. ``used_contracts[k]`` is a 6-bit
    mask over Royalty, Queens, Spades, Parliament, Guillotine, Domino. ``out_order`` lists the
    seats out in Domino, first out first. ``known_absent[k]``: cards seat k is known not to hold.
    ``deal`` is the current deal, 0-based, of ``num_deals`` (24, or 1 in single mode).
    """

    hand: int
    hand_sizes: list[int]
    trick: list[int | None]
    played: list[int]
    taken: list[int]
    known_absent: list[int]
    led_suit: int | None
    trick_leader: int | None
    first_trick_winner: int | None
    anchor: int | None
    out_order: list[int]
    phase: str
    to_act: int | None
    dealer: int
    contract: int | None
    used_contracts: list[int]
    totals: list[int]
    last_deal: list[int]
    deal: int = 0
    num_deals: int = NUM_DEALS

    @property
    def layout(self) -> int:
        """The Domino layout (every card played this deal when the contract is Domino)."""
        if self.contract != DOMINO:
            return 0
        return self.played[0] | self.played[1] | self.played[2] | self.played[3]


def view(s: GuillotineState, seat: int) -> PlayerView:
    """Filter the state down to what ``seat`` may know."""

    def rotate(values: list) -> list:  # absolute seats -> relative seats (self first)
        return values[seat:] + values[:seat]

    def rel(p: int) -> int | None:
        return None if p < 0 else (p - seat) % N

    hands = rotate(s.hands)
    return PlayerView(
        hand=hands[0],
        hand_sizes=[h.bit_count() for h in hands],
        trick=[None if c < 0 else c for c in rotate(s.trick)],
        played=rotate(s.played),
        taken=rotate(s.taken),
        known_absent=rotate(s.absent),
        led_suit=None if s.led < 0 else s.led,
        trick_leader=rel(s.leader) if s.phase == TRICK else None,
        first_trick_winner=rel(s.first_winner),
        anchor=None if s.anchor < 0 else s.anchor,
        out_order=[rel(p) for p in s.out],
        phase=PHASE_NAMES[s.phase],
        to_act=rel(s.current_player),
        dealer=rel(s.dealer),
        contract=None if s.contract < 0 else s.contract,
        used_contracts=rotate(s.used),
        totals=rotate(s.totals),
        last_deal=rotate(s.last_deal),
        deal=s.deal,
        num_deals=s.num_deals,
    )


def _layout() -> Layout:
    return Layout(
        [
            ("hand", NUM_CARDS, "own hand: 1 per card held (deck index 8·suit + rank, suits c d h s, ranks 7..A)"),
            ("trick", (N, NUM_CARDS), "the current trick: one-hot card each relative seat (self first) has put on it"),
            ("played", (N, NUM_CARDS), "every card each relative seat has played this deal"
             " (to tricks; in Domino their union is the layout)"),
            ("taken", (N, NUM_CARDS), "the cards in the tricks each relative seat has won this deal"),
            ("known_absent", (N, NUM_CARDS), "cards public play proves each relative seat does not hold"
             " (a suit it did not follow; the playable cards when it passed on a compulsory Domino turn;"
             " never from a STOP)"),
            ("led_suit", 4, "one-hot suit led to the current trick (c d h s)"),
            ("trick_leader", N, "one-hot relative seat that leads the current trick"),
            ("first_trick_winner", N, "one-hot relative seat that won this deal's first trick"),
            ("anchor", 8, "one-hot Domino anchor rank R0 (7..A): only it starts a row"),
            ("out_order", (N, 2), "Domino: 1 if the relative seat went out [first, second]"),
            ("phase", len(PHASE_NAMES), "one-hot phase: " + ", ".join(PHASE_NAMES)),
            ("to_act", N, "one-hot relative seat of the player to act"),
            ("dealer", N, "one-hot relative seat of the dealer"),
            ("contract", NUM_CONTRACTS, "one-hot contract of this deal: " + ", ".join(CONTRACT_NAMES)),
            ("used_contracts", (N, NUM_CONTRACTS),
             "contracts each relative seat has chosen as dealer (this one included)"),
            ("deal", NUM_DEALS, f"one-hot index of the current deal, 0-based (of {NUM_DEALS}, or of 1 in single mode)"),
            ("single_deal", 1, "1 if the game is one deal (mode='single'), 0 in the 24-deal game"),
            ("hand_sizes", N, f"cards in each relative seat's hand, divided by {HAND_SIZE}"),
            # totals lie in -740..1780 and one deal's points in -80..250 (from the scoring
            # table), hence the bounds
            ("totals_plus", N, f"positive part of each relative seat's total, / {SCORE_SCALE:g}", 18.0),
            ("totals_minus", N, f"negative part of each total (as a positive number), / {SCORE_SCALE:g}", 8.0),
            ("last_deal_plus", N, f"positive part of each seat's points in the last finished deal, / {SCORE_SCALE:g}",
             2.5),
            ("last_deal_minus", N, f"negative part of the last deal's points (as a positive number), / {SCORE_SCALE:g}",
             0.8),
        ]
    )


LAYOUT = _layout()
_CARD_ROWS = 1 + 4 * N  # the 32-wide card segments, laid end to end at the start
_CARD_BITS = _CARD_ROWS * NUM_CARDS
_BINARY_END = LAYOUT.slices["hand_sizes"].start  # every entry before it is 0 or 1
_FLAG_WORDS = (_BINARY_END - _CARD_BITS + 31) // 32
_M32 = 0xFFFFFFFF
_CONTRACT_BITS = (1 << NUM_CONTRACTS) - 1
# the scaled entries after the binary ones: hand_sizes, totals_plus, totals_minus,
# last_deal_plus, last_deal_minus, N each (decode reads them as one list)
assert [s.name for s in LAYOUT.segments if s.start >= _BINARY_END] == [
    "hand_sizes", "totals_plus", "totals_minus", "last_deal_plus", "last_deal_minus"
] and LAYOUT.size == _BINARY_END + 5 * N


def layout(rules: GuillotineRules | None = None) -> Layout:
    """The observation layout (the same for every configuration)."""
    return LAYOUT


class Codec:
    """Encodes and decodes PlayerViews.

    Every entry before ``hand_sizes`` is 0 or 1, so the encoder gathers them as bits (the card
    segments as 32-bit card masks, the one-hot segments as one flag integer) and unpacks them
    in one call; the decoder packs them back the same way.
    """

    def __init__(self, rules: GuillotineRules | None = None):
        self.layout = LAYOUT
        sl = LAYOUT.slices
        # bit offsets of the one-hot segments inside the flag integer
        self._f = {name: sl[name].start - _CARD_BITS for name in sl if _CARD_BITS <= sl[name].start < _BINARY_END}
        self._width = {name: LAYOUT.by_name[name].size for name in self._f}
        self._o = {name: sl[name].start for name in sl}

    def encode(self, v: PlayerView) -> np.ndarray:
        f = self._f
        flags = 1 << (f["phase"] + PHASE_NAMES.index(v.phase))
        flags |= 1 << (f["dealer"] + v.dealer)
        if v.to_act is not None:
            flags |= 1 << (f["to_act"] + v.to_act)
        if v.contract is not None:
            flags |= 1 << (f["contract"] + v.contract)
        if v.led_suit is not None:
            flags |= 1 << (f["led_suit"] + v.led_suit)
        if v.trick_leader is not None:
            flags |= 1 << (f["trick_leader"] + v.trick_leader)
        if v.first_trick_winner is not None:
            flags |= 1 << (f["first_trick_winner"] + v.first_trick_winner)
        if v.anchor is not None:
            flags |= 1 << (f["anchor"] + v.anchor)
        for place, k in enumerate(v.out_order):
            flags |= 1 << (f["out_order"] + 2 * k + place)
        flags |= 1 << (f["deal"] + v.deal)
        if v.num_deals == 1:
            flags |= 1 << f["single_deal"]
        u = f["used_contracts"]
        for k in range(N):
            flags |= v.used_contracts[k] << (u + NUM_CONTRACTS * k)
        words = [v.hand]
        words += [0 if c is None else 1 << c for c in v.trick]
        words += v.played
        words += v.taken
        words += v.known_absent
        words += [flags >> (32 * w) & _M32 for w in range(_FLAG_WORDS)]
        bits = np.unpackbits(np.array(words, dtype="<u4").view(np.uint8), bitorder="little")
        x = np.zeros(LAYOUT.size, dtype=np.float32)
        x[:_BINARY_END] = bits[:_BINARY_END]
        o = self._o
        hs = o["hand_sizes"]
        x[hs : hs + N] = [h / HAND_SIZE for h in v.hand_sizes]
        for name, values in (("totals", v.totals), ("last_deal", v.last_deal)):
            if not any(values):
                continue
            plus, minus = o[name + "_plus"], o[name + "_minus"]
            for k in range(N):
                t = values[k]
                if t > 0:
                    x[plus + k] = t / SCORE_SCALE
                elif t < 0:
                    x[minus + k] = -t / SCORE_SCALE
        return x

    def decode(self, x: np.ndarray) -> PlayerView:
        """The PlayerView an observation vector encodes (encode(decode(x)) == x): the binary
        entries packed back into the card masks and the flag integer the encoder unpacked,
        then the scaled entries after them read as one list."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape != (LAYOUT.size,):
            raise ValueError(f"observation must have shape ({LAYOUT.size},), got {x.shape}")
        packed = np.packbits(np.asarray(x[:_BINARY_END], dtype=np.uint8), bitorder="little")
        words = packed[: 4 * _CARD_ROWS].view("<u4").tolist()
        flags = int.from_bytes(packed[4 * _CARD_ROWS :].tobytes(), "little")
        f, width = self._f, self._width

        def one_hot(name: str) -> int | None:
            """The set bit of a one-hot flag segment, or None when it is all zero."""
            m = flags >> f[name] & (1 << width[name]) - 1
            return (m & -m).bit_length() - 1 if m else None

        def signed(start: int) -> list[int]:
            """The points whose positive parts start at ``start`` of ``tail`` (negative parts next)."""
            return [round(tail[start + k] * SCORE_SCALE) - round(tail[start + N + k] * SCORE_SCALE) for k in range(N)]

        # hand_sizes, totals_plus, totals_minus, last_deal_plus, last_deal_minus (N entries each)
        tail = x[_BINARY_END:].tolist()
        out, used = f["out_order"], f["used_contracts"]
        return PlayerView(
            hand=words[0],
            hand_sizes=[round(h * HAND_SIZE) for h in tail[:N]],
            trick=[None if w == 0 else w.bit_length() - 1 for w in words[1 : 1 + N]],
            played=words[1 + N : 1 + 2 * N],
            taken=words[1 + 2 * N : 1 + 3 * N],
            known_absent=words[1 + 3 * N : 1 + 4 * N],
            led_suit=one_hot("led_suit"),
            trick_leader=one_hot("trick_leader"),
            first_trick_winner=one_hot("first_trick_winner"),
            anchor=one_hot("anchor"),
            out_order=[k for place in range(2) for k in range(N) if flags >> (out + 2 * k + place) & 1],
            phase=PHASE_NAMES[one_hot("phase")],
            to_act=one_hot("to_act"),
            dealer=one_hot("dealer"),
            contract=one_hot("contract"),
            used_contracts=[flags >> (used + NUM_CONTRACTS * k) & _CONTRACT_BITS for k in range(N)],
            totals=signed(N),
            last_deal=signed(3 * N),
            deal=one_hot("deal"),
            num_deals=1 if flags >> f["single_deal"] & 1 else NUM_DEALS,
        )


# ------------------------------------------------------------------------------ rendering
def _cards_text(mask: int) -> str:
    return " ".join(card_name(i) for i in cards_of(mask)) or "-"


def _rows_text(table: int) -> list[str]:
    """The Domino layout, one row per suit, lowest rank first."""
    lines = []
    for suit in range(4):
        ranks = [r for r in range(8) if table >> (8 * suit + r) & 1]
        lines.append(f"  {SUIT_LETTERS[suit]}: " + (" ".join(RANK_NAMES[r] for r in ranks) if ranks else "-"))
    return lines


def render(v: PlayerView, seat_names: list[str] | None = None) -> str:
    """A text table of one player's view (built from the PlayerView alone)."""
    names = seat_names or ["you"] + [f"+{k}" for k in range(1, N)]
    contract = "not chosen yet" if v.contract is None else CONTRACT_NAMES[v.contract]
    lines = [
        f"deal {v.deal + 1} of {v.num_deals}, contract {contract}, dealer {names[v.dealer]}, phase {v.phase}"
        + ("" if v.to_act is None else f", {names[v.to_act]} to act"),
        f"your hand: {_cards_text(v.hand)}",
    ]
    domino = v.contract == DOMINO
    if domino:
        anchor = "-" if v.anchor is None else RANK_NAMES[v.anchor]
        lines.append(f"layout (anchor {anchor}):")
        lines += _rows_text(v.layout)
        if v.out_order:
            lines.append("out: " + ", ".join(names[k] for k in v.out_order))
        if v.phase == "bonus":
            lines.append(f"{names[v.to_act]} in an Ace bonus: may lay any fitting card, or stop")
    elif v.contract is not None:
        led = "-" if v.led_suit is None else SUIT_LETTERS[v.led_suit]
        lead = "" if v.trick_leader is None else f", led by {names[v.trick_leader]}"
        played = "  ".join(f"{names[k]} {card_name(c)}" for k, c in enumerate(v.trick) if c is not None)
        lines.append(f"trick (suit led {led}{lead}): {played or '-'}")
    gone = _all_played(v)
    for k in range(N):
        used = ",".join(CONTRACT_NAMES[c][:3] for c in range(NUM_CONTRACTS) if v.used_contracts[k] >> c & 1)
        tag = "D" if k == v.dealer else " "
        line = (f"{names[k]:>4} {tag}: {v.hand_sizes[k]} cards, total {v.totals[k]}, "
                f"last deal {v.last_deal[k]}, used [{used}]")
        if domino:  # what matters in Domino: the cards laid and the finishing order
            place = ""
            if k in v.out_order:
                place = " (out first)" if v.out_order.index(k) == 0 else " (out second)"
            line += f"; laid {_cards_text(v.played[k])}{place}"
        elif v.contract is not None:
            first = " (won trick 1)" if v.first_trick_winner == k else ""
            won = v.taken[k].bit_count() // 4
            line += f"; taken {won} trick{'' if won == 1 else 's'}{first}: {_cards_text(v.taken[k])}"
        lines.append(line)
        # what seat k is known not to hold, less the cards already played (and, for the
        # others, the viewer's own cards, which the viewer knows they cannot hold)
        absent = v.known_absent[k] & ~gone & (~0 if k == 0 else ~v.hand)
        if absent:
            label = "the table knows you hold none of" if k == 0 else "known not to hold"
            lines.append(f"{'':>7} {label}: {_cards_text(absent)}")
    lines.append("(D dealer)")
    return "\n".join(lines)


def _all_played(v: PlayerView) -> int:
    return v.played[0] | v.played[1] | v.played[2] | v.played[3]


def render_state(s: GuillotineState) -> str:
    """Every card, hidden hands included. Debugging only, never for a player."""
    contract = "-" if s.contract < 0 else CONTRACT_NAMES[s.contract]
    lines = [
        f"deal {s.deal + 1}, dealer {s.dealer}, contract {contract}, phase {PHASE_NAMES[s.phase]}, "
        f"player {s.current_player} to act",
    ]
    for p in range(N):
        lines.append(
            f"player {p}: hand {_cards_text(s.hands[p])} | taken {_cards_text(s.taken[p])} | total {s.totals[p]}"
        )
    if s.contract == DOMINO:
        anchor = "-" if s.anchor < 0 else RANK_NAMES[s.anchor]
        lines.append(f"layout (anchor {anchor}), out {s.out}:")
        lines += _rows_text(s.table)
    else:
        lines.append("trick: " + " ".join(f"{p}:{card_name(c)}" for p, c in enumerate(s.trick) if c >= 0))
    return "\n".join(lines)


__all__ = ["PlayerView", "view", "Codec", "layout", "render", "render_state", "LAYOUT"]
