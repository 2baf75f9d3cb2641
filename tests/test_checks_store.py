"""The checks store (reading_maths/checks/store.py) on SQLite and on PostgreSQL: the same rows, the same export, a
record kept before a column was added, pending checks of stopped services, and the admission of a student's
attempts atomic across processes sharing one store."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import socket
import sqlite3
import subprocess
from datetime import timedelta

import pytest

from conftest import BACKENDS, database_url
from reading_maths.checks.desk import Asked, Refused, reserve_attempt
from reading_maths.checks.rules import Rules
from reading_maths.checks.store import CHECKS, COLUMNS, MAX_LINES, Store, export, location, missing, now, stamp


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path) -> str:
    return database_url(request, request.param, tmp_path / "checks.sqlite")


def test_a_check_is_kept_and_exported_alike_on_each_database(store_url):
    store = Store(store_url)
    asked = now()
    first = store.add(user="ada", assignment="code", notebook="code.ipynb", sha256="a" * 64, asked_at=stamp(asked),
                      questions=["softmax"], outcome="pending", size=10)
    store.add(user="bob", assignment="code", notebook="x.ipynb", sha256="", asked_at=stamp(asked), outcome="refused",
              refusal="no", next_allowed=stamp(asked + timedelta(hours=1)))
    store.finish(first, "graded", {"score": 1.5, "max_score": 2.0, "errors": ["e"] * (MAX_LINES + 5)},
                 {"score": 1.5, "questions": []})
    row = store.get(first)
    assert (row["outcome"], row["score"], row["max_score"], row["questions"]) == ("graded", 1.5, 2.0, ["softmax"])
    assert len(row["result"]["errors"]) == MAX_LINES and set(row) == set(COLUMNS)
    assert [r["user"] for r in store.listing()] == ["bob", "ada"] and [r["id"] for r in store.listing("ada")] == [first]
    assert store.counted("ada", "code", asked - timedelta(minutes=1)) == [(asked.replace(microsecond=0), ["softmax"])]
    assert store.counted("bob", "code", asked - timedelta(minutes=1)) == []  # a refused request uses no attempt
    store.close()
    lines = [json.loads(line) for line in export(store_url, "jsonl").splitlines()]
    assert [r["user"] for r in lines] == ["ada", "bob"] and lines[0]["result"]["score"] == 1.5
    assert export(store_url).splitlines()[0] == ",".join(COLUMNS)


def test_a_record_kept_before_sizes_and_services_gains_them(tmp_path):
    path = tmp_path / "checks.sqlite"
    kept = ", ".join(f"{c.name} TEXT" for c in CHECKS.columns if c.name not in ("id", "size", "service"))
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TABLE checks (id INTEGER PRIMARY KEY, {kept})")
        db.execute("INSERT INTO checks (user, notebook, sha256, asked_at, questions, outcome) "
                   "VALUES ('ada', 'n', '', '2026-01-01T00:00:00+00:00', '[]', 'graded')")
    store = Store(path)
    assert store.get(1)["user"] == "ada" and store.get(store.add(
        user="bob", notebook="n", sha256="", asked_at=stamp(now()), outcome="refused", size=3))["size"] == 3
    store.close()


def test_the_store_is_a_file_or_a_url_and_a_reader_makes_no_file(tmp_path, monkeypatch):
    monkeypatch.delenv("READING_MATHS_CHECKS_DB", raising=False)
    assert location(tmp_path) == tmp_path / "checks.sqlite" and missing(tmp_path / "checks.sqlite")
    monkeypatch.setenv("READING_MATHS_CHECKS_DB", "postgresql+psycopg://teacher@db.example/checks")
    assert location(tmp_path) == "postgresql+psycopg://teacher@db.example/checks" and not missing(location(tmp_path))
    store = Store(tmp_path / "new.sqlite")
    assert (tmp_path / "new.sqlite").stat().st_mode & 0o777 == 0o600  # the instructor's alone from the start
    store.close()


@pytest.mark.slow  # starts a process to have the pid of one that is gone
def test_a_service_starting_fails_only_the_checks_of_services_that_are_gone(tmp_path):
    host = socket.gethostname()
    gone = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True, check=True).stdout.strip()
    store = Store(tmp_path / "checks.sqlite")
    recent, old = stamp(now()), stamp(now() - timedelta(hours=2))
    services = {"alive here": (f"{host}:1", recent), "gone here": (f"{host}:{gone}", recent),
                "this very process": (store.service, recent), "elsewhere": ("pod-b:7", recent),
                "elsewhere, long ago": ("pod-b:7", old), "unnamed": (None, recent)}
    ids = {}
    for name, (service, asked_at) in services.items():
        ids[name] = store.add(user=name, notebook="n", sha256="", asked_at=asked_at, outcome="pending")
        with store.engine.begin() as db:
            db.execute(CHECKS.update().where(CHECKS.c.id == ids[name]).values(service=service))
    store.abandon_pending()
    assert {name: store.get(i)["outcome"] for name, i in ids.items()} == {
        "alive here": "pending", "gone here": "failed", "this very process": "failed", "elsewhere": "pending",
        "elsewhere, long ago": "failed", "unnamed": "failed"}
    store.close()


QUESTIONS = [f"q{i}" for i in range(120)]


def _ask_each_question(url: str, start, rules: Rules) -> None:
    """In a process of its own: ada asks about each of :data:`QUESTIONS` once, in order, once ``start`` is passed."""
    store = Store(url)
    start.wait(120)  # the other process dead before it: broken, not a hang
    for question in QUESTIONS:
        with contextlib.suppress(Refused):
            reserve_attempt(store, Asked("ada", "code.ipynb", b"{}", "code", [question]), rules)
    store.close()


@pytest.mark.slow  # two processes
def test_two_processes_sharing_a_store_never_both_take_the_last_attempt(store_url):
    """One attempt per question: two processes asking about the same questions in step, each question's attempt is
    taken by exactly one of them (counting and adding without the student's lock lets both take it)."""
    rules = Rules(attempts=1, window=timedelta(days=1), per="question")
    context = multiprocessing.get_context("fork")
    start = context.Barrier(2)
    racers = [context.Process(target=_ask_each_question, args=(store_url, start, rules), daemon=True)
              for _ in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(300)
    assert [racer.exitcode for racer in racers] == [0, 0]
    store = Store(store_url)
    rows = store.listing("ada")
    store.close()
    taken = sorted(q for r in rows if r["outcome"] == "pending" for q in r["questions"])
    assert taken == sorted(QUESTIONS) and len(rows) == 2 * len(QUESTIONS)
    assert all("you have used your checks" in r["refusal"] for r in rows if r["outcome"] == "refused")
