"""Every corpus answer gets the same score in nbgrader's kernel and through the sandboxed engine.

Stock ``nbgrader autograde`` runs the graders inside the student's kernel
(:func:`reading_maths.nbgrader.in_kernel.grade_question`, as the hidden test cells call it);
``reading-maths autograde`` runs the same grader files on the trusted side, on what the sandboxed
child sends over the wire.  Here one real IPython kernel and one sandboxed session per corpus file
grade every RIGHT and WRONG entry of every corpus, and the two scores must be identical.
"""

import json
import runpy
import textwrap
import warnings

import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel

from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.sandbox.process import choose
from reading_maths.sandbox.session import Cell, StudentSession

pytestmark = [pytest.mark.sandbox, pytest.mark.kernel]

HERE = ROOT / "tests" / "corpora"
CORPORA = [*sorted(HERE.glob("*/*.py")), *sorted(HERE.glob("fresh/*/*.py"))]
"""Each corpus, and the right answers a fresh pair of eyes wrote for the same questions (run apart: their names
would meet the corpus's in one namespace)."""


def entries(path):
    """``(key, env)`` for every RIGHT and WRONG entry of one corpus file."""
    corpus = runpy.run_path(str(path))
    found = [(f"RIGHT/{k}", env) for k, env in corpus.get("RIGHT", {}).items()]
    return found + [(f"WRONG/{k}", env) for k, (env, _) in corpus.get("WRONG", {}).items()]


@pytest.fixture(scope="module")
def kernel():
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def run_in_kernel(client, code: str) -> str:
    """Execute ``code`` in the kernel and return what it printed (failing on an error)."""
    printed, errors = [], []

    def collect(msg):
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
            printed.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))

    client.execute_interactive(code, output_hook=collect, timeout=300)
    assert not errors, errors[0]
    return "".join(printed)


def kernel_scores(client, path, names) -> dict[str, float]:
    """Each entry's names put in the kernel's namespace, graded by the hidden test cell's call."""
    code = f"""
        import contextlib, io, json, runpy
        from reading_maths.nbgrader.in_kernel import grade_question
        _corpus = runpy.run_path({str(path)!r})
        _entries = [(f"RIGHT/{{k}}", e) for k, e in _corpus.get("RIGHT", {{}}).items()]
        _entries += [(f"WRONG/{{k}}", e[0]) for k, e in _corpus.get("WRONG", {{}}).items()]
        _scores = {{}}
        for _key, _env in _entries:
            for _name in {names!r}:
                globals().pop(_name, None)
            globals().update(_env)
            with contextlib.redirect_stdout(io.StringIO()):
                _scores[_key] = grade_question({path.parent.name!r}, {path.stem!r})
        print(json.dumps(_scores))
    """
    return json.loads(run_in_kernel(client, textwrap.dedent(code)).strip().splitlines()[-1])


def sandbox_scores(path, grader, keys) -> dict[str, float]:
    """The corpus file run as the notebook's code in one sandboxed child, each entry under its own names."""
    rename = textwrap.dedent("""
        _entries = [*globals().get("RIGHT", {}).values()] + [e[0] for e in globals().get("WRONG", {}).values()]
        for _i, _env in enumerate(_entries):
            for _name, _value in _env.items():
                globals()[f"entry{_i}__{_name}"] = _value
    """)
    helpers = textwrap.dedent(f"""
        import sys, types
        sys.modules["classroom"] = types.ModuleType("classroom")
        sys.modules["classroom.corpus"] = sys.modules["classroom"].corpus = types.ModuleType("classroom.corpus")
        exec({(ROOT / "classroom" / "corpus.py").read_text()!r}, sys.modules["classroom.corpus"].__dict__)
    """)  # the corpora's shared helpers, which the sandbox does not have, as the corpus cell imports them
    cells = [Cell(0, "corpus helpers", helpers), Cell(1, "corpus", path.read_text()), Cell(2, "entries", rename)]
    names = [f"entry{i}__{n}" for i in range(len(keys)) for n in grader.names]
    scores = {}
    with StudentSession(cells, names, choose(allow_unsafe=True), cell_timeout=60, call_timeout=20) as session, \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        env = session.env()
        assert not session.cell_errors, session.cell_errors
        for i, key in enumerate(keys):
            session.begin_question()
            mine = {n: env.get(f"entry{i}__{n}") for n in grader.names}
            scores[key] = grader.run(mine, session.interruption).score
    return scores


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: str(p.relative_to(HERE))[:-3])
def test_kernel_and_sandbox_give_every_corpus_entry_the_same_score(kernel, path):
    grader = Assignment(path.parent.name, ROOT).grader(path.stem)
    keys = [key for key, _ in entries(path)]
    in_kernel = kernel_scores(kernel, path, grader.names)
    sandboxed = sandbox_scores(path, grader, keys)
    assert list(in_kernel) == keys
    differ = {k: (in_kernel[k], sandboxed[k]) for k in keys if in_kernel[k] != sandboxed[k]}
    assert not differ, f"(in kernel, sandboxed) scores differ: {differ}"
    full = grader.max_score
    lost = [k for k in keys if k.startswith("RIGHT/") and in_kernel[k] != full]
    assert not lost, f"right answers lose points: {lost}"
