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
of dimension names and sizes, ``()`` for a number; a dimension's name (``"d_k"``) declares the symbol it
spells, so a size such as the N of ``\\frac{1}{N}\\sum_{i=1}^{N}`` needs no row of its own.  The third
place of a symbol names the argument that holds it (a Python name, ``λ1`` too), or ``"return"`` for the
result.  The module uses only the standard library and NumPy, so the notebook inlines it in a read-only
cell for its public check.
"""

import keyword
import math
import unicodedata

import numpy as np

KEYS = ("paper", "equation", "symbols", "example")
TABLE = ("symbols", "shapes", "codes", "arguments")
"""The symbol table's aspects, each read on its own: its rows and their meanings, the shapes, the names in the code,
and the rows of the example's arguments (their names in the code and shapes)."""
PARTS = ("paper", "equation", *TABLE, "inputs", "output")
"""What the cases of an entry read, each of which may be off the format without the others."""
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


class EntryFormatError(AssertionError):
    """An entry that does not follow the format; the message says what to change."""


def identifier(name):
    """``name`` as Python reads it in source (NFKC: ``"ℓ"`` is ``"l"``), or None when it is no Python name."""
    if not isinstance(name, str):
        return None
    name = unicodedata.normalize("NFKC", name)
    return name if name.isidentifier() and not keyword.iskeyword(name) else None


def _shape(value, where):
    if not isinstance(value, (tuple, list)):
        raise EntryFormatError(f"{where}: the shape should be a tuple of dimension names such as ('n', 'd'), "
                               f"or () for a number, not {type(value).__name__} {value!r}"[:300])
    for dim in value:
        ok = (isinstance(dim, str) and identifier(dim)) or (isinstance(dim, int) and not isinstance(dim, bool)
                                                             and dim >= 0)
        if not ok:
            raise EntryFormatError(f"{where}: {dim!r} is not a dimension; write a name such as 'n' or 'd_k', "
                                   "or a size such as 1"[:300])
    return tuple(value)


def _code(code, where):
    if code is None:
        return None
    if isinstance(code, str) and unicodedata.normalize("NFKC", code) == RETURN:
        return RETURN
    name = identifier(code)
    if name is None:
        raise EntryFormatError(f"{where}: the name in the code should be an argument of the implementation (a "
                               f"Python name), or 'return' for its result, not {code!r}"[:300])
    return name


def _meaning(meaning, where):
    if not isinstance(meaning, str) or not meaning.strip():
        raise EntryFormatError(f"{where}: the meaning should be a sentence, as a string")
    return meaning


def _text(value, where):
    if not isinstance(value, str) or not value.strip():
        raise EntryFormatError(f"{where} should be a non-empty string")
    return value


def _table(value, where, inputs):
    """The symbol table's rows that can be read, as ``{symbol: (meaning, shape, code)}`` (a shape or a code off the
    format read as ``()`` or None), and a problem for each aspect of :data:`TABLE` that does not follow the format;
    ``inputs`` are the example's arguments, whose rows the strength cases read."""
    if not isinstance(value, dict) or not value:
        problem = EntryFormatError(f"{where} should be a dict {{symbol: (meaning, shape, name in the code)}}")
        return {}, dict.fromkeys(TABLE, problem)
    rows, problems = {}, {}
    for key, row in value.items():
        at = f"{where}[{key!r}]"
        if not isinstance(key, str) or not key.strip():
            problems.update(dict.fromkeys(TABLE, EntryFormatError(
                f"{where}: every symbol is a non-empty string of LaTeX, such as r'\\mu'")))
            continue
        if not isinstance(row, (tuple, list)) or len(row) not in (2, 3):
            problems.update(dict.fromkeys(TABLE, EntryFormatError(
                f"{at} should be (meaning, shape) or (meaning, shape, name in the code)")))
            continue
        read = {}
        for part, reader, given, fallback in (("symbols", _meaning, row[0], None), ("shapes", _shape, row[1], ()),
                                              ("codes", _code, (*row, None)[2], None)):
            try:
                read[part] = reader(given, at)
            except EntryFormatError as exc:
                problems.setdefault(part, exc)
                if part == "codes" or (part == "shapes" and identifier((*row, None)[2]) in inputs):
                    problems.setdefault("arguments", exc)
                read[part] = fallback
        rows[key] = tuple(read.values())
    codes = [c for _, _, c in rows.values() if c is not None]
    repeated = sorted({c for c in codes if codes.count(c) > 1})
    unnamed = [a for a in inputs if a not in codes]
    for problem, parts in ((repeated and f"{where}: the name in the code {repeated[0]!r} is given to two symbols",
                            ("codes", "arguments")),
                           (RETURN not in codes and f"{where}: say which symbol is the result: give it the name in "
                            "the code 'return'", ("codes",)),
                           (unnamed and f"{where}: the example's input {unnamed[0]!r} is no symbol's name in the "
                            "code; give its symbol a third place naming it", ("codes", "arguments"))):
        if problem:
            problems.update({p: problems.get(p, EntryFormatError(problem[:300])) for p in parts})
    return rows, problems


def _inputs(value, where):
    if not isinstance(value, dict):
        raise EntryFormatError(f"{where} should be a dict {{argument: value}}")
    inputs = {}
    for argument, number in value.items():
        name = identifier(argument)
        if name is None or name in inputs:
            raise EntryFormatError(f"{where}: the input {argument!r} should be "
                                   f"{'a Python name' if name is None else 'named once'}: an argument of the "
                                   "implementation"[:300])
        _numbers(number, f"{where}[{argument!r}]")
        inputs[name] = number
    return inputs


def _example(value, where):
    if not isinstance(value, dict) or set(value) != {"inputs", "output"}:
        raise EntryFormatError(f"{where} should be {{'inputs': {{argument: value}}, 'output': value}}")
    return value


def _part(entry, key, name):
    if key not in entry:
        raise EntryFormatError(f"{name} has no {key!r}; see entry_0 for the format")
    return entry[key]


def read_parts(entry, name="entry"):
    """Each part of an entry read on its own: ``(read, problems)``.  ``read`` holds ``paper``, ``equation``,
    ``symbols`` (``{symbol: (meaning, shape, code)}``), ``inputs`` and ``output`` as far as they can be read;
    ``problems`` an :class:`EntryFormatError` for each part of :data:`PARTS` that does not follow the format.

    Names in the code and the example's inputs are read as Python reads names (NFKC), so ``implementation(
    **read["inputs"])`` calls an argument written ``ℓ`` by the name Python gave it.  An input that is no
    symbol's name in the code is a problem of the names in the code (its symbol's row lacks the third place).
    """
    if not isinstance(entry, dict):
        problem = EntryFormatError(f"{name} should be a dict with the keys {', '.join(KEYS)}, like entry_0")
        return {}, dict.fromkeys(PARTS, problem)
    read, problems = {}, {}
    for key, reader, parts in (("paper", _text, ("paper",)), ("equation", _text, ("equation",)),
                               ("example", _example, ("inputs", "output"))):
        try:
            read[key] = reader(_part(entry, key, name), f"{name}[{key!r}]")
        except EntryFormatError as exc:
            problems.update(dict.fromkeys(parts, exc))
    example = read.pop("example", {})
    for key, reader in (("inputs", _inputs), ("output", _numbers)):
        try:
            read[key] = reader(example[key], f"{name}['example'][{key!r}]")
        except KeyError:
            pass  # the example is off the format: said above
        except EntryFormatError as exc:
            problems[key] = exc
    try:
        read["symbols"], found = _table(_part(entry, "symbols", name), f"{name}['symbols']", read.get("inputs", {}))
    except EntryFormatError as exc:
        read["symbols"], found = {}, dict.fromkeys(TABLE, exc)
    problems.update(found)
    return read, problems


def read_entry(entry, name="entry"):
    """Check an entry's format and return it with its symbols as ``{symbol: (meaning, shape, code)}``.

    Raises
    ------
    EntryFormatError
        saying, for each part that does not follow the format, how to write it.
    """
    read, problems = read_parts(entry, name)
    if problems:
        raise EntryFormatError("; ".join(dict.fromkeys(str(p) for p in problems.values())))
    return read


def _numbers(value, where):
    try:
        ok = np.asarray(value).dtype.kind in "biuf"
    except Exception:  # noqa: BLE001 - ragged lists and odd objects: not numbers
        ok = False
    if not ok:
        raise EntryFormatError(f"{where} should be numbers: a number, or a (nested) list or array of numbers")
    return value


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
