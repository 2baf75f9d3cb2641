"""The proof puzzle for E[m_t] = E[g_t](1 - beta1^t), graded as a dependency graph (Proof Blocks).

The step texts are in the notebook (``puzzle_m_steps``, a read-only cell); what depends on what,
and why each distractor is wrong, is grader knowledge and lives here.  Scoring: with N = 7 true
steps and ``edits`` the Proof Blocks edit distance (reading_maths.kit.proofblocks), case k (k = 1..N,
one point each) passes when ``edits <= N - k`` (``Puzzle.check``), so the score is
``max(0, N - edits)`` points, that is ``N * max(0, 1 - edits / N)``.
"""

OK_FORMAT = False
name = "puzzle_m"


from otter.test_files import test_case

from reading_maths.kit import reference
from reading_maths.kit.proofblocks import Puzzle

REF = reference("proofs")

PUZZLE = Puzzle(
    needs={
        "C": (),            # the unrolled form
        "F": ("C",),        # expectations, by linearity
        "A": (),            # stationarity
        "J": ("F", "A"),    # substitute and pull E[g_t] out
        "H": (),            # the geometric series
        "D": ("J", "H"),    # E[m_t] = E[g_t](1 - beta1^t)
        "G": ("D",),        # the hat divides it out
    },
    facts={
        "C": "the unrolled form m_t = (1 - β₁) Σ β₁^(t-i) g_i",
        "F": "E[m_t] written as a sum of the E[g_i]",
        "A": "that every E[g_i] equals E[g_t] (stationarity)",
        "J": "E[m_t] = E[g_t] (1 - β₁) Σ β₁^(t-i)",
        "H": "the value of the geometric sum (1 - β₁) Σ β₁^(t-i)",
        "D": "E[m_t] = E[g_t] (1 - β₁^t)",
        "G": "why m̂_t = m_t / (1 - β₁^t) is unbiased",
    },
    distractors={
        "B": "count the terms of the sum: the powers β₁^(t-i) run from β₁^0 up to β₁^(t-1), not β₁^t.",
        "E": "taking the expectation of a sum needs no independence; which property of E does the job?",
        "I": "1/(1 - β₁) is the sum of infinitely many powers of β₁; this sum stops after t terms.",
        "K": "check the power of β₁: the geometric sum has t terms, so what power appears?",
    },
)
assert set(PUZZLE.labels) == set(REF.puzzle_m_steps), "the notebook's steps and the grader's DAG disagree"


@test_case(name="within_6_edits", points=1, hidden=False)
def within_6_edits(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=6)


@test_case(name="within_5_edits", points=1, hidden=False)
def within_5_edits(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=5)


@test_case(name="within_4_edits", points=1, hidden=False)
def within_4_edits(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=4)


@test_case(name="within_3_edits", points=1, hidden=False)
def within_3_edits(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=3)


@test_case(name="within_2_edits", points=1, hidden=False)
def within_2_edits(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=2)


@test_case(name="within_1_edit", points=1, hidden=False)
def within_1_edit(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=1)


@test_case(name="correct_proof", points=1, hidden=False)
def correct_proof(puzzle_m):
    PUZZLE.check(puzzle_m, "puzzle_m", edits_allowed=0)
