"""Correct "Build this" entries graded as entry_3: smooth L1 (cases), gradient clipping (min and a norm),
the perceptron update (an indicator), the Dice coefficient (sums with bounds)."""
import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# G. Smooth L1 (Girshick 2015, Fast R-CNN, eqs. (2)-(3)): a piecewise function, np.where
# ---------------------------------------------------------------------------------------------
ENTRY_SMOOTH_L1 = {
    "paper": "Girshick (2015), Fast R-CNN, eqs. (2) and (3): the bounding-box regression loss",
    "equation": r"L = \sum_{i=1}^{4} \mathrm{smooth}_{L_1}(t_i - v_i), \quad \mathrm{smooth}_{L_1}(x) = "
                r"\begin{cases} 0.5 x^2 & \text{if } |x| < 1 \\ |x| - 0.5 & \text{otherwise} \end{cases}",
    "symbols": {
        "L": ("the localisation loss of one box", (), "return"),
        "t": ("the predicted box offsets (x, y, w, h)", (4,), "t"),
        "v": ("the target box offsets (x, y, w, h)", (4,), "v"),
        "x": ("the argument of smooth L1: one difference t_i - v_i", ()),
    },
    "example": {"inputs": {"t": [0.5, 2.0, -0.2, 0.0], "v": [0.0, 0.0, 0.0, 3.0]}, "output": 4.145},
}


def smooth_l1_loss(t, v):
    d = np.asarray(t, dtype=float) - np.asarray(v, dtype=float)      # (4,)
    a = np.abs(d)
    per_coord = np.where(a < 1.0, 0.5 * d ** 2, a - 0.5)               # (4,)
    return float(per_coord.sum())


def test_smooth_l1():
    # the hand-worked example: 0.125 + 1.5 + 0.02 + 2.5
    assert abs(smooth_l1_loss([0.5, 2.0, -0.2, 0.0], [0.0, 0.0, 0.0, 3.0]) - 4.145) < 1e-12
    # a second case by hand: identical boxes cost 0; one coordinate off by 0.4 costs 0.08
    assert smooth_l1_loss([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]) == 0.0
    assert abs(smooth_l1_loss([1.0, 2.0, 3.0, 4.4], [1.0, 2.0, 3.0, 4.0]) - 0.08) < 1e-12
    # far away it is |x| - 0.5, symmetric in the sign of the difference
    assert abs(smooth_l1_loss([10.0, 0.0, 0.0, 0.0], [0.0] * 4) - 9.5) < 1e-12
    assert abs(smooth_l1_loss([0.0, -10.0, 0.0, 0.0], [0.0] * 4) - 9.5) < 1e-12
    # continuous at |x| = 1: both pieces give 0.5
    assert abs(smooth_l1_loss([1.0, 0.0, 0.0, 0.0], [0.0] * 4) - 0.5) < 1e-12
    # random boxes against a loop with if/else
    rng = np.random.default_rng(4)
    for _ in range(4):
        t, v = rng.normal(size=4) * 2, rng.normal(size=4)
        total = 0.0
        for ti, vi in zip(t, v):
            x = ti - vi
            total += 0.5 * x * x if abs(x) < 1 else abs(x) - 0.5
        assert abs(smooth_l1_loss(t, v) - total) < 1e-12


# ---------------------------------------------------------------------------------------------
# H. Gradient clipping by norm (Pascanu, Mikolov and Bengio 2013, Algorithm 1)
# ---------------------------------------------------------------------------------------------
ENTRY_CLIP = {
    "paper": "Pascanu, Mikolov and Bengio (2013), On the difficulty of training recurrent neural networks, "
             "Algorithm 1 (gradient norm clipping), written with a min",
    "equation": r"\tilde{g} = \min\left(1, \frac{\tau}{\lVert g \rVert}\right) g",
    "symbols": {
        "g": ("the gradient of the loss with respect to the parameters", ("d",), "g"),
        r"\tilde{g}": ("the clipped gradient: g rescaled so that its norm is at most tau", ("d",), "return"),
        r"\tau": ("the threshold on the gradient's norm", (), "tau"),
    },
    "example": {"inputs": {"g": [3.0, 4.0], "tau": 2.5}, "output": [1.5, 2.0]},
}


def clip_by_norm(g, tau: float = 1.0):
    """Rescale g to norm tau when its norm exceeds tau (Pascanu et al.'s Algorithm 1)."""
    g = np.array(g, dtype=float)                                      # (d,), a copy
    norm = math.sqrt(sum(float(v) * float(v) for v in g))
    if norm > tau:
        g *= tau / norm
    return g


def test_clip():
    # the hand-worked example: norm 5, threshold 2.5, so halve it
    assert np.allclose(clip_by_norm([3.0, 4.0], 2.5), [1.5, 2.0])
    # a second case by hand: norm 13 clipped to 1
    assert np.allclose(clip_by_norm([5.0, -12.0], 1.0), [5 / 13, -12 / 13])
    # below the threshold nothing changes
    assert np.allclose(clip_by_norm([0.3, -0.4], 1.0), [0.3, -0.4])
    assert np.allclose(clip_by_norm([0.0, 0.0, 0.0], 0.5), 0.0)
    # random gradients: the direction is kept and the norm becomes min(norm, tau)
    rng = np.random.default_rng(9)
    for _ in range(4):
        g, tau = rng.normal(size=5) * rng.uniform(0.1, 5), rng.uniform(0.5, 2.0)
        out = clip_by_norm(g, tau)
        n = np.linalg.norm(g)
        assert np.isclose(np.linalg.norm(out), min(n, tau))
        assert np.allclose(out, g * min(1.0, tau / n))


# ---------------------------------------------------------------------------------------------
# I. The perceptron's update (Freund and Schapire 1999): an indicator function, a learning rate eta
# ---------------------------------------------------------------------------------------------
ENTRY_PERCEPTRON = {
    "paper": "Freund and Schapire (1999), Large Margin Classification Using the Perceptron Algorithm, "
             "Figure 1: the perceptron's mistake-driven update, with a learning rate",
    "equation": r"w' = w + \eta\, \mathbb{1}[y \langle w, x \rangle \le 0]\, y\, x",
    "symbols": {
        "w": ("the weight vector before the update", ("d",), "w"),
        "w'": ("the weight vector after seeing the example", ("d",), "return"),
        r"\eta": ("the learning rate", (), "eta"),
        "y": ("the label of the example, +1 or -1", (), "y"),
        "x": ("the example's feature vector", ("d",), "x"),
    },
    "example": {"inputs": {"w": [1.0, -1.0], "x": [1.0, 2.0], "y": 1, "eta": 0.5}, "output": [1.5, 0.0]},
}


def perceptron_update(w, x, y, eta=1.0):
    w = np.asarray(w, dtype=float)                                    # (d,)
    x = np.asarray(x, dtype=float)                                    # (d,)
    mistake = float(y * np.dot(w, x) <= 0)                            # the indicator, 0 or 1
    return w + eta * mistake * y * x                                  # (d,)


def test_perceptron():
    # the hand-worked example: <w, x> = -1, a mistake for y = +1, so w + 0.5 x
    assert np.allclose(perceptron_update([1.0, -1.0], [1.0, 2.0], 1, 0.5), [1.5, 0.0])
    # a second case by hand: the same example with y = -1 is classified right: no change
    assert np.allclose(perceptron_update([1.0, -1.0], [1.0, 2.0], -1, 0.5), [1.0, -1.0])
    # a mistake on a negative example moves w away from x
    assert np.allclose(perceptron_update([2.0, 0.0], [1.0, 1.0], -1, 0.25), [1.75, -0.25])
    # on the boundary (margin exactly 0) it is a mistake
    assert np.allclose(perceptron_update([0.0, 0.0], [3.0, -1.0], 1, 2.0), [6.0, -2.0])
    # random examples against an if/else
    rng = np.random.default_rng(8)
    for _ in range(6):
        w, x = rng.normal(size=3), rng.normal(size=3)
        y, eta = rng.choice([-1, 1]), rng.uniform(0.1, 2.0)
        expect = w + eta * y * x if y * (w @ x) <= 0 else w
        assert np.allclose(perceptron_update(w, x, y, eta), expect)


# ---------------------------------------------------------------------------------------------
# J. The Dice coefficient (Milletari, Navab and Ahmadi 2016, V-Net, eq. (1)): sums with bounds, a loop
# ---------------------------------------------------------------------------------------------
ENTRY_DICE = {
    "paper": "Milletari, Navab and Ahmadi (2016), V-Net: Fully Convolutional Neural Networks for Volumetric "
             "Medical Image Segmentation, eq. (1): the Dice coefficient",
    "equation": r"D = \frac{2\sum_{i=1}^{N} p_i g_i}{\sum_{i=1}^{N} p_i^2 + \sum_{i=1}^{N} g_i^2}",
    "symbols": {
        "D": ("the Dice coefficient between the prediction and the ground truth, 1 for a perfect overlap", (), "return"),
        "N": ("the number of voxels", ()),
        "p": ("the predicted foreground probability of each voxel", ("N",), "p"),
        "g": ("the ground-truth binary label of each voxel", ("N",), "g"),
    },
    "example": {"inputs": {"p": [0.5, 1.0, 0.0, 0.5], "g": [1, 1, 0, 0]}, "output": 0.8571},
}


def dice(p: list[float], g: list[int]) -> float:
    """Soft Dice coefficient of V-Net, summed over the voxels with a plain loop."""
    overlap, p_sq, g_sq = 0.0, 0.0, 0.0
    for p_i, g_i in zip(p, g):
        overlap += p_i * g_i
        p_sq += p_i ** 2
        g_sq += g_i ** 2
    return 2 * overlap / (p_sq + g_sq)


def test_dice():
    # the hand-worked example: 2 * 1.5 / (1.5 + 2) = 6/7
    assert abs(dice([0.5, 1.0, 0.0, 0.5], [1, 1, 0, 0]) - 6 / 7) < 1e-12
    # a second case by hand: perfect overlap is 1, no overlap is 0
    assert dice([1.0, 0.0, 1.0], [1, 0, 1]) == 1.0
    assert dice([0.0, 1.0], [1, 0]) == 0.0
    # 2 * 0.3 / (0.09 + 0.16 + 1) = 0.48
    assert abs(dice([0.3, 0.4], [1, 0]) - 0.48) < 1e-12
    # random inputs against the vector form, and symmetry in p and g
    rng = np.random.default_rng(6)
    for _ in range(4):
        p, g = rng.uniform(size=6), rng.integers(0, 2, size=6)
        g[0] = 1
        assert abs(dice(p, g) - 2 * p @ g / (p @ p + g @ g)) < 1e-12
        q = rng.uniform(size=6)
        assert abs(dice(p, q) - dice(q, p)) < 1e-12


RIGHT = {
    "smooth L1 with \\begin{cases}, np.where": {
        "entry_3": ENTRY_SMOOTH_L1, "implementation_3": smooth_l1_loss, "test_3": test_smooth_l1, "np": np,
        "math": math},
    "gradient clipping: min, a norm, an if, in-place on a copy": {
        "entry_3": ENTRY_CLIP, "implementation_3": clip_by_norm, "test_3": test_clip, "np": np, "math": math},
    "perceptron update with an indicator \\mathbb{1}[...]": {
        "entry_3": ENTRY_PERCEPTRON, "implementation_3": perceptron_update, "test_3": test_perceptron, "np": np,
        "math": math},
    "Dice coefficient: sums with bounds, lists, a loop, type hints": {
        "entry_3": ENTRY_DICE, "implementation_3": dice, "test_3": test_dice, "np": np, "math": math},
}


# The same equations in other LaTeX spellings students copy from papers.
ENTRY_SMOOTH_L1_ALT = dict(ENTRY_SMOOTH_L1, equation=(
    r"L = \sum_{i} \operatorname{smooth}_{L_1}\left(t_i - v_i\right), \qquad \operatorname{smooth}_{L_1}(x) = "
    r"\begin{cases} \frac{1}{2} x^{2}, & \lvert x \rvert < 1, \\ \lvert x \rvert - \frac{1}{2}, & \text{otherwise.} \end{cases}"))
ENTRY_CLIP_ALT = dict(ENTRY_CLIP, equation=r"\tilde{\mathbf{g}} = \min\left\{1, \tau / \left\| \mathbf{g} \right\|_2\right\} \cdot \mathbf{g}")
ENTRY_DICE_ALT = dict(ENTRY_DICE, equation=r"D = \frac{2 \sum_i^N p_i \, g_i}{\sum_i^N p_i^2 + \sum_i^N g_i^2}")
RIGHT["smooth L1 with \\operatorname, \\lvert, \\frac{1}{2}, sum without bounds"] = {
    "entry_3": ENTRY_SMOOTH_L1_ALT, "implementation_3": smooth_l1_loss, "test_3": test_smooth_l1, "np": np,
    "math": math}
RIGHT["clipping with \\min\\left\\{, \\left\\| \\right\\|_2, \\cdot, bold g"] = {
    "entry_3": ENTRY_CLIP_ALT, "implementation_3": clip_by_norm, "test_3": test_clip, "np": np, "math": math}
RIGHT["Dice as V-Net prints it: \\sum_i^N"] = {
    "entry_3": ENTRY_DICE_ALT, "implementation_3": dice, "test_3": test_dice, "np": np, "math": math}


# ---------------------------------------------------------------------------------------------
# N. Top-k accuracy (as reported by Krizhevsky et al. 2012): an indicator of set membership, an integer k
# ---------------------------------------------------------------------------------------------
ENTRY_TOPK = {
    "paper": "Krizhevsky, Sutskever and Hinton (2012), ImageNet Classification with Deep Convolutional Neural "
             "Networks, Section 6: the top-5 (here top-k) accuracy they report, written as an equation",
    "equation": r"A = \frac{1}{N}\sum_{i=1}^{N} \mathbb{1}\left[y_i \in \mathrm{top}_k(s_i)\right]",
    "symbols": {
        "A": ("the share of examples whose true class is among the k highest-scored classes", (), "return"),
        "N": ("the number of examples", ()),
        "y": ("the true class label of each example", ("N",), "y"),
        "s": ("the classifier's scores, one row of C class scores per example", ("N", "C"), "scores"),
        "k": ("how many of the highest-scored classes count as a hit", (), "k"),
    },
    "example": {"inputs": {"scores": [[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.3, 0.2, 0.5]], "y": [2, 2, 1], "k": 2},
                "output": 0.6667},
}


def top_k_accuracy(scores, y, k=5):
    scores = np.asarray(scores, dtype=float)                 # (N, C)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]  # (N, k): the k best classes of each row
    hits = [int(label in row) for label, row in zip(np.asarray(y), top)]
    return sum(hits) / len(hits)


def test_topk():
    # the hand-worked example: the rows' top-2 are {1, 2}, {0, 2}, {2, 0} -> hit, hit, miss
    assert abs(top_k_accuracy([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.3, 0.2, 0.5]], [2, 2, 1], 2) - 2 / 3) < 1e-12
    # a second case by hand, no ties: top-1 is the argmax
    s = [[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.2, 0.3, 0.5]]
    assert top_k_accuracy(s, [1, 2, 2], 1) == 2 / 3
    assert top_k_accuracy(s, [1, 2, 2], 2) == 1.0
    assert top_k_accuracy(s, [0, 1, 0], 1) == 0.0
    assert top_k_accuracy(s, [0, 1, 0], 3) == 1.0
    # random scores against a count of how many classes beat the true one
    rng = np.random.default_rng(14)
    S = rng.normal(size=(8, 5))
    y = rng.integers(0, 5, size=8)
    for k in (1, 2, 4):
        expect = np.mean([np.sum(S[i] > S[i, y[i]]) < k for i in range(8)])
        assert abs(top_k_accuracy(S, y, k) - expect) < 1e-12


RIGHT["top-k accuracy: indicator of membership, integer k, argsort"] = {
    "entry_3": ENTRY_TOPK, "implementation_3": top_k_accuracy, "test_3": test_topk, "np": np, "math": math}
