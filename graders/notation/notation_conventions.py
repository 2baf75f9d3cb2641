"""notation_conventions: silent conventions, abuses of notation, the √d_k derivation and the VAE's equations."""
OK_FORMAT = False
name = "notation_conventions"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_letter, read_answers

REF = reference("notation")
SPEC = REF.CONVENTION_OPTIONS
KEY = read_answers(REF.conventions, SPEC, parse_letter, "conventions").values

TEACH = {
    "softmax_rows": "The paper leaves it unsaid, but softmax is applied to each row separately, one row per "
                    "query, so each query's weights sum to 1: a silent convention step 2 catches.",
    "log_base": "log with no base is, in machine learning, almost always the natural log: an unstated convention.",
    "kl_symmetric": "KL is not symmetric: KL(p || q) and KL(q || p) generally differ (try p = (0.5, 0.5), "
                    "q = (0.9, 0.1)).",
    "var_qk": "Each term q_i k_i has variance E[q_i²] E[k_i²] = 1, and the variances of the d_k independent "
              "terms add up.",
    "std_scores": "The standard deviation is the square root of the variance Var(q·k).",
    "dropping_subscripts": "Writing p(y | x) for p_θ(y | x) hides the θ the model still depends on: which abuse "
                           "stops saying a subscript?",
    "one_letter": "p(x) and p(z) share a letter but are different distributions: the argument's name tells "
                  "you which function is meant.",
    "loose_indices": "The VAE's Eq. (2) drops the (i) on the right but means the same data point: a loose index.",
    "exp_italic": "Italic letters are variables multiplied together (Chamber 1); function names are upright. "
                  "The italic exp is a small slip that context rescues.",
    "marginal": "Integrating the joint p_θ(z) p_θ(x | z) over z leaves a distribution of x alone: the marginal "
                "likelihood.",
    "bayes": "Likelihood times prior, divided by the evidence: Bayes' rule, giving the distribution of z given x.",
    "J": "The VAE uses J in Eq. (10) but only defines it in Appendix B ('Let J be the dimensionality of z'); "
         "Figure 2 calls it N_z. Step 1: look in the appendix.",
    "reparam": "The reparameterisation trick: ε is noise from a fixed distribution, and ⊙ is element-wise.",
}


CONVENTIONS = Items("conventions", SPEC, parse_letter, KEY, TEACH)


@test_case(name="notation_conventions: softmax_rows", points=1, hidden=True)
def case_softmax_rows(conventions):
    CONVENTIONS.judge(conventions, "softmax_rows")


@test_case(name="notation_conventions: log_base", points=1, hidden=True)
def case_log_base(conventions):
    CONVENTIONS.judge(conventions, "log_base")


@test_case(name="notation_conventions: kl_symmetric", points=1, hidden=True)
def case_kl_symmetric(conventions):
    CONVENTIONS.judge(conventions, "kl_symmetric")


@test_case(name="notation_conventions: var_qk", points=1, hidden=True)
def case_var_qk(conventions):
    CONVENTIONS.judge(conventions, "var_qk")


@test_case(name="notation_conventions: std_scores", points=1, hidden=True)
def case_std_scores(conventions):
    CONVENTIONS.judge(conventions, "std_scores")


@test_case(name="notation_conventions: dropping_subscripts", points=1, hidden=True)
def case_dropping_subscripts(conventions):
    CONVENTIONS.judge(conventions, "dropping_subscripts")


@test_case(name="notation_conventions: one_letter", points=1, hidden=True)
def case_one_letter(conventions):
    CONVENTIONS.judge(conventions, "one_letter")


@test_case(name="notation_conventions: loose_indices", points=1, hidden=True)
def case_loose_indices(conventions):
    CONVENTIONS.judge(conventions, "loose_indices")


@test_case(name="notation_conventions: exp_italic", points=1, hidden=True)
def case_exp_italic(conventions):
    CONVENTIONS.judge(conventions, "exp_italic")


@test_case(name="notation_conventions: marginal", points=1, hidden=True)
def case_marginal(conventions):
    CONVENTIONS.judge(conventions, "marginal")


@test_case(name="notation_conventions: bayes", points=1, hidden=True)
def case_bayes(conventions):
    CONVENTIONS.judge(conventions, "bayes")


@test_case(name="notation_conventions: J", points=1, hidden=True)
def case_J(conventions):
    CONVENTIONS.judge(conventions, "J")


@test_case(name="notation_conventions: reparam", points=1, hidden=True)
def case_reparam(conventions):
    CONVENTIONS.judge(conventions, "reparam")
