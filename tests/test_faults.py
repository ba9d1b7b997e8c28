"""Random faults, two devices: nothing anyone writes is ever lost.

Each round does a few random things on one of two devices that share a bare remote: an
agent remembers, a person appends to a note or edits a fact (sometimes in CRLF), vaultmem
consolidates, indexes or syncs, and a ``remember`` or ``consolidate`` process is killed
with SIGKILL at a random moment. After every round:

* every line anyone was told was stored (each carries a unique token) is in a note, the
  archive or a conflict copy of one of the devices (nobody here deletes a line, so git
  history alone does not count);
* each device's index, once caught up, equals an index rebuilt from its files;
* no temp file is left outside ``.vaultmem/tmp/``, and none is ever committed.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import snapshot, soak, two_devices

from vaultmem import Vault
from vaultmem.notes.state import TEMP_PREFIX

ROUNDS = soak(36, 12)


class World:
    """Two devices, the tokens written so far, and a clock that jumps every 3 rounds."""

    def __init__(self, tmp_path: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tmp = tmp_path
        self.devices = list(two_devices(tmp_path))
        self.stored: set[str] = set()  # tokens whose writer was told they were stored
        self.count = 0
        self.day = dt.date(2026, 3, 1)

    def token(self) -> str:
        self.count += 1
        return f"tok{self.count:04d}x"

    # -- actions ----------------------------------------------------------------------

    def remember(self, device: Vault) -> None:
        token = self.token()
        words = self.rng.choice(
            [
                "Remember that Alice is allergic to peanuts",
                "I prefer green tea in the morning",
                "The deploy of project Atlas failed with error 502",
                "我们决定下周一开会讨论预算",
                "ok",
            ]
        )
        when = dt.datetime.combine(self.day, dt.time(9, self.count % 60))
        done = device.remember(f"{words} {token}", importance=self.rng.random(), now=when)
        assert done.skipped is None
        self.stored.add(token)

    def person_appends(self, device: Vault) -> None:
        token = self.token()
        folder = self.rng.choice(["memory", "memory", "facts", "topics"])
        notes = sorted((device.root / folder).glob("*.md")) or [device.root / "memory/x.md"]
        note = self.rng.choice(notes + [device.root / f"{folder}/{self.day}.md"])
        crlf = self.rng.random() < 0.2 and not note.exists()
        with note.open("ab") as handle:
            line = f"- typed by a person {token}" + ("\r\n" if crlf else "\n")
            handle.write(line.encode())
        self.stored.add(token)

    def person_edits_a_fact(self, device: Vault) -> None:
        facts = [p for p in (device.root / "facts").rglob("*.md") if p.is_file()]
        if not facts:
            return
        note = self.rng.choice(facts)
        lines = note.read_text(encoding="utf-8").split("\n")
        items = [i for i, line in enumerate(lines) if line.startswith("- ")]
        if not items:
            return
        token = self.token()
        i = self.rng.choice(items)
        lines[i] = lines[i].replace("- ", f"- {token} ", 1)  # a person adds words
        if self.rng.random() < 0.3:  # keep it: a tag before the block id
            words, caret, ident = lines[i].rpartition(" ^")
            lines[i] = f"{words} #pinned{caret}{ident}" if caret else lines[i] + " #pinned"
        note.write_text("\n".join(lines), encoding="utf-8")
        self.stored.add(token)

    def consolidate(self, device: Vault) -> None:
        device.consolidate(self.rng.choice(["quick", "daily", "daily", "full"]), today=self.day)

    def killed(self, device: Vault) -> None:
        """A vaultmem process killed at a random moment (its words may or may not be stored)."""
        if self.rng.random() < 0.5:
            args = ["consolidate", "--today", self.day.isoformat()]
        else:
            args = ["remember", f"maybe stored {self.token()}"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", *args, "--vault", str(device.root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(self.rng.uniform(0.1, 0.9))  # the fault's moment, not a wait for a result
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def sync(self, device: Vault) -> None:
        device.sync()

    def remember_while_syncing(self, device: Vault) -> None:
        """Another agent remembers while this device syncs: it waits for the merge's lock."""
        token = self.token()
        agent = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "remember", f"during a sync {token}"],
            env={**os.environ, "VAULTMEM_VAULT": str(device.root)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        device.sync()
        if agent.wait(timeout=120) == 0:  # told it was stored: it must be
            self.stored.add(token)

    # -- checks -----------------------------------------------------------------------

    def check(self, round_: int) -> None:
        present = ""
        for device in self.devices:
            for path in device.root.rglob("*"):
                rel = path.relative_to(device.root).as_posix()
                if path.name.startswith(TEMP_PREFIX):
                    assert rel.startswith(".vaultmem/tmp/"), f"round {round_}: {rel} left"
                if path.is_file() and not rel.startswith((".git/", ".vaultmem/")):
                    present += path.read_text(encoding="utf-8", errors="replace")
            tracked = device.history.run("ls-files")
            assert TEMP_PREFIX not in tracked, f"round {round_}: a temp file was committed"
        # Nobody here deletes a line, so no token may survive in git history alone.
        lost = sorted(token for token in self.stored if token not in present)
        assert lost == [], f"round {round_}: lost {lost}"
        for device in self.devices:
            device.index()  # catch up, as the daemon or the next command does
            rebuilt = self.tmp / f"rebuilt-{device.root.name}-{round_}.db"
            with Vault(device.root, index_path=rebuilt) as fresh:
                fresh.reindex()
            assert snapshot(device.index_path) == snapshot(rebuilt), f"round {round_}"


@pytest.mark.soak
@pytest.mark.parametrize("seed", [1, 2])
def test_random_faults_on_two_devices_lose_nothing(tmp_path: Path, seed: int) -> None:
    world = World(tmp_path, seed)
    actions = [
        (world.remember, 5),
        (world.person_appends, 3),
        (world.person_edits_a_fact, 2),
        (world.consolidate, 4),
        (world.killed, 2),
        (world.sync, 2),
        (world.remember_while_syncing, 1),
    ]
    for round_ in range(ROUNDS):
        if round_ % 3 == 2:  # time passes, sometimes months: facts decay into the archive
            world.day += dt.timedelta(days=world.rng.choice([1, 2, 7, 60, 200]))
        for _ in range(world.rng.randint(1, 3)):
            action = world.rng.choices([a for a, _ in actions], [w for _, w in actions])[0]
            action(world.rng.choice(world.devices))
        world.check(round_)
    for device in [*world.devices, world.devices[0]]:
        device.sync()
    world.check(ROUNDS)
