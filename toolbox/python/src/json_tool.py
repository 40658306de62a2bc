# python3 -m json.tool for the embedded Python: validate and pretty-print
# JSON (CPython's options: --sort-keys, --indent N, --tab, --compact,
# --no-ensure-ascii, --json-lines, [infile [outfile]]).
import sys
import json

_args = sys.argv[1:]
_sort = False
_indent = 4
_sep = None
_ascii = True
_lines = False
_files = []
_i = 0
while _i < len(_args):
    _a = _args[_i]
    if _a == "--sort-keys":
        _sort = True
    elif _a == "--indent":
        _i += 1
        _indent = int(_args[_i])
    elif _a == "--tab":
        _indent = "\t"
    elif _a == "--no-indent":
        _indent = None
    elif _a == "--compact":
        _indent = None
        _sep = (",", ":")
    elif _a == "--no-ensure-ascii":
        _ascii = False
    elif _a == "--json-lines":
        _lines = True
    elif _a.startswith("-") and _a != "-":
        print("usage: python -m json.tool [-h] [--sort-keys] [--no-ensure-ascii] [--json-lines] [--indent INDENT | --tab | --no-indent | --compact] [infile] [outfile]", file=sys.stderr)
        print("python -m json.tool: error: unrecognized arguments: " + _a, file=sys.stderr)
        sys.exit(2)
    else:
        _files.append(_a)
    _i += 1

if _files and _files[0] != "-":
    with open(_files[0]) as _f:
        _text = _f.read()
else:
    _text = sys.stdin.read()

if _lines:
    _docs = [l for l in _text.splitlines() if l.strip()]
else:
    _docs = [_text]
_out = []
for _d in _docs:
    try:
        _obj = json.loads(_d)
    except ValueError as _e:
        print(str(_e), file=sys.stderr)
        sys.exit(1)
    if _sep is not None:
        _out.append(json.dumps(_obj, sort_keys=_sort, indent=_indent, separators=_sep, ensure_ascii=_ascii))
    else:
        _out.append(json.dumps(_obj, sort_keys=_sort, indent=_indent, ensure_ascii=_ascii))
_res = "\n".join(_out) + "\n"
if len(_files) > 1:
    with open(_files[1], "w") as _f:
        _f.write(_res)
else:
    sys.stdout.write(_res)
