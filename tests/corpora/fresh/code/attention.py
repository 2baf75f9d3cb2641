"""Correct attention answers in several student styles."""
import math

import numpy as np


def attention_loops(Q, K, V):
    """Pure loops over queries and keys with the math module."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    n, d_k = Q.shape
    m, d_v = V.shape
    out = np.zeros((n, d_v))
    for i in range(n):
        s = [sum(Q[i, a] * K[j, a] for a in range(d_k)) / math.sqrt(d_k) for j in range(m)]
        top = max(s)
        w = [math.exp(x - top) for x in s]
        total = sum(w)
        for j in range(m):
            out[i] += (w[j] / total) * V[j]
    return out


def row_softmax(S):
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def attention_einsum(Q, K, V):
    """einsum for both products, a module-level softmax helper."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    S = np.einsum("ik,jk->ij", Q, K) / np.sqrt(K.shape[-1])
    return np.einsum("ij,jv->iv", row_softmax(S), V)


def attention_dot(Q, K, V):
    """np.dot and .T, max shift with [:, None]."""
    Q = np.array(Q, dtype=float)
    K = np.array(K, dtype=float)
    V = np.array(V, dtype=float)
    scores = np.dot(Q, K.T) / math.sqrt(Q.shape[1])
    scores = scores - scores.max(axis=1)[:, None]
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1)[:, None]
    return np.dot(weights, V)


def attention_lse(Q, K, V):
    """matmul, log-softmax via logsumexp written by hand, reshape(-1, 1)."""
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    d_k = K.shape[1]
    S = np.matmul(Q, np.transpose(K)) / d_k ** 0.5
    mx = S.max(axis=1).reshape(-1, 1)
    log_w = S - (mx + np.log(np.exp(S - mx).sum(axis=1)).reshape(-1, 1))
    return np.matmul(np.exp(log_w), V)


def attention_normalise_after(Q, K, V):
    """Weight the values first, divide by the row sums afterwards (same result)."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    S = (Q @ K.T) * (1.0 / np.sqrt(K.shape[1]))
    E = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return (E @ V) / E.sum(axis=-1, keepdims=True)


RIGHT = {
    "loops + math": {"attention": attention_loops, "np": np, "math": math},
    "einsum + softmax helper": {"attention": attention_einsum, "row_softmax": row_softmax, "np": np},
    "np.dot, [:, None]": {"attention": attention_dot, "np": np, "math": math},
    "matmul, logsumexp, reshape(-1, 1)": {"attention": attention_lse, "np": np},
    "normalise after multiplying by V": {"attention": attention_normalise_after, "np": np},
}
