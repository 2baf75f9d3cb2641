"""The build assignment ("Build this"): its notebook, reading LaTeX, mutants, and how strong a test is.

The classifier tests (right entries keep full marks, wrong ones lose points with their message) are in
test_corpora.py; the sandboxed path (mutants run in the student's process) in test_build_sandbox.py.
"""

import math
import runpy
import tempfile
import warnings
from functools import partial
from pathlib import Path

import nbformat
import numpy as np
import pytest

from conftest import ROOT, grade_in_process, source_cells
from reading_maths.course import Assignment
from reading_maths.kit import latex, reference
from reading_maths.kit.decoys import decoys
from reading_maths.kit.entries import PARTS, EntryFormatError, check_entry, read_entry, read_parts, same_output
from reading_maths.kit.equation_value import equation_value
from reading_maths.kit.mutation import mutants
from reading_maths.kit.probes import probes
from reading_maths.kit.strength import judge
from reading_maths.notebook import SOLUTION_MARKERS, grade_id, nbgrader_meta, read_notebook
from reading_maths.sandbox.rerun import run_fresh

BUILD = Assignment("build", ROOT)
ENTRIES = ["entry_1", "entry_2", "entry_3"]
MANUAL = {f"{kind}_{k}": 2 for kind in ("meanings", "why") for k in (1, 2, 3)}
CORPUS = runpy.run_path(str(ROOT / "tests" / "corpora" / "build" / "entry_1.py"))


_grade = partial(grade_in_process, "build")  # (question, env): a question of build graded in this process


# -- the notebook ------------------------------------------------------------------------------------------

def test_questions_points_and_hand_marked_cells():
    assert BUILD.questions == ENTRIES
    cells = source_cells("build")
    for q in ENTRIES:
        assert nbgrader_meta(cells[q])["points"] == BUILD.grader(q).max_score == 11
    assert {g: nbgrader_meta(cells[g])["points"] for g in BUILD.manual_cells} == MANUAL
    for scheme in ("meanings-scheme", "why-scheme"):
        meta = nbgrader_meta(cells[scheme])
        assert meta["task"] and meta["points"] == 0 and "### BEGIN MARK SCHEME" in cells[scheme].source
    for k in (1, 2, 3):  # the entry's code is the hand-marked meanings answer; the why is markdown
        assert cells[f"meanings_{k}"].cell_type == "code" and cells[f"why_{k}"].cell_type == "markdown"
    for cell in read_notebook(BUILD.source_notebook).cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "commit without outputs"


def test_format_cell_is_the_entries_module_verbatim():
    body = source_cells("build")["entry-format"].source.split("\n", 1)[1]
    assert body == (ROOT / "reading_maths" / "kit" / "entries.py").read_text().rstrip("\n"), \
        "paste reading_maths/kit/entries.py into the notebook's entry-format cell"
    source = (ROOT / "reading_maths" / "kit" / "entries.py").read_text()
    imports = {line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"keyword", "math", "re", "unicodedata", "numpy"}, imports


def test_check_cells_pass_on_the_reference_and_need_only_the_notebook():
    env: dict = {}
    for cell in read_notebook(BUILD.source_notebook).cells:
        gid = grade_id(cell)
        if cell.cell_type != "code" or gid in ENTRIES:
            continue
        source = SOLUTION_MARKERS.sub("", cell.source)
        if gid.endswith("-check"):
            assert "reading_maths" not in source and "import" not in source
        exec(compile(source, gid, "exec"), env)  # noqa: S102 - our own notebook; raises if a check fails
    assert "format is right" in check_entry(env["entry_1"], env["implementation_1"], env["test_1"], "entry_1")


@pytest.mark.slow
def test_source_notebook_scores_full_marks_and_the_worked_entry_would_too():
    env = vars(reference("build"))
    for q in ENTRIES:
        result = _grade(q, env)
        assert result.score == result.max_score, result.feedback
    worked = {"entry_1": env["entry_0"], "implementation_1": env["implementation_0"], "test_1": env["test_0"]}
    result = _grade("entry_1", worked)
    failed = [c.name for c in result.cases if not c.passed]
    assert failed == ["equation_is_new"], result.feedback  # a perfect entry, but the worked one


def test_release_stub_scores_zero_with_the_format_message():
    from nbgrader.preprocessors import ClearSolutions
    from traitlets.config import Config

    config = Config()
    config.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    nb = nbformat.read(str(BUILD.source_notebook), as_version=4)
    nb, _ = ClearSolutions(config=config).preprocess(nb, {"language": "python"})
    env: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and not nbgrader_meta(cell).get("grade_id", "").endswith("-check") \
                and grade_id(cell) not in ENTRIES:
            try:
                exec(cell.source, env)  # noqa: S102 - our own notebook
            except NotImplementedError:
                pass
    assert env["entry_1"]["symbols"] == {}, "the skeleton dict is there to fill in"
    for q in ENTRIES:
        result = _grade(q, env)
        assert result.score == 0
        assert any("should be a non-empty string" in line for line in result.feedback), result.feedback


@pytest.mark.slow
@pytest.mark.parametrize("question", ENTRIES)
def test_each_cheat_and_unfair_case_gets_exactly_its_score(question):
    corpus = runpy.run_path(str(ROOT / "tests" / "corpora" / "build" / f"{question}.py"))
    scores = {name: _grade(question, corpus["WRONG"][name][0]).score for name in corpus.get("SCORES", {})}
    assert scores == corpus.get("SCORES", {})


@pytest.mark.slow  # three entries graded, trials and all
def test_an_equation_read_as_a_formula_catches_a_bug_its_test_and_example_share():
    corpus = runpy.run_path(str(ROOT / "tests" / "corpora" / "build" / "entry_3.py"))
    shared = _grade("entry_3", corpus["WRONG"]["elo-code-test-and-example-share-a-bug"][0])
    assert shared.score == 10
    assert any("gives [0.7597, 0.5]; your implementation gives [0.6225, 0.5]" in line for line in shared.feedback)
    rms = _grade("entry_1", CORPUS["WRONG"]["example-not-reproduced"][0])  # RMS norm: a sum and a definition
    assert any("The hand-worked output does not compute what the equation says" in line for line in rms.feedback)
    unread = _grade("entry_3", corpus["WRONG"]["gaussian-example-without-the-half"][0])  # log p(x) on the left
    assert any("your equation could not be read as a formula" in line and "not checked against your code" in line
               for line in unread.feedback), unread.feedback


def test_equation_value_reads_only_what_it_need_not_guess():
    elo = read_entry(runpy.run_path(str(ROOT / "tests" / "corpora" / "build" / "entry_3.py"))["ELO"])
    value, _ = equation_value(elo)
    assert np.allclose(value, [1 / (1 + 10 ** -0.5), 0.5])
    square = {"E_A": ("m", ("n", "n"), "return"), "R_A": ("m", ("n", "n"), "r_a"), "R_B": ("m", ("n", "n"), "r_b")}
    inputs = {"r_a": [[1.0, 2.0], [3.0, 4.0]], "r_b": [[0.0, 1.0], [1.0, 0.0]]}
    value, _ = equation_value(dict(elo, equation=r"E_A = R_A R_B", symbols=square, inputs=inputs))
    assert np.allclose(value, [[2.0, 1.0], [4.0, 3.0]])  # matrices: a matrix product
    product = dict(elo, equation=r"E_A = R_A \cdot R_B")
    hostile = dict(elo, equation=r"E_A = R_A^{10^{10^{10^{10}}}}")
    summed = dict(elo, equation=r"E_A = \sum_{i=1}^{2} R_A")
    for entry, why in [(product, "dot product"), (hostile, "finite"), (summed, "does not use i"),
                       (dict(elo, equation="E_A"), "one equation")]:
        value, message = equation_value(entry)
        assert value is None and why in message, (entry["equation"], message)


def test_equation_must_differ_from_the_other_entries():
    env = vars(reference("build"))
    twin = dict(env["entry_2"])
    twin["equation"] = env["entry_1"]["equation"].replace(" ", "")
    result = _grade("entry_2", {**env, "entry_2": twin})
    assert any("the same as entry_1's" in line for line in result.feedback), result.feedback


# -- entries.py: the format and its messages -------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"symbols": {"x": ("x", "n", "x"), "y": ("y", ("n",), "return")}}, "should be a tuple of dimension names"),
    ({"symbols": {"x": ("", ("n",), "x"), "y": ("y", ("n",), "return")}}, "the meaning should be a sentence"),
    ({"symbols": {"x": ("x", ("n",), "x"), "y": ("y", ("n",))}}, "say which symbol is the result"),
    ({"symbols": {"x": ("x", ("n", 2.5), "x"), "y": ("y", ("n",), "return")}}, "2.5 is not a dimension"),
    ({"example": {"inputs": {"z": [1.0]}, "output": [1.0]}}, "'z' is no symbol's name in the code"),
    ({"example": {"inputs": {"x": ["a"]}, "output": [1.0]}}, "should be numbers"),
    ({"paper": ""}, "['paper'] should be a non-empty string"),
    ({"symbols": {"x": ("x", ("n",), "lambda"), "y": ("y", ("n",), "return")}}, "(a Python name), or 'return' for "
                                                                                  "its result, not 'lambda'"),
    ({"symbols": {"x": ("x", ("n d",), "x"), "y": ("y", ("n",), "return")}}, "'n d' is not a dimension"),
    ({"example": {"inputs": {"x": [1.0], "ｘ": [2.0]}, "output": [1.0]}}, "the input 'ｘ' should be named once"),
])
def test_format_errors_say_what_to_change(change, message):
    entry = {"paper": "p", "equation": "y = 2x",
             "symbols": {"x": ("the input", ("n",), "x"), "y": ("the output", ("n",), "return")},
             "example": {"inputs": {"x": [1.0]}, "output": [2.0]}} | change
    with pytest.raises(EntryFormatError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_entry(entry, "entry_1")


def test_names_in_the_code_are_python_names_read_as_python_reads_them():
    def penalty(β, λ1, ℓ):  # noqa: E741 - Python reads the ℓ of a def as l (NFKC)
        return λ1 * np.abs(np.asarray(β)).sum() + ℓ

    entry = {"paper": "p", "equation": r"P = \lambda_1 \sum_{j=1}^{d} |\beta_j| + \ell",
             "symbols": {r"\beta": ("weights", ("d",), "β"), r"\lambda_1": ("a weight", (), "λ1"),
                         r"\ell": ("an offset", (), "ℓ"), "P": ("the penalty", (), "ｒｅｔｕｒｎ")},
             "example": {"inputs": {"β": [1.0, -2.0], "λ1": 0.5, "ℓ": 1.0}, "output": 2.5}}
    read = read_entry(entry)
    assert read["inputs"] == {"β": [1.0, -2.0], "λ1": 0.5, "l": 1.0}
    assert [code for _, _, code in read["symbols"].values()] == ["β", "λ1", "l", "return"]
    assert "format is right" in check_entry(entry, penalty, lambda: None)
    assert latex.uncovered(entry["equation"], list(entry["symbols"]), ["d"]) == []


def test_a_part_off_the_format_is_a_problem_of_that_part_only():
    entry = {"paper": "p", "equation": "y = 2x",
             "symbols": {"x": ("the input", ("n",), "x"), "y": ("the output", ("n",), "return")},
             "example": {"inputs": {"x": [1.0]}, "output": [2.0]}}
    assert read_parts(entry) == (read_entry(entry), {})
    problems = {
        "meaning": ({"symbols": {**entry["symbols"], "y": ("", ("n",), "return")}}, {"symbols"}),
        "result's shape": ({"symbols": {**entry["symbols"], "y": ("out", "n", "return")}}, {"shapes"}),
        "argument's shape": ({"symbols": {**entry["symbols"], "x": ("in", "n", "x")}}, {"shapes", "arguments"}),
        "no result": ({"symbols": {"x": entry["symbols"]["x"], "y": ("out", ("n",))}}, {"codes"}),
        "input unnamed": ({"symbols": {"x": ("in", ("n",)), "y": entry["symbols"]["y"]}}, {"codes", "arguments"}),
        "output": ({"example": {"inputs": {"x": [1.0]}, "output": "2"}}, {"output"}),
        "no example": ({"example": None}, {"inputs", "output"}),
        "no paper": ({"paper": None}, {"paper"}),
    }
    for what, (change, parts) in problems.items():
        read, found = read_parts(entry | change)
        assert set(found) == parts, what
        kept = {k: v for k, v in read_entry(entry).items() if k in ("paper", "inputs") and k not in parts}
        assert "symbols" in read and kept.items() <= read.items(), what  # the other parts are read all the same
    assert set(read_parts(["not", "a", "dict"])[1]) == set(PARTS)


def test_same_output_is_the_precision_the_student_wrote():
    assert same_output([0.6456], [0.646]) and same_output(1.9546, 1.95) and same_output(0.84119, 0.8411)
    assert not same_output([0.6456], [0.66]) and not same_output([[1.0]], [1.0])
    assert same_output([np.inf, np.nan], [np.inf, np.nan]) and not same_output([1e300], [np.inf])
    assert same_output(0.005, 0.005) and same_output(0.00504, 0.005) and not same_output(0.005, 0.01)  # relative
    assert same_output(1e-17, 0.0) and not same_output(0.0005, 0.0) and not same_output(2.3, 2.0)


# -- latex.py: symbols read with pylatexenc ------------------------------------------------------------------------

@pytest.mark.parametrize("equation, expected", [
    (r"y = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta",
     ["y", r"\gamma", "x", r"\mu", r"\sigma", r"\epsilon", r"\beta"]),
    (r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V",
     ["Q", "K", "V", "d_{k}"]),
    (r"L = -\frac{1}{N}\sum_{n=1}^{N} \log \hat{p}_{y_n}", ["L", "N", r"\hat{p}", "y_{n}"]),  # n is bound by the sum
    (r"\mathcal{L}_{DPO} = -\mathbb{E}_{(x, y_w, y_l) \sim D}[\log \sigma(\beta \log \pi_\theta(y_w|x))]",
     [r"\mathcal{L}_{DPO}", "D", r"\sigma", r"\beta", r"\pi_{\theta}", "y_{w}"]),              # x bound by the E
    (r"FL(p_t) = -\alpha_t (1 - p_t)^\gamma \log(p_t)", ["F", "L", "p_{t}", r"\alpha_{t}", r"\gamma"]),  # an exponent
    (r"E_A = \frac{1}{1 + 10^{(R_B - R_A)/400}}", ["E_{A}", "R_{B}", "R_{A}"]),                # inside a power
    (r"L = \sum_{k=1}^{K} \exp(z_{n, y_n}) + e^{-x^2/2}", ["L", "K", "z", "y_{n}", "x"]),     # subscripts, e
    (r"h = x^{(i)} W^T + \beta_1^t", ["h", "x", "W", r"\beta_{1}", "t"]),                      # marks, powers
    (r"y = 0.5\,x\,(1 + \tanh(\sqrt{2/\pi}\,(x + 0.044715\,x^3)))", ["y", "x"]),           # pi the constant
    (r"M_{ij} = 0 \text{ if key } j \text{ is visible to query } i", ["M_{ij}"]),           # i, j indices
    ("y = γ ⊙ x̂ + β, σ² = 1", ["y", r"\gamma", r"\hat{x}", r"\beta", r"\sigma"]),          # Unicode
])
def test_symbols_of_real_equations(equation, expected):
    assert latex.symbols(equation) == expected


def test_symbol_table_keys_are_read_like_the_equation():
    equation = r"D = \log\frac{\sigma_2}{\sigma_1} + \frac{\sigma_1^2 + (\mu_1 - \mu_2)^2}{2\sigma_2^2} - \frac{1}{2}"
    assert latex.uncovered(equation, ["D", "μ₁", "\\mu_2", "\\boldsymbol{\\sigma}_1", "σ₂"]) == []
    assert latex.uncovered(equation, ["D", "mu1", "mu2", "sigma1", "sigma2"]) == [
        r"\sigma_{2}", r"\sigma_{1}", r"\mu_{1}", r"\mu_{2}"]  # words are not LaTeX symbols
    assert latex.uncovered(r"y_w - y_l", ["y"]) == []  # a base letter covers its labelled symbols


@pytest.mark.parametrize("equation, keys, dimensions, missing", [
    (r"\mu = \frac{1}{N}\sum_{i=1}^{N} x_i", [r"\mu", "x"], ["N", "d"], []),     # a mean's N: a shape's dimension
    (r"\mu = \frac{1}{N}\sum_{i=1}^{N} x_i", [r"\mu", "x"], ["n", "d"], ["N"]),  # n is not N
    (r"s = \sum_{j=1}^{d} x_j^2", ["s", "x"], ["d"], []),
    (r"p = \prod_{k=1}^{K} q_k", ["p", "q"], ["K"], []),
    (r"p = \prod^{K}_{k=1} q", ["p", "q"], ["K"], []),                               # limits in either order
    (r"y = \frac{x}{\sqrt{d_k}}", ["x", "y"], ["n", "d_k"], []),                       # d_k spells d_{k}
    (r"y = \frac{x}{\sqrt{d_k}}", ["x", "y"], ["n", "d"], ["d_{k}"]),                  # a dimension covers only itself
    (r"y = \hat{x} + x", ["x", "y"], ["x"], []),                                      # (a base letter still covers)
])
def test_sizes_are_declared_by_a_row_or_by_a_dimension_of_a_shape(equation, keys, dimensions, missing):
    assert latex.uncovered(equation, keys, dimensions) == missing


def test_same_equation_ignores_spacing_not_content():
    a = r"y = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}"
    assert latex.same_equation(a, a.replace(" ", "") + r"\,")
    assert latex.same_equation(a, r"y = \frac{-\mu + x}{\sqrt{\epsilon + \sigma^2}}")   # the terms reordered
    assert not latex.same_equation(a, r"y = \frac{x}{\sqrt{\sigma^2 + \epsilon}}")


def test_hostile_latex_is_refused_not_crashing():
    with pytest.raises(latex.LatexError):
        latex.symbols("{" * 3000 + "x" + "}" * 3000)
    with pytest.raises(latex.LatexError):
        latex.symbols("x" * 5000)


# -- mutation.py: mutants made with ast ------------------------------------------------------------------------------

SOURCE = '''def normalise(x, w):
    """The docstring stays as it is."""
    x = np.asarray(x, dtype=float)
    z = np.exp(x - x.max(axis=-1, keepdims=True)) @ w.T
    return z / z.sum(axis=-1, keepdims=True) - 1
'''


def test_mutants_make_each_kind_of_change_once_and_deterministically():
    found = mutants(SOURCE)
    assert [m.source for m in found] == [m.source for m in mutants(SOURCE)]
    assert len({m.source for m in found}) == len(found)
    kinds = " | ".join(m.description for m in found)
    for kind in ("operator changed to `+`", "a term dropped", "a factor dropped", "`exp` changed to `log`",
                 "`exp` dropped", "`sum` changed to `mean`", "`max` changed to `min`", "the axis changed",
                 "keepdims changed", "a transpose dropped", "a constant changed", "operator changed to `*`"):
        assert kind in kinds, kind
    assert all('"""The docstring stays as it is."""' in m.source for m in found)
    assert any("axis=0" in m.source for m in found) and any(".mean(axis=-1" in m.source for m in found)
    assert len(mutants(SOURCE, limit=5)) == 5


def test_decoys_compute_the_same_from_other_source_and_bytecode():
    found = decoys(SOURCE)
    assert len(found) >= 3 and len({d.source for d in found}) == len(found)
    namespace = {"np": np}
    exec(SOURCE, namespace)  # noqa: S102 - our own text
    x, w = np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([[1.0, 0.0], [2.0, 1.0]])
    for decoy in found:
        scope = {"np": np}
        exec(decoy.source, scope)  # noqa: S102 - our own text
        assert np.array_equal(scope["normalise"](x, w), namespace["normalise"](x, w)), decoy.description
        assert scope["normalise"].__code__.co_code != namespace["normalise"].__code__.co_code or \
            scope["normalise"].__code__.co_varnames != namespace["normalise"].__code__.co_varnames, decoy.description


# -- strength.py: the share of mutants a test kills ------------------------------------------------------------------

def _entry(inputs):
    """An entry whose symbols are the inputs, each with dimensions of its own."""
    symbols = {name: ("", tuple(f"{name}_{i}" for i in range(np.ndim(v))), name) for name, v in inputs.items()}
    return {"inputs": inputs, "symbols": symbols | {"y": ("", (), "return")}}


def _judge(implementation, test, entry):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return judge(implementation, test, entry, np.random.default_rng(0))


@pytest.mark.slow  # five judgements, each with its search trial
def test_a_strong_test_kills_every_mutant_a_weak_one_few():
    entry = read_entry(CORPUS["RMS_NORM"])
    strong = _judge(CORPUS["rms_norm"], CORPUS["test_rms_norm"], entry)
    assert strong.share == 1.0 and strong.counted > 10 and not strong.survivors
    for weak in ("test_runs_only", "test_asserts_true", "test_shape_only"):
        found = _judge(CORPUS["rms_norm"], CORPUS[weak], entry)
        assert found.share < 0.5 and found.counted == strong.counted and len(found.survivors) > 5, weak
    partial = _judge(CORPUS["rms_norm"], CORPUS["test_example_only_with_ones"], entry)
    assert 0.3 < partial.share < 1.0


def _flip(x):
    return -np.asarray(x, dtype=float)


def dead_arithmetic(x):
    unused = np.asarray(x, dtype=float) * 2.0 + 1.0  # noqa: F841 - computed, never used
    return _flip(x)


def check_nothing():
    dead_arithmetic([2.0, -3.0])


def test_dead_arithmetic_is_too_little_to_judge_not_full_marks():
    found = _judge(dead_arithmetic, check_nothing, _entry({"x": [2.0, -3.0]}))
    assert found.mutants >= 4 and found.changed == 0 and found.share == 0.0  # once: full marks


def looping(x):
    total = 0.0
    i = 0
    while i < 3:
        total += x
        i += 1
    return total


def check_looping():
    assert looping(2.0) == 6.0


def test_a_mutant_that_never_ends_is_stopped_and_counts_as_killed():
    found = _judge(looping, check_looping, _entry({"x": 2.0}))
    assert found.killed == found.counted - 1 > 0 and found.limit == 2.0  # all but the pinned: it checks one input


def test_probes_keep_kinds_labels_and_infinities_and_grow_the_declared_shapes():
    inputs = {"x": [[1.0, -2.0, 0.0]], "mask": [[True, False, True]], "y": [0, 2], "eps": 0.5,
              "m": [[0.0, -np.inf]], "t": [1.0, 0.0, 1.0], "n": 3}
    symbols = {"x": ("", ("b", "d"), "x"), "M": ("", ("b", "d"), "mask"), "y": ("", ("b2",), "y"),
               "e": ("", (), "eps"), "m": ("", ("b", 2), "m"), "t": ("", ("d",), "t"), "n": ("", (), "n"),
               "r": ("", ("b", "d"), "return")}
    found = probes({"inputs": inputs, "symbols": symbols}, np.random.default_rng(1))
    assert found[0] is inputs and len(found) == 7
    for varied in found[1:4]:
        assert np.shape(varied["x"]) == (1, 3) and varied["mask"] == inputs["mask"] and varied["y"] == [0, 2]
        assert isinstance(varied["eps"], float) and np.isneginf(varied["m"][0][1]) and varied["t"] == inputs["t"]
    assert np.all(np.sign(found[1]["x"]) == np.sign(inputs["x"]))
    assert not np.allclose(found[1]["x"], inputs["x"]) and not math.isclose(found[1]["eps"], 0.5)
    for drawn in found[4:]:
        b, d = np.shape(drawn["x"])
        assert b >= 1 and d >= 3 and np.shape(drawn["mask"]) == (b, d) and drawn["mask"].dtype == bool
        assert set(np.unique(drawn["y"])) <= {0, 2} and drawn["y"].dtype.kind == "i"
        assert set(np.unique(drawn["t"])) <= {0.0, 1.0} and np.shape(drawn["t"]) == (d,)  # labels stay labels
        assert drawn["n"] == 3 and np.shape(drawn["m"]) == (b, 2)
    assert any(np.shape(drawn["x"]) != (1, 3) for drawn in found[4:])


def slow_double(x):
    x = np.asarray(x, dtype=float)
    return 2.0 * x + 0.0 * x


def check_slowly():
    __import__("time").sleep(0.6)
    assert np.allclose(slow_double([1.0, -2.0]), [2.0, -4.0])


@pytest.mark.slow  # waits out time limits
def test_a_test_cut_off_by_a_time_limit_is_told_so(monkeypatch):
    from reading_maths.kit import build, strength, strength_case

    monkeypatch.setattr(strength, "MUTANT_LIMIT", 0.3)  # the limit of a run on a mutant or a decoy
    monkeypatch.setattr(strength, "SLOWDOWN", 0.1)
    found = _judge(slow_double, check_slowly, _entry({"x": [1.0, -2.0]}))
    assert found.decoy_timed_out == 0.3 and not found.decoy_failed and found.share == 0.0
    entry = {"paper": "p", "equation": "y = 2x", "symbols": {"x": ("x", ("n",), "x"), "y": ("y", ("n",), "return")},
             "example": {"inputs": {"x": [1.0, -2.0]}, "output": [2.0, -4.0]}}
    with pytest.raises(AssertionError, match="stopped after 0.3 s, the time limit of one run") as told:
        names = {"entry_1": entry, "implementation_1": slow_double, "test_1": check_slowly}
        strength_case.strong(build._Entry(1, names), 0.5, 1)
    assert "judges" not in str(told.value)


TRIAL_PROGRAM = '''import os
def double(x):
    return 2 * x
def test_double():
    left = sorted(os.listdir("."))  # what earlier trials left in the working folder: nothing
    open("left-by-the-test", "w").close()
    assert double(3) == 6
    return left
'''


@pytest.mark.slow  # forks this process for each trial
def test_forked_trials_start_in_an_empty_folder_and_leave_none_behind(tmp_path):
    """A trial of functions of this process runs in a fresh working folder of its own, removed after it."""
    path = tmp_path / "trial_program.py"
    path.write_text(TRIAL_PROGRAM)
    program = runpy.run_path(str(path))
    before = set(Path(tempfile.gettempdir()).glob("reading-maths-trial-*"))
    runs = [("def double(x):\n    return 2 * x\n", 5.0), ("def double(x):\n    return x + x\n", 5.0)]
    outcomes = list(run_fresh(program["double"], [(program["test_double"], {})], runs))
    assert outcomes == [[("value", [])], [("value", [])]]  # each trial saw an empty folder
    assert set(Path(tempfile.gettempdir()).glob("reading-maths-trial-*")) <= before
