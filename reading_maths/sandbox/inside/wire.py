"""The plain-data wire between the trusted grader and the sandboxed student process.

Messages are length-prefixed JSON.  Values are JSON with a few tagged forms: arrays travel as raw
little-endian bytes of one of three dtypes (float64, int64, bool) with their shape (0-d included),
tuples, dicts and sets are tagged, complex numbers are refused, a trusted callback travels as a
number, and a grader's :class:`~reading_maths.sandbox.inside.functions_as_data.Portable` function as its parameters
(rebuilt only in the child).  Nothing is ever pickled, and decoding builds only plain Python and
NumPy objects, checking every size on the way.

NumPy is imported when a value first needs it (:func:`_numpy`): a sandboxed child whose student never
imports NumPy, and that is sent no array, does not pay for importing it (most of a child's start).
"""

from __future__ import annotations

import base64
import json
import math
import numbers
import os
import struct
import sys

if __package__:
    from reading_maths.sandbox.inside import functions_as_data
else:  # in the sandbox, beside child.py
    import functions_as_data

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the child imports this module at every start)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MAX_MESSAGE = 64 * 1024 * 1024
MAX_ITEMS = 2_000_000
"""The decode budget of one message: at most this many JSON values (counted before parsing), so a
64 MiB message of millions of empty lists is refused in milliseconds rather than parsed in seconds."""
MAX_DEPTH = 40
DTYPES = {"f8": "float64", "i8": "int64", "b1": "bool"}
"""The array kinds that travel: wire code -> NumPy dtype."""
_HEADER = struct.Struct(">I")
COMPLEX = "complex"
"""The type name complex numbers travel as: refused, since every answer of the course is real."""


class WireError(ValueError):
    """A message that breaks the protocol (too big, malformed, or of a forbidden kind)."""


class Unencodable:
    """Stands for a student value that is not plain data (its type name only).

    It is an instance of a subclass named as the value's type, so that a message saying
    ``type(value).__name__`` names the type Python shows (``generator``), never this class.
    """

    def __new__(cls, type_name: str):
        return object.__new__(_named(type_name) if cls is Unencodable else cls)

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


_NAMED: dict[str, type] = {}


def _named(type_name: str) -> type:
    """The subclass of :class:`Unencodable` named ``type_name`` (a NUL, which no class name holds, as ``?``)."""
    if type_name not in _NAMED:
        if len(_NAMED) >= 256:
            _NAMED.clear()
        _NAMED[type_name] = type(type_name.replace("\0", "?"), (Unencodable,), {"__slots__": ()})
    return _NAMED[type_name]


class Callback:
    """A trusted function the student's code may call back (decoded from its number)."""

    def __init__(self, number: int):
        self.number = number


# -- values ------------------------------------------------------------------------------------

def _numpy() -> Any:
    """NumPy, imported on first use."""
    import numpy

    return numpy


def _array(value: Any) -> dict:
    """An array-like as raw little-endian bytes in C order, keeping its shape (0-d stays 0-d).

    Integers that do not fit int64 (large uint64) travel as float64, which is what the graders
    read every number as; complex numbers are refused (see :func:`encode`).
    """
    np = _numpy()
    arr = np.array(value, subok=False)
    if np.iscomplexobj(arr):
        raise TypeError("complex")
    if arr.dtype == np.bool_:
        code = "b1"
    elif np.issubdtype(arr.dtype, np.integer) and np.can_cast(arr.dtype, np.int64):
        code = "i8"
    else:
        code = "f8"  # float, or anything NumPy can make a float of; raises otherwise
    arr = arr.astype(f"<{code}")  # any order, stride or byte order in; a C-order copy out
    return {"__nd__": [code, list(arr.shape), base64.b64encode(arr.tobytes(order="C")).decode("ascii")]}


def _array_or_unencodable(value: Any) -> dict:
    try:
        return _array(value)
    except Exception as exc:  # noqa: BLE001 - an object array or a strange class: not numbers
        return {"__unencodable__": COMPLEX if str(exc) == "complex" else type(value).__name__}


def encode(value: Any, callbacks: list | None = None, depth: int = 0) -> Any:
    """Turn a value into wire data; functions become callbacks when ``callbacks`` collects them."""
    if depth > MAX_DEPTH:
        return {"__unencodable__": "nesting too deep"}
    kind = type(value)
    if kind is float or kind is int or kind is str:  # the commonest, by exact type: what the checks below make of them
        return value
    np = sys.modules.get("numpy")  # not imported yet: no value here can be one of its types
    if np is not None and kind is np.ndarray:
        return _array_or_unencodable(value)
    if value is None or isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, numbers.Complex):
        return {"__unencodable__": COMPLEX}
    if (np is not None and isinstance(value, np.ndarray)) or (hasattr(value, "__array__") and not callable(value)):
        return _array_or_unencodable(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [encode(v, callbacks, depth + 1) for v in list(value)]
        if isinstance(value, list):
            return items
        return {"__tuple__": items} if isinstance(value, tuple) else {"__set__": items}
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, callbacks, depth + 1), encode(v, callbacks, depth + 1)]
                             for k, v in list(value.items())]}
    if callbacks is not None and isinstance(value, functions_as_data.Portable):  # a call's argument: the child runs it
        return {"__fn__": [value.kind, [encode(p, None, depth + 1) for p in value.parameters()]]}
    if callbacks is not None and callable(value):
        callbacks.append(value)
        return {"__cb__": len(callbacks) - 1}
    return {"__unencodable__": type(value).__name__}


def _decode_array(spec: Any) -> Any:
    if not (isinstance(spec, list) and len(spec) == 3):
        raise WireError("bad array")
    code, shape, data = spec
    if code not in DTYPES or not isinstance(shape, list) or not isinstance(data, str):
        raise WireError("bad array")
    if len(shape) > 32 or not all(isinstance(n, int) and 0 <= n < 2**31 for n in shape):
        raise WireError("bad array shape")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        raise WireError("bad array data") from None
    np = _numpy()
    dtype = np.dtype(f"<{code}")
    size = math.prod(shape)  # Python integers: a product that would wrap around in int64 cannot match
    if len(raw) != size * dtype.itemsize:
        raise WireError("array size does not match its shape")
    try:
        return np.frombuffer(raw, dtype=dtype).astype(DTYPES[code]).reshape(shape)
    except ValueError:  # a shape NumPy cannot make, even of no elements
        raise WireError("bad array shape") from None


def _decode_function(body: Any, depth: int) -> functions_as_data.Portable:
    kinds = functions_as_data.KINDS
    if not (isinstance(body, list) and len(body) == 2 and body[0] in kinds and isinstance(body[1], list)):
        raise WireError("bad function")
    try:
        return kinds[body[0]].rebuild([decode(p, depth + 1) for p in body[1]])
    except (ValueError, TypeError):
        raise WireError("bad function") from None


def decode(data: Any, depth: int = 0, *, functions: bool = False) -> Any:
    """Rebuild a value from wire data: plain objects and arrays only, and with ``functions`` (the child
    decoding a call's arguments) the portable functions they name."""
    if depth > MAX_DEPTH + 2:
        raise WireError("nesting too deep")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, depth + 1, functions=functions) for v in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise WireError("unknown value")
    (tag, body), = data.items()
    if tag == "__nd__":
        return _decode_array(body)
    if tag == "__unencodable__":
        return Unencodable(str(body)[:80])
    if tag == "__cb__":
        if not isinstance(body, int):
            raise WireError("bad callback")
        return Callback(body)
    if tag == "__fn__" and functions:
        return _decode_function(body, depth)
    if not isinstance(body, list):
        raise WireError("bad container")
    if tag == "__tuple__":
        return tuple(decode(v, depth + 1, functions=functions) for v in body)
    if tag == "__set__":
        items = [decode(v, depth + 1, functions=functions) for v in body]
        try:
            _few_equal_hashes(items)
        except TypeError:  # cannot come from a real set; keep the items
            return items
        return set(items)
    if tag == "__dict__":
        pairs = []
        for pair in body:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise WireError("bad dict")
            key = decode(pair[0], depth + 1)
            if isinstance(key, list):
                key = tuple(key)
            if not isinstance(key, (str, int, float, bool, tuple, type(None))):
                raise WireError("bad dict key")
            pairs.append((key, decode(pair[1], depth + 1, functions=functions)))
        try:
            _few_equal_hashes([key for key, _ in pairs])
        except TypeError:  # a tuple key holding a list: unhashable
            raise WireError("bad dict key") from None
        return dict(pairs)
    raise WireError("unknown tag")


MAX_EQUAL_HASHES = 64
"""How many keys of one set or dict may share a hash with another: a real set of numbers has a few (``-1`` and
``-2``), while keys crafted to collide (the multiples of ``2**61 - 1``) would make building it take time growing
with the square of their number, on the trusted side."""


def _few_equal_hashes(keys: list) -> None:
    """Raise :class:`WireError` when more than :data:`MAX_EQUAL_HASHES` of ``keys`` share a hash with another
    (``TypeError`` for an unhashable key). Linear: the hashes themselves are distinct integers."""
    if len(keys) - len({hash(key) for key in keys}) > MAX_EQUAL_HASHES:
        raise WireError("a set or dict whose keys were made to share hashes")


# -- framing -----------------------------------------------------------------------------------

def frame(message: dict) -> bytes:
    """One message as the bytes that travel: its length, then its JSON."""
    body = json.dumps(message, allow_nan=True, separators=(",", ":")).encode()
    return _HEADER.pack(len(body)) + body


def send(stream: BinaryIO | int, message: dict) -> None:
    """Write one message (to a file object or a raw file descriptor)."""
    data = frame(message)
    if isinstance(stream, int):
        view = memoryview(data)
        while view:
            view = view[os.write(stream, view):]
    else:
        stream.write(data)
        stream.flush()


def parse(body: bytes) -> dict:
    """Parse one message body; raise :class:`WireError` on anything but a JSON object, or on one
    holding more values than the decode budget allows."""
    if body.count(b",") + body.count(b"[") + body.count(b"{") > MAX_ITEMS:
        raise WireError("message holds too many values")
    try:
        message = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        raise WireError("malformed message") from None
    if not isinstance(message, dict):
        raise WireError("malformed message")
    return message


def header_length(header: bytes) -> int:
    (length,) = _HEADER.unpack(header)
    if length > MAX_MESSAGE:
        raise WireError("message too large")
    return length


HEADER_SIZE = _HEADER.size
