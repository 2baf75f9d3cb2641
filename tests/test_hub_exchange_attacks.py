"""A student attacking the exchange service (hub/exchange.py) over HTTP on the real hub, beyond
tests/test_hub_exchange.py: one hub for the module, eve (on the class list) with her own hub token.

Found and fixed: the service read a whole request body (up to ~68 MB) before it asked the hub who sent it, so
anyone who could reach its port, with no token at all, could make it hold that much per connection; a file name
with a lone surrogate (JSON's escape for U+D800) or a deeply nested body failed with 500 instead of a refusal;
a submission holding ``timestamp.txt/x`` (a folder where collect writes the trusted time) made the instructor's
``nbgrader collect`` crash for the whole class (IsADirectoryError), now that submission alone is refused; a
file 500 folders deep (``a/a/.../x``, 999 characters, within the name rules) made collect's ``shutil.copytree``
raise RecursionError, crashing it for every student after the attacker: names are now at most 16 folders deep,
and collect refuses an entry it cannot copy for any such reason.
The rest are refused as they should be and pinned here: bodies where none belongs, odd methods, names that
leave the folder in every spelling, bodies that name an owner, percent-encoded and case-folded ids, too many
files, too many submissions.
"""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request

import pytest
from hub_class import as_person, class_on_hub, new_people
from test_hub_exchange import files, hub_token, service

from reading_maths.nbgrader.exchange_store import MAX_FILES, MAX_SUBMISSIONS

pytestmark = [pytest.mark.hub]

COURSE = "reading-maths"
A = "attacked"
B = "collected"


@pytest.fixture(scope="module")
def hub_class():
    people = new_people("ada", "eve")
    with class_on_hub(people, exchange="service") as hub:
        tokens = {key: hub_token(hub, person) for key, person in people.items()}
        status, _ = service(hub, tokens["teacher"], "PUT", f"{COURSE}/releases/{A}",
                            {"files": files(**{f"{A}.ipynb": b"{}"})})
        assert status == 200
        yield hub, people, tokens


def call(hub_class, who: str, method: str, path: str, body=None) -> tuple[int, dict]:
    hub, _, tokens = hub_class
    return service(hub, tokens[who] if who else None, method, path, body)


def raw(hub_class, request: bytes, wait: float = 10) -> bytes:
    """What the service answers to ``request`` (the bytes as sent) within ``wait`` seconds, or b"" when it says
    nothing in that time (it is still reading)."""
    hub, _, _ = hub_class
    port = hub.site.settings()["exchange_service"]["port"]
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(request)
        try:
            return sock.recv(4096)
        except TimeoutError:
            return b""


def announced(method: str, path: str, length: int, token: str | None = None) -> bytes:
    """A request's headers announcing a body of ``length`` bytes, none of which is sent."""
    auth = f"Authorization: token {token}\r\n" if token else ""
    return (f"{method} /services/exchange/api/courses/{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode()


def test_a_body_is_not_read_before_the_hub_says_who_sent_it(hub_class):
    """Without a token, a POST announcing 60 MB is refused at once: the service waits for none of it."""
    started = time.monotonic()
    answer = raw(hub_class, announced("POST", f"{COURSE}/submissions/{A}", 60_000_000))
    assert answer.startswith(b"HTTP/1.1 403"), answer
    assert time.monotonic() - started < 10


def test_a_body_where_none_belongs_is_refused_unread(hub_class):
    _, _, tokens = hub_class
    answer = raw(hub_class, announced("GET", f"{COURSE}/releases", 60_000_000, tokens["eve"]))
    assert answer.startswith(b"HTTP/1.1 400"), answer


def test_a_name_that_is_not_utf8_is_refused_not_an_error(hub_class):
    status, answer = call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}",
                          {"files": files(**{f"{A}\ud800.ipynb": b"{}"})})
    assert (status, "UTF-8" in answer["refused"]) == (400, True), answer


def test_a_deeply_nested_body_is_refused_not_an_error(hub_class):
    hub, _, tokens = hub_class
    port = hub.site.settings()["exchange_service"]["port"]
    nested = b'{"files": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    request = urllib.request.Request(f"http://127.0.0.1:{port}/services/exchange/api/courses/{COURSE}/submissions/{A}",
                                     method="POST", data=nested, headers={"Authorization": f"token {tokens['eve']}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 400


@pytest.mark.parametrize("name", ["../x.ipynb", "a/../../x.ipynb", "/etc/x.ipynb", "a//x.ipynb", "./x.ipynb",
                                  "x\x00.ipynb", "..\\x.ipynb", "x\n.ipynb", "a/" + "b" * 256, "x" * 1001,
                                  "a/.", "a/", "a/" * 16 + "x", "a/" * 499 + "x"])
def test_names_leaving_the_folder_are_refused(hub_class, name):
    status, answer = call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}", {"files": files(**{name: b"x"})})
    assert status == 400, answer


@pytest.mark.parametrize("body", [
    {"files": files(x=b"1"), "student": "ada"},
    {"files": files(x=b"1"), "timestamp": "2000-01-01 00:00:00.000000 UTC"},
    {"files": {"x": "MQ=="}},
    {"files": [{"path": "x", "content": "M Q=="}]},  # base64 with a space: not base64
    {"files": [{"path": "x", "content": "MQ==\n"}]},
    {"files": [{"path": "x", "content": 1}]},
    {"files": [{"path": "x", "content": "MQ=="}, {"path": "x", "content": "Mg=="}]},
    {"files": [{"path": "x", "content": "MQ=="}, {"path": "x/y", "content": "Mg=="}]},
    [{"path": "x", "content": "MQ=="}],
])
def test_bodies_that_claim_more_than_files_are_refused(hub_class, body):
    status, answer = call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}", body)
    assert status == 400, answer


def test_an_owner_in_the_query_string_is_refused(hub_class):
    status, answer = call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}?student=ada",
                          {"files": files(x=b"1")})
    assert status == 400, answer


@pytest.mark.parametrize("path", [f"{COURSE}/releases/%2e%2e", f"{COURSE}/releases/..%2F{A}",
                                  f"{COURSE.upper()}/releases/{A}", f"{COURSE}%00/releases/{A}",
                                  f"{COURSE}/releases/{A.upper()}", f"{COURSE}/releases/{A}%20"])
def test_encoded_and_case_folded_ids_find_nothing(hub_class, path):
    status, _ = call(hub_class, "eve", "GET", path)
    assert status in (403, 404), path


@pytest.mark.parametrize(("method", "path"), [("DELETE", f"{COURSE}/releases/{A}"),
                                              ("PATCH", f"{COURSE}/submissions/{A}"),
                                              ("GET", f"{COURSE}/feedback/{A}/ada"),
                                              ("POST", f"{COURSE}/feedback"),
                                              ("PUT", f"{COURSE}/submissions/{A}")])
def test_methods_the_service_does_not_offer(hub_class, method, path):
    body = {"files": files(x=b"1")} if method in ("PUT", "POST") else None
    status, _ = call(hub_class, "eve", method, path, body)
    assert status == 405, (method, path)


def test_too_many_files_and_unreleased_assignments(hub_class):
    many = files(**{f"f{i}": b"" for i in range(MAX_FILES + 1)})
    assert call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}", {"files": many})[0] == 413
    assert call(hub_class, "eve", "POST", f"{COURSE}/submissions/not-released", {"files": files(x=b"1")})[0] == 404


def test_a_student_keeps_a_bounded_number_of_submissions_and_sees_only_hers(hub_class):
    """Eve submits until she is refused (429); ada submits once; eve's list has only her own, ada's only hers."""
    statuses = [call(hub_class, "eve", "POST", f"{COURSE}/submissions/{A}", {"files": files(x=b"1")})[0]
                for _ in range(MAX_SUBMISSIONS + 1)]
    assert statuses.count(200) == MAX_SUBMISSIONS and statuses[-1] == 429
    assert call(hub_class, "ada", "POST", f"{COURSE}/submissions/{A}",
                {"files": files(**{f"{A}.ipynb": b"{}"})})[0] == 200
    _, people, _ = hub_class
    for who in ("eve", "ada"):
        listed = call(hub_class, who, "GET", f"{COURSE}/submissions/{A}")[1]["submissions"]
        assert {entry["student"] for entry in listed} == {people[who].name}
    assert call(hub_class, "eve", "GET", f"{COURSE}/feedback")[1] == {"feedback": []}


def test_the_answer_to_a_submission_names_the_hub_user_and_a_service_time(hub_class):
    _, people, _ = hub_class
    status, answer = call(hub_class, "ada", "POST", f"{COURSE}/submissions/{A}",
                          {"files": files(**{"timestamp.txt": b"2000-01-01 00:00:00.000000 UTC"})})
    assert status == 200 and answer["student"] == people["ada"].name
    assert not answer["timestamp"].startswith("2000"), answer


@pytest.fixture(scope="module")
def collected(hub_class):
    """A second assignment: eve submits one whose ``timestamp.txt`` is a folder, ada an honest one; the
    instructor collects the class."""
    hub, people, tokens = hub_class
    released = {"files": files(**{f"{B}.ipynb": b"{}"})}
    assert service(hub, tokens["teacher"], "PUT", f"{COURSE}/releases/{B}", released)[0] == 200
    assert call(hub_class, "eve", "POST", f"{COURSE}/submissions/{B}",
                {"files": files(**{f"{B}.ipynb": b"{}", "timestamp.txt/x": b"2000-01-01 00:00:00 UTC"})})[0] == 200
    assert call(hub_class, "ada", "POST", f"{COURSE}/submissions/{B}", released)[0] == 200
    teacher = people["teacher"]
    done = as_person(hub, teacher, "nbgrader", "collect", B, cwd=teacher.course, check=False,
                     extra_env={"JUPYTERHUB_API_TOKEN": tokens["teacher"]})
    return done, teacher.course / "submitted"


def test_a_timestamp_folder_does_not_stop_collect_for_the_class(hub_class, collected):
    """Eve's ``timestamp.txt`` is a folder: her submission is refused with the reason, ada's is collected."""
    done, submitted = collected
    _, people, _ = hub_class
    assert done.returncode == 0, done.stderr[-2000:]
    assert (submitted / people["ada"].name / B / "timestamp.txt").is_file()
    assert not (submitted / people["eve"].name / B).exists()
    assert "its timestamp.txt is not a file" in done.stdout + done.stderr
