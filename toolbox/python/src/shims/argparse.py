# The embedded python3's `argparse` shim (sandkeep-python), fed to a run only
# when its program imports argparse (see LAZY in lib.rs): the parser agents write: options, positionals, flags, counts, appends, nargs, choices, usage errors with status 2.
# It runs after the prelude, in the interpreter's subset (no inheritance,
# no generators, no method decorators).

# ---- argparse: the parser agents write (options, positionals, flags, nargs, choices) -

_sk_argparse = _SkModule("argparse")
_sk_argparse.SUPPRESS = "==SUPPRESS=="
_sk_argparse.REMAINDER = "..."


class _SkNamespace:
    def __init__(self, **kw):
        self._sk_keys = []
        for k, v in kw.items():
            self._sk_set(k, v)

    def _sk_set(self, k, v):
        if k not in self._sk_keys:
            self._sk_keys.append(k)
        setattr(self, k, v)

    def __repr__(self):
        return "Namespace(" + ", ".join([k + "=" + repr(getattr(self, k)) for k in sorted(self._sk_keys)]) + ")"

    def __eq__(self, other):
        return repr(self) == repr(other)

    def __contains__(self, k):
        return k in self._sk_keys


class _SkArg:
    def __init__(self, flags, kw):
        self.flags = flags
        self.positional = not flags[0].startswith("-")
        self.action = kw.get("action", "store")
        self.nargs = kw.get("nargs", None)
        self.const = kw.get("const", None)
        self.type = kw.get("type", None)
        self.choices = kw.get("choices", None)
        self.required = kw.get("required", self.positional and self.nargs not in ("?", "*"))
        self.help = kw.get("help", None)
        self.metavar = kw.get("metavar", None)
        if "dest" in kw:
            self.dest = kw["dest"]
        elif self.positional:
            self.dest = flags[0]
        else:
            longs = [f for f in flags if f.startswith("--")]
            self.dest = (longs[0] if longs else flags[0]).lstrip("-").replace("-", "_")
        if self.action == "store_true":
            default = False
        elif self.action == "store_false":
            default = True
        else:
            default = None
        self.default = kw.get("default", default)

    def name(self):
        if self.positional:
            return self.metavar or self.dest
        return "/".join(self.flags)

    def usage(self):
        if self.positional:
            m = self.metavar or self.dest
            if self.nargs == "?":
                return "[" + m + "]"
            if self.nargs == "*":
                return "[" + m + " ...]"
            if self.nargs == "+":
                return m + " [" + m + " ...]"
            return m
        if self.action in ("store_true", "store_false", "count", "help", "version", "store_const"):
            part = self.flags[0]
        else:
            part = self.flags[0] + " " + (self.metavar or self.dest.upper())
        return part if self.required else "[" + part + "]"


class _SkArgumentParser:
    def __init__(self, prog=None, usage=None, description=None, epilog=None, add_help=True, **kw):
        self.prog = prog
        self.description = description
        self.epilog = epilog
        self.args = []
        self.defaults = {}
        self.usage_text = usage
        if add_help:
            self.args.append(_SkArg(["-h", "--help"], {"action": "help", "help": "show this help message and exit"}))

    def _prog(self):
        if self.prog is not None:
            return self.prog
        a = _sk_sys.argv[0] if _sk_sys.argv else "python3"
        return a.split("/")[-1] if a != "-c" else "-c"

    def add_argument(self, *flags, **kw):
        a = _SkArg(list(flags), kw)
        self.args.append(a)
        return a

    def add_mutually_exclusive_group(self, required=False):
        return self

    def add_argument_group(self, title=None, description=None):
        return self

    def add_subparsers(self, **kw):
        raise NotImplementedError("argparse subcommands (add_subparsers) are not available in the local sandbox's embedded Python")

    def set_defaults(self, **kw):
        for k, v in kw.items():
            self.defaults[k] = v

    def format_usage(self):
        if self.usage_text is not None:
            return "usage: " + self.usage_text + "\n"
        opts = [a.usage() for a in self.args if not a.positional]
        pos = [a.usage() for a in self.args if a.positional]
        return "usage: " + " ".join([self._prog()] + opts + pos) + "\n"

    def format_help(self):
        out = self.format_usage()
        if self.description:
            out = out + "\n" + self.description + "\n"
        pos = [a for a in self.args if a.positional]
        opts = [a for a in self.args if not a.positional]
        if pos:
            out = out + "\npositional arguments:\n"
            for a in pos:
                out = out + "  " + a.name() + ("  " + a.help if a.help else "") + "\n"
        if opts:
            out = out + "\noptions:\n"
            for a in opts:
                names = ", ".join([f if a.action in ("store_true", "store_false", "count", "help", "version", "store_const") else f + " " + (a.metavar or a.dest.upper()) for f in a.flags])
                out = out + "  " + names + ("  " + a.help if a.help else "") + "\n"
        if self.epilog:
            out = out + "\n" + self.epilog + "\n"
        return out

    def print_help(self, file=None):
        (file or _sk_sys.stdout).write(self.format_help())

    def print_usage(self, file=None):
        (file or _sk_sys.stdout).write(self.format_usage())

    def error(self, message):
        _sk_sys.stderr.write(self.format_usage())
        _sk_sys.stderr.write(self._prog() + ": error: " + message + "\n")
        raise SystemExit("2")

    def exit(self, status=0, message=None):
        if message:
            _sk_sys.stderr.write(message)
        raise SystemExit(str(status))

    def _convert(self, a, v):
        if a.type is not None:
            try:
                v = a.type(v)
            except (ValueError, TypeError):
                tn = getattr(a.type, "__name__", None) or ("int" if a.type is int else ("float" if a.type is float else "value"))
                self.error("argument " + a.name() + ": invalid " + tn + " value: " + repr(v))
        if a.choices is not None and v not in a.choices:
            self.error("argument " + a.name() + ": invalid choice: " + repr(v) + " (choose from " + ", ".join([repr(c) for c in a.choices]) + ")")
        return v

    def _find(self, flag):
        for a in self.args:
            if flag in a.flags:
                return a
        hits = [a for a in self.args if not a.positional and any([f.startswith(flag) and f.startswith("--") for f in a.flags])]
        if flag.startswith("--") and len(hits) == 1:
            return hits[0]
        return None

    def _take(self, a, args, i, name):
        n = a.nargs
        if n is None:
            if i >= len(args) or (args[i].startswith("-") and len(args[i]) > 1 and not args[i][1].isdigit()):
                self.error("argument " + name + ": expected one argument")
            return self._convert(a, args[i]), i + 1
        if n == "?":
            if i < len(args) and not args[i].startswith("-"):
                return self._convert(a, args[i]), i + 1
            return a.const, i
        vals = []
        while i < len(args) and not (args[i].startswith("-") and len(args[i]) > 1 and not args[i][1].isdigit()):
            if isinstance(n, int) and len(vals) == n:
                break
            vals.append(self._convert(a, args[i]))
            i += 1
        if (n == "+" and not vals) or (isinstance(n, int) and len(vals) != n):
            self.error("argument " + name + ": expected " + ("at least one argument" if n == "+" else str(n) + " arguments"))
        return vals, i

    def parse_known_args(self, args=None, namespace=None):
        if args is None:
            args = _sk_sys.argv[1:]
        args = [str(x) for x in args]
        ns = namespace if namespace is not None else _SkNamespace()
        for a in self.args:
            if a.action not in ("help", "version") and a.dest not in ns._sk_keys:
                d = a.default
                if isinstance(d, str) and a.type is not None and not a.positional:
                    d = a.type(d)
                ns._sk_set(a.dest, d)
        for k, v in self.defaults.items():
            ns._sk_set(k, v)
        positionals = []
        extras = []
        seen = []
        i = 0
        only_pos = False
        while i < len(args):
            tok = args[i]
            if only_pos or tok == "-" or not tok.startswith("-") or (len(tok) > 1 and tok[1].isdigit() and self._find(tok) is None):
                positionals.append(tok)
                i += 1
                continue
            if tok == "--":
                only_pos = True
                i += 1
                continue
            value = None
            flag = tok
            if tok.startswith("--") and "=" in tok:
                flag = tok[:tok.index("=")]
                value = tok[tok.index("=") + 1:]
            elif not tok.startswith("--") and len(tok) > 2:
                short = self._find(tok[:2])
                if short is not None and short.action in ("store", "append"):
                    flag = tok[:2]
                    value = tok[2:]
                elif short is not None and short.action in ("store_true", "store_false", "count", "store_const"):
                    args = args[:i] + [tok[:2]] + ["-" + c for c in tok[2:]] + args[i + 1:]
                    continue
            a = self._find(flag)
            if a is None:
                extras.append(tok)
                i += 1
                continue
            seen.append(a)
            i += 1
            act = a.action
            if act == "help":
                self.print_help()
                raise SystemExit("0")
            if act == "version":
                _sk_sys.stdout.write(str(getattr(a, "version", "")) + "\n")
                raise SystemExit("0")
            if act == "store_true":
                ns._sk_set(a.dest, True)
            elif act == "store_false":
                ns._sk_set(a.dest, False)
            elif act == "store_const":
                ns._sk_set(a.dest, a.const)
            elif act == "count":
                ns._sk_set(a.dest, (getattr(ns, a.dest) or 0) + 1)
            else:
                if value is not None:
                    v = self._convert(a, value)
                else:
                    v, i = self._take(a, args, i, flag)
                if act == "append":
                    cur = getattr(ns, a.dest)
                    ns._sk_set(a.dest, (list(cur) if cur else []) + [v])
                else:
                    ns._sk_set(a.dest, v)
        pos_args = [a for a in self.args if a.positional]
        k = 0
        for idx in range(len(pos_args)):
            a = pos_args[idx]
            need_after = len([b for b in pos_args[idx + 1:] if b.nargs not in ("?", "*")])
            avail = len(positionals) - k - need_after
            if a.nargs is None:
                if avail < 1:
                    break
                ns._sk_set(a.dest, self._convert(a, positionals[k]))
                k += 1
            elif a.nargs == "?":
                if avail >= 1:
                    ns._sk_set(a.dest, self._convert(a, positionals[k]))
                    k += 1
            elif a.nargs in ("*", "+", "..."):
                take = max(avail, 0)
                if a.nargs == "+" and take < 1:
                    break
                ns._sk_set(a.dest, [self._convert(a, x) for x in positionals[k:k + take]])
                k += take
            else:
                if avail < a.nargs:
                    break
                ns._sk_set(a.dest, [self._convert(a, x) for x in positionals[k:k + a.nargs]])
                k += a.nargs
            seen.append(a)
        missing = [a.name() for a in self.args if a.required and a not in seen]
        if missing:
            self.error("the following arguments are required: " + ", ".join(missing))
        return ns, extras + positionals[k:]

    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: " + " ".join(extras))
        return ns


_sk_argparse.ArgumentParser = _SkArgumentParser
_sk_argparse.Namespace = _SkNamespace
_sk_argparse.FileType = lambda mode="r", *a, **k: (lambda path: open(path, mode))
_sk_argparse.RawTextHelpFormatter = None
_sk_argparse.RawDescriptionHelpFormatter = None
_sk_argparse.ArgumentDefaultsHelpFormatter = None

