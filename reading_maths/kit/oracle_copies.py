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

from reading_maths.kit.mutation import Mutant

PATCH = "_rm_put_the_mutant_in_place"

_PATCH = '''
def _rm_put_the_mutant_in_place():
    if getattr(_rm_put_the_mutant_in_place, "done", False):
        return
    _rm_put_the_mutant_in_place.done = True
    import gc, hashlib, json, types
    space, twins = globals(), {tuple(k): v for k, v in json.loads(_RM_TWINS)}

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
            given = ", ".join(f"{p}={p}" for p in _RM_PARAMETERS if p in names)
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
            return code
        return new.replace(co_name=code.co_name, co_qualname=code.co_qualname)

    def swapped(code):
        if key(code) in twins:
            return forwarder(code, twins[key(code)])
        consts = tuple(swapped(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        return code if all(a is b for a, b in zip(consts, code.co_consts)) else code.replace(co_consts=consts)

    for function in gc.get_objects():
        if isinstance(function, types.FunctionType) and function.__globals__ is space:
            new = swapped(function.__code__)
            if new is not function.__code__:
                function.__code__ = new
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


def in_place(mutant: Mutant, name: str, twins: Twins, parameters: list[str]) -> Mutant:
    """``mutant`` (the ``def name`` last in its source) with each twin put in its place: the def starts by
    swapping the twins' code for forwarders to it (``parameters``: the implementation's, by name)."""
    if not twins.keys:
        return mutant
    tree = ast.parse(mutant.source)
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name][-1]
    fn.body.insert(1 if ast.get_docstring(fn) is not None else 0, ast.parse(f"{PATCH}()").body[0])
    settings = (f"_RM_TWINS = {json.dumps(json.dumps(twins.keys))}\n_RM_IMPLEMENTATION = {name!r}\n"
                f"_RM_PARAMETERS = {parameters!r}\n")
    return Mutant(mutant.description, f"{settings}{_PATCH}\n\n{ast.unparse(tree)}\n")
