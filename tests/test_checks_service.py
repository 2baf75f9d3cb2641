"""The checks service without a browser: its limits, what a student is shown, its record, and the real service
behind a real JupyterHub under the load of a class (hub/checks_trial.py: the dummy authenticator, each student
holding their own API token).

What a check shows is what ``reading-maths grade`` gives for the same notebook (the same engine, the same
sandbox), cut to the questions asked and to what the instructor lets students see; 30 students asking at once
each get their own result; a hostile notebook is contained as it is in a batch.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import multiprocessing
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import browser as b
import pytest
from hostile.attacks import ATTACKS

from conftest import BACKENDS, database_url
from hub.checks_trial import QUESTIONS, checks_hub, failing_cells, foreign, slow, variant
from reading_maths.checks import client, rules
from reading_maths.checks.desk import COOLDOWN, MAX_NOTEBOOK_BYTES, Desk, Refused
from reading_maths.checks.store import MAX_LINES, bounded, stamp
from reading_maths.grading.batch import grade_many
from reading_maths.grading.engine import Settings
from reading_maths.notebook import MAX_PARTS
from reading_maths.sandbox.process import Limits, choose
from test_hostile import submission

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
CLASS = [f"s{i:02d}" for i in range(30)]
SHOWN_KEYS = {"id", "user", "notebook", "assignment", "questions", "show", "score", "max_score", "errors"}
QUESTION_KEYS = {"id", "max_score", "status", "score", "feedback"}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("checks") / "course"
    b.copy_course(REPO, course)
    return course


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(choose(allow_unsafe=False, limits=Limits()), cell_timeout=30.0, call_timeout=30.0)


@pytest.fixture(scope="module", params=BACKENDS)
def desk(request, course, settings, tmp_path_factory):
    """A desk in this process, its record on SQLite, then on PostgreSQL."""
    desk = Desk(course, database_url(request, request.param, tmp_path_factory.mktemp("db") / "checks.sqlite"),
                settings, workers=2)
    yield desk
    desk.close()


def limits(course: Path, text: str) -> None:
    (course / rules.FILE).write_text(text)


def batch(course: Path, settings: Settings, notebooks: dict[str, bytes], folder: Path) -> dict[str, dict]:
    """What ``reading-maths grade`` gives each notebook (the engine's batch path), by name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in notebooks.items():
        (folder / f"{name}.ipynb").write_bytes(data)
        paths.append(folder / f"{name}.ipynb")
    results = grade_many(paths, settings, jobs=2, root=course, assignment="code", progress=False)
    return {p.stem: r.to_json() for p, r in zip(paths, results, strict=True)}


def same_verdict(shown: dict, graded: dict) -> None:
    """Per question, the points and feedback lines a check shows are the engine's (each line cut as the record
    cuts it: a hostile notebook's messages can be as long as it likes)."""
    by_id = {q["id"]: q for q in graded["questions"]}
    assert [q["id"] for q in shown["questions"]] == [q for q in QUESTIONS if q in by_id]
    for q in shown["questions"]:
        assert (q["score"], q["status"], q["feedback"]) == (by_id[q["id"]]["score"], by_id[q["id"]]["status"],
                                                           bounded(by_id[q["id"]]["feedback"])), q["id"]


def run(coro):
    import asyncio

    return asyncio.run(coro)


# -- the rules ------------------------------------------------------------------------------------------

def test_rules_have_defaults_and_per_assignment_tables():
    parsed = rules.parse('[defaults]\nattempts = 5\nshow = "scores"\n[assignments.code]\nwindow = "30m"\n'
                         'closes = "2030-01-01T12:00:00"\nper = "question"\n')
    assert parsed.of("notation") == rules.Rules(attempts=5, show="scores")
    assert parsed.of("code") == rules.Rules(attempts=5, show="scores", window=timedelta(minutes=30), per="question",
                                            closes=datetime(2030, 1, 1, 12, tzinfo=UTC))
    assert rules.load(Path("/nonexistent")).of("code") == rules.Rules()
    assert client.MAX_BYTES == MAX_NOTEBOOK_BYTES  # the kernel does not send what the service would refuse
    assert rules.Rules().budget is None  # a batch's: a multiple of the reference's own grading time
    assert rules.parse('[assignments.code]\nbudget = "45s"\n').of("code").budget == timedelta(seconds=45)
    for bad in ('[defaults]\nattempts = -1\n', '[defaults]\nwindow = "soon"\n', '[defaults]\nshow = "all"\n',
                '[defaults]\nretries = 2\n', '[everything]\n', '[defaults]\ncloses = "friday"\n',
                '[defaults]\nbudget = "10m"\n', '[defaults]\nbudget = "soon"\n'):
        with pytest.raises(rules.BadRules):
            rules.parse(bad)


# -- the desk, in this process -------------------------------------------------------------------------

def test_a_check_shows_the_engines_verdict_and_nothing_of_the_graders(desk, course, settings, tmp_path):
    limits(course, "[defaults]\nattempts = 10\n")
    notebooks = {f"v{n}": variant(n) for n in (0, 5, 26)}
    expected = batch(course, settings, notebooks, tmp_path)
    for name, data in notebooks.items():
        shown = run(desk.ask("ada", f"code/{name}.ipynb", data))
        same_verdict(shown, expected[name])
        assert shown["score"] == expected[name]["score"] and set(shown) <= SHOWN_KEYS
        assert all(set(q) <= QUESTION_KEYS for q in shown["questions"])
        text = json.dumps(shown)
        hidden = {c["name"] for q in expected[name]["questions"] for c in q["cases"] if c["hidden"]}
        assert hidden and not [case for case in hidden if case in text]
        row = desk.store.get(shown["id"])
        assert row["sha256"] == hashlib.sha256(data).hexdigest() and row["outcome"] == "graded"
    assert expected["v0"]["score"] == expected["v0"]["max_score"] > expected["v5"]["score"]


def test_past_the_limit_a_check_is_refused_until_the_oldest_attempt_leaves_the_window(desk, course):
    limits(course, '[assignments.code]\nattempts = 2\nwindow = "2h"\n')
    first = run(desk.ask("bea", "code/code.ipynb", variant(1)))
    run(desk.ask("bea", "code/code.ipynb", variant(2)))
    with pytest.raises(Refused) as refused:
        run(desk.ask("bea", "code/code.ipynb", variant(3)))
    asked = datetime.fromisoformat(desk.store.get(first["id"])["asked_at"])
    assert refused.value.next_allowed == asked + timedelta(hours=2) and refused.value.status == 429
    assert stamp(asked + timedelta(hours=2)) in refused.value.reason
    assert desk.store.get(refused.value.check_id)["outcome"] == "refused"
    run(desk.ask("cid", "code/code.ipynb", variant(3)))  # another student's attempts are their own


def test_attempts_per_question(desk, course):
    limits(course, '[assignments.code]\nattempts = 1\nper = "question"\n')
    shown = run(desk.ask("dan", "code/code.ipynb", variant(0), ["softmax"]))
    assert [q["id"] for q in shown["questions"]] == ["softmax"]
    with pytest.raises(Refused):
        run(desk.ask("dan", "code/code.ipynb", variant(0), ["attention", "softmax"]))
    assert [q["id"] for q in run(desk.ask("dan", "code/code.ipynb", variant(0), ["attention"]))["questions"]] == [
        "attention"]
    with pytest.raises(Refused) as unknown:
        run(desk.ask("dan", "code/code.ipynb", variant(0), ["softmax_typo"]))
    assert unknown.value.status == 400


def test_one_check_at_a_time_per_student(desk, course):
    import asyncio

    limits(course, "[defaults]\nattempts = 10\n")

    async def twice():
        return await asyncio.gather(desk.ask("gus", "code/code.ipynb", variant(0)),
                                    desk.ask("gus", "code/code.ipynb", variant(1)), return_exceptions=True)

    first, second = run(twice())
    assert first["score"] == first["max_score"]
    assert isinstance(second, Refused) and "still running" in second.reason
    assert run(desk.ask("gus", "code/code.ipynb", variant(1)))["score"] < first["score"]  # once it has answered


@pytest.mark.parametrize("show", ["scores", "messages"])
def test_the_instructor_chooses_scores_messages_or_both(desk, course, show):
    limits(course, f'[assignments.code]\nshow = "{show}"\n')
    shown = run(desk.ask(f"eve-{show}", "code/code.ipynb", variant(5)))
    assert ("score" in shown) == (show == "scores") and ("errors" in shown) == (show == "messages")
    assert all(("score" in q) == (show == "scores") and ("feedback" in q) == (show == "messages")
               for q in shown["questions"])


def test_no_check_after_the_closing_time_and_none_of_other_files(desk, course):
    limits(course, '[assignments.code]\ncloses = "2020-01-01T00:00:00+00:00"\n')
    with pytest.raises(Refused) as closed:
        run(desk.ask("fay", "code/code.ipynb", variant(0)))
    assert closed.value.status == 403 and "closed at 2020-01-01T00:00:00+00:00" in closed.value.reason
    for i, junk in enumerate((b"not json",
                              json.dumps({"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode())):
        with pytest.raises(Refused) as refused:
            run(desk.ask(f"fay{i}", "x.ipynb", junk))
        assert refused.value.status == 400
        with pytest.raises(Refused) as again:  # the same student again, at once: refused unread for a while
            run(desk.ask(f"fay{i}", "code/code.ipynb", variant(0)))
        assert again.value.status == 429 and "malformed or too large" in again.value.reason


def test_the_instructor_exports_every_request(desk, course):
    limits(course, "[assignments.code]\nattempts = 1\n")
    run(desk.ask("hal", "code/code.ipynb", variant(0)))
    with pytest.raises(Refused):
        run(desk.ask("hal", "code/code.ipynb", variant(1)))
    db = desk.store.url.render_as_string(hide_password=False)  # a file's URL, or PostgreSQL's with its password
    done = subprocess.run([sys.executable, "-m", "reading_maths.cli", "--course", str(course), "checks", "export",
                           "--db", db, "--format", "jsonl"], capture_output=True, text=True, timeout=120, check=True)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in rows] == sorted(r["id"] for r in desk.store.listing())
    assert "hal" in {r["user"] for r in rows} and {"graded", "refused"} <= {r["outcome"] for r in rows}
    assert all(len(r["sha256"]) == 64 and r["asked_at"] and r["size"] for r in rows)


def _desk_asks(course: Path, url: str, settings: Settings, start, times: int, answers) -> None:
    """In a process of its own: a desk recording in ``url`` that, once ``start`` is passed, checks ada's notebook
    ``times`` times, one after another; each outcome put in ``answers``."""
    desk = Desk(course, url, settings, workers=1)
    start.wait(120)  # the other process dead before it: broken, not a hang
    for _ in range(times):
        try:
            answers.put(("graded", run(desk.ask("ada", "code/code.ipynb", variant(0)))["score"]))
        except Refused as refused:
            answers.put(("refused", refused.reason))
    desk.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_services_sharing_a_store_grade_exactly_the_attempts_allowed(course, settings, backend, request,
                                                                         tmp_path):
    """Two desks in two processes, one store: a student asking both at once, three times each, is graded twice (the
    limit), and refused four times, whichever desk the requests reach."""
    limits(course, '[assignments.code]\nattempts = 2\nwindow = "1h"\n')
    url = database_url(request, backend, tmp_path / "checks.sqlite")
    context = multiprocessing.get_context("fork")
    start, answers = context.Barrier(2), context.Queue()
    desks = [context.Process(target=_desk_asks, args=(course, url, settings, start, 3, answers)) for _ in range(2)]
    for process in desks:
        process.start()
    for process in desks:
        process.join(600)
        if process.is_alive():  # stuck: stopped, and the test fails below
            process.kill()
    assert [process.exitcode for process in desks] == [0, 0]
    outcomes = [answers.get(timeout=10) for _ in range(6)]
    assert sorted(said for said, _ in outcomes) == ["graded"] * 2 + ["refused"] * 4, outcomes
    assert all("you have used your checks of code" in why for said, why in outcomes if said == "refused")


# -- the service behind JupyterHub ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def trial(course, tmp_path_factory):
    from hub.site import PROXY

    if not PROXY.exists():
        pytest.skip(f"JupyterHub's proxy is not installed at {PROXY}: run `make hub-proxy`")
    with checks_hub(course, CLASS, "teacher", tmp_path_factory.mktemp("hub")) as trial:
        yield trial


def test_thirty_students_at_once_each_get_their_own_result(trial, course, settings, tmp_path):
    limits(course, "[defaults]\nattempts = 100\n")
    notebooks = {name: variant(i) for i, name in enumerate(CLASS)}
    with ThreadPoolExecutor(len(CLASS)) as pool:
        answers = dict(zip(CLASS, pool.map(lambda name: trial.ask(name, notebooks[name]), CLASS), strict=True))
    expected = batch(course, settings, notebooks, tmp_path)
    for name, (status, shown) in answers.items():
        assert status == 200, (name, shown)
        assert shown["user"] == name
        same_verdict(shown, expected[name])
    assert len({json.dumps([q["score"] for q in s["questions"]]) for _, s in answers.values()}) == len(CLASS)

    for name in CLASS[:3]:  # each student lists their own checks only, and cannot open another's
        status, listing = trial.call(name, "GET", "api/checks")
        assert status == 200 and {c["user"] for c in listing["checks"]} == {name}
        assert listing["checks"][0]["id"] == answers[name][1]["id"]
        other = answers[CLASS[-1]][1]["id"]
        assert trial.call(name, "GET", f"checks/{other}")[0] == 404
        assert trial.call(name, "GET", f"checks/{answers[name][1]['id']}")[0] == 200
    status, everyone = trial.call("teacher", "GET", "api/checks")
    assert status == 200 and everyone["instructor"]
    assert {c["user"] for c in everyone["checks"]} >= set(CLASS)
    mine = {c["id"]: c for c in everyone["checks"]}
    for name, (_, shown) in answers.items():
        assert mine[shown["id"]]["sha256"] == hashlib.sha256(notebooks[name]).hexdigest()


def test_a_refusal_over_http_says_when_the_next_check_is_allowed(trial, course):
    limits(course, '[assignments.code]\nattempts = 1\nwindow = "1d"\n')
    trial.ask("s03", variant(0))  # once within the day (if the test above, on this worker, has not already)
    status, refused = trial.ask("s03", variant(0))
    assert status == 429 and datetime.fromisoformat(refused["next_allowed"]) > datetime.now(UTC) + timedelta(hours=23)
    assert refused["next_allowed"] in refused["refused"]
    trial.tokens["intruder"] = "not-a-token"
    assert trial.ask("intruder", variant(0))[0] == 403


def test_a_hostile_notebook_is_contained_as_in_a_batch(trial, course, settings, tmp_path):
    limits(course, "[defaults]\nattempts = 100\n")
    names = ["read_hidden_files", "kill_parent", "kill_everything", "env_secrets", "memory_bomb_list"]
    notebooks = {n: submission(tmp_path, n, ATTACKS[n], 9).read_bytes() for n in names}
    expected = batch(course, settings, notebooks, tmp_path / "batch")
    for name, data in notebooks.items():
        status, shown = trial.ask("s01", data)
        assert status == 200, (name, shown)
        same_verdict(shown, expected[name])
    status, honest = trial.ask("s02", variant(0))  # and the service goes on as before
    assert status == 200 and honest["score"] == honest["max_score"]


# -- the service under hostile load (docs/checks.md, "A fair queue") ------------------------------------

def record(course: Path) -> list[dict]:
    """The service's record, read as the instructor would with ``reading-maths checks export``."""
    with sqlite3.connect(course / "checks.sqlite") as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM checks ORDER BY id")]


def raw_request(trial, who: str, headers: dict[str, str], path: str = "big.ipynb") -> http.client.HTTPResponse:
    """A POST of a check whose headers are sent and whose body is not: what the service answers to headers alone."""
    url = urllib.parse.urlsplit(trial.service)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    conn.putrequest("POST", f"{url.path}api/checks?path={path}")
    for name, value in {"Authorization": f"token {trial.tokens[who]}", **headers}.items():
        conn.putheader(name, value)
    conn.endheaders()
    return conn.getresponse()


def test_an_upload_too_large_is_refused_before_it_is_read_and_recorded(trial, course):
    limits(course, "[defaults]\nattempts = 100\n")
    announced = raw_request(trial, "s20", {"Content-Length": str(64 << 20)})  # its 64 MiB never sent
    answer = json.loads(announced.read())
    assert announced.status == 413 and "larger than 16 MiB" in answer["refused"]
    row = next(r for r in record(course) if r["id"] == answer["id"])
    assert (row["user"], row["outcome"], row["size"], row["sha256"]) == ("s20", "refused", 64 << 20, "")
    status, cooling = trial.ask("s20", variant(0))  # and the next request, right away, is refused unread
    assert status == 429 and "refused as malformed or too large" in cooling["refused"] and cooling["next_allowed"]
    assert next(r for r in record(course) if r["id"] == cooling["id"])["outcome"] == "refused"

    url = urllib.parse.urlsplit(trial.service)  # no Content-Length: a chunked body refused as it grows past 16 MiB
    sock = socket.create_connection((url.hostname, url.port), timeout=120)
    sock.sendall(f"POST {url.path}api/checks?path=chunked.ipynb HTTP/1.1\r\nHost: x\r\n"
                 f"Authorization: token {trial.tokens['s19']}\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
    chunk, sent = b"x" * (1 << 20), 0
    try:
        for _ in range(64):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += 1
        reply = sock.recv(1 << 16)
    except OSError:
        reply = b""
    sock.close()
    assert sent < 64, "the service read all 64 MiB"
    assert not reply or reply.startswith(b"HTTP/1.1 413"), reply[:200]
    row = [r for r in record(course) if r["notebook"] == "chunked.ipynb"][-1]
    assert row["outcome"] == "refused" and MAX_NOTEBOOK_BYTES < row["size"] < MAX_NOTEBOOK_BYTES + (1 << 20)

    big, many = foreign(15), failing_cells(MAX_PARTS)  # within the size limit, refused once read (in a thread)
    for who, data, why in (("s18", big, "not a notebook of this course"),
                           ("s17", many, f"more than {MAX_PARTS} cells")):
        status, refused = trial.ask(who, data)
        assert status == 400 and why in refused["refused"], refused
        row = next(r for r in record(course) if r["id"] == refused["id"])
        assert (row["outcome"], row["size"], row["sha256"]) == ("refused", len(data), hashlib.sha256(data).hexdigest())
        assert len(json.dumps(row)) < 4096  # the notebook itself is not kept
    time.sleep(COOLDOWN)
    status, honest = trial.ask("s20", variant(0))
    assert status == 200 and honest["score"] == honest["max_score"]


def test_a_students_second_check_in_flight_is_refused_at_once_and_recorded(trial, course):
    limits(course, "[defaults]\nattempts = 100\n")
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(trial.ask, "s21", slow(0, 6))
        trial.grading("s21", "teacher")
        status, second = trial.ask("s21", variant(1))
        assert status == 429 and "still running" in second["refused"]
        early = raw_request(trial, "s21", {"Content-Length": "100000"})  # refused before its body is sent
        assert early.status == 429 and "still running" in json.loads(early.read())["refused"]
        status, shown = first.result()
    assert status == 200 and shown["score"] == shown["max_score"]
    rows = [r for r in record(course) if r["user"] == "s21" and r["id"] >= shown["id"]]
    assert [r["outcome"] for r in rows] == ["graded", "refused", "refused"]
    assert rows[0]["id"] == shown["id"] and all("still running" in r["refusal"] for r in rows[1:])
    status, again = trial.ask("s21", variant(1))  # once it has answered
    assert status == 200 and again["score"] < again["max_score"]


def test_a_worker_killed_mid_check_fails_that_check_only_and_is_replaced(trial, course, settings, tmp_path):
    limits(course, "[defaults]\nattempts = 100\n")
    status, before = trial.call("teacher", "GET", "api/workers")
    assert status == 200 and all(w["pid"] for w in before["workers"])
    others = {"s23": slow(0, 5), "s24": slow(5, 5)}  # right and wrong, each graded while the worker is killed
    expected = batch(course, settings, others, tmp_path)
    with ThreadPoolExecutor(3) as pool:
        victim = pool.submit(trial.ask, "s22", slow(0, 120))
        pid = trial.grading("s22", "teacher")
        answers = {who: pool.submit(trial.ask, who, data) for who, data in others.items()}
        for who in others:
            trial.grading(who, "teacher")
        os.kill(pid, signal.SIGKILL)
        status, killed = victim.result()
        answers = {who: answer.result() for who, answer in answers.items()}
    assert status == 503 and "stopped before it finished" in killed["refused"] and "not counted" in killed["refused"]
    for who, (status, shown) in answers.items():
        assert status == 200 and shown["user"] == who, shown
        same_verdict(shown, expected[who])
    assert expected["s23"]["score"] > expected["s24"]["score"]
    row = next(r for r in record(course) if r["id"] == killed["id"])
    assert row["outcome"] == "failed" and "stopped before it finished" in row["refusal"]
    for who, n in (("s22", 3), ("s25", 6), ("s26", 0)):  # later checks work, the victim's own included
        status, shown = trial.ask(who, variant(n))
        assert status == 200, shown
        same_verdict(shown, batch(course, settings, {who: variant(n)}, tmp_path / who)[who])
    status, after = trial.call("teacher", "GET", "api/workers")
    assert after["replaced"] >= 1 and len(after["workers"]) == len(before["workers"])
    assert pid not in {w["pid"] for w in after["workers"]}


def test_a_check_has_its_own_time_budget(trial, course):
    limits(course, '[defaults]\nattempts = 100\nbudget = "3s"\n')
    status, shown = trial.ask("s27", slow(0, 25))  # right, but its first cell sleeps past the budget
    assert status == 200, shown
    assert shown["score"] == 0 and {q["status"] for q in shown["questions"]} == {"timeout"}
    assert all(any("time budget (3 s for all of its cells and calls) ran out" in line for line in q["feedback"])
               for q in shown["questions"])
    assert any("time budget of 3 s ran out" in line for line in shown["errors"])


def test_a_notebook_of_twenty_thousand_failing_cells_is_recorded_in_a_few_kilobytes(trial, course):
    limits(course, "[defaults]\nattempts = 100\n")
    data = failing_cells(MAX_PARTS - len(json.loads(variant(0))["cells"]))
    status, shown = trial.ask("s28", data)
    assert status == 200, shown
    assert len(shown["errors"]) <= MAX_LINES and "more like these" in shown["errors"][-1]
    rows = [r for r in record(course) if r["sha256"] == hashlib.sha256(data).hexdigest()]
    assert len(rows) == 1 and rows[0]["size"] == len(data) > 1 << 20
    assert len(json.dumps(rows[0])) < 24 << 10, len(json.dumps(rows[0]))


def test_slow_students_share_a_quarter_of_the_workers_and_the_class_keeps_the_rest(trial, course):
    limits(course, "[defaults]\nattempts = 100\n")
    slow_ones = ("s05", "s06")
    with ThreadPoolExecutor(2) as pool:
        firsts = list(pool.map(lambda who: trial.ask(who, slow(0, 6)), slow_ones))  # each graded 6 s and more
        assert all(status == 200 and shown["score"] == shown["max_score"] for status, shown in firsts)
        seconds = [pool.submit(trial.ask, who, slow(0, 6)) for who in slow_ones]  # now known to be slow
        deadline = time.monotonic() + 120
        while True:  # until both have arrived: one graded, or both (which would be wrong)
            status, workers = trial.call("teacher", "GET", "api/workers")
            busy = [w["user"] for w in workers["workers"] if w["user"]]
            if (busy and workers["waiting"]) or len(busy) > 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert len(busy) == 1 and busy[0] in slow_ones and workers["waiting"] == 1, workers  # one waits its turn
        status, honest = trial.ask("s07", variant(0))  # while the class's workers stay free
        assert status == 200 and honest["score"] == honest["max_score"]
        peak = 0
        while not all(f.done() for f in seconds):
            status, workers = trial.call("teacher", "GET", "api/workers")
            peak = max(peak, sum(w["user"] in slow_ones for w in workers["workers"]))
            time.sleep(0.2)
        assert peak == 1 and all(f.result()[0] == 200 and f.result()[1]["score"] == f.result()[1]["max_score"]
                                 for f in seconds)
