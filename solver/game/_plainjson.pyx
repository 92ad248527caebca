# cython: language_level=3, boundscheck=False, wraparound=False
"""JSON documents of plain values, recognised in C (for solver.game.jsondoc).

`is_plain` says that a document is certainly JSON data of sane depth: exact
dicts (no other mapping) with ASCII string keys, lists, ASCII strings, integers of a machine
word, finite floats, booleans and None. What it says yes to, the full check
(`solver.game.jsondoc.check_document`) passes; for anything else it says no, and
the full check judges the document and words the error. Nearly every input
is plain, so the full walk in Python is only paid for the unusual ones.

`object_from_pairs` builds a JSON object for the decoder, or returns None
when a key appears twice (the caller then names the key). `count_keys`
counts the keys of a decoded document (see `solver.game.jsondoc._loads`).
"""

from cpython.long cimport PyLong_AsLongLongAndOverflow

from libc.math cimport isfinite

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)


cdef bint plain(object value, int depth_left) except -1:
    cdef type kind = type(value)
    cdef int overflow = 0
    if kind is str:
        return PyUnicode_IS_ASCII(value)
    if kind is list:
        if depth_left <= 0:
            return False
        for item in <list> value:
            if not plain(item, depth_left - 1):
                return False
        return True
    if kind is dict:
        if depth_left <= 0:
            return False
        for key, item in (<dict> value).items():
            if type(key) is not str or not PyUnicode_IS_ASCII(key) \
                    or not plain(item, depth_left - 1):
                return False
        return True
    if kind is int:
        PyLong_AsLongLongAndOverflow(value, &overflow)
        return overflow == 0
    if value is None or kind is bool:
        return True
    if kind is float:
        return isfinite(<double> value)
    return False


def is_plain(document, int max_depth):
    """True when ``document`` is plain JSON data nested at most ``max_depth`` levels
    deep; False when unsure."""
    return plain(document, max_depth)


def object_from_pairs(list pairs):
    """A dict of the (key, value) pairs of a JSON object; None when a key repeats."""
    cdef dict out = dict(pairs)
    return out if len(out) == len(pairs) else None


cdef Py_ssize_t keys_in(object value):
    cdef Py_ssize_t n = 0
    cdef type kind = type(value)
    if kind is dict:
        n = len(<dict> value)
        for item in (<dict> value).values():
            if type(item) is dict or type(item) is list:
                n += keys_in(item)
    elif kind is list:
        for item in <list> value:
            if type(item) is dict or type(item) is list:
                n += keys_in(item)
    return n


def count_keys(document):
    """How many keys the objects of a decoded JSON document hold, all levels."""
    return keys_in(document)
