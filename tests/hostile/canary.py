"""The canary census's two halves (issue 31, deliverable 4): a notebook that pushes every hidden input it sees out
through every channel a student can read, and the search for any of those inputs in what came out.

:func:`canary_notebook` answers the ``code`` assignment with functions that record every argument they receive
(in a global, in files of every writable folder, in the environment) and say it back every way a student's
code can: the text and class name of exceptions, prints, warnings, ``display``, the shape, length and dtype of
what they return, recursion depth, cells after each grade cell that raise with all of it, public cases of later
questions that raise with all of it.  :func:`hidden_values` records, on the trusted side, every value the graders
pass in calls not marked public (:func:`reading_maths.sandbox.disclosure.public_inputs`) and not also passed
publicly; :func:`canaries` spells each in every encoding we can think of; :func:`leaks` searches bytes for them,
minus what an honest notebook's output holds anyway (the control).
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import nbformat
import numpy as np

from classroom.builder import answered
from reading_maths.grading.graderfile import RAISED_KINDS, load_grader, raised_phrase
from reading_maths.kit.question import SHAPE_PHRASES
from reading_maths.kit.reference import reference_of
from reading_maths.kit.strength_case import HABITS
from reading_maths.notebook import grade_id
from reading_maths.sandbox.disclosure import public_now

QUESTIONS = ("softmax", "attention", "adam_step", "adam", "dpo_loss")

HELPERS = '''import json, os, sys, warnings
import numpy as np
SEEN = []
STORES = ["/tmp/canary.txt", "/dev/shm/canary.txt", os.path.join(os.path.expanduser("~"), "canary.txt"),
          "canary.txt"]


def _flat(*values):
    out = []
    for value in values:
        try:
            out += [float(x) for x in np.asarray(value, dtype=float).ravel()[:256]]
        except Exception:
            pass
    return out


def _keep(*values):
    flat = _flat(*values)
    SEEN.append(flat)
    for path in STORES:
        try:
            with open(path, "a") as out:
                out.write(json.dumps(flat) + "\\n")
        except Exception:
            pass
    os.environ["CANARY"] = os.environ.get("CANARY", "") + json.dumps(flat)[:2000]
    return flat


def _everything():
    parts = [json.dumps(SEEN), os.environ.get("CANARY", "")]
    for path in STORES:
        try:
            parts.append(open(path).read())
        except Exception:
            pass
    text = " ".join(parts)
    return (text[:12000] + " ... " + text[-12000:]) if len(text) > 24000 else text


def _shout():
    text = _everything()
    print(text)
    print(text, file=sys.stderr)
    warnings.warn(text)
    try:
        display(text)
    except Exception:
        pass
    return text


def _spell(first):
    """A number made from a value, to carry it in a shape or a length."""
    return int(round(abs(first) * 7)) % 9973 + 11
'''

ANSWERS = {
    "softmax": HELPERS + '''

def softmax(z, T=1.0):
    _keep(z, T)
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''',
    "attention": '''def attention(Q, K, V):
    flat = _keep(Q, K, V)
    _shout()
    first = flat[0] if flat else 0.0
    kind = len(SEEN) % 5
    if kind == 0:
        name = "Leak_" + repr(first).replace(".", "_").replace("-", "m")
        raise type(name, (ValueError,), {})(_everything())
    if len(SEEN) % 7 == 0:  # a standard exception chosen by a value: its name would carry bits
        raise [ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError, MemoryError,
               RecursionError][int(abs(first) * 1000) % 8](_everything())
    if kind == 1:
        return np.zeros((_spell(first), 2))
    if kind == 2:
        return [0.0] * _spell(first)
    if kind == 3:
        return np.zeros((_spell(first),), dtype=np.float32)

    def down(n):
        return down(n - 1) if n > 0 else 1 / 0
    return down(_spell(first) % 900)
''',
    "adam_step": '''def adam_step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    flat = _keep(theta, g, m, v, t, alpha, beta1, beta2, eps)
    theta, g, m, v = (np.asarray(x, dtype=float) for x in (theta, g, m, v))
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    step = alpha * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
    if len(SEEN) % 3 == 0:
        return theta - step, m, np.zeros(_spell(flat[0]))
    return theta - step, m, v
''',
    "adam": '''def adam(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    flat = _keep(theta0, steps, alpha, beta1, beta2, eps)
    _shout()
    if len(SEEN) % 2:  # a class of its own named like a built-in one, with a value after the name
        raise type("OverflowError" + str(int(abs(flat[0]) * 1e6)), (OverflowError,), {})(_everything())
    raise type("Leak_" + "_".join(str(int(abs(x) * 1000)) for x in flat[:4]), (ArithmeticError,), {})(
        _everything())
''',
    "dpo_loss": '''def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    flat = _keep(pi_w, pi_l, ref_w, ref_l, beta)
    warnings.warn(_everything())
    if len(SEEN) % 2:
        return [float(x) for x in flat[:_spell(flat[0]) % 50 + 2]]
    raise RuntimeError(_everything())
''',
}

LATER = '''_shout()
if any(abs(v) > 100 for flat in SEEN for v in flat):  # after a hidden input: make the grader fail reading a name
    for _module in list(sys.modules.values()):
        if hasattr(_module, "describe") and hasattr(_module, "ready") and hasattr(_module, "serve"):
            _module.describe = lambda ns, n, _was=_module.describe: (
                {"kind": "value", "value": {"__nd__": [{}, [], ""]}} if n == "dpo_loss" else _was(ns, n))
raise RuntimeError("LATER " + _everything())
'''
"""A cell put after each grade cell: it runs after that question's hidden calls, in grading order; once a hidden
input was seen it also makes the child describe ``dpo_loss`` as a value the grader cannot decode (a grader that
failed with the exception's text would say which)."""

GRADER_FAILURES = (b"unhashable", b"grading failed: TypeError", b"grading failed: KeyError")
"""What a grader's own exception would have said: never in a student's output."""


def canary_notebook(root: Path) -> nbformat.NotebookNode:
    """The release notebook of ``code`` answered by the canary's functions, with :data:`LATER` after each grade
    cell."""
    release = nbformat.read(root / "release" / "code" / "code.ipynb", as_version=4)
    source = nbformat.read(root / "source" / "code" / "code.ipynb", as_version=4)
    nb = answered(release, source, ANSWERS)
    places = [i for i, c in enumerate(nb.cells) if grade_id(c) in QUESTIONS]
    for index in reversed(places):
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(LATER))
    return nb


BUILD_PATCHES = {
    "meanings_1": '''
_SEEN = []
_impl1 = implementation_1


def implementation_1(x):
    values = np.asarray(x, dtype=float).ravel().tolist()
    _SEEN.append(values)
    if values not in ([-1.0, 0.0, 1.0, 2.0], [-3.0], [-0.5], [0.7], [2.5], [10.0, -10.0]):  # not its own example
        implementation_1.__name__ = ("implementation_1 " + " ".join(f"{a:.6g}" for a in values))[:200]
    return _impl1(x)
''',
    "meanings_2": '''
_odd = [v for v in _SEEN if v not in ([-1.0, 0.0, 1.0, 2.0], [-3.0], [-0.5], [0.7], [2.5], [10.0, -10.0])]
if _odd:
    entry_2["symbols"]["x"] = ("leak", ("L " + " ".join(f"{a:.6g}" for v in _odd for a in v),), "x")
    raise RuntimeError("LATER " + repr(_odd))
''',
}
"""The ``build`` canary (found by a fresh attacker): entry 1's implementation renames itself after what it is
called with (its name comes back from the child when its ``def`` is located), and entry 2's dict, made after
entry 1 is graded, carries the recorded values into a shape the entry's reader repeats."""


def build_canary(root: Path) -> nbformat.NotebookNode:
    """The release notebook of ``build`` with the source's entries and :data:`BUILD_PATCHES` after them."""
    release = nbformat.read(root / "release" / "build" / "build.ipynb", as_version=4)
    source = nbformat.read(root / "source" / "build" / "build.ipynb", as_version=4)
    solutions = {grade_id(c): c.source for c in source.cells}
    for cell in release.cells:
        gid = grade_id(cell)
        if gid in BUILD_PATCHES and cell.cell_type == "code":
            body = "\n".join(line for line in solutions[gid].splitlines() if "### BEGIN SOLUTION" not in line
                             and "### END SOLUTION" not in line)
            cell.source = body + "\n" + BUILD_PATCHES[gid]
    return release


def unclosed_messages(result: dict, root: Path) -> list[str]:
    """The messages of cases judged in the hidden run that are not in the graders' own words: ``where: said``,
    where is the question or its grader's label of the check, and said a catalogue message, a property's
    message, a shape phrase or the fixed words for a check that failed or could not judge."""
    bad = []
    for question in result["questions"]:
        grader = load_grader(root / "graders" / result["assignment"] / f"{question['id']}.py")
        source = _shape_of(grader.path.read_text(encoding="utf-8"))
        said = {m.message for m in grader.mistakes} | set(grader.properties) | {"a hidden check failed.",
               "a hidden check could not judge your answer."} | {f"the result {p}." for p in SHAPE_PHRASES}
        said |= {f"{m.message} {habit}" for m in grader.mistakes for habit in HABITS}
        said |= {raised_phrase(k) for k in RAISED_KINDS}
        said |= {f"{raised_phrase(k)} {m.message}" for k in RAISED_KINDS for m in grader.mistakes}
        for case in question["cases"]:
            message = case["message"]
            if not case.get("hidden_run") or case["passed"] or not message:
                continue
            tail = next((t for t in said if message.endswith(": " + t)), None)
            where = message[:-len(tail) - 2] if tail else ""
            named = f"`{question['id']}`"
            label = where[len(named) + 4:] if where.startswith(named + " on ") else None
            if not (tail and (where == named or (label and _shape_of(label) in source))):
                bad.append(message)
    return bad


def _shape_of(text: str) -> str:
    """Text with its numbers and f-string fields made alike (a label may number its trials)."""
    return re.sub(r"\{[^}]*\}|\d+", "#", text)


def honest_notebook(root: Path) -> nbformat.NotebookNode:
    """The control: the release notebook answered by the reference."""
    release = nbformat.read(root / "release" / "code" / "code.ipynb", as_version=4)
    return answered(release, nbformat.read(root / "source" / "code" / "code.ipynb", as_version=4))


def hidden_values(root: Path) -> set[float]:
    """Every number the graders of the course at ``root`` pass the student's functions in calls that are not on
    public inputs (hidden cases, diagnosis probes, properties), and never in a public call."""
    public: set[float] = set()
    hidden: set[float] = set()
    reference = reference_of(root, "code")
    for question in QUESTIONS:
        grader = load_grader(root / "graders" / "code" / f"{question}.py")
        right = getattr(reference, question)

        def recorded(*args, _right=right, **kwargs):
            values = [*args, *kwargs.values()]
            flat = {float(x) for v in values if not callable(v)
                    for x in np.asarray(v, dtype=float).ravel() if np.isfinite(x)}
            (public if public_now() else hidden).update(flat)
            return _right(*args, **kwargs)

        grader.run({question: recorded})
        for mistake in grader.mistakes:  # a failing answer's diagnosis calls on the probes too
            if mistake.impl is not None:
                def wrong(*args, _impl=mistake.impl, **kwargs):
                    recorded(*args, **kwargs)
                    return _impl(*args, **kwargs)

                grader.run({question: wrong})
    return hidden - public


def canaries(values: set[float]) -> dict[str, float]:
    """Spellings of each value worth searching for (none shorter than 5 characters): repr, fixed and general
    decimal forms, integers from 1000 up, the numbers the canary's shapes and lengths are made of, float.hex, the
    IEEE bytes in hex and base64."""
    found: dict[str, float] = {}
    for v in values:
        packed = struct.pack("<d", v)
        spellings = {repr(v), f"{v:.6g}", f"{v:.4f}", f"{v:.4e}", float.hex(v), packed.hex(),
                     base64.b64encode(packed).decode()}
        if float(v).is_integer() and abs(v) >= 1000:
            spellings.add(str(int(v)))
        spell = int(round(abs(v) * 7)) % 9973 + 11
        if spell >= 1000:
            spellings.add(str(spell))
        for s in spellings:
            if len(s) >= 5 and _significant(s) >= 4:
                found.setdefault(s, v)
    return found


def _significant(spelling: str) -> int:
    """Significant digits of a decimal spelling (a hex or base64 spelling counts as its length)."""
    if not all(ch in "0123456789.-+e" for ch in spelling):
        return len(spelling)
    return len(spelling.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))


def leaks(outputs: dict[str, bytes], control: bytes, values: set[float]) -> list[tuple[str, str, float]]:
    """``(output, spelling, value)`` of each hidden value's spelling found in an output and not in the control."""
    found = []
    for spelling, value in canaries(values).items():
        needle = spelling.encode()
        if needle in control:
            continue
        found += [(name, spelling, value) for name, data in outputs.items() if needle in data]
    return found
