/*
 * plain Python data <-> protobuf Struct wire bytes, in C.
 *
 * The encoder behind function/codec/structs.py, which writes the same bytes through
 * protobuf's own API where this is not built; tests hold the two to the same
 * results. It writes only the function's own dicts (what it rendered), never bytes
 * that came in with a request: every value is an exact built-in type (dict, list,
 * str, int, float, bool, None) and every key a str (a subclass read as its text)
 * whose reading runs no Python code, so nothing can change under a loop. Anything
 * else is refused, naming its type (_structwire.pyi says the same).
 *
 * Every message is nested no deeper than protobuf reads (MAX_DEPTH): deeper data is
 * refused with a RecursionError, and structs.py hands it to protobuf's API. So this
 * file's recursion is bounded by a constant, not by Python's recursion limit, which
 * does not size the C stack.
 *
 * Decoding reads bytes protobuf itself wrote (a Struct or Value decoded from a request,
 * serialised again), as structs.py reads them through protobuf's API: integral
 * numbers as ints, maps as dicts, lists as lists.
 *
 * google.protobuf.Struct:   fields: map<string, Value> = 1  (entry: key = 1, value = 2)
 * google.protobuf.Value:    null_value = 1 (varint), number_value = 2 (double),
 *                           string_value = 3, bool_value = 4 (varint),
 *                           struct_value = 5, list_value = 6
 * google.protobuf.ListValue: values: repeated Value = 1
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define TAG_FIELDS 0x0a      /* Struct.fields, ListValue.values, entry key: field 1, bytes */
#define TAG_ENTRY_VALUE 0x12 /* entry value: field 2, bytes */
#define TAG_NULL 0x08
#define TAG_NUMBER 0x11
#define TAG_STRING 0x1a
#define TAG_BOOL 0x20
#define TAG_STRUCT 0x2a
#define TAG_LIST 0x32

/* How many messages deep protobuf's decoder reads below the outermost one (upb's
 * limit, function/codec/nesting.py's PROTOBUF_MAX_DEPTH; a test holds them equal),
 * each Struct, map entry, Value and ListValue a level, as upb counts them. Python
 * sees it as the module's MAX_DEPTH. */
#define MAX_DEPTH 100

/* A RecursionError, as Python raises for data too deep for it: structs.py takes it as
 * the sign to use protobuf's API, which reads and writes a Struct held in memory as
 * deep as Python's recursion allows. */
static int too_deep(void) {
    PyErr_Format(PyExc_RecursionError, "a protobuf Struct nested more than %d levels deep",
                 MAX_DEPTH);
    return -1;
}

/* `*sum = a + b` for sizes (never negative), unless that passes PY_SSIZE_T_MAX: signed
 * overflow is undefined, and under CPython's -fwrapv it wraps to a small size that
 * passes for room, so the sum is refused before it is made. */
static int add_sizes(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *sum) {
    if (b > PY_SSIZE_T_MAX - a) {
        PyErr_SetString(PyExc_OverflowError, "protobuf bytes larger than a Python object can be");
        return -1;
    }
    *sum = a + b;
    return 0;
}

/* ---------------------------------------------------------------- encoding */

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
} Buffer;

/* The buffer grown to hold `more` bytes past those written, doubling. */
static int grow(Buffer *out, Py_ssize_t more) {
    Py_ssize_t need;
    if (add_sizes(out->len, more, &need) < 0) {
        return -1;
    }
    Py_ssize_t cap = out->cap ? out->cap : 1024;
    while (cap < need) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *grown = PyMem_Realloc(out->data, (size_t)cap);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    out->data = grown;
    out->cap = cap;
    return 0;
}

/* Room for `more` bytes past those written. The room left, cap - len, cannot overflow
 * (len <= cap) where len + more could: only growing adds, and checks. */
static int reserve(Buffer *out, Py_ssize_t more) {
    return more <= out->cap - out->len ? 0 : grow(out, more);
}

static int varint_size(uint64_t value) {
    int size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

static void write_varint(char *at, uint64_t value) {
    while (value >= 0x80) {
        *at++ = (char)((value & 0x7f) | 0x80);
        value >>= 7;
    }
    *at = (char)value;
}

static int put_byte(Buffer *out, unsigned char byte) {
    if (reserve(out, 1) < 0) {
        return -1;
    }
    out->data[out->len++] = (char)byte;
    return 0;
}

static int put_bytes(Buffer *out, unsigned char tag, const char *bytes, Py_ssize_t size) {
    Py_ssize_t room; /* the tag, at most 10 bytes of length, the bytes */
    if (add_sizes(1 + 10, size, &room) < 0 || reserve(out, room) < 0) {
        return -1;
    }
    out->data[out->len++] = (char)tag;
    write_varint(out->data + out->len, (uint64_t)size);
    out->len += varint_size((uint64_t)size);
    memcpy(out->data + out->len, bytes, (size_t)size);
    out->len += size;
    return 0;
}

/* A nested message `depth` levels down: its tag and one byte for its length, which
 * `close` fixes up once the length is known (moving the body when the length needs
 * more bytes), so that every varint is as short as protobuf's own encoder writes it. */
static Py_ssize_t open_nested(Buffer *out, unsigned char tag, int depth) {
    if (depth > MAX_DEPTH) {
        return too_deep();
    }
    if (reserve(out, 2) < 0) {
        return -1;
    }
    out->data[out->len++] = (char)tag;
    out->data[out->len++] = 0;
    return out->len;
}

static int close_nested(Buffer *out, Py_ssize_t body) {
    Py_ssize_t size = out->len - body;
    int extra = varint_size((uint64_t)size) - 1;
    if (extra > 0) {
        if (reserve(out, extra) < 0) {
            return -1;
        }
        memmove(out->data + body + extra, out->data + body, (size_t)size);
        out->len += extra;
    }
    write_varint(out->data + body - 1, (uint64_t)size);
    return 0;
}

/* Each writes a message `depth` levels below the outermost Struct. */
static int encode_fields(Buffer *out, PyObject *dict, int depth);
static int encode_value(Buffer *out, PyObject *value, int depth);

static int unsupported(PyObject *value) {
    PyErr_Format(PyExc_TypeError, "cannot put a %s into a protobuf Struct", Py_TYPE(value)->tp_name);
    return -1;
}

static int encode_string(Buffer *out, unsigned char tag, PyObject *text) {
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 == NULL) {
        return -1;
    }
    return put_bytes(out, tag, utf8, size);
}

static int encode_list(Buffer *out, PyObject *list, int depth) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        Py_ssize_t body = open_nested(out, TAG_FIELDS, depth + 1);
        if (body < 0 || encode_value(out, PyList_GET_ITEM(list, i), depth + 1) < 0 ||
            close_nested(out, body) < 0) {
            return -1;
        }
    }
    return 0;
}

/* One Value's oneof field, as structs.encode writes it through protobuf: exact types only
 * (a bool is not an int here), ints as doubles, empty maps and lists present. */
static int encode_value(Buffer *out, PyObject *value, int depth) {
    PyTypeObject *type = Py_TYPE(value);
    if (type == &PyUnicode_Type) {
        return encode_string(out, TAG_STRING, value);
    }
    if (type == &PyDict_Type || type == &PyList_Type) {
        int is_dict = type == &PyDict_Type;
        Py_ssize_t body = open_nested(out, is_dict ? TAG_STRUCT : TAG_LIST, depth + 1);
        if (body < 0) {
            return -1;
        }
        int failed = is_dict ? encode_fields(out, value, depth + 1)
                             : encode_list(out, value, depth + 1);
        return failed < 0 ? -1 : close_nested(out, body);
    }
    if (type == &PyLong_Type || type == &PyFloat_Type) {
        double number = type == &PyFloat_Type ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
        if (number == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        if (reserve(out, 9) < 0) {
            return -1;
        }
        out->data[out->len++] = (char)TAG_NUMBER;
        uint64_t bits;
        memcpy(&bits, &number, 8);
        for (int i = 0; i < 8; i++) { /* little-endian on every host */
            out->data[out->len++] = (char)(bits >> (8 * i));
        }
        return 0;
    }
    if (type == &PyBool_Type) {
        return put_byte(out, TAG_BOOL) < 0 ? -1 : put_byte(out, value == Py_True);
    }
    if (value == Py_None) {
        return put_byte(out, TAG_NULL) < 0 ? -1 : put_byte(out, 0);
    }
    return unsupported(value);
}

static int encode_fields(Buffer *out, PyObject *dict, int depth) {
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(dict, &position, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "a protobuf Struct's keys are strings, not %s",
                         Py_TYPE(key)->tp_name);
            return -1;
        }
        Py_ssize_t entry = open_nested(out, TAG_FIELDS, depth + 1);
        if (entry < 0 || encode_string(out, TAG_FIELDS, key) < 0) {
            return -1;
        }
        Py_ssize_t body = open_nested(out, TAG_ENTRY_VALUE, depth + 2);
        if (body < 0 || encode_value(out, value, depth + 2) < 0 || close_nested(out, body) < 0 ||
            close_nested(out, entry) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *encode(PyObject *module, PyObject *data) {
    if (!PyDict_CheckExact(data)) {
        return PyErr_Format(PyExc_TypeError, "a protobuf Struct is written from a dict, not %s",
                            Py_TYPE(data)->tp_name);
    }
    Buffer out = {NULL, 0, 0};
    PyObject *result = NULL;
    if (encode_fields(&out, data, 0) == 0) {
        result = PyBytes_FromStringAndSize(out.data ? out.data : "", out.len);
    }
    PyMem_Free(out.data);
    return result;
}

/* ---------------------------------------------------------------- decoding */

typedef struct {
    const unsigned char *at;
    const unsigned char *end;
} Reader;

static int malformed(void) {
    PyErr_SetString(PyExc_ValueError, "malformed protobuf Struct bytes");
    return -1;
}

static int read_varint(Reader *in, uint64_t *value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (in->at >= in->end) {
            return malformed();
        }
        unsigned char byte = *in->at++;
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return 0;
        }
    }
    return malformed();
}

/* A length-delimited field's body, as a reader of its own. */
static int read_nested(Reader *in, Reader *body) {
    uint64_t size;
    if (read_varint(in, &size) < 0) {
        return -1;
    }
    if (size > (uint64_t)(in->end - in->at)) {
        return malformed();
    }
    body->at = in->at;
    body->end = in->at + size;
    in->at += size;
    return 0;
}

/* Skip a field this decoder does not read (protobuf keeps unknown fields). */
static int skip_field(Reader *in, uint64_t tag) {
    uint64_t ignored;
    Reader body;
    switch (tag & 7) {
    case 0:
        return read_varint(in, &ignored);
    case 1:
    case 5: {
        Py_ssize_t size = (tag & 7) == 1 ? 8 : 4;
        if (in->end - in->at < size) {
            return malformed();
        }
        in->at += size;
        return 0;
    }
    case 2:
        return read_nested(in, &body);
    default:
        return malformed();
    }
}

/* Each reads a message `depth` levels below the outermost one, first refusing to go
 * deeper than protobuf reads. */
static PyObject *decode_value(Reader *in, int depth);
static PyObject *decode_fields(Reader *in, int depth);

/* The next field 1 of a message (a Struct's entries, a ListValue's values), others
 * skipped: 1 with its body, 0 at the message's end, -1 on an error. */
static int next_field1(Reader *in, Reader *body) {
    while (in->at < in->end) {
        uint64_t tag;
        if (read_varint(in, &tag) < 0) {
            return -1;
        }
        if (tag == TAG_FIELDS) {
            return read_nested(in, body) < 0 ? -1 : 1;
        }
        if (skip_field(in, tag) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *decode_list(Reader *in, int depth) {
    if (depth > MAX_DEPTH) {
        too_deep();
        return NULL;
    }
    PyObject *list = PyList_New(0);
    Reader body;
    int found = 0;
    while (list != NULL && (found = next_field1(in, &body)) > 0) {
        PyObject *item = decode_value(&body, depth + 1);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    if (found < 0) {
        goto fail;
    }
    return list;
fail:
    Py_XDECREF(list);
    return NULL;
}

/* A number as structs.py reads one: integral values as ints. */
static PyObject *number(double value) {
    if (isfinite(value) && value == floor(value)) {
        return PyLong_FromDouble(value);
    }
    return PyFloat_FromDouble(value);
}

/* One Value: the last of its oneof fields wins, as protobuf's decoder has it; none is None. */
static PyObject *decode_value(Reader *in, int depth) {
    if (depth > MAX_DEPTH) {
        too_deep();
        return NULL;
    }
    PyObject *result = Py_NewRef(Py_None);
    while (in->at < in->end) {
        uint64_t tag, flag;
        Reader body;
        PyObject *next = NULL;
        if (read_varint(in, &tag) < 0) {
            goto fail;
        }
        switch (tag) {
        case TAG_NULL:
            if (read_varint(in, &flag) < 0) {
                goto fail;
            }
            next = Py_NewRef(Py_None);
            break;
        case TAG_BOOL:
            if (read_varint(in, &flag) < 0) {
                goto fail;
            }
            next = PyBool_FromLong(flag != 0);
            break;
        case TAG_NUMBER: {
            if (in->end - in->at < 8) {
                malformed();
                goto fail;
            }
            uint64_t bits = 0;
            for (int i = 0; i < 8; i++) { /* little-endian on the wire */
                bits |= (uint64_t)in->at[i] << (8 * i);
            }
            in->at += 8;
            double value;
            memcpy(&value, &bits, 8);
            next = number(value);
            break;
        }
        case TAG_STRING:
            if (read_nested(in, &body) < 0) {
                goto fail;
            }
            next = PyUnicode_DecodeUTF8((const char *)body.at, body.end - body.at, NULL);
            break;
        case TAG_STRUCT:
        case TAG_LIST:
            if (read_nested(in, &body) < 0) {
                goto fail;
            }
            next = tag == TAG_STRUCT ? decode_fields(&body, depth + 1)
                                     : decode_list(&body, depth + 1);
            break;
        default:
            if (skip_field(in, tag) < 0) {
                goto fail;
            }
            continue;
        }
        if (next == NULL) {
            goto fail;
        }
        Py_SETREF(result, next);
    }
    return result;
fail:
    Py_DECREF(result);
    return NULL;
}

/* One map entry: its key (field 1) and its Value (field 2), each the last given, as a
 * (key, value) tuple appended to `entries`. */
static int decode_entry(Reader *in, PyObject *entries, int depth) {
    if (depth > MAX_DEPTH) {
        return too_deep();
    }
    Reader key = {NULL, NULL}, value = {NULL, NULL};
    while (in->at < in->end) {
        uint64_t tag;
        if (read_varint(in, &tag) < 0) {
            return -1;
        }
        if (tag == TAG_FIELDS || tag == TAG_ENTRY_VALUE) {
            if (read_nested(in, tag == TAG_FIELDS ? &key : &value) < 0) {
                return -1;
            }
        } else if (skip_field(in, tag) < 0) {
            return -1;
        }
    }
    PyObject *name = key.at == NULL ? PyUnicode_FromStringAndSize("", 0)
                                    : PyUnicode_DecodeUTF8((const char *)key.at,
                                                           key.end - key.at, NULL);
    PyObject *item = name == NULL ? NULL
                     : value.at == NULL ? Py_NewRef(Py_None)
                                        : decode_value(&value, depth + 1);
    PyObject *pair = item == NULL ? NULL : PyTuple_Pack(2, name, item);
    int failed = pair == NULL ? -1 : PyList_Append(entries, pair);
    Py_XDECREF(name);
    Py_XDECREF(item);
    Py_XDECREF(pair);
    return failed;
}

/* A Struct's map. protobuf's encoder writes a map's entries last first: inserted last
 * first, the keys come out in the order protobuf's own API iterates them, so a dict
 * read here is the one structs.py reads without this module, key order included. The
 * last entry of a key wins, as in protobuf's decoder. */
static PyObject *decode_fields(Reader *in, int depth) {
    if (depth > MAX_DEPTH) {
        too_deep();
        return NULL;
    }
    PyObject *entries = PyList_New(0);
    PyObject *dict = NULL;
    Reader body;
    int found = 0;
    while (entries != NULL && (found = next_field1(in, &body)) > 0) {
        if (decode_entry(&body, entries, depth + 1) < 0) {
            goto done;
        }
    }
    if (entries == NULL || found < 0 || (dict = PyDict_New()) == NULL) {
        goto done;
    }
    for (Py_ssize_t i = PyList_GET_SIZE(entries) - 1; i >= 0; i--) {
        PyObject *pair = PyList_GET_ITEM(entries, i);
        PyObject *name = PyTuple_GET_ITEM(pair, 0);
        int known = PyDict_Contains(dict, name);
        if (known < 0 || (!known && PyDict_SetItem(dict, name, PyTuple_GET_ITEM(pair, 1)) < 0)) {
            Py_CLEAR(dict);
            break;
        }
    }
done:
    Py_XDECREF(entries);
    return dict;
}

static int reader_of(PyObject *data, Reader *in) {
    char *bytes;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(data, &bytes, &size) < 0) {
        return -1;
    }
    in->at = (const unsigned char *)bytes;
    in->end = in->at + size;
    return 0;
}

static PyObject *decode(PyObject *module, PyObject *data) {
    Reader in;
    return reader_of(data, &in) < 0 ? NULL : decode_fields(&in, 0);
}

static PyObject *decode_one(PyObject *module, PyObject *data) {
    Reader in;
    return reader_of(data, &in) < 0 ? NULL : decode_value(&in, 0);
}

/* ---------------------------------------------------------------- canonical bytes */

/* A message's bytes with every map's entries in one order, for the response cache's
 * key. Crossplane's Go marshaller writes map entries in a random order, so the same
 * content comes as different bytes from call to call; protobuf's deterministic
 * serialisation would need the whole message decoded first. Here the bytes are
 * reordered without decoding, by a layout function/codec/canonical.py builds from the
 * descriptors: a list indexed by field number, holding a message field's layout (a
 * list), a map field's one-tuple of its entries' layout (a list, or None for entries
 * taken as they are), or None for bytes taken as they are. In the outermost message
 * only the fields whose layout is not None are kept. A map's entries follow the
 * message's other fields, sorted by their bytes; every field keeps its length, so a
 * nested message's canonical bytes are as long as its own. */

typedef struct {
    Py_ssize_t offset;  /* in the output */
    Py_ssize_t size;
    int entry;          /* a map entry, sorted after the other fields */
    const char *bytes;  /* a map entry's bytes in the scratch copy, while it is sorted */
} Span;

/* What one call shares across every message it reorders: the output, a scratch copy
 * of the message being reordered, and a stack of spans (each message's on top). */
typedef struct {
    Buffer out;
    Buffer scratch;
    Span *spans;
    Py_ssize_t count;
    Py_ssize_t room;
} Canonical;

/* Entries in the order of their bytes, a prefix first. Each span carries its own bytes,
 * so the comparison needs nothing else: no state outside the call (a global base would
 * be shared by every thread and interpreter). Entries that compare equal are the same
 * bytes, so qsort's instability cannot change the result. */
static int compare_spans(const void *a, const void *b) {
    const Span *x = a, *y = b;
    Py_ssize_t common = x->size < y->size ? x->size : y->size;
    int order = memcmp(x->bytes, y->bytes, (size_t)common);
    if (order != 0) {
        return order;
    }
    return (x->size > y->size) - (x->size < y->size);
}

static int put_raw(Buffer *out, const unsigned char *from, const unsigned char *to) {
    Py_ssize_t size = to - from;
    if (reserve(out, size) < 0) {
        return -1;
    }
    memcpy(out->data + out->len, from, (size_t)size);
    out->len += size;
    return 0;
}

static int push_span(Canonical *c, Py_ssize_t offset, int entry) {
    if (c->count == c->room) {
        if (c->room > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Span)) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t room = c->room ? 2 * c->room : 64;
        Span *grown = PyMem_Realloc(c->spans, (size_t)room * sizeof(Span));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->spans = grown;
        c->room = room;
    }
    c->spans[c->count++] = (Span){offset, c->out.len - offset, entry, NULL};
    return 0;
}

/* Put a message's map entries after its other fields, sorted: its fields are the
 * spans from `first` on, written one after another from `start`. */
static int reorder(Canonical *c, Py_ssize_t start, Py_ssize_t first) {
    Py_ssize_t size = c->out.len - start, entries = 0;
    for (Py_ssize_t i = first; i < c->count; i++) {
        entries += c->spans[i].entry;
    }
    if (entries == 0 || (entries == 1 && c->spans[c->count - 1].entry)) {
        return 0; /* already in order */
    }
    c->scratch.len = 0;
    if (reserve(&c->scratch, size) < 0) {
        return -1;
    }
    memcpy(c->scratch.data, c->out.data + start, (size_t)size);
    Span *spans = c->spans + first;
    Py_ssize_t n = c->count - first, at = start, kept = 0;
    for (Py_ssize_t i = 0; i < n; i++) { /* the other fields first, in their order */
        spans[i].offset -= start;
        if (!spans[i].entry) {
            memcpy(c->out.data + at, c->scratch.data + spans[i].offset, (size_t)spans[i].size);
            at += spans[i].size;
        } else {
            spans[i].bytes = c->scratch.data + spans[i].offset;
            spans[kept++] = spans[i];
        }
    }
    qsort(spans, (size_t)kept, sizeof(Span), compare_spans);
    for (Py_ssize_t i = 0; i < kept; i++) {
        memcpy(c->out.data + at, spans[i].bytes, (size_t)spans[i].size);
        at += spans[i].size;
    }
    return 0;
}

static int canonical_message(Canonical *c, Reader *in, PyObject *layout, int depth, int top) {
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "protobuf bytes nested too deeply");
        return -1;
    }
    Py_ssize_t start = c->out.len, first = c->count;
    while (in->at < in->end) {
        const unsigned char *field = in->at;
        uint64_t tag;
        if (read_varint(in, &tag) < 0) {
            return -1;
        }
        uint64_t number = tag >> 3;
        PyObject *sub = number < (uint64_t)PyList_GET_SIZE(layout) ? PyList_GET_ITEM(layout, number)
                                                                  : Py_None; /* borrowed */
        Py_ssize_t offset = c->out.len;
        Reader body;
        int entry = PyTuple_Check(sub) && PyTuple_GET_SIZE(sub) == 1;
        PyObject *nested = entry ? PyTuple_GET_ITEM(sub, 0) : sub;
        if ((tag & 7) != 2 || !PyList_Check(nested)) {
            if (skip_field(in, tag) < 0) {
                return -1;
            }
            if (top && sub == Py_None) {
                continue; /* the outermost message keeps only the fields named */
            }
            if (put_raw(&c->out, field, in->at) < 0) {
                return -1;
            }
        } else {
            if (read_nested(in, &body) < 0) {
                return -1;
            }
            /* The tag and the length as they came: the body keeps its length. */
            if (put_raw(&c->out, field, body.at) < 0 ||
                canonical_message(c, &body, nested, depth + 1, 0) < 0) {
                return -1;
            }
        }
        if (push_span(c, offset, entry) < 0) {
            return -1;
        }
    }
    int failed = reorder(c, start, first);
    c->count = first; /* pop this message's spans */
    return failed;
}

static PyObject *canonical(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "canonical(data: bytes, layout: list)");
        return NULL;
    }
    Reader in;
    if (reader_of(args[0], &in) < 0) {
        return NULL;
    }
    Canonical c = {{NULL, 0, 0}, {NULL, 0, 0}, NULL, 0, 0};
    PyObject *result = NULL;
    if (canonical_message(&c, &in, args[1], 0, 1) == 0) {
        result = PyBytes_FromStringAndSize(c.out.data ? c.out.data : "", c.out.len);
    }
    PyMem_Free(c.out.data);
    PyMem_Free(c.scratch.data);
    PyMem_Free(c.spans);
    return result;
}

/* ---------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"encode", encode, METH_O, "A dict as a Struct's wire bytes (see function.codec.structs)."},
    {"decode", decode, METH_O, "A Struct's wire bytes as a dict (see function.codec.structs)."},
    {"decode_value", decode_one, METH_O, "A Value's wire bytes as plain data (see function.codec.structs)."},
    {"canonical", (PyCFunction)(void (*)(void))canonical, METH_FASTCALL,
     "A message's bytes with its maps' entries sorted (see function.serving.question)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "function.codec._structwire",
    "plain Python data <-> protobuf Struct wire bytes, in C (see function.codec.structs).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__structwire(void) {
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && PyModule_AddIntConstant(created, "MAX_DEPTH", MAX_DEPTH) < 0) {
        Py_CLEAR(created);
    }
    return created;
}
