"""What grading reads an answer against that depends only on the initial world, derived once per world.

Every answer or file check of every grade reads the world's record names, its own identifiers, the nouns of
its tables, its phrases, and what each record refers to (grading.reading; the record names again to tell a
table copied out, grading._lists_table). Deriving them scans every table several times; a trainer grading
thousands of rollouts of one task would repeat those scans per check per rollout. A `WorldIndex` holds them,
built in one pass over the rows (and core/record_names.py's own), and `index_of` shares it between equal worlds.

The cache is keyed by the tables' content, never by object identity: rollouts deserialize the same world into
new objects, and an object's id is reused once it is freed. The key is a BLAKE2b digest of the pickled tables:
the pickle determines the tables (it unpickles to them), so equal keys mean equal worlds and so equal indexes;
hashing costs a fraction of the scans it saves (over the store's 152 seed worlds: 0.12 ms mean, 0.27 ms at most,
against 1.9 ms mean, 10 ms at most, to build; `envcraft bench --grading`). Pickle keeps
dict order, so two worlds holding the same rows in another order get separate entries, as they should: name
lookups let the later row win. The index copies what it keeps into new read-only containers and holds no row
of the snapshot it came from, so neither a later change to that snapshot nor a caller can alter a verdict
another episode gets from it. functools.lru_cache is thread-safe; two threads missing one world may both
build it, and either index is the same.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from envcraft.core.record_names import leading_words, record_names, short_names, table_nouns, words
from envcraft.core.state import HISTORY_TABLE

Tables = dict[str, list[dict[str, Any]]]

# Indexes kept at once. A grading process (core/bounded_grade.py) lives for 500 jobs, each under a memory limit,
# so the cache must not grow with every world it has seen. One index takes 0.14-0.54 MB (tracemalloc over the
# store's 152 seed worlds; each task's S0 is a world of its own), so 256 stay under 140 MB. A trainer grades a
# batch of prompts (256 is a large one), each many rollouts, in whatever order they finish: 256 worlds keep every
# prompt of such a batch. Past it a world cycles out and its next rollout pays one build: 1.8 ms CPU a reading,
# against 1.5 ms before the index and 0.11 ms found (150 sampled answer checks, measured side by side).
WORLDS = 256
PHRASE_COLUMN_VALUES = 40  # a column of at most this many values holds phrases ("web_editorial"), not names


@dataclass(frozen=True, slots=True)
class WorldIndex:
    """The world-level facts of one initial snapshot's tables (a frozen dataclass rather than a pydantic model:
    it never crosses a boundary, and validating its mappings would cost what it exists to save)."""

    names: Mapping[tuple[str, ...], frozenset[str]]  # claims.record_names: a name's words -> the records it names
    short: Mapping[str, frozenset[str]]  # claims.short_names: a first or last name -> its people
    leads: Mapping[str, frozenset[str]]  # claims.leading_words: "kinze" -> the Kinze 1100's records
    world_words: frozenset[str]  # the world's own identifiers: column names, values such as dept_review
    record_kinds: Mapping[str, frozenset[str]]  # a record's id -> its table's nouns ("finding", "findings")
    phrases: frozenset[tuple[str, ...]]  # the words of each value of two to four words in a column of few values
    tables: tuple[str, ...]  # the table names, in the world's order
    homes: Mapping[str, tuple[str, ...]]  # a record's id (casefolded) -> the tables holding a row with that id
    holds: Mapping[str, tuple[tuple[str, ...], ...]]  # a record's id (casefolded) -> each such row's text values
    # (casefolded when read: only the asked records' ever are)

    @property
    def heads(self) -> frozenset[str]:
        """The first words of the table names of several words ("alert" of alert_notifications)."""
        return frozenset(t.split("_")[0] for t in self.tables if "_" in t.strip("_"))

    def kinds(self, asked: str) -> frozenset[str]:
        """The nouns of the world's other tables (repair_visits: "visits", "visit"; alert_notifications: "alert"
        too, "the email alert"), not the asked table's."""
        others = [t for t in self.tables if t not in (HISTORY_TABLE, asked)]
        heads = {t.split("_")[0] for t in others if "_" in t and len(t.split("_")[0]) >= 4}
        nouns = frozenset().union(*(table_nouns(t) for t in others))
        own_head = {asked.split("_")[0]} - nouns  # "that loan" is the loan listing asked; "the study" is a study
        return (nouns | heads) - table_nouns(asked) - own_head

    def referred(self, about: set[str]) -> frozenset[str]:
        """The ids of the records the asked records refer to in other tables: a case's room, a notice's outage
        event (where a path ends and the asked value is held). The asked records' own tables are left out: a
        case's referring case is another case."""
        wanted = {a.casefold() for a in about}
        own = {table for a in wanted for table in self.homes.get(a, ())}
        refs = {v.casefold() for a in wanted for values in self.holds.get(a, ()) for v in values} - wanted
        return frozenset(r for r in refs if any(table not in own for table in self.homes.get(r, ())))

    @classmethod
    def of(cls, tables: Tables) -> WorldIndex:
        world_words: set[str] = set()
        record_kinds: dict[str, frozenset[str]] = {}
        phrases: set[tuple[str, ...]] = set()
        homes: dict[str, tuple[str, ...]] = {}
        holds: dict[str, tuple[tuple[str, ...], ...]] = {}
        for table, rows in tables.items():
            logged = table == HISTORY_TABLE  # the change log holds values, not records: no phrase, no kind
            nouns, keys, texts = table_nouns(table), set(), {}  # texts: column -> its distinct text values
            for row in rows:
                if not isinstance(row, dict):
                    continue
                keys.update(row)
                strings = [(key, value) for key, value in row.items() if isinstance(value, str)]
                for key, value in strings:
                    if "_" in value and len(value) < 64:
                        world_words.add(value.casefold())
                    if key != "id" and not logged:
                        texts.setdefault(key, set()).add(value)
                if "id" not in row:
                    continue
                ident = str(row["id"]).casefold()
                homes[ident] = (*homes.get(ident, ()), table)
                holds[ident] = (*holds.get(ident, ()), tuple(value for _, value in strings))
                if not logged:
                    record_kinds[ident] = nouns
            world_words.update(key.casefold() for key in keys if "_" in key)
            for values in texts.values():
                if len(values) <= PHRASE_COLUMN_VALUES:
                    phrases.update(w for w in map(words, values) if 2 <= len(w) <= 4)
        names = record_names(tables)
        return cls(names=MappingProxyType(names), short=MappingProxyType(short_names(names)),
                   leads=MappingProxyType(leading_words(names)), world_words=frozenset(world_words),
                   record_kinds=MappingProxyType(record_kinds), phrases=frozenset(phrases), tables=tuple(tables),
                   homes=MappingProxyType(homes), holds=MappingProxyType(holds))


class _World:
    """Tables under their content digest: equal by digest, so the cache below shares one index among equal
    worlds. The tables are let go once the index is looked up (index_of): a cache key keeps only its digest."""

    __slots__ = ("digest", "tables")

    def __init__(self, tables: Tables):
        self.tables: Tables | None = tables
        self.digest = hashlib.blake2b(pickle.dumps(tables, protocol=5), digest_size=32).digest()

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _World) and other.digest == self.digest


@lru_cache(maxsize=WORLDS)
def _indexed(world: _World) -> WorldIndex:
    assert world.tables is not None  # a key is emptied only after its own lookup
    return WorldIndex.of(world.tables)


def index_of(tables: Tables) -> WorldIndex:
    """The world index of these tables: built on the first sight of their content, then shared."""
    world = _World(tables)
    try:
        return _indexed(world)
    finally:
        world.tables = None  # the cache holds this key on a miss: never the episode's rows


def clear() -> None:
    """Forget every index (the bench's cold figure measures building one per check)."""
    _indexed.cache_clear()


def cache_info() -> Any:
    return _indexed.cache_info()


__all__ = ["WORLDS", "WorldIndex", "cache_info", "clear", "index_of"]
