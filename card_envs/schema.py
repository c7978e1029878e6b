"""A game's state, declared once: each field's name, how it copies, and where the batched engine keeps it.

A game has two implementations of its rules: the pure-Python rules engine (``rules.py``), whose
state is an object of named fields, and the compiled kernels (``kernels.py``), whose state is a
handful of fixed-shape arrays with one row per game. Both are described by one
:class:`StateSchema`, declared next to the rules::

    STATE = StateSchema(
        "GolfState",
        Field("grid", ROWS, "each seat's six slots (card ints)", Array("grid", np.int16, (PLAYERS, 6))),
        Field("stock", LIST, "the stock, its end the top", Pile("stock", np.int16, "stock_len")),
        Field("phase", VALUE, "the phase", Row("phase")),
        Field("totals", LIST, "each seat's total", SeatColumn("seat", "total")),
        Field("rng", GENERATOR, "the random generator"),
        ...
    )

    class GolfState(STATE.base):        # __slots__ and copy() come from the schema
        __slots__ = ()

From it follow:

* the rules state's ``__slots__`` and its :meth:`copy` (generated once at import, as fast as a
  hand-written one: each field copied by its kind, see :data:`KINDS`);
* the kernels' arrays (:meth:`StateSchema.allocate`, the order the kernels take them in
  :meth:`StateSchema.arrays_of`), the indices of the per-game scalars in the ``row`` array
  (:meth:`StateSchema.row`) and of the per-seat scalars in a seat table (:meth:`StateSchema.column`);
* the exchange between the two (:meth:`StateSchema.dump` and :meth:`StateSchema.load`) for every
  field the kernels keep as such. A game whose kernels keep a field in another form (a hand as
  counts by rank, a set of cards as a bit mask) declares it :class:`Derived` and converts it in its
  kernels' ``dump``/``load``; ``tests/conformance/test_state_schema.py`` checks, for every game,
  that a state survives the trip through the arrays whole and that no array is left unwritten.

A field added to a game is one :class:`Field` line here, plus the rules and kernels that use it.

The batched engine's configuration (the options its kernels read) is declared the same way, as a
:class:`ConfigArray`: each entry's name and how it is computed from the rules, its index
following from its place.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from card_envs.generators import copy_generator

# ------------------------------------------------------------------------ how a field copies
VALUE = "value"  #: an immutable value (int, bool, None, a tuple): shared by the copy
LIST = "list"  #: a flat list of immutable values: a new list
ROWS = "rows"  #: a list of lists (one per seat): new lists, rows too
NESTED = "nested"  #: a list of lists of lists: new lists at every level
OPTIONAL_ROWS = "optional_rows"  #: ROWS, or None
OPTIONAL_LIST = "optional_list"  #: LIST, or None
DEQUE = "deque"  #: a collections.deque of immutable values: a new deque
ARRAY = "array"  #: a numpy array: ``.copy()``
GENERATOR = "generator"  #: a numpy Generator: an independent one in the same state
SHARED = "shared"  #: a value the copies share on purpose (a configuration, a read-only table)

KINDS = {
    VALUE: "t.{0} = self.{0}",
    SHARED: "t.{0} = self.{0}",
    LIST: "t.{0} = self.{0}[:]",
    ROWS: "t.{0} = [r[:] for r in self.{0}]",
    NESTED: "t.{0} = [[c[:] for c in r] for r in self.{0}]",
    OPTIONAL_ROWS: "t.{0} = None if self.{0} is None else [r[:] for r in self.{0}]",
    OPTIONAL_LIST: "t.{0} = None if self.{0} is None else self.{0}[:]",
    DEQUE: "t.{0} = _deque(self.{0})",
    ARRAY: "t.{0} = self.{0}.copy()",
    GENERATOR: "t.{0} = _copy_generator(self.{0})",
}

# ------------------------------------------------------------- the table's sizes, by name
PLAYERS = "players"  #: the number of seats
CARDS = "cards"  #: the number of cards in the game's deck(s)


# --------------------------------------------------------------- where the kernels keep it
@dataclass(frozen=True)
class Row:
    """A per-game scalar: one column of the ``row`` array (int32 or int64, the game's choice).

    ``none``: the integer that stands for None (the field may be None); ``as_bool``: the field is a bool.
    """

    name: str
    none: int | None = None
    as_bool: bool = False

    def dump(self, value: int) -> Any:
        if self.none is not None and value == self.none:
            return None
        return bool(value) if self.as_bool else int(value)

    def load(self, value: Any) -> int:
        if value is None:
            if self.none is None:
                raise ValueError(f"row field {self.name!r} cannot hold None")
            return self.none
        return int(value)


@dataclass(frozen=True)
class Array:
    """A fixed-shape array per game (its first axis the game). ``shape`` is the rest, each entry
    an int or a size name (:data:`PLAYERS`, :data:`CARDS` or one the kernels give).

    ``as_bool``: the rules keep the entries as bools. ``present``: a ``row`` field that is 0 when
    the rules' field is None (the array is then zeros). ``fill``: the value of unused entries.
    """

    name: str
    dtype: Any
    shape: tuple
    as_bool: bool = False
    present: str | None = None
    fill: int = 0


@dataclass(frozen=True)
class Pile:
    """A list of cards of varying length: a ``(CARDS,)`` array per game whose first ``length``
    entries (a ``row`` field) are the list, in the rules' order."""

    name: str
    dtype: Any
    length: str
    size: str = CARDS


@dataclass(frozen=True)
class SeatColumn:
    """A per-seat scalar: one column (named, in the order the game declares them with
    ``seat_fields``) of a per-seat table ``(players, k)``."""

    array: str
    name: str
    as_bool: bool = False
    none: int | None = None


@dataclass(frozen=True)
class Derived:
    """The kernels keep this field in another form (or compute it): the game's kernels convert
    it in their own ``dump``/``load``. ``arrays``: the kernels' arrays that hold it."""

    arrays: tuple = ()


@dataclass(frozen=True)
class Field:
    """One field of a game's state: its name (the rules state's attribute), how it copies (one of
    :data:`KINDS`), what it means, and where the kernels keep it (None: only the rules have it)."""

    name: str
    kind: str = VALUE
    doc: str = ""
    kernel: Row | Array | Pile | SeatColumn | Derived | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name!r}: unknown copy kind {self.kind!r}; kinds: {', '.join(KINDS)}")


@dataclass(frozen=True)
class KernelArray:
    """An array the kernels keep beside the state's fields: a form of the state the kernels work
    in (a hand as stacks by rank, a stock as a ring) that their ``load`` writes, declared in the
    schema's ``kernel_arrays``; or scratch space, passed to :meth:`StateSchema.allocate` (not part of
    a game's state, not among the arrays the drivers take as the state)."""

    name: str
    dtype: Any
    shape: tuple
    fill: int = 0


class StateSchema:
    """A game's state declared once (see the module docstring)."""

    def __init__(self, type_name: str, *fields: Field, row_dtype: Any = np.int32,
                 kernel_rows: tuple = (), seat_fields: dict[str, tuple] | None = None,
                 kernel_arrays: tuple = (), doc: str = ""):
        """``row_dtype``: the ``row`` array's dtype. ``kernel_rows``: the row fields the kernels keep
        beyond the state's (besides the lengths and presence flags the fields name).
        ``seat_fields``: each per-seat table's column names, in order (``{"seat": ("total", ...)}``)
        and, optionally, its dtype as ``{"seat": (("total", ...), np.int32)}``.
        ``kernel_arrays``: :class:`KernelArray` s the kernels keep beside the state's."""
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"{type_name}: a field is declared twice: {names}")
        self.type_name = type_name
        self.fields = fields
        self.names = tuple(names)
        self.doc = doc
        self.by_name = {f.name: f for f in fields}
        # the row: each Row field, then the lengths and presence flags, then the kernels' own
        row: list[str] = []
        for f in fields:
            k = f.kernel
            if isinstance(k, Row):
                row.append(k.name)
        for f in fields:
            k = f.kernel
            if isinstance(k, Pile) and k.length not in row:
                row.append(k.length)
            if isinstance(k, Array) and k.present is not None and k.present not in row:
                row.append(k.present)
        for name in kernel_rows:
            if name in row:
                raise ValueError(f"{type_name}: row field {name!r} is declared twice")
            row.append(name)
        self.row_fields = tuple(row)
        self._row = {name: i for i, name in enumerate(row)}
        self.row_dtype = row_dtype
        # per-seat tables
        self.seat_tables: dict[str, tuple[tuple, Any]] = {}
        for table, spec in (seat_fields or {}).items():
            cols, dtype = (spec, np.int32) if spec and isinstance(spec[0], str) else spec
            self.seat_tables[table] = (tuple(cols), dtype)
        # the arrays, in the order the kernels take them: the fields' own, the seat tables where
        # first named, the kernels' caches, then row; rng and scratch apart
        arrays: list[tuple[str, Any, tuple, int]] = []
        seen: set[str] = set()

        def add(name, dtype, shape, fill=0):
            if name not in seen:
                seen.add(name)
                arrays.append((name, dtype, tuple(shape), fill))

        for f in fields:
            k = f.kernel
            if isinstance(k, Array):
                add(k.name, k.dtype, k.shape, k.fill)
            elif isinstance(k, Pile):
                add(k.name, k.dtype, (k.size,))
            elif isinstance(k, SeatColumn):
                if k.array not in self.seat_tables:
                    raise ValueError(f"{type_name}: field {f.name!r} names seat table {k.array!r}, "
                                     f"which seat_fields does not declare")
                cols, dtype = self.seat_tables[k.array]
                if k.name not in cols:
                    raise ValueError(f"{type_name}: field {f.name!r}: {k.name!r} is not a column of "
                                     f"{k.array!r} ({', '.join(cols)})")
                add(k.array, dtype, (PLAYERS, len(cols)))
        for table, (cols, dtype) in self.seat_tables.items():
            add(table, dtype, (PLAYERS, len(cols)))
        for ka in kernel_arrays:
            add(ka.name, ka.dtype, ka.shape, ka.fill)
        add("row", row_dtype, (len(row),))
        self.state_arrays = tuple(arrays)
        self.array_names = tuple(a[0] for a in arrays)
        self.base = self._make_base()

    # ------------------------------------------------------------------------- the rules side
    def _make_base(self) -> type:
        """A class with the fields as ``__slots__`` and a generated ``copy()``."""
        lines = ["def copy(self):",
                 '    """An independent copy: every mutable field new (see the schema\'s copy kinds),',
                 '    the immutable ones shared, a generator of its own in the same state."""',
                 "    t = _new(self.__class__)"]
        lines += ["    " + KINDS[f.kind].format(f.name) for f in self.fields]
        lines.append("    return t")
        scope = {"_new": object.__new__, "_deque": deque, "_copy_generator": copy_generator}
        exec("\n".join(lines), scope)  # noqa: S102  (a fixed template over declared names, as dataclasses does)
        copy = scope["copy"]
        schema = self

        def __repr__(s) -> str:  # noqa: N807
            shown = ", ".join(f"{n}={getattr(s, n, '<unset>')!r}" for n in schema.names if n != "rng")
            return f"{schema.type_name}({shown})"

        base = type(f"{self.type_name}Fields", (), {
            "__slots__": self.names, "copy": copy, "__repr__": __repr__, "SCHEMA": self,
            "__doc__": f"The fields of {self.type_name} (``card_envs.schema``)."})
        copy.__qualname__ = f"{base.__name__}.copy"
        return base

    def table(self) -> str:
        """The fields as a Markdown table (the environment docs' state page)."""
        out = ["| field | copies as | kernels keep it | meaning |", "|---|---|---|---|"]
        for f in self.fields:
            out.append(f"| `{f.name}` | {f.kind} | {_where(f.kernel)} | {f.doc} |")
        return "\n".join(out)

    # ----------------------------------------------------------------------- the kernels side
    def row(self, name: str) -> int:
        """The index of a per-game scalar in ``row``."""
        try:
            return self._row[name]
        except KeyError:
            raise KeyError(f"{self.type_name} has no row field {name!r}; row fields: "
                           f"{', '.join(self.row_fields)}") from None

    def column(self, table: str, name: str) -> int:
        """The index of a per-seat scalar in a seat table."""
        return self.seat_tables[table][0].index(name)

    def shape(self, shape: tuple, sizes: dict[str, int]) -> tuple:
        return tuple(sizes[s] if isinstance(s, str) else int(s) for s in shape)

    def allocate(self, num_envs: int, sizes: dict[str, int], *scratch: KernelArray) -> dict[str, np.ndarray]:
        """Zeroed (or filled) arrays for ``num_envs`` games; ``sizes`` names the table's sizes
        (:data:`PLAYERS`, :data:`CARDS`, and any the shapes use); ``scratch``: the kernels' work
        space (not part of a game's state)."""
        out = {}
        extra = tuple((k.name, k.dtype, tuple(k.shape), k.fill) for k in scratch)
        for name, dtype, shape, fill in self.state_arrays + extra:
            out[name] = np.full((num_envs,) + self.shape(shape, sizes), fill, dtype=dtype)
        out["rng"] = np.zeros(num_envs, dtype=np.uint64)
        return out

    def arrays_of(self, arrays: dict) -> tuple:
        """The state arrays in the order the kernels take them (rng and scratch apart)."""
        return tuple(arrays[name] for name in self.array_names)

    def dump(self, arrays: dict, g: int, state: Any) -> None:
        """Set every field the kernels keep as such from game ``g``'s arrays (:class:`Derived`
        fields are the game's to set; a generator field gets a numpy Generator seeded from the
        row's)."""
        row = arrays["row"][g]
        for f in self.fields:
            k = f.kernel
            if isinstance(k, Row):
                value = k.dump(int(row[self._row[k.name]]))
            elif isinstance(k, Array):
                if k.present is not None and not row[self._row[k.present]]:
                    value = None
                else:
                    value = arrays[k.name][g].tolist()
                    if k.as_bool:
                        value = _as_bool(value)
            elif isinstance(k, Pile):
                value = arrays[k.name][g, : row[self._row[k.length]]].tolist()
            elif isinstance(k, SeatColumn):
                col = arrays[k.array][g, :, self.column(k.array, k.name)].tolist()
                if k.as_bool:
                    value = [bool(v) for v in col]
                elif k.none is not None:
                    value = [None if v == k.none else v for v in col]
                else:
                    value = col
            elif f.kind == GENERATOR and k is None:
                value = np.random.default_rng(int(arrays["rng"][g]))
            else:
                continue
            setattr(state, f.name, value)

    def load(self, arrays: dict, g: int, state: Any) -> None:
        """Write every field the kernels keep as such into game ``g``'s arrays (the row's
        generator goes on; :class:`Derived` fields are the game's to write)."""
        row = arrays["row"][g]
        for f in self.fields:
            k = f.kernel
            value = getattr(state, f.name)
            if isinstance(k, Row):
                row[self._row[k.name]] = k.load(value)
            elif isinstance(k, Array):
                a = arrays[k.name]
                if k.present is not None:
                    row[self._row[k.present]] = int(value is not None)
                if value is None:
                    a[g] = k.fill
                else:
                    a[g] = value
            elif isinstance(k, Pile):
                n = len(value)
                a = arrays[k.name]
                a[g, :n] = list(value)
                a[g, n:] = 0
                row[self._row[k.length]] = n
            elif isinstance(k, SeatColumn):
                i = self.column(k.array, k.name)
                if k.none is not None:
                    value = [k.none if v is None else v for v in value]
                arrays[k.array][g, :, i] = value

    def derived(self) -> tuple[Field, ...]:
        """The fields the game's kernels convert themselves."""
        return tuple(f for f in self.fields if isinstance(f.kernel, Derived))


def _as_bool(value):
    if isinstance(value, list):
        return [_as_bool(v) for v in value]
    return bool(value)


def _where(k) -> str:
    if k is None:
        return "—"
    if isinstance(k, Row):
        return f"`row[{k.name}]`"
    if isinstance(k, Array):
        return f"`{k.name}`"
    if isinstance(k, Pile):
        return f"`{k.name}[:{k.length}]`"
    if isinstance(k, SeatColumn):
        return f"`{k.array}[:, {k.name}]`"
    if isinstance(k, Derived):
        return "from " + ", ".join(f"`{a}`" for a in k.arrays) if k.arrays else "computed"
    return str(k)


# ------------------------------------------------------------------------- configuration
class ConfigArray:
    """The batched engine's configuration as one int64 array: each entry's name and how it is
    computed from the rules, its index following from its place (:meth:`index`)."""

    def __init__(self, *entries: tuple[str, Callable[[Any], int]]):
        self.entries = tuple(entries)
        self._index = {name: i for i, (name, _) in enumerate(self.entries)}
        if len(self._index) != len(self.entries):
            raise ValueError(f"a configuration entry is declared twice: {[name for name, _ in self.entries]}")

    def index(self, name: str) -> int:
        return self._index[name]

    def array(self, rules: Any) -> np.ndarray:
        """The configuration of these rules."""
        return np.array([int(compute(rules)) for _, compute in self.entries], dtype=np.int64)
