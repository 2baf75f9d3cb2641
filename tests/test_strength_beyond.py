"""Strength is what a test adds beyond the hand-worked example, and a copy of the implementation used as the
oracle catches nothing: the pinned and blind mutants, and twins of every shape put in the mutant's place.

Each test judges a real function with a real student test (the ``checks_...`` functions) through
:func:`reading_maths.kit.strength.judge` (its trials forked from this process, as the pytest driver grades them).
"""

import math
import warnings

import numpy as np
import pytest
import strength_spoiler

from reading_maths.kit.blind_spots import PINNED
from reading_maths.kit.mutation import pairs
from reading_maths.kit.strength import WATCHED, judge


def softplus(x, beta=1.0):
    x = np.asarray(x, dtype=float)
    return np.log1p(np.exp(beta * x)) / beta


ENTRY = {"inputs": {"x": [0.0, 1.0], "beta": 1.0}, "output": [0.6931, 1.3133],
         "symbols": {"x": ("", ("n",), "x"), "b": ("", (), "beta"), "y": ("", ("n",), "return")}}


def softplus_again(values, sharpness=1.0):  # a twin: other names, called by position
    return np.array([math.log(1 + math.exp(sharpness * v)) / sharpness for v in values])


def checks_by_hand_only_the_example():
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)


def checks_by_hand_two_cases():
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)
    assert np.allclose(softplus([-2.0, 3.0], beta=2.0), [0.00907, 3.00124], atol=1e-3)
    assert np.allclose(softplus([50.0]), [50.0])


def checks_against_a_twin_by_position():
    for x in ([0.3, -1.0], [2.0, 0.5, -0.25]):
        assert np.allclose(softplus(x), softplus_again(x))


def checks_against_a_nested_twin_with_a_closure():
    scale = 1.0

    def reference(x, beta=1.0):  # reads `scale` from the test: a closure the swap must keep
        return np.log(1 + np.exp(scale * beta * np.asarray(x))) / beta

    assert np.allclose(softplus([0.3, -1.0], beta=2.0), reference([0.3, -1.0], beta=2.0))


def checks_against_a_keyword_only_twin():
    def reference(*, x, **options):
        return np.logaddexp(0.0, np.asarray(x) * options.get("beta", 1.0)) / options.get("beta", 1.0)

    assert np.allclose(softplus([0.3, -1.0], beta=2.0), reference(x=[0.3, -1.0], beta=2.0))


def checks_against_a_twin_made_while_it_runs():
    made = {}
    exec("import numpy as np\ndef again(x, beta=1.0):\n    return np.log1p(np.exp(beta * np.asarray(x))) / beta\n",  # noqa: S102
         made)
    assert np.allclose(softplus([0.3, -1.0]), made["again"]([0.3, -1.0]))


def exact_gelu(x):  # the exact GELU: an independent formula the approximation is tested against
    return np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in np.asarray(x, dtype=float)])


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def checks_gelu_by_hand_and_against_the_exact_formula():
    assert np.allclose(gelu([-1.0, 0.0, 1.0, 2.0]), [-0.1588, 0.0, 0.8412, 1.9546], atol=1e-3)
    assert np.allclose(gelu([10.0, -10.0, 0.5]), [10.0, 0.0, 0.3457], atol=1e-3)
    assert np.allclose(gelu([-3.0, 0.7, 2.5]), exact_gelu([-3.0, 0.7, 2.5]), atol=1e-3)


GELU = {"inputs": {"x": [-1.0, 0.0, 1.0, 2.0]}, "output": [-0.1588, 0.0, 0.8412, 1.9546],
        "symbols": {"x": ("", ("n",), "x"), "y": ("", ("n",), "return")}}


def _judge(implementation, test, entry=ENTRY):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return judge(implementation, test, entry, np.random.default_rng(0))


@pytest.mark.slow
def test_the_example_alone_misses_the_pinned_mutant_and_a_second_case_kills_it():
    alone, two = _judge(softplus, checks_by_hand_only_the_example), _judge(softplus, checks_by_hand_two_cases)
    assert alone.pinned and not alone.pinned_killed and alone.blind_share == 0.0
    assert PINNED in alone.survivors
    assert two.pinned_killed and two.blind_share == 1.0 and two.share == 1.0, two.survivors


@pytest.mark.slow
@pytest.mark.parametrize("test", [checks_against_a_twin_by_position, checks_against_a_nested_twin_with_a_closure,
                                  checks_against_a_keyword_only_twin])
def test_a_twin_of_any_shape_is_the_mutant_in_every_trial(test):
    found = _judge(softplus, test)
    assert found.twins and not found.twins_unknown
    assert found.share < 0.5, found.survivors  # what it kills, it kills through the twin's own defaults


@pytest.mark.slow
def test_a_twin_made_while_the_test_runs_leaves_the_test_unjudged():
    found = _judge(softplus, checks_against_a_twin_made_while_it_runs)
    assert found.twins_unknown and found.share == 0.0


@pytest.mark.slow
def test_an_independent_formula_close_to_the_implementation_costs_only_its_own_comparison():
    found = _judge(gelu, checks_gelu_by_hand_and_against_the_exact_formula, GELU)
    assert found.twins == ["exact_gelu"]  # within 5 % of the approximation: put in the mutant's place
    assert found.share == 1.0 and found.blind_share == 1.0, found.survivors  # the hand-worked cases kill them all


def test_pairs_of_changes_are_made_inside_one_another():
    source = "def f(x, a=2.0):\n    return (x + 1.0) * a\n"
    made = {m.source.splitlines()[-1].strip() for m in pairs(source, 100)}
    assert "return (x - 2.0) * a" in made  # the outer change keeps the inner one
    assert all("def f(x, a=" in m.source for m in pairs(source, 100))



@pytest.mark.slow
def test_a_program_that_spoils_the_swap_gains_nothing():
    found = _judge(strength_spoiler.softplus, strength_spoiler.checks_against_a_twin)
    assert found.twins == ["softplus_again"] and found.share == 0.0  # each mutant is then the original


def checks_through_a_helper_that_calls_the_implementation():
    def run(x, beta=1.0):  # the implementation, called through a helper: no copy of it
        return softplus(np.asarray(x, dtype=float), beta)

    assert np.allclose(run([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)
    assert np.allclose(run([-2.0, 3.0], beta=2.0), [0.00907, 3.00124], atol=1e-3)


def large_input_limit(x, beta=1.0):  # softplus(x) is x for large x: true only there
    return np.asarray(x, dtype=float)


def checks_against_a_special_case_that_holds_where_used():
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)
    assert np.allclose(softplus([40.0, 60.0], beta=2.0), large_input_limit([40.0, 60.0], beta=2.0))
    assert np.allclose(softplus([-2.0, 3.0], beta=2.0), [0.00907, 3.00124], atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("test", [checks_through_a_helper_that_calls_the_implementation,
                                  checks_against_a_special_case_that_holds_where_used])
def test_a_helper_is_no_copy_when_it_calls_the_implementation_or_differs_on_other_inputs(test):
    found = _judge(softplus, test)
    assert not found.twins and found.share == 1.0 and found.blind_share == 1.0, (found.twins, found.survivors)


def checks_the_example_and_a_hair_beside_it():
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)
    assert np.allclose(softplus([1e-9, 1.0 + 1e-9]), [0.6931, 1.3133], atol=1e-3)


def checks_the_example_and_how_the_implementation_is_made():
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)
    assert "_rm_original" not in softplus.__code__.co_names  # the pinned mutant's make


def checks_with_a_twin_it_hides_when_watched():
    import sys
    if sys.getprofile() is not None:  # watched: the twin is never called, and the test fails
        raise AssertionError("watched")
    assert np.allclose(softplus([0.3, -1.0]), softplus_again([0.3, -1.0]))


def checks_the_example_slowly_in_trials():
    if "trial" in __import__("os").getcwd():  # slow only where the trials run: mutants would be stopped, "caught"
        __import__("time").sleep(0.6)
    assert np.allclose(softplus([0.0, 1.0]), [0.6931, 1.3133], atol=1e-3)


@pytest.mark.slow
def test_the_example_within_its_written_precision_is_still_the_example():
    found = _judge(softplus, checks_the_example_and_a_hair_beside_it)
    assert not found.pinned_killed and found.blind_share == 0.0


@pytest.mark.slow
def test_a_test_that_looks_for_the_pinned_mutants_make_earns_nothing():
    found = _judge(softplus, checks_the_example_and_how_the_implementation_is_made)
    assert (found.decoy_failed or found.twins_unknown) and found.share == 0.0


@pytest.mark.slow
def test_a_test_that_fails_while_watched_fails_a_decoy():
    found = _judge(softplus, checks_with_a_twin_it_hides_when_watched)
    assert found.decoy_failed == WATCHED and found.share == 0.0  # the watched run computes what the implementation does


@pytest.mark.slow  # waits out time limits
def test_a_test_slow_only_in_trials_is_too_slow_on_the_decoys(monkeypatch):
    from reading_maths.kit import strength

    monkeypatch.setattr(strength, "MUTANT_LIMIT", 0.3)
    found = _judge(softplus, checks_the_example_slowly_in_trials)
    assert found.decoy_timed_out == 0.3 and found.share == 0.0
