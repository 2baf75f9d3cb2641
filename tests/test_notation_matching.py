"""The notation and matching assignments: answer formats, malformed answers, cells and points."""

import re
import sys
import warnings

import numpy as np
import pytest

from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.kit import answers, reference
from reading_maths.kit.answers import (
    AnswerFormatError,
    parse_letter,
    parse_shape,
    parse_word,
    read_answers,
    symbol_key,
)
from reading_maths.notebook import grade_id, nbgrader_meta, read_notebook

WORDS = ("power", "index", "label", "transpose")
VALUE_QUESTIONS = {  # question -> (assignment, student name)
    "notation_dictionary": ("notation", "dictionary"),
    "notation_shapes": ("notation", "shapes"),
    "notation_powers_indices": ("notation", "powers"),
    "notation_overloaded": ("notation", "overloaded"),
    "notation_conventions": ("notation", "conventions"),
    "matching_symbols": ("matching", "match_symbols"),
    "matching_code": ("matching", "match_code"),
}


# -- format forgiveness ----------------------------------------------------------------------

@pytest.mark.parametrize("value", ["b", "B", " b ", "(b)", "b)", "b.", "[B]", "'b'"])
def test_letter_forgives_case_space_brackets(value):
    assert parse_letter(value, "abcd") == "b"


@pytest.mark.parametrize("value, message", [
    ("b, c", "several"), ("bc", "several"), ("b or c", "several"), (["b", "c"], "gives 2"),
    (["b"], "as a string"), ({"b"}, "as a string"), (2, "as a string"), ("e", "one of"), (None, "as a string"),
])
def test_letter_refuses_several_or_other_types(value, message):
    with pytest.raises(AnswerFormatError, match=message):
        parse_letter(value, "abcd")


@pytest.mark.parametrize("value", ["power", "Power ", "POWER", "a power", "exponent", " power."])
def test_word_forgives(value):
    assert parse_word(value, WORDS) == "power"


@pytest.mark.parametrize("value", ["power/index", "pow", 1, None, ["power"]])
def test_word_refuses(value):
    with pytest.raises(AnswerFormatError):
        parse_word(value, WORDS)


@pytest.mark.parametrize("value", [("n", "m"), ["n", "m"], "(n, m)", "[n,m]", "n x m", "n × m", "n by m",
                                   "N, M", ("n_q", "n_k"), "(n_q, n_k)"])
def test_shape_forgives_spelling(value):
    assert parse_shape(value) == ("n", "m")


@pytest.mark.parametrize("value, expected", [
    (("n", "d_k"), ("n", "d_k")), (("n", "dk"), ("n", "d_k")),
    ("(N, D_K)", ("n", "d_k")), (("n", "d_{k}"), ("n", "d_k")),
    ("J", ("J",)), (("J",), ("J",)), ("(J,)", ("J",)), ("N_z", ("J",)),
    ((), ()), ([], ()), ("()", ()), ("scalar", ()), ("Scalar", ()),
])
def test_shape_canonical(value, expected):
    assert parse_shape(value) == expected


def test_shape_is_strict_about_order_and_which_dimension():
    assert parse_shape(("m", "n")) != parse_shape(("n", "m"))
    assert parse_shape(("n", "d_k")) != parse_shape(("n", "d_v"))
    for bad in [("n", "d"), "(n, d)", ("n", "k"), (("n", "m"),), "", 3, None, {"n": 1}]:
        with pytest.raises(AnswerFormatError):
            parse_shape(bad)


@pytest.mark.parametrize("spellings", [
    ("β₁ᵗ", "beta1^t", "\\beta_1^t", "β_1^t", "beta_1^{t}"),
    ("∇_θ L", "\\nabla_\\theta L", "nabla_theta L"),
    ("x^{(i)}", "x^(i)", "\\mathbf{x}^{(i)}"),
    ("ỹ^l", "\\tilde{y}^l", "\\widetilde{y}^l".replace("widetilde", "tilde")),
    ("ŷ", "\\hat{y}", "hat y"),
    ("g_t²", "g_t^2", "g_t^{2}"),
    ("θ_{t−1}", "theta_(t-1)", "\\theta_{t-1}"),
    ("⊙", "\\odot", "odot"),
])
def test_symbol_key_unicode_and_latex_agree(spellings):
    assert len({symbol_key(s) for s in spellings}) == 1


def test_read_answers_reports_without_judging():
    spec = {"argmax": "abcd", "nabla": "abcd"}
    reading = read_answers({"ARGMAX": " C ", "∇": "a"}, spec, parse_letter, "d")
    assert reading.values == {"argmax": "c", "nabla": "a"} and not reading.messages()
    reading = read_answers({"argmax": "c", "argmax ": "d", "foo": "a"}, spec, parse_letter, "d")
    text = " ".join(reading.messages())
    assert "twice" in text and "'foo'" in text and "not answered" in text
    for bad in (None, [], "c", 3):
        assert read_answers(bad, spec, parse_letter, "d").general


# -- the notebooks ---------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["notation", "matching"])
def notebook(request):
    return request.param, read_notebook(ROOT / "source" / request.param / f"{request.param}.ipynb")


def test_helper_cell_is_answers_module_verbatim(notebook):
    _, nb = notebook
    cell = next(c for c in nb.cells if grade_id(c) == "answer-format-helpers")
    body = cell.source.split("\n", 1)[1]
    expected = (ROOT / "reading_maths" / "kit" / "answers.py").read_text().rstrip("\n")
    assert body == expected, "paste reading_maths/kit/answers.py into the notebook's answer-format-helpers cell"
    assert nbgrader_meta(cell)["locked"] and not nbgrader_meta(cell)["grade"]


def test_committed_without_outputs(notebook):
    _, nb = notebook
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None


def test_grade_cells_points_equal_grader_totals(notebook):
    assignment, nb = notebook
    a = Assignment(assignment, ROOT)
    cells = {grade_id(c): c for c in nb.cells if nbgrader_meta(c).get("grade")}
    assert a.questions
    for q in a.questions:
        cell = cells[q]
        assert nbgrader_meta(cell)["points"] == a.grader(q).max_score == len(a.grader(q).cases)
        assert f'grade_question("{assignment}", "{q}")' in cell.source
        ids = [grade_id(c) for c in nb.cells]
        i = ids.index(q)
        assert ids[i - 2:i] == [f"{q}-answer", f"{q}-check"]
    if assignment == "notation":
        assert sum(a.grader(q).max_score for q in a.questions) >= 30


def test_check_cells_pass_on_reference_and_never_judge(notebook):
    assignment, nb = notebook
    env = dict(vars(reference(assignment)))
    checks = [c for c in nb.cells if (grade_id(c) or "").endswith("-check")]
    for cell in checks:
        exec(cell.source, env)  # noqa: S102 - the course's own check cell; passes on the reference
    for q, (a, name) in VALUE_QUESTIONS.items():
        if a != assignment:
            continue
        cell = next(c for c in checks if grade_id(c) == f"{q}-check")
        ref = getattr(reference(a), name)
        wrong = {k: ("a" if isinstance(v, str) and len(v) == 1 else ("n", "n") if isinstance(v, tuple) else
                     "label" if isinstance(v, str) else v) for k, v in ref.items()}
        exec(cell.source, {**env, name: wrong})  # noqa: S102 - well-formed but wrong: still passes
        with pytest.raises(AssertionError, match="Fix the format"):
            exec(cell.source, {**env, name: {**ref, next(iter(ref)): ["a", "b"]}})  # noqa: S102


SPECS = {"notation": ["DICTIONARY_OPTIONS", "SHAPE_ITEMS", "POWER_ITEMS", "OVERLOADED_OPTIONS", "CONVENTION_OPTIONS"],
         "matching": ["SYMBOL_ITEMS", "CODE_ITEMS"]}


@pytest.mark.parametrize("assignment", sorted(SPECS))
def test_item_keys_stay_distinct_however_spelt(assignment):
    for spec_name in SPECS[assignment]:
        spec = getattr(reference(assignment), spec_name)
        assert len({symbol_key(str(k)) for k in spec}) == len(spec), spec_name


MALFORMED = [None, 3, "b", ["b"], (), {"x": 1}, {1: {1: 2}}, {object(): object()}, {"a": float("nan")},
             {"": None}, {None: None}]


@pytest.mark.parametrize("question", sorted(VALUE_QUESTIONS))
def test_malformed_answers_get_a_message_not_a_crash(question):
    assignment, name = VALUE_QUESTIONS[question]
    grader = Assignment(assignment, ROOT).grader(question)
    ref = getattr(reference(assignment), name)
    first = next(iter(ref))
    bads = MALFORMED + [{**ref, first: bad} for bad in (["a", "b"], {"a"}, 7.5, object(), ("n", ("m",)))]
    for bad in bads:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            result = grader.run({name: bad})
        assert result.score < result.max_score, bad
        assert result.feedback and not any("could not check" in f for f in result.feedback), (bad, result.feedback)


def test_numpy_items_survive_bad_functions():
    grader = Assignment("notation", ROOT).grader("notation_numpy")
    env = dict(vars(reference("notation")))
    env.update(dot=lambda x, y: "x @ y", norm=None, square=lambda g: {"g": g}, kl=lambda p, q: [p, [q]])
    result = grader.run(env)
    assert result.score == result.max_score - 4
    assert not any("could not check" in f for f in result.feedback)


def test_module_uses_only_standard_library():
    source = (ROOT / "reading_maths" / "kit" / "answers.py").read_text()
    imports = {line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"functools", "re", "unicodedata", "collections", "typing"}, imports  # pylatexenc only if there
    assert answers.__doc__


# -- keys as the prompts' tables print them ----------------------------------------------------

def _table_rows(assignment: str) -> dict[str, list[str]]:
    """The table rows of the notebook's prompts: each key (as in ``'K^T'``) -> the rest of its rows."""
    nb = read_notebook(ROOT / "source" / assignment / f"{assignment}.ipynb")
    rows = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("| `'"):
                    key, rest = line[4:].split("'`", 1)
                    rows.setdefault(key, []).append(rest)
    return rows


def _printed_keys():
    """Every symbol key with the LaTeX the table prints for it, exactly as printed."""
    rows = _table_rows("notation")
    powers = reference("notation").POWER_ITEMS
    for key in powers:  # "the $t$ in $\beta_1^t$": the symbol is the first formula after "in"
        after = rows[key][-1].split(" in ", 1)[1]
        formula = re.findall(r"\$([^$]+)\$", after)[0].split("=")[-1].strip()
        yield pytest.param("powers", key, formula, id=f"powers:{formula}")
    for key in reference("notation").DICTIONARY_OPTIONS:  # the symbol column: "$\theta$ / $\phi$"
        for formula in re.findall(r"\$([^$]+)\$", rows[key][-1].split("|")[1]):
            yield pytest.param("dictionary", key, formula, id=f"dictionary:{formula}")
    for kind, key, formula in [("dictionary", "x~p", r"x \sim p"), ("shapes", "QK^T", "QK^T"),
                               ("shapes", "sqrt(d_k)", r"\sqrt{d_k}"), ("shapes", "q.k", r"q \cdot k"),
                               ("shapes", "K^T", "K^T")]:
        assert any(f"${formula}$" in row for row in rows[key]) or formula == key
        yield pytest.param(kind, key, formula, id=f"{kind}:{formula}")


TABLE_SPECS = {"powers": "POWER_ITEMS", "dictionary": "DICTIONARY_OPTIONS", "shapes": "SHAPE_ITEMS"}
TABLE_ALIASES = {"powers": "POWER_ITEMS_ALIASES", "dictionary": "DICTIONARY_ALIASES"}
TRANSPOSES = [r"^\top", r"^{\top}", r"^\intercal", r"^{\mathsf{T}}", "ᵀ", "^⊤", "^{T}"]


@pytest.mark.parametrize("by_hand", [False, True], ids=["pylatexenc", "notebook-fallback"])
@pytest.mark.parametrize("kind, key, formula", list(_printed_keys()))
def test_every_table_key_is_accepted_as_printed(kind, key, formula, by_hand, monkeypatch):
    """A key typed as the table's LaTeX reads as that key, with pylatexenc and without it."""
    if by_hand:  # as in a student's Python without pylatexenc: the import fails
        monkeypatch.setitem(sys.modules, "pylatexenc.latex2text", None)
    spec = getattr(reference("notation"), TABLE_SPECS[kind])
    aliases = getattr(reference("notation"), TABLE_ALIASES.get(kind, ""), None)
    lookup = {symbol_key(a): k for a, k in {**{k: k for k in spec}, **(aliases or {})}.items()}
    transposed = [formula.replace("^T", t) for t in TRANSPOSES] if "^T" in formula else []
    for spelling in [formula, f"${formula}$", *transposed]:  # and every way of writing a transpose
        assert lookup.get(symbol_key(spelling)) == key, spelling


@pytest.mark.parametrize("spelling", [r"x \sim p", "x ∼ p", "x~p", "$x \\sim p$"])
def test_issue_spellings_of_x_drawn_from_p(spelling):
    assert symbol_key(spelling) == symbol_key("x~p")


@pytest.mark.parametrize("spelling", [r"\widetilde{\mathbf{y}}^{l}", r"\tilde{y}^l", "ỹ^l", "ytilde^l"])
def test_issue_spellings_of_y_tilde(spelling):
    reading = read_answers({spelling: "index"}, reference("notation").POWER_ITEMS, parse_word, "powers",
                           reference("notation").POWER_ITEMS_ALIASES)
    assert reading.values.get("ỹ^l") == "index"


@pytest.mark.parametrize("a, b", [("d_k", "d_v"), ("n", "m"), (r"\beta_1^t", r"\beta_1^{t-i}"), (r"d_{k}", "d"),
                                  (r"\theta_{t-1}", r"\theta_t")])
def test_latex_keys_keep_distinctions(a, b):
    assert symbol_key(a) != symbol_key(b)


# -- placeholder arguments and characters named --------------------------------------------------

def _dictionary_item(key: str) -> str | None:
    notation = reference("notation")
    reading = read_answers({key: "a"}, notation.DICTIONARY_OPTIONS, parse_letter, "dictionary",
                           notation.DICTIONARY_ALIASES)
    return next(iter(reading.values), None)


@pytest.mark.parametrize("by_hand", [False, True], ids=["pylatexenc", "notebook-fallback"])
@pytest.mark.parametrize("key, item", [
    (r"\mathbb{E}[\cdot]", "expectation"), (r"\mathbb{E}[\,\cdot\,]", "expectation"), ("E[.]", "expectation"),
    (r"\mathbb{E}_{x \sim p}[\cdot]", "expectation"), (r"\|\cdot\|", "norm"), ("‖·‖", "norm"), ("||.||", "norm"),
    (r"\lVert \cdot \rVert", "norm"), (r"\|\cdot\|_2", "norm"), (r"\log(\cdot)", "log"), ("log(...)", "log"),
    (r"\mathbb{1}[\cdot]", "indicator"), (r"\mathbb{1}\{\bullet\}", "indicator"), (r"\sum_{i}(\cdot)", "sum_prod"),
    (r"\prod_i(-)", "sum_prod"), (r"\mathrm{KL}(\cdot \| \cdot)", "KL"), (r"\arg\max(\cdot)", "argmax"),
    (r"\nabla(\cdot)", "nabla"), (r"\hat{\cdot}", "hat"), (r"\mathbb{E}\{\cdot\}", "expectation"),
    # a different symbol, or none: still an unknown key
    (r"\|\cdot\|_1", None), (r"|\cdot|", None), (r"f(\cdot)", None), (r"\cdot", None), (r"x \cdot", None),
    (r"\mathbb{\cdot}", None), (r"\tilde{\cdot}", None), ("(.)", None),
])
def test_a_placeholder_argument_names_the_operator_alone(key, item, by_hand, monkeypatch):
    if by_hand:
        monkeypatch.setitem(sys.modules, "pylatexenc.latex2text", None)
    assert _dictionary_item(key) == item


@pytest.mark.parametrize("key", [r"W[\cdot]", r"x^{(\cdot)}", r"\theta(\cdot)", r"\beta_1^{(\cdot)}"])
def test_a_placeholder_never_stands_for_what_tells_items_apart(key):
    notation = reference("notation")
    for spec, aliases in [(notation.SHAPE_ITEMS, None), (notation.POWER_ITEMS, notation.POWER_ITEMS_ALIASES)]:
        assert not read_answers({key: "a"}, spec, lambda v, _: v, "x", aliases).values, key


@pytest.mark.parametrize("ch, named", [
    ("\u2212", "the character U+2212 MINUS SIGN (−)"), ("\u200b", "the character U+200B ZERO WIDTH SPACE"),
    ("\u00a0", "the character U+00A0 NO-BREAK SPACE"), ("\n", "a line break"), ("\u2028", "a line break"),
    ("\t", "a tab"), (";", "';'"), ("\u0435", "the character U+0435 CYRILLIC SMALL LETTER IE (е)"),
    ("\uff11", "the character U+FF11 FULLWIDTH DIGIT ONE (１)"), ("\u201c", "the character U+201C LEFT DOUBLE "
                                                                      "QUOTATION MARK (“)"),
])
def test_characters_are_named_as_a_student_can_find_them(ch, named):
    assert answers.describe(ch) == named


def test_a_lookalike_letter_is_named_in_the_message():
    with pytest.raises(AnswerFormatError, match=r"'а' \(with the character U\+0430 CYRILLIC SMALL LETTER A \(а\)\)"):
        parse_letter("а", "abcd")
    assert parse_letter("b\u200b", "abcd") == "b"  # an invisible character is no character


# -- scripts in either order, amsmath's operators, KL's ∥, bare operators, table formulas, LaTeX's × -------------

def _item(kind: str, key: str) -> str | None:
    notation = reference("notation")
    spec, aliases = {"dictionary": (notation.DICTIONARY_OPTIONS, notation.DICTIONARY_ALIASES),
                     "powers": (notation.POWER_ITEMS, notation.POWER_ITEMS_ALIASES),
                     "shapes": (notation.SHAPE_ITEMS, notation.SHAPE_ITEMS_ALIASES)}[kind]
    return next(iter(read_answers({key: "x"}, spec, lambda v, _: v, kind, aliases).values), None)


@pytest.mark.parametrize("by_hand", [False, True], ids=["pylatexenc", "notebook-fallback"])
@pytest.mark.parametrize("kind, key, item", [
    ("powers", r"\beta^t_1", "beta1^t"), ("powers", r"g^2_t", "g_t^2"), ("powers", r"\beta^{t-i}_1", "beta1^(t-i)"),
    ("powers", "βᵗ₁", "beta1^t"), ("powers", "beta^(t-i)_1", "beta1^(t-i)"), ("powers", r"\epsilon = 10^{-8}", "10^-8"),
    ("powers", r"\beta^t_2", None), ("powers", r"g^t_2", None), ("powers", r"\sigma^2 = 10^{-8}", None),
    ("dictionary", r"\operatorname*{arg\,max}_x f(x)", "argmax"),
    ("dictionary", r"\underset{x}{\arg\max} f(x)", "argmax"),
    ("dictionary", r"\mathop{\arg\max}\limits_x f(x)", "argmax"), ("dictionary", r"\argmax_x f(x)", "argmax"),
    ("dictionary", r"\mathrm{KL}(p \parallel q)", "KL"), ("dictionary", "KL(p ∥ q)", "KL"),
    ("dictionary", r"\mathbb{E}[f(x)]", "expectation"), ("dictionary", r"\nabla L", "nabla"),
    ("dictionary", r"\max_x f(x)", None), ("dictionary", r"\underset{x}{\max} f(x)", None),
    ("dictionary", r"\operatorname*{arg\,min}_x f(x)", None), ("dictionary", r"\mathrm{KL}(q \parallel p)", None),
    ("shapes", "q^T k", "q.k"), ("shapes", "qᵀk", "q.k"), ("shapes", r"q^\top k", "q.k"), ("shapes", "W_0", "W[0]"),
    ("shapes", r"\langle q, k \rangle", "q.k"),
])
def test_keys_typeset_alike_read_alike(kind, key, item, by_hand, monkeypatch):
    if by_hand:
        monkeypatch.setitem(sys.modules, "pylatexenc.latex2text", None)
    assert _item(kind, key) == item


@pytest.mark.parametrize("value, expected", [
    (r"n \times d_k", ("n", "d_k")), (r"$m \times d_v$", ("m", "d_v")), (r"n\times m", ("n", "m")),
    (r"n \cdot m", ("n", "m")), ("n ⋅ m", ("n", "m")), (r"\mathbb{R}^{n \times d_k}", ("n", "d_k")),
    ("ℝ^{m×d_k}", ("m", "d_k")), (r"\mathbb{R}^m", ("m",)),
])
def test_shape_latex_multiplication_signs(value, expected):
    assert parse_shape(value) == expected


@pytest.mark.parametrize("value, message", [
    (r"n \times d", "ambiguous"), (r"\mathbb{R}^{n \times d}", "ambiguous"), (r"n \times k", "not a dimension"),
])
def test_shape_latex_multiplication_keeps_its_refusals(value, message):
    with pytest.raises(AnswerFormatError, match=message):
        parse_shape(value)
