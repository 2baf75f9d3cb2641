"""Formulas for the induction: equivalent forms keep full marks, wrong ones lose points."""

BASE = "(1 - beta1)*g(1)"
HYP = "(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"
STEP = "beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"


def env(base=BASE, hyp=HYP, step=STEP):
    return {"base_case": base, "hypothesis": hyp, "inductive_step": step}


RIGHT = {
    "reference": env(),
    "expanded_base": env(base="g(1) - beta1*g(1)"),
    "base_as_formula_at_1": env(base="(1 - beta1)*Sum(beta1**(1 - i)*g(i), (i, 1, 1))"),
    "factor_inside_sum": env(hyp="Sum((1 - beta1)*beta1**(k - i)*g(i), (i, 1, k))"),
    "reindexed_sum": env(hyp="(1 - beta1)*Sum(beta1**j*g(k - j), (j, 0, k - 1))"),
    "caret_power": env(hyp="(1-beta1)*Sum(beta1^(k-i)*g(i),(i,1,k))"),
    "step_as_target": env(step="(1 - beta1)*Sum(beta1**(k + 1 - i)*g(i), (i, 1, k + 1))"),
    "step_beta_inside": env(step="(1 - beta1)*Sum(beta1**(k - i + 1)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"),
    "step_expanded": env(step="beta1*Sum(beta1**(k-i)*g(i),(i,1,k)) - beta1**2*Sum(beta1**(k-i)*g(i),(i,1,k))"
                              " + g(k+1) - beta1*g(k+1)"),
    "step_reindexed": env(step="(1 - beta1)*Sum(beta1**j*g(k + 1 - j), (j, 0, k))"),
}

WRONG = {
    "m0_is_g0": (env(base="beta1*g(0) + (1 - beta1)*g(1)"), "not m_0 = g_0"),
    "base_without_factor": (env(base="g(1)"), "enters with the factor (1 - β₁)"),
    "base_without_gradient": (env(base="1 - beta1"), "has no gradient in it"),
    "base_zero": (env(base="beta1*0"), "m_1 is not 0"),
    "hyp_power_off_by_one": (env(hyp="(1 - beta1)*Sum(beta1**(k - i + 1)*g(i), (i, 1, k))"), "one too high"),
    "hyp_missing_factor": (env(hyp="Sum(beta1**(k - i)*g(i), (i, 1, k))"), "The factor (1 - β₁)"),
    "hyp_from_zero": (env(hyp="(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 0, k))"), "starts at i = 0"),
    "hyp_in_t": (env(hyp="(1 - beta1)*Sum(beta1**(t - i)*g(i), (i, 1, t))"), "it contains t"),
    "step_no_beta": (env(step="(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"),
                     "multiplies the old average by β₁"),
    "step_missing_factor": (env(step="beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + g(k + 1)"),
                            "enters with the factor (1 - β₁)"),
    "step_wrong_gradient": (env(step="beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k)"),
                            "not g_k"),
    # not catalogued: the grader says which part differs, by comparing structure with sympy
    "hyp_double_coefficient": (env(hyp="2*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"), "coefficient in front"),
    "hyp_power_off_by_two": (env(hyp="(1 - beta1)*Sum(beta1**(k - i + 2)*g(i), (i, 1, k))"), "off by 2"),
    "hyp_stops_early": (env(hyp="(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k - 1))"), "bounds differ"),
    "hyp_exponent_plus_i": (env(hyp="(1 - beta1)*Sum(beta1**(k + i)*g(i), (i, 1, k))"), "exponent differs"),
    "hyp_base_one_minus_beta": (env(hyp="(1 - beta1)*Sum((1 - beta1)**(k - i)*g(i), (i, 1, k))"), "base differs"),
    "hyp_no_sum": (env(hyp="(1 - beta1)*beta1**k*g(k)"), "one sum over i"),
    "step_double_factor": (env(step="beta1*(1 - beta1)**2*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)**2*g(k + 1)"),
                           "one factor (1 - β₁) too many"),
    "base_half": (env(base="(1 - beta1)*g(1)/2"), "coefficient in front"),
    "hostile_import": (env(base="__import__('os').system('true')"), "only these names are allowed"),
    "not_a_string": (env(base=0.1), "should be a string"),
    "underscore_index": (env(hyp="(1 - beta1)*Sum(beta1**(k - i)*g_i, (i, 1, k))"), "'g_i'"),
}

RIGHT.update({
    "base_with_m0_written": env(base="beta1*0 + (1 - beta1)*g(1)"),
    "hyp_pulled_out_power": env(hyp="(1 - beta1)*beta1**k*Sum(beta1**(-i)*g(i), (i, 1, k))"),
    "step_sum_split": env(step="(1 - beta1)*(Sum(beta1**(k + 1 - i)*g(i), (i, 1, k)) + g(k + 1))"),
})

RIGHT.update({  # a fresh pair of eyes, each graded in a real notebook too: full marks
    "fresh-caret-and-j-hypothesis-formula-step": env(
        base="g(1) - beta1*g(1)", hyp="(1-beta1) * Sum(beta1^(k-j) * g(j), (j, 1, k))",
        step="(1 - beta1)*Sum(beta1**(k + 1 - i)*g(i), (i, 1, k + 1))"),
    "fresh-factor-inside-sum-split-new-gradient": env(
        base="(1 - beta1)*beta1**0*g(1)", hyp="Sum((1 - beta1)*beta1**(k - i)*g(i), (i, 1, k))",
        step="Sum((1 - beta1)*beta1**(k + 1 - i)*g(i), (i, 1, k)) + g(k + 1) - beta1*g(k + 1)"),
})

RIGHT.update({  # fresh2
    "fresh2-reindexed-from-newest": env(hyp="(1 - beta1)*Sum(beta1**j*g(k - j), (j, 0, k - 1))",
                                        step="(1 - beta1)*Sum(beta1**j*g(k + 1 - j), (j, 0, k))"),
    "fresh2-base-as-one-term-sum": env(base="(1 - beta1)*Sum(beta1**(1 - i)*g(i), (i, 1, 1))"),
    "fresh2-minus-signs-and-division": env(base="-(beta1 - 1)*g(1)",
                                           hyp="-(beta1 - 1)*Sum(beta1**k/beta1**i*g(i), (i, 1, k))",
                                           step="(1-beta1)*(beta1*Sum(beta1**(k-i)*g(i),(i,1,k)) + g(k+1))"),
    "fresh2-new-gradient-first-float-one": env(base="(1.0 - beta1)*g(1)",
                                               step="(1 - beta1)*g(k + 1) + beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"),
})
WRONG.update({
    "fresh2-step-drops-hypothesis-factor": (env(step="beta1*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"),
                                            "step-hypothesis-factor-dropped"),
    "fresh2-step-is-the-hypothesis": (env(step="(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"), "step-is-the-hypothesis"),
    "fresh2-step-without-new-gradient": (env(step="(1 - beta1)*Sum(beta1**(k + 1 - i)*g(i), (i, 1, k))"),
                                         "step-new-gradient-missing"),
    "fresh2-step-powers-not-raised": (env(step="(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k + 1))"), "off by -1"),
    "fresh2-hyp-powers-reversed": (env(hyp="(1 - beta1)*Sum(beta1**i*g(i), (i, 1, k))"), "hypothesis-powers-reversed"),
    "fresh2-hyp-is-m_k_plus_1": (env(hyp="(1 - beta1)*Sum(beta1**(k + 1 - i)*g(i), (i, 1, k + 1))"), "bounds differ"),
    "fresh2-base-weighted-by-beta": (env(base="beta1*g(1)"), "base-weighted-by-beta1"),
    "fresh2-base-g0": (env(base="(1 - beta1)*g(0)"), "base-g0"),
    "fresh2-equation-not-formula": (env(base="m(1) = (1 - beta1)*g(1)"), "base_case-unreadable"),
    "fresh2-implicit-multiplication": (env(base="(1 - beta1)g(1)"), "base_case-unreadable"),
})

RIGHT.update({  # characters whose meaning in a formula is plain: read as the ASCII operator (kit/characters.py)
    "unicode-minus-signs": env(base="(1 − beta1)*g(1)", hyp="(1 − beta1)*Sum(beta1**(k − i)*g(i), (i, 1, k))",
                               step="beta1*(1 − beta1)*Sum(beta1**(k − i)*g(i), (i, 1, k)) + (1 − beta1)*g(k + 1)"),
    "en-dash-and-hyphen-as-minus": env(base="(1 – beta1)*g(1)", hyp="(1 ‐ beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"),
    "times-and-dots": env(base="(1 - beta1)×g(1)", hyp="(1 - beta1)·Sum(beta1**(k - i)⋅g(i), (i, 1, k))"),
    "superscript-powers": env(hyp="(1 - beta1)*Sum(beta1ᵏ⁻ⁱ*g(i), (i, 1, k))",
                              step="beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"
                                   " + 0*beta1²"),
    "line-breaks": env(hyp="(1 - beta1)\n  * Sum(beta1**(k - i)*g(i),\n        (i, 1, k))",
                       step="beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))\r\n+ (1 - beta1)*g(k + 1)"),
    "no-break-and-zero-width-spaces": env(base="(1 -\u00a0beta1)*g(1)", hyp="(1 - beta1)*\u200bSum(beta1**(k - i)*g(i), (i, 1, k))"),
    "full-width-digits-and-brackets": env(base="（１ - beta1）*g(１)"),
})
WRONG.update({  # characters refused, each named so that the student can find it
    "em-dash": (env(base="(1 — beta1)*g(1)"), "U+2014 EM DASH (—): type - instead"),
    "smart-quotes": (env(base="‘(1 - beta1)*g(1)’"), "U+2018 LEFT SINGLE QUOTATION MARK (‘): a formula has no quotes"),
    "cyrillic-e-in-beta1": (env(base="(1 - bеta1)*g(1)"), "U+0435 CYRILLIC SMALL LETTER IE (е): type e instead"),
    "greek-beta": (env(base="(1 - β1)*g(1)"), "U+03B2 GREEK SMALL LETTER BETA (β)"),
    "bullet-as-times": (env(base="(1 - beta1)•g(1)"), "U+2022 BULLET (•): type * instead"),
    "ascii-character-after-a-space": (env(base="(1 - beta1) $ g(1)"), "it contains '$'"),
})
