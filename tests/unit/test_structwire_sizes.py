"""The C codec's size arithmetic: a sum past PY_SSIZE_T_MAX is refused, never wrapped.

No real bytes come near PY_SSIZE_T_MAX, so the sums are checked where they are made: a
small extension compiled here includes `_structwire.c` and calls its buffer functions
with such sizes on a buffer holding no memory. Before the checks the sums wrapped
(signed overflow: undefined, and a wrap under CPython's -fwrapv) to sizes that passed
for room, and the write that followed crashed; so the calls run in a process of their
own. `make test-sanitize` compiles it with its sanitizers (CFLAGS), where even a wrap
that changed nothing is an error.
"""

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from function.codec import structs

SOURCE = Path(structs.__file__).with_name("_structwire.c")

HARNESS = r"""
#define PyInit__structwire structwire_module_unused /* this file is its own module */
#include SOURCE
#undef PyInit__structwire

/* reserve() on a buffer that holds no memory and claims `len` bytes written of `cap`:
 * only its arithmetic runs, unless the room it finds is too small. */
static PyObject *try_reserve(PyObject *self, PyObject *args) {
    Buffer out = {NULL, 0, 0};
    Py_ssize_t more;
    if (!PyArg_ParseTuple(args, "nnn", &out.len, &out.cap, &more) || reserve(&out, more) < 0) {
        return NULL;
    }
    return PyLong_FromSsize_t(out.cap);
}

/* put_bytes() of `size` bytes that are never there: it must refuse before it copies. */
static PyObject *try_put_bytes(PyObject *self, PyObject *args) {
    Buffer out = {NULL, 0, 0};
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "n", &size)) {
        return NULL;
    }
    int failed = put_bytes(&out, TAG_STRING, NULL, size);
    PyMem_Free(out.data);
    return failed < 0 ? NULL : PyLong_FromSsize_t(out.len);
}

static PyMethodDef harness_methods[] = {
    {"reserve", try_reserve, METH_VARARGS, NULL},
    {"put_bytes", try_put_bytes, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef harness = {
    PyModuleDef_HEAD_INIT, "structwire_sizes", NULL, -1, harness_methods,
};

PyMODINIT_FUNC PyInit_structwire_sizes(void) { return PyModule_Create(&harness); }
"""

CALLS = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("structwire_sizes", sys.argv[1])
sizes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sizes)
MAX = sys.maxsize
for name, args in [
    ("reserve", (MAX - 5, MAX - 5, 10)),  # written + more, past the largest size
    ("reserve", (0, MAX // 2 + 10, MAX // 2 + 20)),  # the room could not double
    ("reserve", (10, 2048, 100)),  # room enough: nothing to do
    ("put_bytes", (MAX - 3,)),  # a tag, a length and the bytes, past the largest size
    ("put_bytes", (MAX,)),
]:
    try:
        print(name, getattr(sizes, name)(*args), flush=True)
    except Exception as exc:
        print(name, type(exc).__name__, flush=True)
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The harness compiled as the codec is, with the flags of the run (CFLAGS) on top."""
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if shutil.which(compiler[0]) is None:
        pytest.skip(f"no C compiler ({compiler[0]}) to build the size harness with")
    directory = tmp_path_factory.mktemp("structwire_sizes")
    source = directory / "structwire_sizes.c"
    source.write_text(HARNESS.replace("SOURCE", f'"{SOURCE}"'))
    built = directory / f"structwire_sizes{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(
        [
            *compiler,
            "-shared",
            "-fPIC",
            "-O1",
            f"-I{sysconfig.get_paths()['include']}",
            *shlex.split(os.environ.get("CFLAGS", "")),
            str(source),
            "-o",
            str(built),
            *shlex.split(os.environ.get("LDFLAGS", "")),
        ],
        check=True,
        # The compiler runs without the sanitizer runtime make test-sanitize preloads.
        env={name: value for name, value in os.environ.items() if name != "LD_PRELOAD"},
    )
    return built


@pytest.mark.slow
def test_sizes_past_the_largest_are_refused_before_anything_is_written(harness: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CALLS, str(harness)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "reserve OverflowError",
        "reserve MemoryError",
        "reserve 2048",
        "put_bytes OverflowError",
        "put_bytes OverflowError",
    ]
