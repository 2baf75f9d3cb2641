"""What a test must add beyond the hand-worked example: mutants the example cannot see, and copies used as oracles.

A test that checks only the student's own example kills every mutant that changes the example's output, so
measured on those alone it looks perfect while it adds nothing to the example (which earns its own point).
Strength is what the test adds beyond it, so the pool of mutants gains *blind* ones: they give the example's
output unchanged and differ elsewhere.  They are found by one *search trial* (a fresh run of the student's
program, like every trial of :mod:`reading_maths.kit.strength`) that calls every single and paired mutant
(:mod:`reading_maths.kit.mutation`) on the probes and keeps those that agree with the implementation on the
example; and the pool always holds the :func:`pinned` mutant, the implementation changed on every input but
the example's, so the blind part of the pool is never empty.

The same trial runs the test once under a profiler and records every function of the student's program the
test calls outside the implementation, with the arguments it gave each and what each returned.  One that
returned what the implementation returns on those same arguments, every time, is a *copy used as an oracle* (a
twin): the mutants change only the graded function, so a test that compares it with a twin kills them all while
it checks nothing.  Such a test earns no strength.

The source here is made on the trusted side; it runs where the student's code runs, so what it reports is only
a proposal: the trials judge every mutant again, and a twin found is the student's own loss.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reading_maths.kit.mutation import Mutant, mutants, pairs, parse_function
from reading_maths.kit.oracle_copies import Twins, call_text, read_twins
from reading_maths.sandbox.rerun import run_fresh

SINGLES = 120
PAIRS = 120
CHUNK = 60
"""Candidates of the search (single and paired changes), and how many one call of the search trial tries."""
BLIND = 6
"""Blind mutants the search adds to the pool at most (the pinned one besides)."""
SEARCH_LIMIT = 20.0
SECONDS = 0.25
"""Seconds each call of the search trial may take; CPU seconds each candidate may take on one probe."""
CALLS = 5
"""Calls of one function the search records while the test runs (its arguments and what it returned)."""
TWIN = 0.05
"""A function returned what the implementation does when ``|a - b| <= TWIN * (1 + |b|)``: looser than the
hand-worked tolerance, so a copy with noise added to hide it is still one."""
PINNED = "the implementation changed on every input but your example's"
ORIGINAL = "_rm_original"

_SEARCH = '''
class _RmSlow(BaseException):
    pass


def _rm_search(step, probes, start, space):
    import copy, gc, hashlib, inspect, signal, sys, sysconfig, types
    import numpy
    state = _rm_search.__dict__.setdefault("state", {"calls": {}, "open": {}, "depth": [0], "profiler": None,
                                                     "reachable": set(), "callers": set()})
    calls, pending, depth, original = state["calls"], state["open"], state["depth"], _rm_original.__code__

    library = tuple({p for p in sysconfig.get_paths().values()} | {sys.prefix, sys.base_prefix, "<frozen"})

    def ours(code):
        return code is original or code.co_name.startswith("_rm_") or "_rm_step" in code.co_varnames

    def key(code):
        return (code.co_qualname, hashlib.sha1(code.co_code).hexdigest())

    def arguments(code):
        count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
        return code.co_varnames[:count]

    def profiler(frame, event, arg):
        code = frame.f_code
        if code is original:
            depth[0] += 1 if event == "call" else -1 if event == "return" else 0
            state["callers"].update(record[2] for record in pending.values())  # they call the implementation
        elif (event == "call" and depth[0] == 0 and not ours(code) and not code.co_filename.startswith(library)
              and (frame.f_globals is space or (frame.f_back is not None and frame.f_back.f_globals is space))
              and (code.co_name == "<lambda>" or not code.co_name.startswith("<"))):
            made = calls.setdefault(code, [])
            if len(made) < _RM_CALLS:
                given = {name: frame.f_locals[name] for name in arguments(code) if name in frame.f_locals}
                if code.co_flags & 8 and isinstance(given.get(arguments(code)[-1]), dict):
                    given.update(given.pop(arguments(code)[-1]))  # keyword arguments gathered by **
                try:
                    given = copy.deepcopy(given)
                except Exception:
                    pass
                cells = tuple(types.CellType(frame.f_locals.get(n)) for n in code.co_freevars)
                made.append([given, None, code, types.FunctionType(code, frame.f_globals, code.co_name, None, cells)])
                pending[id(frame)] = made[-1]
        elif event == "return" and id(frame) in pending:
            try:
                pending.pop(id(frame))[1] = copy.deepcopy(arg)
            except Exception:
                pass

    def slow(signum, frame):
        raise _RmSlow()

    def outcome(function, args, kwargs):
        kwargs = copy.deepcopy(kwargs)
        try:
            if timed:
                signal.setitimer(signal.ITIMER_VIRTUAL, _RM_SECONDS)
            return ("value", function(*args, **kwargs))
        except _RmSlow:
            return ("timeout", None)
        except Exception as exc:
            return ("error", type(exc).__name__)
        finally:
            if timed:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)

    def close(a, b, tolerance):
        try:
            x, y = numpy.asarray(a[1], dtype=float), numpy.asarray(b[1], dtype=float)
            return a[0] == b[0] == "value" and x.shape == y.shape and bool(numpy.all(
                (numpy.abs(x - y) <= tolerance * (1 + numpy.abs(y))) | (numpy.isnan(x) & numpy.isnan(y)) | (x == y)))
        except Exception:
            return a[0] == b[0] != "value"

    try:
        signal.signal(signal.SIGVTALRM, slow)
        timed = True
    except ValueError:
        timed = False
    def reach(code):
        state["reachable"].add(key(code))
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                reach(const)

    if step == "arm":
        for function in gc.get_objects():
            if isinstance(function, types.FunctionType) and function.__globals__ is space:
                reach(function.__code__)
        state["profiler"] = profiler
        sys.setprofile(profiler)
        return None
    if step == "twins":
        intact = sys.getprofile() is state["profiler"]
        sys.setprofile(None)
        params = [p for p in inspect.signature(_rm_original).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        needed = [p for p in params if p.default is p.empty]
        found = []
        for code, made in calls.items():
            if code in state["callers"]:
                continue  # a helper that calls the implementation: it runs it, it does not copy it
            matched, mode = 0, "names"
            for given, returned, _, _ in made:
                if all(p.name in given for p in needed):
                    args, kwargs = [], {p.name: given[p.name] for p in params if p.name in given}
                elif 0 < len(needed) <= len(given) <= len(params):
                    args, kwargs, mode = list(given.values()), {}, "positions"
                else:
                    break
                matched += close(("value", returned), outcome(_rm_original, args, kwargs), _RM_TWIN)
            names = arguments(code)
            for kw in probes if matched == len(made) else ():  # a copy is one on the probes too, where it runs
                args, kwargs = ([kw[p.name] for p in params if p.name in kw], {}) if mode != "names" else (
                    [], {p.name: kw[p.name] for p in params if p.name in kw and (p.name in names or code.co_flags & 8)})
                mine = outcome(made[0][3], args, kwargs)
                if mine[0] == "value" and not close(mine, outcome(_rm_original, [], kw), _RM_TWIN):
                    matched = -1
                    break
            found.append((*key(code), mode, key(code) in state["reachable"], matched, len(made)))
        return {"intact": intact, "found": found}
    base = outcome(_rm_original, [], probes[0])
    kept = []
    for number in range(start, min(start + _RM_CHUNK, len(_rm_candidates))):
        first = outcome(_rm_candidates[number], [], probes[0])
        if close(first, base, 5e-3):
            kept.append((number, [first] + [outcome(_rm_candidates[number], [], kw) for kw in probes[1:]]))
    return kept
'''

_PINNED = '''
def _rm_on_example(given):
    import json, numpy
    example = json.loads(_RM_EXAMPLE)
    for name, value in example.items():
        if name in given:
            try:
                a, b = numpy.asarray(given[name], dtype=float), numpy.asarray(value, dtype=float)
                if a.shape != b.shape or not numpy.allclose(a, b, rtol=1e-3, atol=1e-6, equal_nan=True):
                    return False
            except Exception:
                return False
    return True


def _rm_shifted(value):
    import numpy
    if not _RM_SHIFT:
        return value
    try:
        return numpy.asarray(value, dtype=float) * 1.5 + 0.5
    except Exception:
        return None
'''


@dataclass
class Search:
    """What the search trial found."""

    blind: list[Mutant] = field(default_factory=list)
    """mutants that give the example's output and differ elsewhere (the pinned one apart)"""
    twins: Twins = field(default_factory=Twins)
    """functions the test calls that return what the implementation returns (:mod:`~reading_maths.kit.oracle_copies`)"""
    unjudged: bool = False
    """the trial did not finish its look at the test's calls (a call ran past its limit, the test took the
    profiler away, or failed while it was watched): whether the test compares with a copy cannot be told"""
    watched_failed: bool = False
    """the test failed on the implementation wrapped to watch its calls, which computes the same thing: a decoy"""


def _renamed(source: str, name: str) -> str:
    fn = parse_function(source)
    fn.name = name
    return ast.unparse(fn)


def pinned(source: str, inputs: dict[str, Any], shifted: bool = True) -> Mutant:
    """The implementation changed on every input but the example's (and those within its written precision):
    its result scaled and shifted elsewhere.  Not ``shifted``, the same code is a decoy: what the test may see of
    the pinned mutant's make (its names, its wrapper) is no sign of a mutant."""
    fn = parse_function(source)
    example = {k: np.asarray(v, dtype=float).tolist() for k, v in inputs.items()}
    kwarg = fn.args.kwarg.arg if fn.args.kwarg else None
    merge = f"_rm_given.update(_rm_given.pop({kwarg!r}, {{}}))\n    " if kwarg else ""
    wrapper = parse_function(f"def {fn.name}():\n    _rm_given = dict(locals())\n    {merge}"
                             f"_rm_out = {call_text(fn, ORIGINAL)}\n"
                             "    return _rm_out if _rm_on_example(_rm_given) else _rm_shifted(_rm_out)\n")
    wrapper.args = fn.args  # the same signature, defaults included
    text = (f"{_renamed(source, ORIGINAL)}\n\n_RM_EXAMPLE = {json.dumps(json.dumps(example))}\n"
            f"_RM_SHIFT = {shifted}\n{_PINNED}\n\n{ast.unparse(wrapper)}\n")
    return Mutant(PINNED if shifted else "its result passed through a check of the example", text)


def _search_source(source: str, candidates: list[Mutant]) -> str:
    name = parse_function(source).name
    defs = [_renamed(m.source, f"_rm_candidate_{i}") for i, m in enumerate(candidates)]
    listed = ", ".join(f"_rm_candidate_{i}" for i in range(len(candidates)))
    return "\n\n".join([
        _renamed(source, ORIGINAL), *defs,
        f"_rm_candidates = [{listed}]\n"
        f"_RM_CHUNK, _RM_CALLS, _RM_SECONDS, _RM_TWIN = {CHUNK}, {CALLS}, {SECONDS}, {TWIN}",
        _SEARCH,
        f"def {name}(*_rm_args, _rm_step=None, _rm_probes=None, _rm_from=0, **_rm_kwargs):\n"
        f"    if _rm_step is None:\n        return {ORIGINAL}(*_rm_args, **_rm_kwargs)\n"
        "    return _rm_search(_rm_step, _rm_probes, _rm_from, globals())\n"])


def search(implementation: Any, test: Any, source: str, inputs: list[dict[str, Any]],
           originals: list[tuple[str, Any]], agree: Any) -> Search:
    """Run the search trial: the blind mutants among the single and paired changes of ``source`` (agreeing with
    ``originals`` on the example by ``agree``, not on every probe), and the test's twins."""
    candidates = mutants(source, SINGLES) + pairs(source, PAIRS)
    calls: list[tuple[Any, dict]] = [(implementation, {"_rm_step": "arm"}), (test, {}),
                                     (implementation, {"_rm_step": "twins", "_rm_probes": inputs})]
    calls += [(implementation, {"_rm_step": "mutants", "_rm_probes": inputs, "_rm_from": start})
              for start in range(0, len(candidates), CHUNK)]
    runs = run_fresh(implementation, calls, [(_search_source(source, candidates), SEARCH_LIMIT)])
    try:
        _, tested, twins, *chunks = next(runs)
    finally:
        runs.close()
    found = Search()
    report = twins[1] if twins[0] == "value" and isinstance(twins[1], dict) else None
    found.watched_failed = tested[0] == "error"  # on the implementation wrapped: the same computation
    if report is None or report.get("intact") is not True or tested[0] != "value":
        found.unjudged = True
    else:
        found.twins = read_twins(report.get("found"))
    seen: set[str] = set()
    for kind, kept in chunks:
        for number, outs in (kept if kind == "value" and isinstance(kept, list) else []):
            mutant = candidates[number] if isinstance(number, int) and 0 <= number < len(candidates) else None
            if (mutant and len(outs) == len(originals) and agree(tuple(outs[0]), originals[0])
                    and not all(agree(tuple(o), r) for o, r in zip(outs, originals, strict=True))
                    and mutant.description not in seen and len(found.blind) < BLIND):
                seen.add(mutant.description)
                found.blind.append(mutant)
    return found
