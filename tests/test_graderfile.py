"""Loading a grader file: executed once, read as Otter reads it."""

import pytest
from otter.test_files import ExceptionTestFile

from conftest import ROOT
from reading_maths.grading.graderfile import load_grader

GRADERS = sorted((ROOT / "graders").glob("*/*.py"))


@pytest.mark.parametrize("path", GRADERS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_grader_file_is_read_as_otter_reads_it(path):
    ours, otters = load_grader(path), ExceptionTestFile.from_file(str(path))
    assert ours.question == otters.name == path.stem
    fields = ("name", "points", "hidden", "success_message", "failure_message")
    assert [tuple(getattr(c, f) for f in fields) for c in ours.cases] == \
           [tuple(getattr(c, f) for f in fields) for c in otters.test_cases]


def test_a_grader_file_is_executed_once_per_process(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    grader = tmp_path / "q.py"
    grader.write_text(
        "import os\nfrom otter.test_files import test_case\n"
        "open(os.environ['RM_RUNS'], 'a').write('x')\n"
        "OK_FORMAT = False\nname = 'q'\n\n"
        "@test_case(points=2)\ndef one(f):\n    assert f() == 1\n", encoding="utf-8")
    monkeypatch.setenv("RM_RUNS", str(runs))
    loaded = load_grader(grader)
    assert load_grader(grader) is loaded and loaded.max_score == 2
    assert loaded.run({"f": lambda: 1}).score == 2
    assert runs.read_text() == "x"


def test_every_item_of_a_dict_answer_has_exactly_one_case():
    """An item grader declares its cases by hand: none may be missing, repeated or judge an unknown item."""
    from reading_maths.kit import Items, reference

    checked = 0
    for path in GRADERS:
        grader = load_grader(path)
        items = [v for v in grader.cases[0].body.test_func.__globals__.values() if isinstance(v, Items)]
        if not items:
            continue
        (judge,) = items
        judge.judged.clear()
        result = grader.run(vars(reference(path.parent.name)))
        assert result.score == result.max_score, result.feedback
        assert judge.judged == set(judge.spec) and len(grader.cases) == len(judge.spec), path
        checked += 1
    assert checked == 7
