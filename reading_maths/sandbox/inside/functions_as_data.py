"""Functions a grader hands to student code as data: the child rebuilds them and runs them itself.

A grader's gradient is called at every step of a student's ``adam``.  As a trusted callback each of
those calls is a round trip between the two processes (hundreds per notebook, most of its calls).
A :class:`Portable` function travels instead as its kind and its parameters,
``{"__fn__": [kind, [parameters]]}`` (:func:`reading_maths.sandbox.inside.wire.encode`), and the child
rebuilds it from this file, which it sees beside ``wire.py``.  Both sides run the same arithmetic
on the same float64 parameters, so the student's code gets the numbers a callback would give it.
Nothing is given away by the child holding the parameters: its code could call the function as
often as it liked and learn them.

Only the child rebuilds functions (``wire.decode(..., functions=True)``); nothing the child sends
back ever becomes a function on the trusted side.  Like ``wire.py``, this file needs only the
standard library until a function is called, and then NumPy.
"""

from __future__ import annotations

import math


def _numpy():
    import numpy

    return numpy


class Portable:
    """A function that travels as ``(kind, parameters)``; subclasses say how to compute it."""

    kind = ""

    def parameters(self) -> list:
        raise NotImplementedError

    @classmethod
    def rebuild(cls, parameters: list) -> Portable:
        """The function from its decoded parameters; ``ValueError`` when they do not fit."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.__name__}>"


class Scaled(Portable):
    """``x ↦ factor · x`` on float64 arrays: the gradient of ``factor/2 · Σ x_i²``."""

    kind = "scaled"

    def __init__(self, factor: float, name: str = "a scaled identity"):
        self.factor = float(factor)
        self.__name__ = name

    def __call__(self, theta):
        return self.factor * _numpy().asarray(theta, dtype=_numpy().float64)

    def parameters(self) -> list:
        return [self.factor, self.__name__]

    @classmethod
    def rebuild(cls, parameters: list) -> Scaled:
        factor, name = parameters
        if not (isinstance(factor, float) and math.isfinite(factor) and isinstance(name, str)):
            raise ValueError("bad scaled function")
        return cls(factor, name[:200])


class QuadraticGradient(Portable):
    """The gradient of ``f(θ) = ½ (θ − c)ᵀ A (θ − c)``, element-wise over any shape of θ: ``A (θ − c)``."""

    kind = "quadratic-gradient"

    def __init__(self, A, c, name: str = "the gradient of a quadratic"):
        np = _numpy()
        self.A, self.c = np.asarray(A, dtype=np.float64), np.asarray(c, dtype=np.float64)
        self.__name__ = name

    def __call__(self, theta):
        np = _numpy()
        d = np.asarray(theta, dtype=np.float64) - self.c
        return (self.A @ d.reshape(-1)).reshape(d.shape)

    def parameters(self) -> list:
        return [self.A, self.c, self.__name__]

    @classmethod
    def rebuild(cls, parameters: list) -> QuadraticGradient:
        A, c, name = parameters
        np = _numpy()
        if not (isinstance(A, np.ndarray) and isinstance(c, np.ndarray) and isinstance(name, str)
                and A.ndim == 2 and A.shape == (c.size, c.size)):
            raise ValueError("bad quadratic gradient")
        return cls(A, c, name[:200])


KINDS: dict[str, type[Portable]] = {cls.kind: cls for cls in (Scaled, QuadraticGradient)}
