"""Every value a student can return reads the same to a grader after the sandbox's wire as in-process.

The sandboxed engine hands graders what :mod:`reading_maths.sandbox.inside.wire` decodes; nbgrader's
kernel and pytest hand them the student's own object.  A grader reads an answer with
``as_plain_array`` (or compares containers item by item), so both must agree on that reading,
and on the structure around it (tuple or list, dict keys), for every kind of value.
"""

import io
import math
import numbers

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

from reading_maths.kit import as_plain_array
from reading_maths.kit.question import NotNumeric
from reading_maths.sandbox.inside import wire


def across(value):
    """The value as the grader receives it from the sandbox: encoded, framed, parsed, decoded."""
    stream = io.BytesIO()
    wire.send(stream, {"value": wire.encode(value)})
    body = stream.getvalue()[wire.HEADER_SIZE:]
    assert wire.header_length(stream.getvalue()[:wire.HEADER_SIZE]) == len(body)
    return wire.decode(wire.parse(body)["value"])


def graded(value):
    """What a grader reads: the plain float64 array, or the feedback for a value that is not numbers."""
    try:
        return as_plain_array(value)
    except NotNumeric as exc:
        return str(exc)


def assert_same_reading(received, original):
    a, b = graded(received), graded(original)
    if isinstance(b, str):
        assert isinstance(a, str), f"{original!r} is refused in-process but read as {a!r} across the wire"
        return
    assert isinstance(a, np.ndarray), f"{original!r} is read in-process but refused across the wire: {a}"
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a, b, equal_nan=True)
    numbers_only = ~np.isnan(b)  # a NaN's sign bit means nothing to a grader; -0.0's is kept
    assert np.array_equal(np.signbit(a)[numbers_only], np.signbit(b)[numbers_only])


def assert_same_structure(received, original):
    if isinstance(original, (list, tuple)):
        assert type(received) is type(original) and len(received) == len(original)
        for r, o in zip(received, original, strict=True):
            assert_same_structure(r, o)
    elif isinstance(original, dict):
        assert isinstance(received, dict) and list(received) == list(original)
        for key in original:
            assert_same_structure(received[key], original[key])
    else:
        assert_same_reading(received, original)


endianness = st.sampled_from("<>=")
dtypes = st.one_of(
    npst.boolean_dtypes(),
    npst.integer_dtypes(endianness="?"),
    npst.unsigned_integer_dtypes(endianness="?"),
    npst.floating_dtypes(endianness="?", sizes=(16, 32, 64)),
    npst.complex_number_dtypes(endianness="?"),
)
plain_arrays = npst.arrays(dtypes, npst.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))


@st.composite
def arrays(draw):
    """Arrays of every dtype and byte order, 0-d and empty included, as C, Fortran or strided views."""
    arr = draw(plain_arrays)
    view = draw(st.sampled_from(["c", "fortran", "transposed", "strided"]))
    if view == "fortran":
        return np.asfortranarray(arr)
    if view == "transposed":
        return arr.T
    if view == "strided" and arr.ndim:
        return arr[::2]
    return arr


numpy_scalars = plain_arrays.filter(lambda a: a.size > 0).map(lambda a: a.flat[0])
python_scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.integers(min_value=2**63 - 4, max_value=2**80), st.integers(max_value=-(2**63) + 4),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([-0.0, math.inf, -math.inf, math.nan]),
    st.complex_numbers(), st.text(max_size=5),
)
leaves = st.one_of(python_scalars, numpy_scalars, arrays())
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)


@pytest.mark.slow  # 400 examples: a few seconds of CPU
@settings(max_examples=400, deadline=None)
@given(values)
def test_every_value_reads_the_same_across_the_wire(value):
    assert_same_structure(across(value), value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(python_scalars, numpy_scalars, arrays()), min_size=1, max_size=3))
def test_a_whole_answer_reads_the_same_across_the_wire(items):
    """Lists of numbers and arrays are read as one array (or refused) the same way on both sides."""
    assert_same_reading(across(items), items)
    assert_same_reading(across(tuple(items)), tuple(items))


@pytest.mark.parametrize("value", [
    np.full((), 2.5), np.zeros(np.shape(0.5)), np.array(-0.0), np.tensordot([1.0, 2.0], [3.0, 4.0], axes=1),
], ids=["0-d ones", "0-d zeros", "0-d -0.0", "0-d tensordot"])
def test_a_0d_array_stays_0d(value):
    """The issue's symptom: a correct answer returned as a 0-d array lost a point through the sandbox."""
    received = across(value)
    assert received.shape == () and graded(received).shape == ()


@pytest.mark.parametrize("value", [1 + 2j, np.complex64(1j), np.array([1 + 1j, 2]), [np.complex128(3)]])
def test_complex_is_refused_with_a_clear_message(value):
    received = across(value)
    message = graded(received)
    assert isinstance(message, str) and message == graded(value)
    if not isinstance(value, list):
        assert "complex" in message


def test_numbers_keep_their_kind():
    """Python ints beyond int64 stay exact, -0.0 keeps its sign, tuples stay tuples, dicts nest."""
    value = {"big": 2**70, "neg0": -0.0, "pair": (1, [2.0, np.float32(0.1)]), "inner": {"x": np.uint64(2**64 - 1)}}
    received = across(value)
    assert received["big"] == 2**70 and isinstance(received["big"], numbers.Integral)
    assert math.copysign(1.0, received["neg0"]) == -1.0
    assert isinstance(received["pair"], tuple) and isinstance(received["pair"][1], list)
    assert received["pair"][1][1] == float(np.float32(0.1))
    assert received["inner"]["x"] == 2**64 - 1
