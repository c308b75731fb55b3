"""The id password check (``hippograph.memory.ids.check_id``), measured on both sides.

Not part of the package: the record of one measurement (bench/passwords/README.md), to run again.

- positives: the 10,000 most common passwords of zxcvbn's frequency list, each as an exact id, less
  those that are themselves the names of packages on PyPI or npm (``listed.txt``);
- negatives: 20,000 package names drawn at random from the registries' lists (``negatives.txt``),
  the 10,000 most downloaded of them (``popular.txt``: 5,000 of each registry), and user names
  made from zxcvbn's lists of first names and surnames in the shapes people give accounts
  (``alice``, ``bob-2``, ``maria.garcia``, ``jsmith``, ``admin1`` …).

Each id of the id form goes through ``check_caller_id`` as a project id (and the user names as user ids
too); a name that is not of that form ("@types/node") is counted apart, since another rule refuses it.

    python bench/passwords/measure.py sample PYPI_TSV NPM_TSV   # draws the three lists (done once)
    python bench/passwords/measure.py run                       # writes result.json
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zxcvbn.frequency_lists import FREQUENCY_LISTS

from hippograph.memory.tiers import CALLER_ID, ScopeError, check_caller_id
from hippograph.memory import ids

HERE = Path(__file__).resolve().parent
SEED = 44
NEGATIVES = 20_000
POPULAR = 5_000  # of each registry
USERS = 2_000
ISSUE_USERS = ["admin1", "alice", "bob-2"]


def registry(path: str) -> list[tuple[str, float]]:
    """(name, popularity) of each row of a registry list: PyPI's rank among its most downloaded (lower is
    more), npm's downloads a month (higher is more); unknown is 0 for npm and infinity for PyPI."""
    rows = []
    with open(path, encoding="utf-8") as lines:
        header = next(lines).rstrip("\n").split("\t")
        npm = header[2] == "downloads_a_month"
        for line in lines:
            cells = line.rstrip("\n").split("\t")
            value = cells[3] if not npm else cells[2]
            number = float(value) if value.strip() else (0.0 if npm else float("inf"))
            rows.append((cells[0], -number if npm else number))
    return rows


def sample(pypi_path: str, npm_path: str) -> None:
    pypi, npm = registry(pypi_path), registry(npm_path)
    names = sorted({name for name, _ in pypi} | {name for name, _ in npm})
    known = {name.lower() for name in names}
    listed = [word for word in FREQUENCY_LISTS["passwords"][:ids.COMMON_PASSWORDS] if word in known]
    negatives = random.Random(SEED).sample(names, NEGATIVES)
    popular = [name for name, _ in sorted(pypi, key=lambda row: row[1])[:POPULAR]]
    popular += [name for name, _ in sorted(npm, key=lambda row: row[1])[:POPULAR]]
    for file, rows in (("listed.txt", listed), ("negatives.txt", negatives), ("popular.txt", popular)):
        (HERE / file).write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(names)} package names; {len(listed)} of the {ids.COMMON_PASSWORDS} passwords among them")


def user_names() -> list[str]:
    """Account names in the shapes people give them, from zxcvbn's own name lists (so the check is not
    measured on words picked to pass it)."""
    rng = random.Random(SEED)
    first = FREQUENCY_LISTS["female_names"][:1000] + FREQUENCY_LISTS["male_names"][:1000]
    last = FREQUENCY_LISTS["surnames"][:2000]
    shapes = [
        lambda f, s, n: f, lambda f, s, n: f"{f}.{s}", lambda f, s, n: f"{f}_{s}", lambda f, s, n: f"{f[0]}{s}",
        lambda f, s, n: f"{f}-{n}", lambda f, s, n: f"{f}{n}", lambda f, s, n: f"{f}.{s}{n}",
    ]
    names = {rng.choice(shapes)(rng.choice(first), rng.choice(last), rng.randint(1, 99)) for _ in range(USERS * 2)}
    return ISSUE_USERS + sorted(names - set(ISSUE_USERS))[:USERS]


def refusals(ids: Iterable[str], kind: str, listing: str = "refused") -> dict[str, Any]:
    """How many of ``ids`` the check refuses as looking like a secret when given as a ``kind`` id, with
    the ids ``listing`` names (the ``refused`` ones, or those it ``passed``)."""
    listed: dict[str, list[str]] = {"refused": [], "passed": []}
    malformed = 0
    timings: list[float] = []
    for value in ids:
        if not CALLER_ID.match(value):
            malformed += 1
            continue
        start = time.perf_counter()
        try:
            check_caller_id(kind, value)
            listed["passed"].append(value)
        except ScopeError:
            listed["refused"].append(value)
        timings.append(time.perf_counter() - start)
    refused, judged = len(listed["refused"]), len(listed["refused"]) + len(listed["passed"])
    return {
        "ids": len(timings) + malformed, "not_of_the_id_form": malformed, "judged": judged, "refused": refused,
        "refused_share": round(refused / judged, 5),
        "check_ms_mean": round(1000 * statistics.fmean(timings), 3), "check_ms_max": round(1000 * max(timings), 3),
        f"{listing}_ids": listed[listing],
    }


def run() -> None:
    listed = set(read("listed.txt"))
    positives = [word for word in FREQUENCY_LISTS["passwords"][:ids.COMMON_PASSWORDS] if word not in listed]
    users = user_names()
    result = {
        "positives": refusals(positives, "project", listing="passed"),
        "negatives_random": refusals(read("negatives.txt"), "project"),
        "negatives_popular": refusals(read("popular.txt"), "project"),
        "user_names_as_user_ids": refusals(users, "user"),
        "user_names_as_project_ids": refusals(users, "project"),
    }
    (HERE / "result.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, figures in result.items():
        print(f"{name}: {figures['refused']} of {figures['judged']} refused ({figures['refused_share']:.2%}),"
              f" {figures['not_of_the_id_form']} not of the id form; check {figures['check_ms_mean']} ms mean,"
              f" {figures['check_ms_max']} ms max")


def read(file: str) -> list[str]:
    return [line for line in (HERE / file).read_text(encoding="utf-8").splitlines() if line]


if __name__ == "__main__":
    if sys.argv[1:2] == ["sample"] and len(sys.argv) == 4:
        sample(sys.argv[2], sys.argv[3])
    elif sys.argv[1:] == ["run"]:
        run()
    else:
        sys.exit(__doc__)
