"""notation_shapes: the shape of every symbol of attention (and the VAE's z), in the problem's named dimensions."""
OK_FORMAT = False
name = "notation_shapes"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_shape, read_answers

REF = reference("notation")
SPEC = REF.SHAPE_ITEMS
ALIASES = REF.SHAPE_ITEMS_ALIASES
KEY = read_answers(REF.shapes, SPEC, parse_shape, "shapes", ALIASES).values

TEACH = {
    "Q": "Q packs the queries one per row: n rows, each a query of dimension d_k.",
    "K": "K packs the keys one per row: m rows, each of dimension d_k (the same as the queries, "
         "or the dot products would not be defined).",
    "V": "V has one value per key, so as many rows as K, each value of dimension d_v.",
    "K^T": "The transpose swaps rows and columns: the shape of K, reversed.",
    "QK^T": "Follow the shapes: [n, d_k] @ [d_k, m]; the inner d_k meet and vanish, every query against every key.",
    "S": "Dividing by the scalar √d_k leaves the shape unchanged.",
    "W": "Softmax is applied to each row separately and changes no shape; each row sums to 1.",
    "output": "[n, m] @ [m, d_v]: the weights times the values give one output row per query.",
    "sqrt(d_k)": "d_k is a number (a dimension), so √d_k is a scalar: ().",
    "q.k": "The dot product of two vectors is a single number: a scalar, ().",
    "W[0]": "One row of W holds one query's weights over all the keys: a vector, with one entry per key.",
    "z": "In z = μ + σ ⊙ ε everything is element-wise, so z has the dimensionality of z: J "
         "(the VAE defines J only in Appendix B; Figure 2 calls it N_z).",
}


def _diagnose(given, expected):
    if sorted(given) == sorted(expected) and given != expected:
        return "The dimensions are right but in the wrong order: rows first, then columns."
    for swap, why in (({"n": "m", "m": "n"}, "n counts queries, m counts keys (and values)."),
                      ({"d_k": "d_v", "d_v": "d_k"}, "d_k belongs to queries and keys, d_v to values.")):
        if any(swap.get(d) == e for d, e in zip(given, expected, strict=False)):
            return f"Check which dimension is which: {why}"
    if len(given) != len(expected):
        return "The number of dimensions is off: a scalar is (), a vector has one name, a matrix two."
    return ""


SHAPES = Items("shapes", SPEC, parse_shape, KEY, TEACH, aliases=ALIASES, explain=_diagnose)


@test_case(name="notation_shapes: Q", points=1, hidden=True)
def case_Q(shapes):
    SHAPES.judge(shapes, "Q")


@test_case(name="notation_shapes: K", points=1, hidden=True)
def case_K(shapes):
    SHAPES.judge(shapes, "K")


@test_case(name="notation_shapes: V", points=1, hidden=True)
def case_V(shapes):
    SHAPES.judge(shapes, "V")


@test_case(name="notation_shapes: K^T", points=1, hidden=True)
def case_K_T(shapes):
    SHAPES.judge(shapes, "K^T")


@test_case(name="notation_shapes: QK^T", points=1, hidden=True)
def case_QK_T(shapes):
    SHAPES.judge(shapes, "QK^T")


@test_case(name="notation_shapes: S", points=1, hidden=True)
def case_S(shapes):
    SHAPES.judge(shapes, "S")


@test_case(name="notation_shapes: W", points=1, hidden=True)
def case_W(shapes):
    SHAPES.judge(shapes, "W")


@test_case(name="notation_shapes: output", points=1, hidden=True)
def case_output(shapes):
    SHAPES.judge(shapes, "output")


@test_case(name="notation_shapes: sqrt(d_k)", points=1, hidden=True)
def case_sqrt_d_k(shapes):
    SHAPES.judge(shapes, "sqrt(d_k)")


@test_case(name="notation_shapes: q.k", points=1, hidden=True)
def case_q_k(shapes):
    SHAPES.judge(shapes, "q.k")


@test_case(name="notation_shapes: W[0]", points=1, hidden=True)
def case_W_0(shapes):
    SHAPES.judge(shapes, "W[0]")


@test_case(name="notation_shapes: z", points=1, hidden=True)
def case_z(shapes):
    SHAPES.judge(shapes, "z")
