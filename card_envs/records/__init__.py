"""Game records: one game per line of a JSON Lines file, replayed bit for bit.

    from card_envs import records
    line = records.record("golf_v0", ["heuristic", "random"], {"num_players": 2, "num_rounds": 1}, seed=7)
    records.write("games.jsonl", [line])
    env = records.replay(records.read("games.jsonl")[0], step=10)   # the table after 10 actions
    env.unwrapped.render_state()

    python -m training.evaluate golf heuristic random --games 100 --save-games games.jsonl
    python -m agents.play golf_v0 --save-games mine.jsonl
    python -m card_envs.records show games.jsonl --game 3 --seat player_0   # or --spectator, --full
    python -m card_envs.records check games.jsonl

A record holds what it takes to play the game again: the environment and its options, the seed
(and the stacked deck, if one was used) given to ``reset``, and every action in order. Replaying
builds ``env(**options)``, resets it the same way and applies the actions; the environment is
deterministic (``reset(seed)`` then the same actions give the same trajectory), so every
observation, mask, reward and info of the replay is the original's, byte for byte.

A record is what was played, or it is refused. Two things tie it to the game:

- the **trace**: the full-information ``state()`` and the random generator's state after the
  reset and after every action, hashed in order as the game is recorded (a running BLAKE2b digest: a short code per step, the whole
  digest at the end). The replay recomputes it and stops at the first step whose state is not the
  recorded one: a seed or a deck edited, an action swapped for another legal one, a record of
  another library version whose rules changed;
- the **checksum**: SHA-256 of every field but ``meta`` (free-form: edit it at will) and the
  checksum itself, so an edit anywhere else is refused when the line is read, before any replay.
  A line must also be exactly as the writer wrote it (compact JSON): a line that parses to the
  same values but is spelled otherwise is refused too.

The rest of the record is checked as well: each action's name and actor, the end, the scores,
ranks and rewards, the agent specs (each one the library can parse, or null). Every refusal is a
ValueError that names the first field or action where the line departs from the game; an edited
line also says that its checksum does not match. :func:`parse` checks a line's form and checksum
(what :func:`read` does for a file); :func:`check` and ``python -m card_envs.records check`` also
replay it in full. A record written by another library version replays with a warning naming
both versions (and, if its game no longer replays, the error names them too). Records of
``format_version`` 1 (written before the trace and checksum) still read and replay, with a
warning that only their actions and results can be checked.

Format (``format_version`` 2), one JSON object per line, fields in this order:

====================  =====================  ====================================================
field                 type                   meaning
====================  =====================  ====================================================
``format``            str                    ``"card_envs.records"``
``format_version``    int                    ``2``; a reader refuses a version it does not know
                                             (``1``, without trace and checksum, still reads)
``library_version``   str                    ``card_envs.__version__`` of the writer
``env``               str                    the environment's ``metadata["name"]``, its version
                                             in the suffix (``"golf_v0"``)
``options``           object                 the table's options, as passed to ``env(**options)``
``seed``              int >= 0               ``env.reset(seed=seed, ...)``; with a stacked deck it
                                             still draws what the deck does not fix (the dealer,
                                             later rounds' shuffles)
``deck``              list[str] or null      the stacked deck, top card first, in the cards.py
                                             notation (``"As"``, ``"Td"``, ``"RJ"``): ``reset(seed=
                                             seed, options={"deck": deck})``; null: shuffled
``agents``            list or null           each seat's agent spec (``agents.load``), in seat
                                             order, a str or null where unknown (a person, an
                                             object)
``actions``           list[list]             every action in the order played, each
                                             ``[actor, action, name]``: ``["player_1", 6, "draw
                                             stock"]``, the seat that acted, the action's index,
                                             its name (``env.unwrapped.action_to_string`` just
                                             before the step)
``end``               str                    ``"terminated"``, ``"truncated"`` (the game's own
                                             cut-off) or ``"illegal"`` (the last action was illegal:
                                             ``env()`` ended the game, -1 for its actor)
``scores``            list or null           each seat's final ``infos[agent]["score"]``; null
                                             after an illegal action (no scores are given then)
``ranks``             list[int] or null      each seat's final ``infos[agent]["rank"]`` (1 = best)
``rewards``           list[float] or null    each seat's total reward of the game: the sum of
                                             every reward ``env.last()`` gave it; null when the
                                             writer did not count them
``trace``             str                    4 hex digits per step (the reset, then each action):
                                             the first digits of the running BLAKE2b-128 digest of
                                             every ``state()`` (and generator state) so far
``digest``            str                    the running digest after the last step, 32 hex digits
``meta``              object (optional)      anything the writer adds (``source``, ``deal``,
                                             ``game``); never checked, not in the checksum
``checksum``          str                    SHA-256 (64 hex digits) of the line's other fields but
                                             ``meta``, as compact JSON in this order
====================  =====================  ====================================================

A line missing a field, holding an unknown one, a value of the wrong type, an unknown
environment or format version is a ValueError naming the field; so is a replay that does not
match (see :func:`steps`). The writers (:func:`record`, ``training.evaluate --save-games``,
``agents.play --save-games``) all go through :class:`Recorder`, so there is one format writer.
"""

from card_envs.records.cli import main
from card_envs.records.format import (
    ENDS,
    FIELDS,
    FIELDS_V1,
    FORMAT,
    FORMAT_VERSION,
    OPTIONAL_FIELDS,
    READ_VERSIONS,
    SEAL,
    TRACE_DIGITS,
    Trace,
    agents_hook,
    checksum,
    new_seed,
)
from card_envs.records.reading import check, check_file, parse, read, replay, steps
from card_envs.records.viewer import VIEWS, frames, scene_text, screens, show
from card_envs.records.writing import Recorder, dumps, record, write

__all__ = [
    "ENDS", "FIELDS", "FIELDS_V1", "FORMAT", "FORMAT_VERSION", "OPTIONAL_FIELDS", "READ_VERSIONS", "SEAL",
    "TRACE_DIGITS", "VIEWS", "Recorder", "Trace", "agents_hook", "check", "check_file", "checksum", "dumps",
    "frames", "main", "new_seed", "parse", "read", "record", "replay", "scene_text", "screens", "show", "steps",
    "write",
]
