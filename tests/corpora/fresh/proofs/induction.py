"""Correct base case / hypothesis / inductive step, written differently from the reference."""
RIGHT = {
    "expanded, caret powers, index j": {
        "base_case": "g(1) - beta1*g(1)",
        "hypothesis": "Sum((1 - beta1)*beta1^(k - j)*g(j), (j, 1, k))",
        "inductive_step": "(1 - beta1)*Sum(beta1^(k + 1 - j)*g(j), (j, 1, k)) + (1 - beta1)*g(k + 1)",
    },
    "the closed form at k+1 as the step": {
        "base_case": "(1 - beta1)*beta1**0*g(1)",
        "hypothesis": "(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))",
        "inductive_step": "(1 - beta1)*Sum(beta1**(k + 1 - i)*g(i), (i, 1, k + 1))",
    },
    "reindexed sums (j = k - i)": {
        "base_case": "Sum((1 - beta1)*beta1**(1 - i)*g(i), (i, 1, 1))",
        "hypothesis": "(1 - beta1)*Sum(beta1**j*g(k - j), (j, 0, k - 1))",
        "inductive_step": "beta1*(1 - beta1)*Sum(beta1**j*g(k - j), (j, 0, k - 1)) + (1 - beta1)*g(k + 1)",
    },
    "division and distributed factors": {
        "base_case": "(1 - beta1)*g(1)/1",
        "hypothesis": "Sum(beta1**(k - i)*g(i), (i, 1, k)) - beta1*Sum(beta1**(k - i)*g(i), (i, 1, k))",
        "inductive_step": "(1 - beta1)*(Sum(beta1**(k + 1)*g(i)/beta1**i, (i, 1, k)) + g(k + 1))",
    },
}
RIGHT["negative powers and a fully expanded step"] = {
    "base_case": "-(beta1 - 1)*g(1)",
    "hypothesis": "(1 - beta1)*Sum(beta1**k*beta1**(-i)*g(i), (i, 1, k))",
    "inductive_step": "beta1**2*Sum(beta1**(k - i - 1)*g(i), (i, 1, k))*(1 - beta1) + g(k + 1) - beta1*g(k + 1)",
}
