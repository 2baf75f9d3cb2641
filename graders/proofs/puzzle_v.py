"""The proof puzzle for E[v_t] = E[g_t²](1 - beta2^t), graded as a dependency graph (Proof Blocks).

The second half of the bias-correction puzzle: puzzle_m's proof for the second moment, with β₂ and
the squared gradients.  The step texts are in the notebook (``puzzle_v_steps``); the DAG and why
each distractor is wrong live here.  The distractors are the mistakes specific to v_t: the square of
the sum instead of the sum of the squares, β₁ instead of β₂, the square of the mean instead of the
mean of the square, the off-by-one power, 1 - β₂ instead of 1 - β₂^t, and the square root taken
through the expectation.  Scoring as in puzzle_m: with N = 7 true steps, case k (k = 1..N, one point
each) passes when ``edits <= N - k`` (``Puzzle.check``), so the score is ``max(0, N - edits)``.
"""

OK_FORMAT = False
name = "puzzle_v"


from otter.test_files import test_case

from reading_maths.kit import reference
from reading_maths.kit.proofblocks import Puzzle

REF = reference("proofs")

PUZZLE = Puzzle(
    needs={
        "E": (),            # the unrolled form, with β₂ and g_i²
        "G": ("E",),        # expectations, by linearity
        "B": (),            # stationarity of E[g_i²]
        "L": ("G", "B"),    # substitute and pull E[g_t²] out
        "J": (),            # the geometric series
        "C": ("L", "J"),    # E[v_t] = E[g_t²](1 - β₂^t)
        "I": ("C",),        # the hat divides it out
    },
    facts={
        "E": "the unrolled form v_t = (1 - β₂) Σ β₂^(t-i) g_i²",
        "G": "E[v_t] written as a sum of the E[g_i²]",
        "B": "that every E[g_i²] equals E[g_t²] (stationarity)",
        "L": "E[v_t] = E[g_t²] (1 - β₂) Σ β₂^(t-i)",
        "J": "the value of the geometric sum (1 - β₂) Σ β₂^(t-i)",
        "C": "E[v_t] = E[g_t²] (1 - β₂^t)",
        "I": "why v̂_t = v_t / (1 - β₂^t) is unbiased",
    },
    distractors={
        "A": "the square of the mean is not the mean of the square: E[g²] = E[g]² + Var(g). "
             "Stationarity says every E[g_i²] is the same number E[g_t²].",
        "D": "v_t sums the squares g_i², it is not the square of a sum: E[(Σ …)²] has cross terms "
             "E[g_i g_j] that v_t never contains. Take expectations of the unrolled form term by term.",
        "F": "v_t has its own decay rate: v_t = β₂ v_{t-1} + (1 - β₂) g_t² unrolls with β₂; "
             "β₁ belongs to m_t.",
        "H": "check the power of β₂: the geometric sum has t terms, so what power appears?",
        "K": "the correction divides by 1 - β₂^t, with the power t; 1 - β₂ is that factor only at t = 1.",
        "M": "the square root does not pass through an expectation (E[√X] ≤ √E[X]); the claim is "
             "about v̂_t itself, E[v̂_t] = E[g_t²].",
    },
)
assert set(PUZZLE.labels) == set(REF.puzzle_v_steps), "the notebook's steps and the grader's DAG disagree"


@test_case(name="within_6_edits", points=1, hidden=False)
def within_6_edits(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=6)


@test_case(name="within_5_edits", points=1, hidden=False)
def within_5_edits(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=5)


@test_case(name="within_4_edits", points=1, hidden=False)
def within_4_edits(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=4)


@test_case(name="within_3_edits", points=1, hidden=False)
def within_3_edits(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=3)


@test_case(name="within_2_edits", points=1, hidden=False)
def within_2_edits(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=2)


@test_case(name="within_1_edit", points=1, hidden=False)
def within_1_edit(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=1)


@test_case(name="correct_proof", points=1, hidden=False)
def correct_proof(puzzle_v):
    PUZZLE.check(puzzle_v, "puzzle_v", edits_allowed=0)
