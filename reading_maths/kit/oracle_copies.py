"""Copies of the implementation that a test uses as its oracle: each mutant is put in their place too.

A test that compares the implementation with a second copy of the same computation (a *twin*: a function of
the program, a def nested in the test, a lambda, a method) kills every mutant while it checks nothing, since a
mutant changes only the graded function.  The search trial (:mod:`reading_maths.kit.blind_spots`) finds the
functions the test calls that return what the implementation returns on the same arguments; here each
mutant's source gains a first statement that, on the mutant's first call (after the program has run, before
the test), swaps the code of every such function, and of every such function's code held by another function
of the program (a def inside the test), for a forwarder to the mutant.  The comparison then compares the
mutant with itself, and the test earns what its other checks earn.

A twin whose code did not exist before the test ran (made from a string by ``exec`` inside the test) cannot be
swapped ahead: such a test earns no strength (:attr:`Twins.unswappable`).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

from reading_maths.kit.mutation import Mutant, parse_function

PATCH = "_rm_put_the_mutant_in_place"
UNCHANGED = "_rm_unchanged"

_PATCH = '''
def _rm_put_the_mutant_in_place():
    if not hasattr(_rm_put_the_mutant_in_place, "done"):
        try:
            _rm_put_the_mutant_in_place.done = _rm_swap_twins()
        except BaseException:
            _rm_put_the_mutant_in_place.done = False
    return _rm_put_the_mutant_in_place.done


def _rm_swap_twins():
    import hashlib, json, types
    space, twins, done = globals(), {tuple(k): v for k, v in json.loads(_RM_TWINS)}, set()

    def key(code):
        return (code.co_qualname, hashlib.sha1(code.co_code).hexdigest())

    def forwarder(code, mode):
        count = code.co_argcount + code.co_kwonlyargcount
        names = list(code.co_varnames[:count + bool(code.co_flags & 4) + bool(code.co_flags & 8)])
        params = names[:code.co_posonlyargcount] + (["/"] if code.co_posonlyargcount else [])
        params += names[code.co_posonlyargcount:code.co_argcount]
        rest = names[count:]
        if code.co_flags & 4:
            params.append("*" + rest.pop(0))
        elif code.co_kwonlyargcount:
            params.append("*")
        params += names[code.co_argcount:count] + (["**" + rest[0]] if code.co_flags & 8 else [])
        if mode == "names":
            given = ", ".join([f"{p}={p}" for p in _RM_PARAMETERS if p in names] + (
                [f"**{{k: v for k, v in {rest[-1]}.items() if k in {_RM_PARAMETERS!r}}}"] if code.co_flags & 8 else []))
        else:
            given = ", ".join(names[1 if "." in code.co_qualname.replace(".<locals>.", "") else 0:code.co_argcount])
        free = code.co_freevars
        text = (f"def _rm_maker():\\n    {' = '.join(free) + ' = None' if free else 'pass'}\\n"
                f"    def _rm_forward({', '.join(params)}):\\n        {'(' + ', '.join(free) + ',)' if free else ''}\\n"
                f"        return {_RM_IMPLEMENTATION}({given})\\n    return _rm_forward.__code__\\n")
        made = {}
        exec(compile(text, code.co_filename, "exec"), made)
        new = made["_rm_maker"]()
        if new.co_freevars != code.co_freevars:
            raise ValueError("the copy's closure cannot be kept")
        return new.replace(co_name=code.co_name, co_qualname=code.co_qualname)

    def swapped(code):
        if key(code) in twins:
            done.add(key(code))
            return forwarder(code, twins[key(code)])
        consts = tuple(swapped(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        return code if all(a is b for a, b in zip(consts, code.co_consts)) else code.replace(co_consts=consts)

    functions = [f for f in list(space.values()) if type(f) is types.FunctionType]
    functions += [f for c in list(space.values()) if type(c) is type for f in vars(c).values()
                  if type(f) is types.FunctionType]
    for function in functions:
        new = swapped(function.__code__)
        if new is not function.__code__:
            function.__code__ = new
    return done == set(twins)  # each one found again: nothing hid one from the swap
'''


@dataclass
class Twins:
    """The twins the search trial found: how to recognise each, and how it is called."""

    names: list[str] = field(default_factory=list)
    """their names, as the feedback gives them"""
    keys: list[tuple[tuple[str, str], str]] = field(default_factory=list)
    """``((qualified name, hash of the bytecode), "names" or "positions")`` for each one that can be swapped"""
    unswappable: bool = False
    """one was made while the test ran: it cannot be swapped ahead"""


def read_twins(found: object) -> Twins:
    """The twins of the search trial's report: rows ``(name, hash, mode, existed before the test, matched, calls)``."""
    twins = Twins()
    for row in found if isinstance(found, list) else []:
        if not (isinstance(row, (list, tuple)) and len(row) == 6):
            continue
        name, digest, mode, existed, matched, made = row
        if matched == made and isinstance(made, int) and made > 0:
            twins.names.append(str(name))
            twins.keys.append(((str(name), str(digest)), "names" if mode == "names" else "positions"))
            twins.unswappable |= existed is not True
    return twins


def call_text(fn: ast.FunctionDef, target: str) -> str:
    """The call of ``target`` with ``fn``'s own parameters, as ``fn``'s body would write it."""
    args = fn.args
    parts = [a.arg for a in [*args.posonlyargs, *args.args]]
    parts += [f"*{args.vararg.arg}"] if args.vararg else []
    parts += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    parts += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return f"{target}({', '.join(parts)})"


def in_place(mutant: Mutant, original: str, twins: Twins) -> Mutant:
    """``mutant`` (the ``def`` of ``original``'s name, last in its source) with each twin put in its place: its
    first call swaps the twins' code for forwarders to it; where the swap cannot be made, the mutant is the
    original, so that it is never caught through a twin."""
    if not twins.keys:
        return mutant
    unchanged = parse_function(original)
    name, unchanged.name = unchanged.name, UNCHANGED
    parameters = [a.arg for a in [*unchanged.args.posonlyargs, *unchanged.args.args, *unchanged.args.kwonlyargs]]
    tree = ast.parse(mutant.source)
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name][-1]
    guard = ast.parse(f"if not {PATCH}():\n    return {call_text(fn, UNCHANGED)}").body[0]
    fn.body.insert(1 if ast.get_docstring(fn) is not None else 0, guard)
    settings = (f"_RM_TWINS = {json.dumps(json.dumps(twins.keys))}\n_RM_IMPLEMENTATION = {name!r}\n"
                f"_RM_PARAMETERS = {parameters!r}\n")
    return Mutant(mutant.description, f"{settings}{_PATCH}\n\n{ast.unparse(unchanged)}\n\n{ast.unparse(tree)}\n")
