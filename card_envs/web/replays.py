"""The records the web page replays: those of ``--records FILE`` and those uploaded, by id.

An uploaded line is untrusted: before it is replayed its JSON is read with its depth and size
bounded and its table checked against the web table's bounds
(:data:`card_envs.web.limits.OPTION_BOUNDS`), then ``card_envs.records.parse`` checks its form and
checksum. Uploads are kept up to :data:`~card_envs.web.limits.MAX_UPLOADED_RECORDS` records and
:data:`~card_envs.web.limits.MAX_UPLOADED_BYTES` of text, the oldest dropped first (the reply
says how many); the records of ``--records FILE`` are the person's own and always kept. Replayed
steps (their pictures) are cached for all records together, the least recently used dropped
beyond :data:`~card_envs.web.limits.STEP_CACHE`.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from card_envs.cli import one_line
from card_envs.web import limits
from card_envs.web.tables import NotFound, png_data_url


@dataclass
class StoredRecord:
    id: str
    rec: dict[str, Any]
    source: str  # the file it came from, or the uploaded file's name
    line: int  # its line number there (1 = first)
    size: int  # the length of its line of text
    pinned: bool  # from --records FILE: never dropped

    def summary(self) -> dict[str, Any]:
        rec = self.rec
        return {"record": self.id, "env": rec["env"], "options": rec["options"], "agents": rec["agents"],
                "actions": len(rec["actions"]), "end": rec["end"], "ranks": rec["ranks"], "scores": rec["scores"],
                "source": self.source, "line": self.line,
                "seats": [f"player_{i}" for i in range(_num_players(self.rec))]}


@dataclass
class Upload:
    """What :meth:`Replays.add_text` did: the records added and how many old uploads it dropped."""

    added: list[StoredRecord]
    dropped: int = 0


def _num_players(rec: dict[str, Any]) -> int:
    from card_envs.records.format import _num_players as n

    return n(rec)


def check_line(line: str) -> None:
    """A ValueError unless ``line`` is a JSON object whose table the web table serves: its
    environment known and its options within the bounds (checked before anything is built)."""
    import card_envs

    data = limits.json_object(line, "a record line")
    env, options = data.get("env"), data.get("options")
    if not isinstance(env, str) or env not in card_envs.ENVIRONMENTS:
        raise ValueError(f"unknown environment {str(env)[:40]!r}; environments: {', '.join(card_envs.ENVIRONMENTS)}")
    if not isinstance(options, dict):
        raise ValueError("options must be a JSON object")
    limits.check_bounds(env, options)


class Replays:
    """Records to replay, by id (see the module docstring for what is kept)."""

    def __init__(self, max_records: int = limits.MAX_UPLOADED_RECORDS, max_bytes: int = limits.MAX_UPLOADED_BYTES,
                 cached_steps: int = limits.STEP_CACHE):
        self.max_records = int(max_records)
        self.max_bytes = int(max_bytes)
        self.cached_steps = int(cached_steps)
        self._records: OrderedDict[str, StoredRecord] = OrderedDict()  # oldest first
        self._steps: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()

    def add_text(self, text: str, source: str = "upload", pinned: bool = False) -> Upload:
        """Every record of ``text`` (JSON Lines, blank lines skipped), each checked as
        ``card_envs.records.parse`` checks it, within the web table's bounds; one bad line refuses
        them all, with a ValueError naming its line and what is wrong (nothing is added).
        ``pinned``: the person's own file, kept whatever the bounds."""
        from card_envs import records

        parsed = []
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                if not pinned:
                    check_line(line)
                parsed.append((k, records.parse(line), len(line)))
            except (ValueError, RecursionError) as e:
                raise ValueError(f"{source} line {k}: {one_line(e)}") from None
        if not parsed:
            raise ValueError(f"{source} holds no game records (JSON Lines written by card_envs.records)")
        size = sum(n for _, _, n in parsed)
        if not pinned and (len(parsed) > self.max_records or size > self.max_bytes):
            raise ValueError(f"{source} holds {len(parsed)} records ({size} bytes): the web table keeps at most "
                             f"{self.max_records} uploaded records and {self.max_bytes} bytes of them")
        added = []
        with self._lock:
            for k, rec, n in parsed:
                stored = StoredRecord(secrets.token_urlsafe(8), rec, source, k, n, pinned)
                self._records[stored.id] = stored
                added.append(stored)
            dropped = self._drop_oldest()
        return Upload(added, dropped)

    def _drop_oldest(self) -> int:
        uploads = [r for r in self._records.values() if not r.pinned]
        count, size = len(uploads), sum(r.size for r in uploads)
        dropped = 0
        for r in uploads:
            if count <= self.max_records and size <= self.max_bytes:
                break
            del self._records[r.id]
            for key in [key for key in self._steps if key[0] == r.id]:
                del self._steps[key]
            count, size, dropped = count - 1, size - r.size, dropped + 1
        return dropped

    def all(self) -> list[StoredRecord]:
        with self._lock:
            return list(self._records.values())

    def get(self, record_id: str) -> StoredRecord:
        with self._lock:
            stored = self._records.get(record_id)
        if stored is None:
            raise NotFound(f"no record {str(record_id)[:40]!r}")
        return stored

    def step(self, record_id: str, step: Any, seat: Any = None) -> dict[str, Any]:
        """Record ``record_id`` replayed to ``step`` (0 = the deal), as a spectator sees it (``seat``
        None: what every seat sees) or as ``seat`` sees it: its picture, text, the actions so far as
        that viewer saw them, with their actors, whether this is the last step, and there the
        result. The spectator is also told the number of steps; a seat is not (how long a game
        lasts depends on cards the seat cannot see)."""
        from card_envs.records import replay
        from card_envs.records.viewer import actions_seen, spectator_text

        stored = self.get(record_id)
        rec = stored.rec
        n = len(rec["actions"])
        seats = [f"player_{i}" for i in range(_num_players(rec))]
        if seat in ("", "spectator"):
            seat = None
        if seat is not None and seat not in seats:
            raise ValueError(f"unknown seat {str(seat)[:40]!r}; seats: {', '.join(seats)} (or spectator)")
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= n:
            # a seat does not know how long the game lasts (that depends on cards it cannot see)
            within = "from 0 to the game's last step" if seat is not None else f"in 0..{n} (the record has {n} actions)"
            raise ValueError(f"step must be an int {within}, got {str(step)[:40]!r}")
        key = (stored.id, step, seat)
        with self._lock:
            if key in self._steps:
                self._steps.move_to_end(key)
                return self._steps[key]
            seen = self._steps.get((stored.id, "seen", seat))
        if seen is None:
            seen = actions_seen(rec, "spectator" if seat is None else "seat", seat)
        env = replay(rec, step=step, render_mode="rgb_array")
        raw = env.unwrapped
        if seat is None:
            picture, text = env.render(), spectator_text(raw)
        else:
            picture, text = raw.render_view(seat, mode="rgb_array"), raw.render_view(seat)
        out = {"record": stored.id, "env": rec["env"], "options": rec["options"], "seat": seat,
               "step": step, "last": step == n, "picture": png_data_url(picture), "text": text,
               "moves": [{"step": k, "seat": rec["actions"][k][0], "name": seen[k]} for k in range(step)],
               "result": None}
        if seat is None:  # a spectator of the finished game may know its length; a seat learns
            out["steps"] = n  # only that the game is over when it is
        if step == n:
            out["result"] = {"end": rec["end"], "scores": rec["scores"], "ranks": rec["ranks"],
                             "rewards": rec["rewards"]}
        with self._lock:
            if stored.id in self._records:  # not dropped meanwhile
                self._steps[(stored.id, "seen", seat)] = seen
                self._steps[key] = out
                while len(self._steps) > self.cached_steps:
                    self._steps.popitem(last=False)
        return out

