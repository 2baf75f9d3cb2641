"""The exchange service's rules and store (reading_maths/nbgrader/exchange_store.py), the one setting that chooses
the exchange (reading_maths/nbgrader/exchange.py), and the client's packing (reading_maths/nbgrader/served.py),
in-process on SQLite. tests/test_hub_exchange.py runs the service itself on the real hub."""

from __future__ import annotations

import base64
import multiprocessing
import os
from datetime import datetime

import pytest
from traitlets import TraitError
from traitlets.config import Config

from conftest import BACKENDS, database_url
from reading_maths.inputs import MAX_BYTES, UnsafeInput
from reading_maths.nbgrader.exchange import SERVED, configure, configured_kind
from reading_maths.nbgrader.exchange_store import (
    MAX_FILES,
    MAX_KEPT,
    MAX_SUBMISSIONS,
    MAX_TOTAL,
    Refused,
    Store,
    check_files,
)
from reading_maths.nbgrader.served import packed, unpacked


def sent(**named: bytes) -> list[dict]:
    return [{"path": path, "content": base64.b64encode(data).decode()} for path, data in named.items()]


def test_files_inside_their_folder_are_taken():
    assert check_files(sent(**{"code.ipynb": b"{}", "data/x.csv": b"1,2", "timestamp.txt": b"t"})) == {
        "code.ipynb": b"{}", "data/x.csv": b"1,2", "timestamp.txt": b"t"}


@pytest.mark.parametrize("name", ["../x.ipynb", "a/../../x", "/etc/passwd", "./x", "a//b", "a/", "", ".", "..",
                                  "x\n", "a\\..\\b", "x\x1b[2J", "a" * 256, "a/" * 600 + "b"])
def test_a_name_that_could_leave_the_folder_is_refused(name):
    with pytest.raises(Refused) as refused:
        check_files(sent(**{"fine.ipynb": b"{}", name: b"{}"}))
    assert refused.value.status == 400 and "\n" not in refused.value.reason and "\x1b" not in refused.value.reason


@pytest.mark.parametrize("files", [None, [], "x", [{"path": "x"}], [{"path": "x", "content": None}],
                                   [{"path": "x", "content": "not base64!"}], [{"path": "x", "content": 3}],
                                   ["x"], sent(**{"a": b"1", "a/b": b"2"}), sent(x=b"1") + sent(x=b"2")])
def test_anything_but_regular_files_is_refused(files):
    with pytest.raises(Refused):
        check_files(files)


def test_too_many_or_too_large_files_are_refused():
    with pytest.raises(Refused) as many:
        check_files(sent(**{f"f{i}": b"" for i in range(MAX_FILES + 1)}))
    with pytest.raises(Refused) as large:
        check_files(sent(big=b"\0" * (MAX_BYTES + 1)))
    assert many.value.status == large.value.status == 413


def test_the_store_keeps_releases_submissions_and_each_students_feedback(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'exchange.sqlite'}")
    when = datetime(2027, 1, 22, 16, 0, 0, 123456)
    store.release("c", "a", {"a.ipynb": b"v1", "data/d.csv": b"1"}, when)
    store.release("c", "a", {"a.ipynb": b"v2"}, when)  # a release replaces the earlier one
    assert store.released("c") == [{"assignment": "a", "released_at": "2027-01-22 16:00:00.123456 UTC",
                                     "files": ["a.ipynb"]}]
    assert store.release_files("c", "b") is None and store.released("other") == []
    first = store.submit("c", "a", "ada", {"a.ipynb": b"ada's"}, when)
    store.submit("c", "a", "bob", {"a.ipynb": b"bob's"}, when)
    assert first == {"id": 1, "student": "ada", "timestamp": "2027-01-22 16:00:00.123456 UTC"}
    assert [s["student"] for s in store.submissions("c", "a")] == ["ada", "bob"]
    assert [s["student"] for s in store.submissions("c", "a", "bob")] == ["bob"]
    got = store.submission("c", "a", 1)
    assert got is not None and check_files(got["files"]) == {"a.ipynb": b"ada's"}
    assert store.submission("other", "a", 1) is None
    store.give_feedback("c", "a", "ada", {"h1.html": b"old"}, when)
    store.give_feedback("c", "a", "ada", {"h1.html": b"new", "h2.html": b"2"}, when)
    assert check_files([{k: f[k] for k in ("path", "content")} for f in store.feedback_for("c", "ada")]) == {
        "h1.html": b"new", "h2.html": b"2"}
    assert store.feedback_for("c", "bob") == []


def test_a_student_keeps_a_bounded_number_of_submissions(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'exchange.sqlite'}")
    for _ in range(MAX_SUBMISSIONS):
        store.submit("c", "a", "eve", {"a.ipynb": b""}, datetime(2027, 1, 1))
    with pytest.raises(Refused) as refused:
        store.submit("c", "a", "eve", {"a.ipynb": b""}, datetime(2027, 1, 1))
    assert refused.value.status == 429 and len(store.submissions("c", "a", "eve")) == MAX_SUBMISSIONS


def test_a_student_keeps_a_bounded_number_of_bytes(tmp_path):
    """Each submission within the size of one, but together more than a student may keep of an assignment: the one
    past it is refused, and another student's is kept."""
    store = Store(f"sqlite:///{tmp_path / 'exchange.sqlite'}")
    big = {"a.ipynb": b"x" * MAX_TOTAL}
    for _ in range(MAX_KEPT // MAX_TOTAL):
        store.submit("c", "a", "eve", big, datetime(2027, 1, 1))
    with pytest.raises(Refused) as refused:
        store.submit("c", "a", "eve", {"a.ipynb": b"x"}, datetime(2027, 1, 1))
    assert refused.value.status == 413 and len(store.submissions("c", "a", "eve")) == MAX_KEPT // MAX_TOTAL
    store.submit("c", "a", "ada", {"a.ipynb": b"{}"}, datetime(2027, 1, 1))
    store.submit("c", "b", "eve", {"b.ipynb": b"{}"}, datetime(2027, 1, 1))


def _submit_until_refused(url: str, start) -> None:
    """In a process of its own: eve submits until the store refuses her, once ``start`` is passed."""
    store = Store(url)
    start.wait(120)
    for _ in range(MAX_SUBMISSIONS):
        try:
            store.submit("c", "a", "eve", {"a.ipynb": b"{}"}, datetime(2027, 1, 1))
        except Refused:
            return


@pytest.mark.slow  # two processes
@pytest.mark.parametrize("backend", BACKENDS)
def test_two_services_sharing_a_store_keep_no_more_than_the_most_submissions(request, backend, tmp_path):
    """Two exchange services on one database (a cluster's replicas), one student submitting to both at once: the
    count and the new row are one step under the student's lock, so the store never holds more than the most."""
    url = database_url(request, backend, tmp_path / "exchange.sqlite")
    Store(url)  # the tables, made once before the race
    context = multiprocessing.get_context("fork")
    start = context.Barrier(2)
    racers = [context.Process(target=_submit_until_refused, args=(url, start), daemon=True) for _ in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(300)
    assert [racer.exitcode for racer in racers] == [0, 0]
    assert len(Store(url).submissions("c", "a", "eve")) == MAX_SUBMISSIONS


def test_one_setting_chooses_the_folder_or_the_service(tmp_path):
    config = tmp_path / "nbgrader_config.py"
    config.write_text('c = get_config()\nc.CourseDirectory.course_id = "x"\n')
    assert configured_kind(config) == "folder"
    config.write_text('c = get_config()\nc.CourseExchange.kind = "service"\nraise SystemExit("not run")\n')
    assert configured_kind(config) == "service"  # read, not run
    config.write_text('c.CourseExchange.kind = "shared disk"\n')
    with pytest.raises(TraitError):
        configured_kind(config)
    link = tmp_path / "linked.py"
    os.symlink(config, link)
    with pytest.raises(UnsafeInput):
        configured_kind(link)

    served, folder = Config(), Config()
    served.CourseExchange.kind = "service"
    configure(served)
    configure(folder)
    assert {step: getattr(served.ExchangeFactory, step) for step in SERVED} == {
        step: f"reading_maths.nbgrader.served.{name}" for step, name in SERVED.items()}
    assert folder.ExchangeFactory.collect == "reading_maths.nbgrader.exchange.SafeCollect"
    assert "fetch_assignment" not in folder.ExchangeFactory


def test_the_client_sends_regular_files_and_writes_only_inside_its_folder(tmp_path):
    folder = tmp_path / "entry"
    (folder / "data").mkdir(parents=True)
    (folder / "a.ipynb").write_bytes(b"{}")
    (folder / "data" / "d.csv").write_bytes(b"1")
    assert check_files(packed(folder)) == {"a.ipynb": b"{}", "data/d.csv": b"1"}
    os.symlink("/etc/passwd", folder / "p")
    with pytest.raises(UnsafeInput):
        packed(folder)
    with pytest.raises(Refused):
        unpacked(sent(**{"../escaped": b"x"}), tmp_path / "target")
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "target").exists()
