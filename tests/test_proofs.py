"""The proofs assignment: Proof Blocks grading, safe formula parsing, and the notebook's structure."""

import random
import time

import nbformat
import pytest

from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.kit import proofblocks as pb
from reading_maths.kit import symbolic

SMALL = {"a": (), "b": ("a",), "c": ("a",), "d": ("b", "c")}
PUZZLES = ("puzzle_m", "puzzle_v")


def _grader(question):
    return Assignment("proofs", ROOT).grader(question)


def _brute_edit_distance(order, needs):
    def lcs(x, y):
        table = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
        for i, a in enumerate(x):
            for j, b in enumerate(y):
                table[i + 1][j + 1] = table[i][j] + 1 if a == b else max(table[i][j + 1], table[i + 1][j])
        return table[-1][-1]

    return min(len(order) + len(top) - 2 * lcs(order, top) for top in pb.topological_orders(needs))


# -- proofblocks -----------------------------------------------------------------------------------

def test_topological_orders_of_a_diamond():
    assert sorted(map(tuple, pb.topological_orders(SMALL))) == [("a", "b", "c", "d"), ("a", "c", "b", "d")]


@pytest.mark.parametrize("order, edits", [
    (["a", "b", "c", "d"], 0),
    (["a", "c", "b", "d"], 0),
    (["b", "a", "c", "d"], 2),        # b moved: one deletion, one insertion
    (["a", "b", "c"], 1),             # d missing
    (["a", "x", "b", "c", "d"], 1),   # a distractor to delete
    (["a", "b", "b", "c", "d"], 1),   # a repeated line
    (["d", "c", "b", "a"], 4),        # keep c, b; move a and d
    ([], 4),
])
def test_edit_distance_examples(order, edits):
    assert pb.edit_distance(order, SMALL) == edits == _brute_edit_distance(order, SMALL)


@pytest.mark.parametrize("question", PUZZLES)
def test_edit_distance_agrees_with_brute_force_on_random_orderings(question):
    puzzle = _puzzle(question)
    rng = random.Random(3)
    for _ in range(150):
        order = rng.sample(puzzle.labels, rng.randint(0, len(puzzle.labels)))
        if rng.random() < 0.2 and order:
            order.insert(rng.randrange(len(order)), rng.choice(order))
        assert pb.edit_distance(order, puzzle.needs) == _brute_edit_distance(order, puzzle.needs), order


def test_a_cycle_is_refused():
    with pytest.raises(ValueError):
        pb.Puzzle(needs={"a": ("b",), "b": ("a",)}, facts={"a": "A", "b": "B"})


# -- the puzzles' graders ----------------------------------------------------------------------------

def _puzzle(question):
    from runpy import run_path

    return run_path(str(ROOT / "graders" / "proofs" / f"{question}.py"))["PUZZLE"]


@pytest.mark.parametrize("question", PUZZLES)
def test_every_valid_ordering_of_the_puzzle_gets_full_marks(question):
    orders = list(pb.topological_orders(_puzzle(question).needs))
    assert len(orders) == 15
    grader = _grader(question)
    for order in orders:
        result = grader.run({question: order})
        assert result.score == result.max_score == 7, (order, result.feedback)


@pytest.mark.parametrize("question", PUZZLES)
def test_invalid_orderings_lose_one_point_per_edit_and_name_the_first_wrong_step(question):
    grader, puzzle = _grader(question), _puzzle(question)
    rng = random.Random(11)
    valid = {tuple(o) for o in pb.topological_orders(puzzle.needs)}
    for _ in range(60):
        order = rng.sample(puzzle.labels, rng.randint(1, 9))
        if tuple(order) in valid:
            continue
        result = grader.run({question: order})
        assert result.score == max(0, 7 - pb.edit_distance(order, puzzle.needs)) < 7
        problem = pb.first_problem(order, puzzle)
        assert any(line.startswith(problem) for line in result.feedback)


@pytest.mark.parametrize("question", PUZZLES)
def test_the_notebook_lists_exactly_the_graders_steps(question):
    from reading_maths.kit import reference

    assert set(getattr(reference("proofs"), f"{question}_steps")) == set(_puzzle(question).labels)


def test_the_first_puzzles_answer_does_not_solve_the_second():
    m, v = _puzzle("puzzle_m"), _puzzle("puzzle_v")
    assert next(pb.topological_orders(m.needs)) != next(pb.topological_orders(v.needs))
    assert _grader("puzzle_v").run({"puzzle_v": next(pb.topological_orders(m.needs))}).score < 7


# -- symbolic ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "__import__('os')", "g.__class__", "().__class__", "beta1.is_positive", "'x'", "[1, 2]", "{1: 2}",
    "lambda: 1", "beta1 if k else t", "x", "m(k)", "exec", "1j", "0x10", "a = 1", "beta1; k", "k @ k",
    "beta1 +", "(beta1", "beta1)", "", "   ", "1" * 30, "b" * 500, None, 3, ["beta1"],
])
def test_malformed_or_hostile_formulas_are_refused_with_a_message(text):
    verdict = symbolic.compare(text, "beta1", variables=("beta1",))
    assert verdict.status == "malformed" and verdict.message


@pytest.mark.slow  # waits out a time limit
def test_a_hostile_power_tower_times_out_instead_of_hanging():
    start = time.monotonic()
    verdict = symbolic.compare("9**9**9**9", "beta1", variables=("beta1",), timeout=2.0)
    assert verdict.status == "timeout" and "too long" in verdict.message
    from reading_maths.sandbox.limited_eval import WALL_FACTOR  # bounded: CPU limits, and a wall-clock backstop

    assert time.monotonic() - start < (2.0 + symbolic.SYMBOLIC_TIMEOUT) * WALL_FACTOR


def test_garbage_never_raises():
    rng = random.Random(5)
    alphabet = "beta1kgtijSum()*+-/^,. _[]'\"0123456789xyz\\\n"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        try:
            symbolic.check_syntax(text)
        except symbolic.ExpressionError:
            continue
        assert symbolic.compare(text, "beta1*k", variables=("beta1", "k"), timeout=2.0).status in (
            "equal", "different", "malformed", "timeout")


def test_sympy_alone_would_miss_this_but_the_numeric_check_does_not():
    # the geometric sum: doit() gives a Piecewise/unsimplified form, yet the two are equal
    verdict = symbolic.compare("(1 - beta1)*Sum(beta1**(k - i), (i, 1, k))", "1 - beta1**k",
                               variables=("beta1", "k"))
    assert verdict.ok, verdict


@pytest.mark.parametrize("text, plain", [
    ("(1 − beta1)*g(1)", "(1 - beta1)*g(1)"), ("(1 – beta1)×g(1)", "(1 - beta1)*g(1)"),
    ("beta1·k⋅2", "beta1*k*2"), ("beta1²", "beta1**(2)"), ("beta1ᵏ⁻ⁱ", "beta1**(k-i)"), ("g(k)⁻¹", "g(k)**(-1)"),
    ("(1 - beta1)*\n  g(1)", "(1 - beta1)*   g(1)"), ("1\u00a0+\u200bk", "1 +k"), ("g(１)", "g(1)"), ("𝑘", "k"),
])
def test_characters_with_a_plain_meaning_are_read_as_ascii(text, plain):
    assert symbolic.check_syntax(text) == plain


@pytest.mark.parametrize("text, message", [
    ("1 — beta1", "it contains the character U+2014 EM DASH (—): type - instead"),
    ("bеta1", "it contains the character U+0435 CYRILLIC SMALL LETTER IE (е): type e instead; the names allowed"),
    ("β1", "it contains the character U+03B2 GREEK SMALL LETTER BETA (β)"),
    ("‘beta1’", "U+2018 LEFT SINGLE QUOTATION MARK (‘): a formula has no quotes, delete it"),
    ("beta1 • k", "U+2022 BULLET (•): type * instead"),
    ("beta1 $ k", "it contains '$';"),  # not the space before it
])
def test_refused_characters_are_named(text, message):
    verdict = symbolic.compare(text, "beta1", variables=("beta1", "k"))
    assert verdict.status == "malformed" and message in verdict.message, verdict.message


def test_a_value_that_could_not_travel_is_named_by_its_python_type():
    from reading_maths.sandbox.inside import wire

    value = wire.decode(wire.encode(x for x in "ab"))
    assert "not a generator" in symbolic.compare(value, "beta1", variables=("beta1",)).message
    assert isinstance(value, wire.Unencodable) and repr(value) == "<generator object>"


# -- the notebook ------------------------------------------------------------------------------------

def test_notebook_structure():
    nb = nbformat.read(ROOT / "source" / "proofs" / "proofs.ipynb", as_version=4)
    meta = {c.metadata["nbgrader"]["grade_id"]: (c, c.metadata["nbgrader"]) for c in nb.cells
            if "nbgrader" in c.metadata}
    assignment = Assignment("proofs", ROOT)
    assert assignment.questions == ["puzzle_m", "puzzle_v", "induction", "moving_average", "first_adam_update"]
    for q in assignment.questions:
        assert meta[q][1]["points"] == assignment.grader(q).max_score
        assert f'grade_question("proofs", "{q}")' in meta[q][0].source
        assert meta[f"{q}-answer"][1]["solution"] and meta[f"{q}-check"][1]["locked"]
        assert "reading_maths" not in meta[f"{q}-check"][0].source
    for written, points in (("puzzle_written", 2), ("induction_written", 4)):
        cell, m = meta[written]
        assert cell.cell_type == "markdown" and m["grade"] and m["solution"] and not m["locked"]
        assert m["points"] == points
        scheme, sm = meta[f"{written}-scheme"]
        # nbgrader strips mark schemes only from "Manually graded task" cells
        assert sm.get("task") and sm["points"] == 0 and "### BEGIN MARK SCHEME" in scheme.source
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None
