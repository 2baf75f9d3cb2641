"""Correct adam answers: dataclass state, closure state, a generator, a plain loop with math."""
import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class AdamState:
    alpha: float = 0.001
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: np.ndarray = field(default=None)
    v: np.ndarray = field(default=None)

    def update(self, theta, g):
        if self.m is None:
            self.m = np.zeros_like(theta)
            self.v = np.zeros_like(theta)
        self.t += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * g
        self.v = self.beta2 * self.v + (1 - self.beta2) * g ** 2
        m_hat = self.m / (1 - self.beta1 ** self.t)
        v_hat = self.v / (1 - self.beta2 ** self.t)
        return theta - self.alpha * m_hat / (np.sqrt(v_hat) + self.eps)


def adam_dataclass(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    state = AdamState(alpha, beta1, beta2, eps)
    theta = np.array(theta0, dtype=float)
    for _ in range(steps):
        theta = state.update(theta, np.asarray(grad(theta), dtype=float))
    return theta


def make_adam(alpha, beta1, beta2, eps, shape):
    m = np.zeros(shape)
    v = np.zeros(shape)
    t = 0

    def step(theta, g):
        nonlocal m, v, t
        t += 1
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * (g * g)
        return theta - alpha * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)

    return step


def adam_closure(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta0, dtype=np.float64).copy()
    step = make_adam(alpha, beta1, beta2, eps, theta.shape)
    for _ in range(steps):
        theta = step(theta, np.asarray(grad(theta), dtype=np.float64))
    return theta


def adam_iterates(grad, theta0, alpha, beta1, beta2, eps):
    theta = np.array(theta0, dtype=float)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    t = 0
    while True:
        t += 1
        g = np.asarray(grad(theta), dtype=float)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        theta = theta - alpha * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
        yield theta


def adam_generator(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    for _, theta in zip(range(steps), adam_iterates(grad, theta0, alpha, beta1, beta2, eps)):
        pass
    return theta


def adam_while(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """Algorithm 1 read literally: t = 0, then while t < steps; running powers beta^t kept as products."""
    theta = np.asarray(theta0, dtype=float) + 0.0
    m = np.zeros(theta.shape)
    v = np.zeros(theta.shape)
    t = 0
    b1t, b2t = 1.0, 1.0
    while t < steps:
        t = t + 1
        g = np.asarray(grad(theta), dtype=float)
        b1t *= beta1
        b2t *= beta2
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        m_hat = m / (1 - b1t)
        v_hat = v / (1 - b2t)
        theta = theta - alpha * m_hat / (np.sqrt(v_hat) + eps)
    return theta


RIGHT = {
    "dataclass holding the state": {"adam": adam_dataclass, "AdamState": AdamState, "np": np},
    "closure holding the state": {"adam": adam_closure, "make_adam": make_adam, "np": np},
    "generator of iterates": {"adam": adam_generator, "adam_iterates": adam_iterates, "np": np},
    "while loop, running products for beta^t": {"adam": adam_while, "np": np, "math": math},
}


def adam_step_kw(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    return theta - alpha * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps), m, v


def adam_calls_step(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta0, dtype=float)
    m = v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        theta, m, v = adam_step(theta, grad(theta), m, v, t, alpha=alpha, beta1=beta1, beta2=beta2, eps=eps)
    return theta


adam_step = adam_step_kw
RIGHT["calls its own adam_step with keywords"] = {"adam": adam_calls_step, "adam_step": adam_step_kw, "np": np}
