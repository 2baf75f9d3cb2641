"""The format of a "Build this" entry, and the checks on it that need nothing but NumPy.

An entry is a dict with four keys::

    entry_1 = {
        "paper": "Ba, Kiros and Hinton (2016), Layer Normalization, eq. (4)",
        "equation": r"y = \\gamma \\odot \\frac{x - \\mu}{\\sqrt{\\sigma^2 + \\epsilon}} + \\beta",
        "symbols": {                  # symbol: (meaning, shape) or (meaning, shape, name in the code)
            "x": ("one row of d features per token", ("n", "d"), "x"),
            r"\\mu": ("the mean of each row", ("n", 1)),
            "y": ("the output, x normalised row by row", ("n", "d"), "return"),
            ...
        },
        "example": {"inputs": {"x": [[1.0, 2.0, 3.0]], ...}, "output": [[-1.2247, 0.0, 1.2247]]},
    }

beside its implementation ``implementation_1`` (called as ``implementation_1(**inputs)``) and its
pytest-style test ``test_1`` (no arguments; it passes when it raises nothing).  A shape is a tuple
of dimension names and sizes, ``()`` for a number; the third place of a symbol names the argument
that holds it, or ``"return"`` for the result.  The module uses only the standard library and
NumPy, so the notebook inlines it in a read-only cell for its public check.
"""

import math
import re

import numpy as np

KEYS = ("paper", "equation", "symbols", "example")
RETURN = "return"
TOLERANCE = 5e-3
SMALL = 0.2
FLOOR = 1e-6
"""A hand-worked number b is met by a when |a - b| is at most one unit of b's last written digit, at most
TOLERANCE * (1 + |b|) and at most SMALL * |b| (relative where b is small: 0.01 is not 0.005), or at most FLOOR."""
MAX_PER_INPUT = 12
MAX_ELEMENTS = 30
MAX_DIGITS = 3
MAX_SIZE = 10_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EntryFormatError(AssertionError):
    """An entry that does not follow the format; the message says what to change."""


def _shape(value, where):
    if not isinstance(value, (tuple, list)):
        raise EntryFormatError(f"{where}: the shape should be a tuple of dimension names such as ('n', 'd'), "
                               f"or () for a number, not {type(value).__name__} {value!r}"[:300])
    for dim in value:
        ok = (isinstance(dim, str) and _NAME.fullmatch(dim)) or (isinstance(dim, int) and not isinstance(dim, bool)
                                                                 and dim >= 0)
        if not ok:
            raise EntryFormatError(f"{where}: {dim!r} is not a dimension; write a name such as 'n' or 'd_k', "
                                   "or a size such as 1"[:300])
    return tuple(value)


def _symbol(key, value, where):
    if not isinstance(key, str) or not key.strip():
        raise EntryFormatError(f"{where}: every symbol is a non-empty string of LaTeX, such as r'\\mu'")
    at = f"{where}[{key!r}]"
    if not isinstance(value, (tuple, list)) or len(value) not in (2, 3):
        raise EntryFormatError(f"{at} should be (meaning, shape) or (meaning, shape, name in the code)")
    meaning, shape, code = (*value, None)[:3]
    if not isinstance(meaning, str) or not meaning.strip():
        raise EntryFormatError(f"{at}: the meaning should be a sentence, as a string")
    if code is not None and not (isinstance(code, str) and _NAME.fullmatch(code)):
        raise EntryFormatError(f"{at}: the name in the code should be an argument of the implementation, "
                               f"or 'return' for its result, not {code!r}"[:300])
    return meaning, _shape(shape, at), code


def read_entry(entry, name="entry"):
    """Check an entry's format and return it with its symbols as ``{symbol: (meaning, shape, code)}``.

    Raises
    ------
    EntryFormatError
        on the first thing that does not follow the format, saying how to write it.
    """
    if not isinstance(entry, dict):
        raise EntryFormatError(f"{name} should be a dict with the keys {', '.join(KEYS)}, like entry_0")
    missing = [k for k in KEYS if k not in entry]
    if missing:
        raise EntryFormatError(f"{name} has no {', '.join(repr(k) for k in missing)}; see entry_0 for the format")
    for key in ("paper", "equation"):
        if not isinstance(entry[key], str) or not entry[key].strip():
            raise EntryFormatError(f"{name}[{key!r}] should be a non-empty string")
    if not isinstance(entry["symbols"], dict) or not entry["symbols"]:
        raise EntryFormatError(f"{name}['symbols'] should be a dict {{symbol: (meaning, shape, name in the code)}}")
    symbols = {k: _symbol(k, v, f"{name}['symbols']") for k, v in entry["symbols"].items()}
    example = entry["example"]
    if not isinstance(example, dict) or set(example) != {"inputs", "output"} or not isinstance(example["inputs"],
                                                                                                 dict):
        raise EntryFormatError(f"{name}['example'] should be {{'inputs': {{argument: value}}, 'output': value}}")
    codes = [c for _, _, c in symbols.values() if c is not None]
    repeated = sorted({c for c in codes if codes.count(c) > 1})
    if repeated:
        raise EntryFormatError(f"{name}: the name in the code {repeated[0]!r} is given to two symbols")
    if RETURN not in codes:
        raise EntryFormatError(f"{name}: say which symbol is the result: give it the name in the code 'return'")
    for argument, value in example["inputs"].items():
        if argument not in codes:
            raise EntryFormatError(f"{name}: the example's input {argument!r} is no symbol's name in the code; "
                                   "give its symbol a third place naming it"[:300])
        _numbers(value, f"{name}['example']['inputs'][{argument!r}]")
    _numbers(example["output"], f"{name}['example']['output']")
    return {"paper": entry["paper"], "equation": entry["equation"], "symbols": symbols,
            "inputs": dict(example["inputs"]), "output": example["output"]}


def _numbers(value, where):
    try:
        arr = np.asarray(value)
        ok = arr.dtype.kind in "biuf"
    except Exception:  # noqa: BLE001 - ragged lists and odd objects: not numbers
        ok = False
    if not ok:
        raise EntryFormatError(f"{where} should be numbers: a number, or a (nested) list or array of numbers")
    return arr


def _unit(x):
    """The place of the last digit written in x: 0.005 -> 0.001, 1.41 -> 0.01, 2.0 -> 1."""
    if not math.isfinite(x):
        return 0.0
    text = np.format_float_positional(x, trim="-")
    return 10.0 ** -len(text.split(".")[1]) if "." in text else 1.0


def same_output(actual, expected):
    """The output meets the hand-worked one: the same shape, and each number at the precision it was written."""
    try:
        a = np.asarray(actual, dtype=np.float64)
        b = np.asarray(expected, dtype=np.float64)
    except Exception:  # noqa: BLE001 - not numbers
        return False
    if a.shape != b.shape:
        return False
    units = np.vectorize(_unit, otypes=[float])(b) if b.size else b
    with np.errstate(invalid="ignore", over="ignore"):
        tolerance = np.maximum(np.minimum(np.minimum(units, TOLERANCE * (1 + np.abs(b))), SMALL * np.abs(b)), FLOOR)
        close = (np.abs(a - b) <= tolerance) & np.isfinite(b)
    return bool(np.all(close | (np.isnan(a) & np.isnan(b)) | (np.isinf(b) & (a == b))))


def shape_problems(entry, output):
    """Where the example contradicts the symbol table's shapes: each dimension must have one size."""
    actual = {symbol: np.shape(entry["inputs"][code]) for symbol, (_, _, code) in entry["symbols"].items()
              if code in entry["inputs"]}
    actual.update({s: np.shape(output) for s, (_, _, code) in entry["symbols"].items() if code == RETURN})
    sizes, problems = {}, []
    for symbol, shape in actual.items():
        declared = entry["symbols"][symbol][1]
        if len(declared) != len(shape):
            problems.append(f"{symbol} should have shape {declared}, but in the example it has shape {shape}")
            continue
        for dim, size in zip(declared, shape, strict=True):
            if isinstance(dim, int) and dim != size:
                problems.append(f"{symbol} should have size {dim} where it has size {size}")
            elif isinstance(dim, str) and sizes.setdefault(dim, (size, symbol))[0] != size:
                first, where = sizes[dim]
                problems.append(f"dimension {dim!r} is {first} in {where} but {size} in {symbol}")
    return problems


def _short(x):
    if isinstance(x, (bool, np.bool_)) or math.isinf(x):
        return True
    return abs(x) <= MAX_SIZE and float(f"{x:.{MAX_DIGITS}g}") == x


def tiny_problems(entry):
    """What makes the example more than a few short numbers a person can work by hand."""
    problems, total = [], 0
    for argument, value in entry["inputs"].items():
        arr = np.asarray(value).ravel()
        total += arr.size
        if arr.size > MAX_PER_INPUT:
            problems.append(f"input {argument!r} has {arr.size} numbers (at most {MAX_PER_INPUT})")
        long = [x for x in arr.tolist() if not _short(x)]
        if long:
            problems.append(f"input {argument!r} has long numbers such as {long[0]!r} (at most {MAX_DIGITS} "
                            f"significant digits, at most {MAX_SIZE} in size)")
    if total > MAX_ELEMENTS:
        problems.append(f"the inputs hold {total} numbers in all (at most {MAX_ELEMENTS})")
    if np.size(entry["output"]) > MAX_PER_INPUT:
        problems.append(f"the output has {np.size(entry['output'])} numbers (at most {MAX_PER_INPUT})")
    return problems


def check_entry(entry, implementation, test, name="entry"):
    """The public check of one entry: format, shapes, a tiny example reproduced, and a test that passes.

    Returns the line to show when all is well; raises ``AssertionError`` with what to fix otherwise.
    """
    read = read_entry(entry, name)
    output = implementation(**read["inputs"])
    for problems in (shape_problems(read, output), tiny_problems(read)):
        assert not problems, "; ".join(problems)
    try:
        shown = np.round(np.asarray(output, dtype=float), 4).tolist()
    except Exception:  # noqa: BLE001 - not numbers: say what it is
        shown = f"a {type(output).__name__}"
    assert same_output(output, read["output"]), (
        f"your implementation gives {shown} on your example, not the output you worked by hand; "
        "one of the two is wrong: find out which")
    test()
    return ("the format is right, the implementation reproduces your example and your test passes; grading "
            "also reads the equation's symbols and counts the mutants your test catches")
