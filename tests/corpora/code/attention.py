"""attention: differently written right answers, and wrong ones with the diagnosis they must get."""

import math

import numpy as np

from classroom.corpus import answers

# -- right ---------------------------------------------------------------------------------------------


def _text_style(Q, K, V):
    d_k = K.shape[1]
    S = Q @ K.T / np.sqrt(d_k)
    S = S - S.max(axis=1, keepdims=True)
    W = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    return W @ V


def _companion_style(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d)
    scores = scores - scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(-1, keepdims=True)
    return w @ V


def _einsum(Q, K, V):
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    W /= W.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", W, V)


def _own_softmax(Q, K, V):
    def softmax(z):
        z = np.asarray(z, dtype=float)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    return softmax(np.matmul(Q, np.transpose(K)) / np.sqrt(np.shape(K)[1])) @ V


def _per_query_loop(Q, K, V):
    Q, K, V = (np.asarray(x, dtype=float) for x in (Q, K, V))
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i, query in enumerate(Q):
        scores = np.array([query @ key for key in K]) / math.sqrt(len(query))
        weights = np.exp(scores - scores.max())
        weights = weights / weights.sum()
        for j, value in enumerate(V):
            out[i] += weights[j] * value
    return out


def _pure_python(Q, K, V):
    out = []
    for q in Q.tolist():
        scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(len(k)) for k in K.tolist()]
        top = max(scores)
        w = [math.exp(s - top) for s in scores]
        total = sum(w)
        out.append([sum(wj / total * v[c] for wj, v in zip(w, V.tolist())) for c in range(V.shape[1])])
    return out  # a list of lists


def _logsumexp(Q, K, V):
    S = (Q / np.sqrt(K.shape[1])) @ K.T
    mx = S.max(axis=1, keepdims=True)
    log_w = S - mx - np.log(np.exp(S - mx).sum(axis=1, keepdims=True))
    return np.exp(log_w) @ V


def _dot_and_scaled_queries(Q, K, V):
    scaled = np.asarray(Q, dtype=float) * K.shape[1] ** -0.5
    S = np.dot(scaled, K.T)
    W = np.exp(S - np.amax(S, axis=-1)[:, None])
    return np.dot(W / W.sum(axis=-1)[:, None], V)


RIGHT = answers("attention", {
    "text-style": _text_style,
    "companion-style": _companion_style,
    "einsum": _einsum,
    "own-softmax": _own_softmax,
    "per-query-loop": _per_query_loop,
    "pure-python-lists": _pure_python,
    "logsumexp": _logsumexp,
    "scaled-queries-np-dot": _dot_and_scaled_queries,
})


# -- wrong ---------------------------------------------------------------------------------------------


def _no_scale(Q, K, V):
    S = Q @ K.T
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True) @ V


def _unstable(Q, K, V):
    W = np.exp(Q @ K.T / np.sqrt(K.shape[1]))
    return W / W.sum(axis=1, keepdims=True) @ V


def _returns_weights(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True)


def _mutates_scores_and_q(Q, K, V):
    Q /= np.sqrt(K.shape[1])  # changes the caller's Q
    S = Q @ K.T
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True) @ V


def _returns_transposed(Q, K, V):
    return _text_style(Q, K, V).T


def _no_keepdims(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1)) @ V  # divides column j by row j's sum


def _sqrt_of_m(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[0])  # the number of keys, not their length
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True) @ V


def _mean_of_v(Q, K, V):
    return np.tile(V.mean(axis=0), (Q.shape[0], 1))


def _hard_argmax(Q, K, V):
    return V[np.argmax(Q @ K.T, axis=1)]


def _global_softmax(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max())
    return W / W.sum() @ V


def _only_first_query(Q, K, V):
    return _text_style(Q[:1], K, V)


def _scaled_after_softmax(Q, K, V):
    S = Q @ K.T
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1, keepdims=True)) / np.sqrt(K.shape[1]) @ V


def _keys_as_queries(Q, K, V):
    S = K @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1, keepdims=True)) @ V


def _output_transposed_square(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    out = (W / W.sum(axis=1, keepdims=True)) @ V
    return out.T if out.shape[0] == out.shape[1] else out  # transposed only where the shape cannot tell


def _values_reversed(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1, keepdims=True)) @ V[::-1]


WRONG = {
    "scaled-after-softmax": ({"attention": _scaled_after_softmax}, "convex combination"),
    "keys-used-as-queries": ({"attention": _keys_as_queries}, "keys-as-queries"),
    "output-transposed-when-square": ({"attention": _output_transposed_square}, "output-transposed"),
    "values-in-reverse-order": ({"attention": _values_reversed}, "Permuting the keys and the values together"),
    "no-scale": ({"attention": _no_scale}, "no-sqrt-dk"),
    "unstable": ({"attention": _unstable}, "no-max-shift"),
    "returns-weights": ({"attention": _returns_weights}, "weights-not-output"),
    "mutates-Q": ({"attention": _mutates_scores_and_q}, "changed its input"),
    "returns-transposed": ({"attention": _returns_transposed}, "output-transposed"),
    "no-keepdims-on-sum": ({"attention": _no_keepdims}, "sum-without-keepdims"),
    "sqrt-of-number-of-keys": ({"attention": _sqrt_of_m}, "sqrt-of-m"),
    "mean-of-values": ({"attention": _mean_of_v}, "hard one"),
    "hard-argmax": ({"attention": _hard_argmax}, None),
    "softmax-over-whole-matrix": ({"attention": _global_softmax}, "convex combination"),
    "only-first-query": ({"attention": _only_first_query}, "shape"),
    "missing": ({}, "not defined"),
}


# -- more right answers, as students write them ---------------------------------------------------------


def _query_by_query(Q, K, V):
    """One query at a time, with the math module, as the text reads it aloud."""
    Q, K, V = (np.asarray(x, dtype=float) for x in (Q, K, V))
    rows = []
    for q in Q:
        scores = [float(q @ k) / math.sqrt(len(q)) for k in K]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        rows.append(sum((w / total) * v for w, v in zip(weights, V)))
    return np.array(rows)


def _matmul_swapaxes(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    scale = np.sqrt(np.asarray(K).shape[-1])
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / scale
    scores -= np.amax(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, V)


class _Attention:
    """Scaled dot-product attention as a small module."""

    def scores(self, Q, K):
        return np.dot(Q, np.transpose(K)) / np.sqrt(np.shape(K)[1])

    def __call__(self, Q, K, V):
        s = self.scores(np.asarray(Q, float), np.asarray(K, float))
        p = np.exp(s - s.max(axis=1)[:, None])
        return (p / p.sum(axis=1)[:, None]) @ np.asarray(V, float)


def _lists_comprehension(Q, K, V):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    S = np.array([[np.dot(q, k) for k in K] for q in Q]) / np.sqrt(K.shape[1])
    W = np.array([np.exp(r - r.max()) / np.exp(r - r.max()).sum() for r in S])
    return np.einsum("nm,mv->nv", W, V)


RIGHT |= answers("attention", {
    "query-by-query-math": _query_by_query,
    "matmul-swapaxes-hints": _matmul_swapaxes,
    "module-class": _Attention(),
    "list-comprehensions": _lists_comprehension,
})


# -- right, from a fresh pair of eyes (each also graded in a real notebook: full marks) -----------------


def _fresh_rowwise_softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _fresh_einsum_lambda(Q, K, V):
    Q, K, V = map(lambda a: np.asarray(a, dtype=float), (Q, K, V))
    scores = np.einsum("id,jd->ij", Q, K) / np.sqrt(Q.shape[-1])
    return np.einsum("ij,jv->iv", _fresh_rowwise_softmax(scores), V)


def _fresh_matmul_transpose(Q, K, V):
    S = np.matmul(Q, np.transpose(K)) / np.shape(K)[-1] ** 0.5
    return np.matmul(_fresh_rowwise_softmax(np.asarray(S, dtype=float)), V)


def _fresh_double_loop(Q, K, V):
    Q, K, V = (np.array(a, dtype=float) for a in (Q, K, V))
    n, dk = Q.shape
    out = np.zeros((n, V.shape[1]))
    for i in range(n):
        s = np.array([Q[i] @ K[j] for j in range(K.shape[0])]) / np.sqrt(dk)
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ V
    return out


def _fresh_broadcast_none(Q, K, V):
    Q, K, V = np.asarray(Q) * 1.0, np.asarray(K) * 1.0, np.asarray(V) * 1.0
    S = np.dot(Q, K.T) / math.sqrt(K.shape[1])
    S -= S.max(axis=1)[:, None]
    W = np.exp(S)
    W /= W.sum(axis=1)[:, None]
    return np.dot(W, V)


def _fresh_vstack_queries(Q, K, V):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    rows = [_fresh_rowwise_softmax(q @ K.T / np.sqrt(Q.shape[1])) for q in Q]
    return np.vstack(rows) @ np.asarray(V, dtype=float)


RIGHT |= answers("attention", {
    "fresh-einsum-lambda": _fresh_einsum_lambda,
    "fresh-matmul-transpose-pow-half": _fresh_matmul_transpose,
    "fresh-double-loop": _fresh_double_loop,
    "fresh-broadcast-none-in-place": _fresh_broadcast_none,
    "fresh-vstack-queries": _fresh_vstack_queries,
})


def _fresh_float32_softmax_called(Q, K, V):
    S = np.asarray(Q, dtype=float) @ np.asarray(K, dtype=float).T
    z = S.astype(np.float32) / np.float32(np.sqrt(np.shape(K)[1]))    # Problem 1's softmax, cast to float32
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ np.asarray(V, dtype=float)


RIGHT["fresh-softmax-with-T-sqrt-dk"] = {  # the scale as softmax's temperature: full marks in a real notebook
    "attention": lambda Q, K, V: _fresh_rowwise_softmax(np.asarray(Q, float) @ np.asarray(K, float).T
                                                         / np.sqrt(np.shape(K)[1])) @ np.asarray(V, float)}
WRONG["fresh-float32-softmax-called"] = ({"attention": _fresh_float32_softmax_called}, "float32")
