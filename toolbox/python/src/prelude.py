# The prelude of the embedded python3 (sandkeep-python): Python-level
# shims, in the subset the monty interpreter runs, for the parts of the
# standard library it lacks (sys.argv/stdin/exit, os.path, os.walk, csv,
# statistics, ...). Every reach outside the interpreter goes through
# _sk_host(op, ...), which the command services from the sandbox's virtual
# filesystem, environment and clock. User code sees these modules because
# its imports are rewritten to the _sk_<name> objects (see imports.rs).

import sys as _sk_native_sys
import os as _sk_native_os
import math as _sk_nmath
import re as _sk_nre
import itertools as _sk_native_itertools
import functools as _sk_native_functools
import collections as _sk_native_collections
import pathlib as _sk_native_pathlib

_sk_print = print


class _SkModule:
    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        return "<module '" + self.__name__ + "' (embedded)>"


def _sk_from(mod, modname, name):
    try:
        return getattr(mod, name)
    except AttributeError:
        raise ImportError("cannot import name '" + name + "' from '" + modname + "' (embedded Python: standard-library subset)")


def _sk_refuse(name):
    _sk_host("refuse", name)


def _sk_copy_attrs(dst, src, names):
    for n in names:
        try:
            setattr(dst, n, getattr(src, n))
        except AttributeError:
            pass


# ---- sys -------------------------------------------------------------------


class _SkStdin:
    def __init__(self):
        self._data = None
        self._pos = 0
        self.name = "<stdin>"
        self.encoding = "utf-8"

    def _load(self):
        if self._data is None:
            self._data = _sk_host("stdin")

    def read(self, n=-1):
        self._load()
        if n is None or n < 0:
            out = self._data[self._pos:]
        else:
            out = self._data[self._pos:self._pos + n]
        self._pos += len(out)
        return out

    def readline(self, limit=-1):
        self._load()
        end = self._data.find("\n", self._pos)
        end = len(self._data) if end < 0 else end + 1
        out = self._data[self._pos:end]
        self._pos = end
        return out

    def readlines(self, hint=-1):
        out = []
        while True:
            line = self.readline()
            if not line:
                return out
            out.append(line)

    def __iter__(self):
        return iter(self.readlines())

    def isatty(self):
        return False

    def fileno(self):
        return 0

    def close(self):
        pass


class _SkOut:
    def __init__(self, err):
        self._err = err
        self.name = "<stderr>" if err else "<stdout>"
        self.encoding = "utf-8"

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not " + type(s).__name__)
        if self._err:
            _sk_host("stderr", s)
        else:
            _sk_print(s, end="")
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return 2 if self._err else 1


def _sk_exit(code=None):
    # Monty's exceptions take one string: the command decodes the status.
    if code is None:
        raise SystemExit()
    if isinstance(code, int):
        raise SystemExit(str(code))
    raise SystemExit("msg:" + str(code))


_sk_sys = _SkModule("sys")
_sk_sys.argv = []
_sk_sys.stdin = _SkStdin()
_sk_sys.stdout = _SkOut(False)
_sk_sys.stderr = _SkOut(True)
_sk_sys.__stdin__ = _sk_sys.stdin
_sk_sys.__stdout__ = _sk_sys.stdout
_sk_sys.__stderr__ = _sk_sys.stderr
_sk_sys.exit = _sk_exit
_sk_sys.version = "3.14.0 (embedded monty, standard-library subset)"
_sk_sys.version_info = _sk_native_sys.version_info
_sk_sys.platform = "linux"
_sk_sys.maxsize = 9223372036854775807
_sk_sys.byteorder = "little"
_sk_sys.path = []
_sk_sys.modules = {}
_sk_sys.executable = "/usr/bin/python3"
_sk_sys.implementation = _SkModule("monty")
_sk_sys.flags = _SkModule("flags")
_sk_sys.getrecursionlimit = lambda: 1000
_sk_sys.setrecursionlimit = lambda n: None
_sk_sys.getdefaultencoding = lambda: "utf-8"
_sk_sys.getsizeof = lambda o, d=0: 64


def print(*args, sep=" ", end="\n", file=None, flush=False):
    if sep is None:
        sep = " "
    if end is None:
        end = "\n"
    if file is None or file is _sk_sys.stdout:
        _sk_print(*args, sep=sep, end=end)
    else:
        file.write(sep.join([str(a) for a in args]) + end)


def input(prompt=""):
    if prompt:
        _sk_print(prompt, end="")
    line = _sk_sys.stdin.readline()
    if not line:
        raise EOFError("EOF when reading a line")
    if line.endswith("\n"):
        line = line[:-1]
    return line


# ---- files -------------------------------------------------------------------


class _SkFile:
    def __init__(self, path, mode, newline):
        self.name = path
        self.mode = mode
        self.closed = False
        self.encoding = "utf-8"
        self._binary = "b" in mode
        self._newline = newline
        self._read = "r" in mode or "+" in mode
        self._write = "w" in mode or "a" in mode or "x" in mode or "+" in mode
        self._data = None
        self._pos = 0
        _sk_host("open", path, mode)

    def _load(self):
        if self._data is None:
            self._data = _sk_host("read", self.name, self._binary, self._newline)

    def _check(self, reading):
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if reading and not self._read:
            raise _sk_io_unsupported("not readable")
        if not reading and not self._write:
            raise _sk_io_unsupported("not writable")

    def read(self, n=-1):
        self._check(True)
        self._load()
        if n is None or n < 0:
            out = self._data[self._pos:]
        else:
            out = self._data[self._pos:self._pos + n]
        self._pos += len(out)
        return out

    def readline(self, limit=-1):
        self._check(True)
        self._load()
        nl = b"\n" if self._binary else "\n"
        end = self._data.find(nl, self._pos)
        end = len(self._data) if end < 0 else end + 1
        out = self._data[self._pos:end]
        self._pos = end
        return out

    def readlines(self, hint=-1):
        out = []
        while True:
            line = self.readline()
            if not line:
                return out
            out.append(line)

    def __iter__(self):
        return iter(self.readlines())

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, s):
        self._check(False)
        if self._binary:
            if isinstance(s, str):
                raise TypeError("a bytes-like object is required, not 'str'")
        elif not isinstance(s, str):
            raise TypeError("write() argument must be str, not " + type(s).__name__)
        _sk_host("append", self.name, s)
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def seek(self, pos, whence=0):
        self._data = None
        self._load()
        if whence == 0:
            self._pos = pos
        elif whence == 1:
            self._pos = self._pos + pos
        else:
            self._pos = len(self._data) + pos
        return self._pos

    def tell(self):
        return self._pos

    def flush(self):
        pass

    def close(self):
        self.closed = True

    def readable(self):
        return self._read

    def writable(self):
        return self._write

    def fileno(self):
        return 3

    def isatty(self):
        return False

    def __enter__(self):
        return self

    def __exit__(self, a, b, c):
        self.closed = True
        return False


def _sk_io_unsupported(msg):
    return OSError(msg)


def open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    if not isinstance(file, str):
        file = str(file)
    f = _SkFile(file, mode, newline)
    if f._read:
        # Loaded now: monty cannot call the host from an implicit __iter__.
        f._load()
    return f


def exit(code=None):
    _sk_exit(code)


quit = exit


# ---- os, os.path -----------------------------------------------------------------

_sk_os = _SkModule("os")
_sk_path = _SkModule("posixpath")
_sk_os.path = _sk_path
_sk_os.sep = "/"
_sk_os.altsep = None
_sk_os.extsep = "."
_sk_os.pathsep = ":"
_sk_os.linesep = "\n"
_sk_os.curdir = "."
_sk_os.pardir = ".."
_sk_os.devnull = "/dev/null"
_sk_os.name = "posix"
_sk_os.environ = {}
_sk_os.error = OSError


def _sk_fspath(p):
    if isinstance(p, str) or isinstance(p, bytes):
        return p
    return str(p)


def _sk_os_getenv(key, default=None):
    return _sk_os.environ.get(key, default)


def _sk_os_putenv(key, value):
    _sk_os.environ[key] = value


def _sk_os_listdir(path="."):
    return _sk_host("listdir", _sk_fspath(path))


def _sk_os_makedirs(name, mode=511, exist_ok=False):
    _sk_host("makedirs", _sk_fspath(name), exist_ok)


def _sk_os_mkdir(path, mode=511):
    _sk_host("mkdir", _sk_fspath(path))


def _sk_os_remove(path):
    _sk_host("remove", _sk_fspath(path))


def _sk_os_rmdir(path):
    _sk_host("rmdir", _sk_fspath(path))


def _sk_os_rename(src, dst):
    _sk_host("rename", _sk_fspath(src), _sk_fspath(dst))


def _sk_os_stat(path):
    return _sk_host("stat", _sk_fspath(path))


def _sk_os_walk(top, topdown=True, onerror=None, followlinks=False):
    top = _sk_fspath(top)
    out = []
    _sk_walk_into(top, topdown, out)
    return iter(out)


def _sk_walk_into(top, topdown, out):
    try:
        names = _sk_host("listdir", top)
    except OSError:
        return
    dirs = []
    files = []
    for n in names:
        if _sk_host("kind", _sk_path_join(top, n)) == "dir":
            dirs.append(n)
        else:
            files.append(n)
    entry = (top, dirs, files)
    if topdown:
        out.append(entry)
    for d in dirs:
        _sk_walk_into(_sk_path_join(top, d), topdown, out)
    if not topdown:
        out.append(entry)


def _sk_os_system(cmd):
    _sk_host("refuse", "os.system")


def _sk_os_cpu_count():
    return 1


_sk_os.getenv = _sk_os_getenv
_sk_os.putenv = _sk_os_putenv
_sk_os.getcwd = lambda: _sk_host("getcwd")
_sk_os.chdir = lambda p: _sk_host("chdir", _sk_fspath(p))
_sk_os.listdir = _sk_os_listdir
_sk_os.makedirs = _sk_os_makedirs
_sk_os.mkdir = _sk_os_mkdir
_sk_os.remove = _sk_os_remove
_sk_os.unlink = _sk_os_remove
_sk_os.rmdir = _sk_os_rmdir
_sk_os.rename = _sk_os_rename
_sk_os.replace = _sk_os_rename
_sk_os.stat = _sk_os_stat
_sk_os.walk = _sk_os_walk
_sk_os.system = _sk_os_system
_sk_os.popen = _sk_os_system
_sk_os.cpu_count = _sk_os_cpu_count
_sk_os.fspath = _sk_fspath
_sk_os.getpid = lambda: 2
_sk_os.getuid = lambda: 1000
_sk_os.urandom = lambda n: bytes([_sk_host("randbelow", 256) for _ in range(n)])


def _sk_path_join(a, *p):
    a = _sk_fspath(a)
    path = a
    for b in p:
        b = _sk_fspath(b)
        if b.startswith("/"):
            path = b
        elif not path or path.endswith("/"):
            path = path + b
        else:
            path = path + "/" + b
    return path


def _sk_path_split(p):
    p = _sk_fspath(p)
    i = p.rfind("/") + 1
    head = p[:i]
    tail = p[i:]
    if head and head != "/" * len(head):
        head = head.rstrip("/")
    return (head, tail)


def _sk_path_splitext(p):
    p = _sk_fspath(p)
    sep = p.rfind("/")
    dot = p.rfind(".")
    if dot > sep:
        i = sep + 1
        while i < dot:
            if p[i] != ".":
                return (p[:dot], p[dot:])
            i += 1
    return (p, p[:0])


def _sk_path_normpath(path):
    path = _sk_fspath(path)
    if path == "":
        return "."
    initial = 0
    if path.startswith("/"):
        initial = 1
        if path.startswith("//") and not path.startswith("///"):
            initial = 2
    comps = path.split("/")
    new = []
    for comp in comps:
        if comp == "" or comp == ".":
            continue
        if comp != ".." or (not initial and not new) or (new and new[-1] == ".."):
            new.append(comp)
        elif new:
            new.pop()
    path = "/".join(new)
    if initial:
        path = "/" * initial + path
    return path or "."


def _sk_path_abspath(p):
    p = _sk_fspath(p)
    if not p.startswith("/"):
        p = _sk_path_join(_sk_host("getcwd"), p)
    return _sk_path_normpath(p)


def _sk_path_relpath(path, start=None):
    if start is None:
        start = "."
    s = [x for x in _sk_path_abspath(start).split("/") if x]
    p = [x for x in _sk_path_abspath(path).split("/") if x]
    i = 0
    while i < len(s) and i < len(p) and s[i] == p[i]:
        i += 1
    rel = [".."] * (len(s) - i) + p[i:]
    if not rel:
        return "."
    return "/".join(rel)


def _sk_path_expanduser(p):
    p = _sk_fspath(p)
    if p == "~" or p.startswith("~/"):
        return _sk_os.environ.get("HOME", "/workspace") + p[1:]
    return p


def _sk_path_getsize(p):
    return _sk_host("stat", _sk_fspath(p)).st_size


def _sk_path_getmtime(p):
    return _sk_host("stat", _sk_fspath(p)).st_mtime


def _sk_path_commonprefix(m):
    if not m:
        return ""
    s1 = min(m)
    s2 = max(m)
    for i in range(len(s1)):
        if s1[i] != s2[i]:
            return s1[:i]
    return s1


_sk_path.join = _sk_path_join
_sk_path.split = _sk_path_split
_sk_path.splitext = _sk_path_splitext
_sk_path.normpath = _sk_path_normpath
_sk_path.abspath = _sk_path_abspath
_sk_path.realpath = _sk_path_abspath
_sk_path.relpath = _sk_path_relpath
_sk_path.expanduser = _sk_path_expanduser
_sk_path.getsize = _sk_path_getsize
_sk_path.getmtime = _sk_path_getmtime
_sk_path.commonprefix = _sk_path_commonprefix
_sk_path.basename = lambda p: _sk_path_split(p)[1]
_sk_path.dirname = lambda p: _sk_path_split(p)[0]
_sk_path.isabs = lambda p: _sk_fspath(p).startswith("/")
_sk_path.exists = lambda p: _sk_host("kind", _sk_fspath(p)) is not None
_sk_path.lexists = _sk_path.exists
_sk_path.isfile = lambda p: _sk_host("kind", _sk_fspath(p)) == "file"
_sk_path.isdir = lambda p: _sk_host("kind", _sk_fspath(p)) == "dir"
_sk_path.islink = lambda p: _sk_host("kind", _sk_fspath(p), False) == "link"
_sk_path.sep = "/"
_sk_os.sep = "/"

# ---- shutil, glob, fnmatch ------------------------------------------------------

_sk_fnmatch = _SkModule("fnmatch")


def _sk_fnmatch_translate(pat):
    i = 0
    n = len(pat)
    res = ""
    while i < n:
        c = pat[i]
        i += 1
        if c == "*":
            res = res + ".*"
        elif c == "?":
            res = res + "."
        elif c == "[":
            j = i
            if j < n and pat[j] == "!":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                j += 1
            if j >= n:
                res = res + "\\["
            else:
                stuff = pat[i:j].replace("\\", "\\\\")
                i = j + 1
                if stuff.startswith("!"):
                    stuff = "^" + stuff[1:]
                res = res + "[" + stuff + "]"
        else:
            res = res + _sk_nre.escape(c)
    return "(?s:" + res + ")\\Z"


def _sk_fnmatchcase(name, pat):
    return _sk_nre.match(_sk_fnmatch_translate(pat), name) is not None


_sk_fnmatch.translate = _sk_fnmatch_translate
_sk_fnmatch.fnmatch = _sk_fnmatchcase
_sk_fnmatch.fnmatchcase = _sk_fnmatchcase
_sk_fnmatch.filter = lambda names, pat: [n for n in names if _sk_fnmatchcase(n, pat)]

_sk_glob = _SkModule("glob")


def _sk_glob_glob(pattern, recursive=False):
    pattern = _sk_fspath(pattern)
    absolute = pattern.startswith("/")
    parts = [p for p in pattern.split("/") if p]
    bases = ["/"] if absolute else [""]
    for k in range(len(parts)):
        part = parts[k]
        last = k == len(parts) - 1
        nxt = []
        for b in bases:
            where = b if b else "."
            if part == "**" and recursive:
                nxt.append(b)
                for top, dirs, files in _sk_os_walk(where):
                    rel = top if b else _sk_path_relpath(top)
                    for d in dirs:
                        nxt.append(_sk_path_join(rel if rel != "." else "", d))
                    if last:
                        for f in files:
                            nxt.append(_sk_path_join(rel if rel != "." else "", f))
                continue
            if not any(ch in part for ch in "*?["):
                cand = _sk_path_join(b, part) if b else part
                if _sk_host("kind", cand) is not None:
                    nxt.append(cand)
                continue
            try:
                names = _sk_host("listdir", where)
            except OSError:
                continue
            for n in names:
                if n.startswith(".") and not part.startswith("."):
                    continue
                if _sk_fnmatchcase(n, part):
                    nxt.append(_sk_path_join(b, n) if b else n)
        bases = nxt
    return [b for b in bases if b]


_sk_glob.glob = _sk_glob_glob
_sk_glob.iglob = lambda p, recursive=False: iter(_sk_glob_glob(p, recursive))

_sk_shutil = _SkModule("shutil")


def _sk_shutil_copy(src, dst):
    src = _sk_fspath(src)
    dst = _sk_fspath(dst)
    if _sk_host("kind", dst) == "dir":
        dst = _sk_path_join(dst, _sk_path_split(src)[1])
    _sk_host("copy", src, dst)
    return dst


_sk_shutil.copy = _sk_shutil_copy
_sk_shutil.copy2 = _sk_shutil_copy
_sk_shutil.copyfile = lambda s, d: _sk_host("copy", _sk_fspath(s), _sk_fspath(d)) or _sk_fspath(d)
_sk_shutil.rmtree = lambda p, ignore_errors=False: _sk_host("rmtree", _sk_fspath(p), ignore_errors)
_sk_shutil.move = lambda s, d: _sk_host("rename", _sk_fspath(s), _sk_fspath(d)) or _sk_fspath(d)
_sk_shutil.which = lambda name: None
_sk_shutil.copytree = lambda s, d: _sk_host("copytree", _sk_fspath(s), _sk_fspath(d)) or _sk_fspath(d)

# ---- csv -----------------------------------------------------------------------------

_sk_csv = _SkModule("csv")
_sk_csv.QUOTE_MINIMAL = 0
_sk_csv.QUOTE_ALL = 1
_sk_csv.QUOTE_NONNUMERIC = 2
_sk_csv.QUOTE_NONE = 3


# Monty has no class inheritance: csv.Error is ValueError's alias.
_sk_csv.Error = ValueError


def _sk_csv_lines(f):
    if isinstance(f, str):
        return f.splitlines(True)
    if isinstance(f, list) or isinstance(f, tuple):
        return list(f)
    return list(f)


def _sk_csv_parse(lines, delimiter, quotechar, skipinitialspace):
    rows = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        i += 1
        row = []
        field = ""
        inq = False
        was_quoted = False
        j = 0
        while True:
            if j >= len(line):
                if inq and i < n:
                    line = line + lines[i]
                    i += 1
                    continue
                break
            c = line[j]
            j += 1
            if inq:
                if c == quotechar:
                    if j < len(line) and line[j] == quotechar:
                        field = field + c
                        j += 1
                    else:
                        inq = False
                else:
                    field = field + c
            elif c == quotechar and field == "":
                inq = True
                was_quoted = True
            elif c == delimiter:
                row.append(field)
                field = ""
                was_quoted = False
                if skipinitialspace:
                    while j < len(line) and line[j] == " ":
                        j += 1
            elif c == "\n" or c == "\r":
                pass
            else:
                field = field + c
        if row or field or was_quoted:
            row.append(field)
        rows.append(row)
    return rows


class _SkCsvReader:
    def __init__(self, f, delimiter=",", quotechar='"', skipinitialspace=False, **kw):
        self._rows = _sk_csv_parse(_sk_csv_lines(f), delimiter, quotechar, skipinitialspace)
        self._i = 0
        self.line_num = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._i >= len(self._rows):
            raise StopIteration
        row = self._rows[self._i]
        self._i += 1
        self.line_num += 1
        return row


def _sk_csv_reader(f, dialect="excel", **kw):
    if dialect == "excel-tab":
        kw["delimiter"] = "\t"
    return _SkCsvReader(f, **kw)


def _sk_csv_quote(v, delimiter, quotechar, quoting, lineterminator):
    if v is None:
        s = ""
    elif isinstance(v, float):
        s = repr(v)
    else:
        s = str(v)
    need = quoting == 1
    if quoting == 2 and not (isinstance(v, int) or isinstance(v, float)):
        need = True
    if quoting == 0:
        if delimiter in s or quotechar in s or "\n" in s or "\r" in s or (s == "" and False):
            need = True
        if s.startswith(" ") and False:
            need = True
    if need:
        return quotechar + s.replace(quotechar, quotechar + quotechar) + quotechar
    return s


class _SkCsvWriter:
    def __init__(self, f, delimiter=",", quotechar='"', quoting=0, lineterminator="\r\n", **kw):
        self._f = f
        self._d = delimiter
        self._q = quotechar
        self._quoting = quoting
        self._lt = lineterminator

    def writerow(self, row):
        row = list(row)
        cells = [_sk_csv_quote(v, self._d, self._q, self._quoting, self._lt) for v in row]
        if len(row) == 1 and cells[0] == "":
            cells = ['""']
        line = self._d.join(cells) + self._lt
        self._f.write(line)
        return len(line)

    def writerows(self, rows):
        for r in rows:
            self.writerow(r)


def _sk_csv_writer(f, dialect="excel", **kw):
    if dialect == "excel-tab":
        kw["delimiter"] = "\t"
    return _SkCsvWriter(f, **kw)


class _SkDictReader:
    def __init__(self, f, fieldnames=None, restkey=None, restval=None, **kw):
        self._reader = _SkCsvReader(f, **kw)
        self.restkey = restkey
        self.restval = restval
        self.line_num = 0
        # No properties in monty: the header is read at construction.
        if fieldnames is None:
            try:
                fieldnames = next(self._reader)
            except StopIteration:
                pass
        self.fieldnames = fieldnames

    def __iter__(self):
        return self

    def __next__(self):
        names = self.fieldnames
        row = next(self._reader)
        while row == []:
            row = next(self._reader)
        d = {}
        for k in range(len(names)):
            d[names[k]] = row[k] if k < len(row) else self.restval
        if len(row) > len(names):
            d[self.restkey] = row[len(names):]
        self.line_num = self._reader.line_num
        return d


class _SkDictWriter:
    def __init__(self, f, fieldnames, restval="", extrasaction="raise", **kw):
        self._w = _SkCsvWriter(f, **kw)
        self.fieldnames = list(fieldnames)
        self.restval = restval
        self.extrasaction = extrasaction

    def writeheader(self):
        return self._w.writerow(self.fieldnames)

    def writerow(self, d):
        if self.extrasaction == "raise":
            wrong = [k for k in d if k not in self.fieldnames]
            if wrong:
                raise ValueError("dict contains fields not in fieldnames: " + ", ".join([repr(k) for k in wrong]))
        return self._w.writerow([d.get(k, self.restval) for k in self.fieldnames])

    def writerows(self, rows):
        for r in rows:
            self.writerow(r)


_sk_csv.reader = _sk_csv_reader
_sk_csv.writer = _sk_csv_writer
_sk_csv.DictReader = _SkDictReader
_sk_csv.DictWriter = _SkDictWriter

# ---- statistics ------------------------------------------------------------------------

_sk_statistics = _SkModule("statistics")


# Monty has no class inheritance: StatisticsError is ValueError's alias.
_SkStatisticsError = ValueError
_sk_statistics.StatisticsError = ValueError


def _sk_all_int(data):
    for x in data:
        if not isinstance(x, int):
            return False
    return True


def _sk_stat_mean(data):
    data = list(data)
    n = len(data)
    if n < 1:
        raise _SkStatisticsError("mean requires at least one data point")
    if _sk_all_int(data):
        t = sum(data)
        if t % n == 0:
            return t // n
        return t / n
    return _sk_fsum(data) / n


def _sk_stat_fmean(data, weights=None):
    data = list(data)
    if not data:
        raise _SkStatisticsError("fmean requires at least one data point")
    return _sk_fsum(data) / len(data)


def _sk_stat_median(data):
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise _SkStatisticsError("no median for empty data")
    if n % 2 == 1:
        return data[n // 2]
    i = n // 2
    return (data[i - 1] + data[i]) / 2


def _sk_stat_median_low(data):
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise _SkStatisticsError("no median for empty data")
    if n % 2 == 1:
        return data[n // 2]
    return data[n // 2 - 1]


def _sk_stat_median_high(data):
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise _SkStatisticsError("no median for empty data")
    return data[n // 2]


def _sk_stat_multimode(data):
    counts = {}
    for x in data:
        counts[x] = counts.get(x, 0) + 1
    if not counts:
        return []
    best = max(counts.values())
    return [k for k in counts if counts[k] == best]


def _sk_stat_mode(data):
    m = _sk_stat_multimode(data)
    if not m:
        raise _SkStatisticsError("no mode for empty data")
    return m[0]


def _sk_stat_ss(data, c):
    if _sk_all_int(data) and (c is None or isinstance(c, int)):
        n = len(data)
        if c is None:
            s = sum(data)
            # n * sum((x - mean)^2), exact in integers.
            return (n * sum([x * x for x in data]) - s * s, n)
        return (sum([(x - c) * (x - c) for x in data]), 1)
    if c is None:
        c = _sk_fsum(data) / len(data)
    return (_sk_fsum([(x - c) * (x - c) for x in data]), 1)


def _sk_stat_div(num, den):
    if isinstance(num, int) and isinstance(den, int) and num % den == 0:
        return num // den
    return num / den


def _sk_stat_variance(data, xbar=None):
    data = list(data)
    n = len(data)
    if n < 2:
        raise _SkStatisticsError("variance requires at least two data points")
    ss, scale = _sk_stat_ss(data, xbar)
    return _sk_stat_div(ss, scale * (n - 1))


def _sk_stat_pvariance(data, mu=None):
    data = list(data)
    n = len(data)
    if n < 1:
        raise _SkStatisticsError("pvariance requires at least one data point")
    ss, scale = _sk_stat_ss(data, mu)
    return _sk_stat_div(ss, scale * n)


def _sk_stat_stdev(data, xbar=None):
    data = list(data)
    if len(data) < 2:
        raise _SkStatisticsError("stdev requires at least two data points")
    return _sk_nmath.sqrt(_sk_stat_variance(data, xbar))


def _sk_stat_pstdev(data, mu=None):
    data = list(data)
    if len(data) < 1:
        raise _SkStatisticsError("pstdev requires at least one data point")
    return _sk_nmath.sqrt(_sk_stat_pvariance(data, mu))


def _sk_stat_quantiles(data, n=4, method="exclusive"):
    data = sorted(data)
    ld = len(data)
    if ld < 2:
        raise _SkStatisticsError("must have at least two data points")
    out = []
    if method == "inclusive":
        m = ld - 1
        for i in range(1, n):
            j = i * m // n
            delta = i * m - j * n
            out.append((data[j] * (n - delta) + data[j + 1] * delta) / n)
        return out
    m = ld + 1
    for i in range(1, n):
        j = i * m // n
        j = 1 if j < 1 else (ld - 1 if j > ld - 1 else j)
        delta = i * m - j * n
        out.append((data[j - 1] * (n - delta) + data[j] * delta) / n)
    return out


def _sk_stat_geometric_mean(data):
    data = list(data)
    return _sk_nmath.exp(_sk_fsum([_sk_nmath.log(x) for x in data]) / len(data))


def _sk_stat_harmonic_mean(data):
    data = list(data)
    if not data:
        raise _SkStatisticsError("harmonic_mean requires at least one data point")
    if 0 in data:
        return 0
    if _sk_all_int(data):
        # n / sum(1/x) as an exact fraction: n * prod / sum(prod / x).
        p = 1
        for x in data:
            p = p * x
        return _sk_stat_div(len(data) * p, sum([p // x for x in data]))
    return len(data) / _sk_fsum([1 / x for x in data])


_sk_statistics.mean = _sk_stat_mean
_sk_statistics.fmean = _sk_stat_fmean
_sk_statistics.median = _sk_stat_median
_sk_statistics.median_low = _sk_stat_median_low
_sk_statistics.median_high = _sk_stat_median_high
_sk_statistics.mode = _sk_stat_mode
_sk_statistics.multimode = _sk_stat_multimode
_sk_statistics.variance = _sk_stat_variance
_sk_statistics.pvariance = _sk_stat_pvariance
_sk_statistics.stdev = _sk_stat_stdev
_sk_statistics.pstdev = _sk_stat_pstdev
_sk_statistics.quantiles = _sk_stat_quantiles
_sk_statistics.geometric_mean = _sk_stat_geometric_mean
_sk_statistics.harmonic_mean = _sk_stat_harmonic_mean

# ---- string, textwrap ------------------------------------------------------------------

_sk_string = _SkModule("string")
_sk_string.ascii_lowercase = "abcdefghijklmnopqrstuvwxyz"
_sk_string.ascii_uppercase = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_sk_string.ascii_letters = _sk_string.ascii_lowercase + _sk_string.ascii_uppercase
_sk_string.digits = "0123456789"
_sk_string.hexdigits = "0123456789abcdefABCDEF"
_sk_string.octdigits = "01234567"
_sk_string.punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_sk_string.whitespace = " \t\n\r\x0b\x0c"
_sk_string.printable = _sk_string.digits + _sk_string.ascii_letters + _sk_string.punctuation + _sk_string.whitespace
_sk_string.capwords = lambda s, sep=None: (sep or " ").join([w.capitalize() for w in s.split(sep)])

_sk_textwrap = _SkModule("textwrap")


def _sk_tw_dedent(text):
    lines = text.split("\n")
    margin = None
    for line in lines:
        s = line.lstrip(" \t")
        if not s:
            continue
        ind = line[:len(line) - len(s)]
        if margin is None:
            margin = ind
        else:
            k = 0
            while k < len(margin) and k < len(ind) and margin[k] == ind[k]:
                k += 1
            margin = margin[:k]
    out = []
    for line in lines:
        if not line.strip(" \t"):
            out.append("")
        elif margin:
            out.append(line[len(margin):])
        else:
            out.append(line)
    return "\n".join(out)


def _sk_tw_indent(text, prefix, predicate=None):
    out = []
    for line in text.splitlines(True):
        if (predicate(line) if predicate else line.strip()):
            out.append(prefix + line)
        else:
            out.append(line)
    return "".join(out)


def _sk_tw_wrap(text, width=70, initial_indent="", subsequent_indent="", break_long_words=True):
    words = text.split()
    lines = []
    cur = initial_indent
    empty = True
    for w in words:
        ind = subsequent_indent if lines else initial_indent
        if empty:
            cand = ind + w
        else:
            cand = cur + " " + w
        if len(cand) <= width or empty:
            cur = cand
            empty = False
        else:
            lines.append(cur)
            cur = subsequent_indent + w
        while break_long_words and len(cur) > width:
            lines.append(cur[:width])
            cur = cur[width:]
    if not empty:
        lines.append(cur)
    return lines


_sk_textwrap.dedent = _sk_tw_dedent
_sk_textwrap.indent = _sk_tw_indent
_sk_textwrap.wrap = _sk_tw_wrap
_sk_textwrap.fill = lambda text, width=70, **kw: "\n".join(_sk_tw_wrap(text, width, **kw))


def _sk_tw_shorten(text, width, placeholder=" [...]"):
    t = " ".join(text.split())
    if len(t) <= width:
        return t
    words = t.split()
    out = ""
    for w in words:
        cand = (out + " " + w) if out else w
        if len(cand) + len(placeholder) > width:
            break
        out = cand
    return out + placeholder


_sk_textwrap.shorten = _sk_tw_shorten

# ---- itertools, functools, collections, operator ---------------------------------

_sk_itertools = _SkModule("itertools")
_sk_copy_attrs(_sk_itertools, _sk_native_itertools, ["count", "repeat", "chain", "cycle", "islice", "accumulate", "groupby", "product", "permutations", "combinations", "combinations_with_replacement", "zip_longest", "starmap", "takewhile", "dropwhile", "compress", "filterfalse", "pairwise", "tee", "batched"])

_sk_functools = _SkModule("functools")
_sk_copy_attrs(_sk_functools, _sk_native_functools, ["reduce", "partial", "lru_cache", "cache", "wraps", "cmp_to_key", "total_ordering", "cached_property", "singledispatch"])

_sk_collections = _SkModule("collections")
_sk_copy_attrs(_sk_collections, _sk_native_collections, ["deque", "namedtuple", "defaultdict", "Counter", "OrderedDict", "ChainMap"])


def _sk_ordered_dict(*args, **kw):
    return dict(*args, **kw)


if not hasattr(_sk_collections, "OrderedDict"):
    _sk_collections.OrderedDict = _sk_ordered_dict

_sk_operator = _SkModule("operator")


def _sk_itemgetter(*items):
    if len(items) == 1:
        item = items[0]
        return lambda obj: obj[item]
    return lambda obj: tuple([obj[i] for i in items])


def _sk_attrgetter(*names):
    def get(obj, name):
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    if len(names) == 1:
        return lambda obj: get(obj, names[0])
    return lambda obj: tuple([get(obj, n) for n in names])


_sk_operator.itemgetter = _sk_itemgetter
_sk_operator.attrgetter = _sk_attrgetter
_sk_operator.add = lambda a, b: a + b
_sk_operator.sub = lambda a, b: a - b
_sk_operator.mul = lambda a, b: a * b
_sk_operator.truediv = lambda a, b: a / b
_sk_operator.floordiv = lambda a, b: a // b
_sk_operator.mod = lambda a, b: a % b
_sk_operator.neg = lambda a: -a
_sk_operator.eq = lambda a, b: a == b
_sk_operator.lt = lambda a, b: a < b
_sk_operator.gt = lambda a, b: a > b
_sk_operator.not_ = lambda a: not a
_sk_operator.concat = lambda a, b: a + b

# ---- heapq, bisect, copy -----------------------------------------------------------------

_sk_heapq = _SkModule("heapq")


def _sk_heappush(h, x):
    h.append(x)
    i = len(h) - 1
    while i > 0:
        p = (i - 1) // 2
        if h[i] < h[p]:
            _sk_t = h[i]
            h[i] = h[p]
            h[p] = _sk_t
            i = p
        else:
            break


def _sk_sift(h, i):
    n = len(h)
    while True:
        l = 2 * i + 1
        r = l + 1
        m = i
        if l < n and h[l] < h[m]:
            m = l
        if r < n and h[r] < h[m]:
            m = r
        if m == i:
            return
        _sk_t = h[i]
        h[i] = h[m]
        h[m] = _sk_t
        i = m


def _sk_heappop(h):
    if not h:
        raise IndexError("index out of range")
    last = h.pop()
    if not h:
        return last
    top = h[0]
    h[0] = last
    _sk_sift(h, 0)
    return top


def _sk_heapify(h):
    for i in range(len(h) // 2 - 1, -1, -1):
        _sk_sift(h, i)


_sk_heapq.heappush = _sk_heappush
_sk_heapq.heappop = _sk_heappop
_sk_heapq.heapify = _sk_heapify
_sk_heapq.nlargest = lambda n, it, key=None: sorted(it, key=key, reverse=True)[:n]
_sk_heapq.nsmallest = lambda n, it, key=None: sorted(it, key=key)[:n]

_sk_bisect = _SkModule("bisect")


def _sk_bisect_left(a, x, lo=0, hi=None):
    if hi is None:
        hi = len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _sk_bisect_right(a, x, lo=0, hi=None):
    if hi is None:
        hi = len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


_sk_bisect.bisect_left = _sk_bisect_left
_sk_bisect.bisect_right = _sk_bisect_right
_sk_bisect.bisect = _sk_bisect_right
_sk_bisect.insort = lambda a, x: a.insert(_sk_bisect_right(a, x), x)
_sk_bisect.insort_right = _sk_bisect.insort
_sk_bisect.insort_left = lambda a, x: a.insert(_sk_bisect_left(a, x), x)

_sk_copy = _SkModule("copy")


def _sk_deepcopy(x, memo=None):
    if isinstance(x, list):
        return [_sk_deepcopy(v) for v in x]
    if isinstance(x, dict):
        return {k: _sk_deepcopy(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple([_sk_deepcopy(v) for v in x])
    if isinstance(x, set):
        return set([_sk_deepcopy(v) for v in x])
    return x


def _sk_shallowcopy(x):
    if isinstance(x, list):
        return list(x)
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, set):
        return set(x)
    return x


_sk_copy.deepcopy = _sk_deepcopy
_sk_copy.copy = _sk_shallowcopy

# ---- io ------------------------------------------------------------------------------------

_sk_io = _SkModule("io")


class _SkStringIO:
    def __init__(self, initial=""):
        self._buf = initial
        self._pos = 0
        self.closed = False

    def write(self, s):
        self._buf = self._buf[:self._pos] + s + self._buf[self._pos + len(s):]
        self._pos += len(s)
        return len(s)

    def writelines(self, lines):
        for l in lines:
            self.write(l)

    def getvalue(self):
        return self._buf

    def read(self, n=-1):
        if n is None or n < 0:
            out = self._buf[self._pos:]
        else:
            out = self._buf[self._pos:self._pos + n]
        self._pos += len(out)
        return out

    def readline(self):
        end = self._buf.find("\n", self._pos)
        end = len(self._buf) if end < 0 else end + 1
        out = self._buf[self._pos:end]
        self._pos = end
        return out

    def readlines(self):
        out = []
        while True:
            l = self.readline()
            if not l:
                return out
            out.append(l)

    def __iter__(self):
        return iter(self.readlines())

    def seek(self, pos, whence=0):
        self._pos = pos if whence == 0 else len(self._buf) + pos
        return self._pos

    def tell(self):
        return self._pos

    def truncate(self, size=None):
        if size is None:
            size = self._pos
        self._buf = self._buf[:size]
        return size

    def close(self):
        self.closed = True

    def flush(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, a, b, c):
        self.closed = True
        return False


_sk_io.StringIO = _SkStringIO
_sk_io.open = open
_sk_io.TextIOWrapper = lambda b, encoding=None, **kw: b

# ---- time, random, warnings, shlex, pprint ---------------------------------------------------

_sk_time = _SkModule("time")
_sk_time.time = lambda: _sk_host("time")
_sk_time.time_ns = lambda: int(_sk_host("time") * 1000000000)
_sk_time.perf_counter = lambda: _sk_host("monotonic")
_sk_time.monotonic = lambda: _sk_host("monotonic")
_sk_time.process_time = lambda: _sk_host("monotonic")
_sk_time.sleep = lambda s: _sk_host("sleep", s)

_sk_random = _SkModule("random")


def _sk_rand_random():
    return _sk_host("randbelow", 9007199254740992) / 9007199254740992


def _sk_randrange(start, stop=None, step=1):
    if stop is None:
        start, stop = 0, start
    n = (stop - start + step - 1) // step
    if n <= 0:
        raise ValueError("empty range in randrange(" + str(start) + ", " + str(stop) + ")")
    return start + step * _sk_host("randbelow", n)


def _sk_shuffle(x):
    for i in range(len(x) - 1, 0, -1):
        j = _sk_host("randbelow", i + 1)
        _sk_t = x[i]
        x[i] = x[j]
        x[j] = _sk_t


def _sk_sample(population, k):
    pool = list(population)
    _sk_shuffle(pool)
    return pool[:k]


def _sk_choices(population, weights=None, k=1):
    pool = list(population)
    return [pool[_sk_host("randbelow", len(pool))] for _ in range(k)]


def _sk_choice(seq):
    if not seq:
        raise IndexError("Cannot choose from an empty sequence")
    return seq[_sk_host("randbelow", len(seq))]


_sk_random.random = _sk_rand_random
_sk_random.randrange = _sk_randrange
_sk_random.randint = lambda a, b: _sk_randrange(a, b + 1)
_sk_random.choice = _sk_choice
_sk_random.choices = _sk_choices
_sk_random.shuffle = _sk_shuffle
_sk_random.sample = _sk_sample
_sk_random.uniform = lambda a, b: a + (b - a) * _sk_rand_random()
_sk_random.seed = lambda a=None: _sk_host("seed", a)
_sk_random.gauss = lambda mu=0.0, sigma=1.0: mu + sigma * _sk_nmath.sqrt(-2 * _sk_nmath.log(1 - _sk_rand_random())) * _sk_nmath.cos(2 * _sk_nmath.pi * _sk_rand_random())

_sk_warnings = _SkModule("warnings")


def _sk_warn(message, category=None, stacklevel=1):
    name = category.__name__ if category is not None else "UserWarning"
    _sk_host("stderr", "<string>: " + name + ": " + str(message) + "\n")


_sk_warnings.warn = _sk_warn
_sk_warnings.filterwarnings = lambda *a, **k: None
_sk_warnings.simplefilter = lambda *a, **k: None

_sk_shlex = _SkModule("shlex")


def _sk_shlex_quote(s):
    if not s:
        return "''"
    safe = True
    for c in s:
        if not (c.isalnum() or c in "@%+=:,./-_"):
            safe = False
    if safe:
        return s
    return "'" + s.replace("'", "'\"'\"'") + "'"


def _sk_shlex_split(s):
    out = []
    cur = ""
    have = False
    i = 0
    q = None
    while i < len(s):
        c = s[i]
        i += 1
        if q == "'":
            if c == "'":
                q = None
            else:
                cur = cur + c
        elif q == '"':
            if c == '"':
                q = None
            elif c == "\\" and i < len(s) and s[i] in '"\\$`':
                cur = cur + s[i]
                i += 1
            else:
                cur = cur + c
        elif c == "'" or c == '"':
            q = c
            have = True
        elif c == "\\" and i < len(s):
            cur = cur + s[i]
            i += 1
            have = True
        elif c.isspace():
            if have or cur:
                out.append(cur)
            cur = ""
            have = False
        else:
            cur = cur + c
    if q is not None:
        raise ValueError("No closing quotation")
    if have or cur:
        out.append(cur)
    return out


_sk_shlex.quote = _sk_shlex_quote
_sk_shlex.split = _sk_shlex_split
_sk_shlex.join = lambda parts: " ".join([_sk_shlex_quote(p) for p in parts])

_sk_pprint = _SkModule("pprint")
_sk_pprint.pformat = lambda o, indent=1, width=80, **kw: repr(o)
_sk_pprint.pprint = lambda o, stream=None, indent=1, width=80, **kw: print(repr(o), file=stream)

# ---- json, math, re additions --------------------------------------------------------

import json as _sk_native_json

_sk_json = _SkModule("json")
_sk_copy_attrs(_sk_json, _sk_native_json, ["loads", "dumps", "JSONDecodeError"])
_sk_json.load = lambda fp, **kw: _sk_native_json.loads(fp.read(), **kw)
_sk_json.dump = lambda obj, fp, **kw: fp.write(_sk_native_json.dumps(obj, **kw)) and None

_sk_math = _SkModule("math")
_sk_copy_attrs(_sk_math, _sk_nmath, ["pi", "e", "tau", "inf", "nan", "sqrt", "floor", "ceil", "trunc", "gcd", "lcm", "factorial", "log", "log10", "log2", "log1p", "exp", "expm1", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "isclose", "fabs", "comb", "perm", "pow", "degrees", "radians", "isqrt", "copysign", "isinf", "isnan", "isfinite", "modf", "frexp", "ldexp", "fmod", "remainder", "erf", "erfc", "gamma", "lgamma", "cbrt", "exp2", "nextafter", "ulp", "prod", "fsum", "hypot", "dist", "sumprod"])


def _sk_fsum(xs):
    # Shewchuk's exact summation (what CPython's math.fsum does).
    partials = []
    for x in xs:
        i = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        # No slice assignment in monty.
        partials = partials[:i] + [x]
    return sum(partials, 0.0)


def _sk_prod(xs, start=1):
    out = start
    for x in xs:
        out = out * x
    return out


if not hasattr(_sk_math, "fsum"):
    _sk_math.fsum = _sk_fsum
if not hasattr(_sk_math, "prod"):
    _sk_math.prod = _sk_prod
if not hasattr(_sk_math, "hypot"):
    _sk_math.hypot = lambda *c: _sk_nmath.sqrt(_sk_fsum([x * x for x in c]))
if not hasattr(_sk_math, "dist"):
    _sk_math.dist = lambda p, q: _sk_nmath.sqrt(_sk_fsum([(a - b) * (a - b) for a, b in zip(p, q)]))



def _sk_domain(f, ok):
    def g(x, *rest):
        if not ok(x):
            raise ValueError("math domain error")
        return f(x, *rest)
    return g


_sk_math.sqrt = _sk_domain(_sk_nmath.sqrt, lambda x: x >= 0)
_sk_math.log = _sk_domain(_sk_nmath.log, lambda x: x > 0)
_sk_math.log10 = _sk_domain(_sk_nmath.log10, lambda x: x > 0)
_sk_math.log2 = _sk_domain(_sk_nmath.log2, lambda x: x > 0)


# ---- itertools and functools the interpreter lacks (eager: no generators) ------------


def _sk_product(*iterables, repeat=1):
    pools = [list(p) for p in iterables] * repeat
    result = [[]]
    for pool in pools:
        result = [x + [y] for x in result for y in pool]
    return iter([tuple(r) for r in result])


def _sk_permutations(iterable, r=None):
    pool = list(iterable)
    n = len(pool)
    r = n if r is None else r
    out = []

    def rec(prefix, used):
        if len(prefix) == r:
            out.append(tuple([pool[i] for i in prefix]))
            return
        for i in range(n):
            if i not in used:
                rec(prefix + [i], used | {i})

    if r <= n:
        rec([], set())
    return iter(out)


def _sk_combinations(iterable, r):
    pool = list(iterable)
    n = len(pool)
    out = []

    def rec(start, prefix):
        if len(prefix) == r:
            out.append(tuple(prefix))
            return
        for i in range(start, n):
            rec(i + 1, prefix + [pool[i]])

    rec(0, [])
    return iter(out)


def _sk_combinations_wr(iterable, r):
    pool = list(iterable)
    n = len(pool)
    out = []

    def rec(start, prefix):
        if len(prefix) == r:
            out.append(tuple(prefix))
            return
        for i in range(start, n):
            rec(i, prefix + [pool[i]])

    rec(0, [])
    return iter(out)


def _sk_groupby(iterable, key=None):
    out = []
    for x in iterable:
        k = key(x) if key is not None else x
        if out and out[-1][0] == k:
            out[-1][1].append(x)
        else:
            out.append((k, [x]))
    return iter([(k, iter(v)) for k, v in out])


class _SkChain:
    def __call__(self, *iterables):
        out = []
        for it in iterables:
            out.extend(it)
        return iter(out)

    def from_iterable(self, iterables):
        out = []
        for it in iterables:
            out.extend(it)
        return iter(out)


for _sk_n, _sk_f in [("product", _sk_product), ("permutations", _sk_permutations), ("combinations", _sk_combinations), ("combinations_with_replacement", _sk_combinations_wr), ("groupby", _sk_groupby)]:
    if not hasattr(_sk_itertools, _sk_n):
        setattr(_sk_itertools, _sk_n, _sk_f)


def _sk_lru_cache(maxsize=128, typed=False):
    def deco(f):
        memo = {}

        def wrapper(*args):
            if args in memo:
                return memo[args]
            v = f(*args)
            memo[args] = v
            return v

        return wrapper

    if maxsize is not None and not isinstance(maxsize, int):
        return deco(maxsize)
    return deco


def _sk_wraps(wrapped, assigned=None, updated=None):
    # The wrapper answers to the wrapped function's name (f.__name__ is
    # rewritten to _sk_name(f)).
    name = _sk_name(wrapped)

    def deco(f):
        _sk_names[id(f)] = name
        return f

    return deco


class _SkCmpKeyFn:
    def __init__(self, cmp):
        self.cmp = cmp


def _sk_merge_sort(xs, cmp):
    if len(xs) <= 1:
        return list(xs)
    mid = len(xs) // 2
    a = _sk_merge_sort(xs[:mid], cmp)
    b = _sk_merge_sort(xs[mid:], cmp)
    out = []
    i = 0
    j = 0
    while i < len(a) and j < len(b):
        if cmp(b[j], a[i]) < 0:
            out.append(b[j])
            j += 1
        else:
            out.append(a[i])
            i += 1
    out.extend(a[i:])
    out.extend(b[j:])
    return out


_sk_native_sorted = sorted


def sorted(iterable, key=None, reverse=False):
    # key=cmp_to_key(f): a stable merge sort with the comparison function
    # (the interpreter cannot order instances of a Python class).
    if isinstance(key, _SkCmpKeyFn):
        xs = list(iterable)
        if reverse:
            xs.reverse()
            out = _sk_merge_sort(xs, key.cmp)
            out.reverse()
            return out
        return _sk_merge_sort(xs, key.cmp)
    return _sk_native_sorted(iterable, key=key, reverse=reverse)


def _sk_list_sort(xs, key=None, reverse=False):
    out = sorted(xs, key=key, reverse=reverse)
    xs.clear()
    xs.extend(out)


class _SkCmpKey:
    def __init__(self, cmp, obj):
        self.cmp = cmp
        self.obj = obj

    def __lt__(self, other):
        return self.cmp(self.obj, other.obj) < 0

    def __gt__(self, other):
        return self.cmp(self.obj, other.obj) > 0

    def __eq__(self, other):
        return self.cmp(self.obj, other.obj) == 0


def _sk_cmp_to_key(cmp):
    return _SkCmpKeyFn(cmp)


_sk_functools.wraps = _sk_wraps
_sk_functools.cmp_to_key = _sk_cmp_to_key
for _sk_n, _sk_f in [("lru_cache", _sk_lru_cache), ("cache", _sk_lru_cache(None))]:
    if not hasattr(_sk_functools, _sk_n):
        setattr(_sk_functools, _sk_n, _sk_f)

# ---- printf-style formatting: "fmt" % args is rewritten to _sk_pct ------------------


def _sk_pct(fmt, args):
    if isinstance(args, tuple):
        vals = list(args)
    else:
        vals = [args]
    mapping = args if isinstance(args, dict) else None
    out = []
    i = 0
    n = len(fmt)
    k = 0
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        i += 1
        if i < n and fmt[i] == "%":
            out.append("%")
            i += 1
            continue
        key = None
        if i < n and fmt[i] == "(":
            j = fmt.find(")", i)
            key = fmt[i + 1:j]
            i = j + 1
        flags = ""
        while i < n and fmt[i] in "-+ #0":
            flags = flags + fmt[i]
            i += 1
        width = ""
        while i < n and (fmt[i].isdigit() or fmt[i] == "*"):
            if fmt[i] == "*":
                width = width + str(vals[k])
                k += 1
            else:
                width = width + fmt[i]
            i += 1
        prec = None
        if i < n and fmt[i] == ".":
            i += 1
            prec = ""
            while i < n and fmt[i].isdigit():
                prec = prec + fmt[i]
                i += 1
        while i < n and fmt[i] in "hlL":
            i += 1
        if i >= n:
            raise ValueError("incomplete format")
        conv = fmt[i]
        i += 1
        if key is not None:
            v = mapping[key]
        else:
            if k >= len(vals):
                raise TypeError("not enough arguments for format string")
            v = vals[k]
            k += 1
        align = "<" if "-" in flags else ">"
        fill = "0" if ("0" in flags and "-" not in flags and conv not in "sr") else ""
        sign = "+" if "+" in flags else (" " if " " in flags else "")
        alt = "#" if "#" in flags else ""
        p = "" if prec is None else "." + (prec or "0")
        if conv == "s":
            s = str(v)
            if prec is not None:
                s = s[:int(prec or "0")]
            spec = align + width
        elif conv == "r" or conv == "a":
            s = repr(v)
            spec = align + width
        elif conv == "c":
            s = v if isinstance(v, str) else chr(v)
            spec = align + width
        else:
            if conv in "diu":
                v = int(v)
                t = "d"
            elif conv in "eEfFgG":
                v = float(v)
                t = conv
            else:
                t = conv
            if fill:
                spec = sign + alt + "0" + width + p + t
            else:
                spec = align + sign + alt + width + (p if t not in "dxXo" else "") + t
            s = ("{:" + spec + "}").format(v)
            spec = ""
        if spec:
            s = ("{:" + spec + "}").format(s)
        out.append(s)
    if mapping is None and k < len(vals):
        raise TypeError("not all arguments converted during string formatting")
    return "".join(out)


def format(value, spec=""):
    return ("{:" + spec + "}").format(value)


_sk_uuid = _SkModule("uuid")


class _SkUUID:
    def __init__(self, h):
        self.hex = h

    def __str__(self):
        h = self.hex
        return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]

    def __repr__(self):
        return "UUID('" + str(self) + "')"


def _sk_uuid4():
    digits = "".join(["0123456789abcdef"[_sk_host("randbelow", 16)] for _ in range(32)])
    return _SkUUID(digits[:12] + "4" + digits[13:16] + "89ab"[_sk_host("randbelow", 4)] + digits[17:])


_sk_uuid.uuid4 = _sk_uuid4

# ---- expressions the interpreter lacks, rewritten by imports.rs ----------------------


_sk_names = {}


def _sk_name(obj):
    # f.__name__: monty's functions carry no __name__; their repr does.
    if id(obj) in _sk_names:
        return _sk_names[id(obj)]
    try:
        return getattr(obj, "__name__")
    except AttributeError:
        pass
    r = repr(obj)
    for start in ["<function '", "<class '"]:
        if r.startswith(start):
            return r[len(start):r.index("'", len(start))]
    if r.startswith("<built-in function "):
        return r[len("<built-in function "):-1]
    raise AttributeError("'" + type(obj).__name__ + "' object has no attribute '__name__'")


def _sk_is_class(obj):
    # isinstance(x, type) is not available in the interpreter.
    return repr(obj).startswith("<class '")


def _sk_dc_names(obj):
    cls = obj if _sk_is_class(obj) else type(obj)
    try:
        return list(cls.__annotations__.keys())
    except AttributeError:
        raise TypeError("must be called with a dataclass type or instance")


def vars(obj):
    if hasattr(obj, "_sk_keys"):
        return {k: getattr(obj, k) for k in obj._sk_keys}
    try:
        names = _sk_dc_names(obj)
    except TypeError:
        raise TypeError("vars() argument must have __dict__ attribute (the embedded Python knows the attributes of dataclasses and argparse namespaces only)")
    if not names:
        raise TypeError("vars() is not available for this object in the local sandbox's embedded Python (it knows the attributes of dataclasses and argparse namespaces only)")
    return {n: getattr(obj, n) for n in names}


_sk_vars = vars


def _sk_SystemExit(code=None):
    # SystemExit(2): monty's exceptions take one string; the command decodes it.
    if code is None:
        return SystemExit()
    if isinstance(code, int):
        return SystemExit(str(code))
    return SystemExit("msg:" + str(code))


def _sk_bytes(*args, **kw):
    # bytes([104, 105]) / bytes(range(3)): monty builds bytes only from str and int.
    if len(args) == 1 and not kw and not isinstance(args[0], (str, bytes, int)):
        return _sk_host("bytes", list(args[0]))
    return bytes(*args, **kw)


def _sk_dict_or(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        out.update(b)
        return out
    return a | b


def _sk_maketrans(x, y=None, z=None):
    table = {}
    if y is None:
        for k, v in x.items():
            table[ord(k) if isinstance(k, str) else k] = v
        return table
    if len(x) != len(y):
        raise ValueError("the first two maketrans arguments must have equal length")
    for i in range(len(x)):
        table[ord(x[i])] = ord(y[i])
    if z is not None:
        for c in z:
            table[ord(c)] = None
    return table


def _sk_translate(s, table):
    out = []
    for c in s:
        k = ord(c)
        if k in table:
            v = table[k]
            if v is None:
                continue
            out.append(chr(v) if isinstance(v, int) else v)
        else:
            out.append(c)
    return "".join(out)


_sk_static = {"maketrans": _sk_maketrans}


def _sk_attr(obj, name, call):
    # A method passed as a value (key=str.lower, key=d.get): the attribute
    # when the interpreter can load it, else a function that calls it.
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    if obj is str and name in _sk_static:
        return _sk_static[name]
    if obj in (str, dict, list, set, frozenset, tuple, int, float, bytes):
        return call
    return lambda *a: call(obj, *a)


def _sk_move_to_end(d, key, last=True):
    v = d.pop(key)
    if last:
        d[key] = v
        return None
    rest = list(d.items())
    d.clear()
    d[key] = v
    for k, x in rest:
        d[k] = x
    return None


def _sk_path_glob(p, pattern):
    base = str(p)
    found = _sk_glob_glob(_sk_path_join(base, pattern), "**" in pattern)
    return iter([_sk_native_pathlib.Path(f) for f in found])


def _sk_path_rglob(p, pattern):
    return _sk_path_glob(p, "**/" + pattern)


def _sk_from_iterable(chain, iterables):
    out = []
    for it in iterables:
        out.extend(it)
    return iter(out)


_sk_methods = {"sort": _sk_list_sort, "translate": _sk_translate, "move_to_end": _sk_move_to_end, "glob": _sk_path_glob, "rglob": _sk_path_rglob, "from_iterable": _sk_from_iterable}


def _sk_call(obj, name):
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    f = _sk_methods[name]
    return lambda *a, **k: f(obj, *a, **k)


def _sk_match_groups(m, default=None):
    return tuple([default if g is None else g for g in m.groups()])


# ---- the set of served modules (read by the command) -------------------------------

_sk_modules = ["uuid", "json", "math", "sys", "os", "csv", "statistics", "string", "textwrap", "itertools", "functools", "collections", "operator", "heapq", "bisect", "copy", "io", "time", "random", "warnings", "shlex", "pprint", "glob", "fnmatch", "shutil"]
