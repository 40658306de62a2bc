# The embedded python3's `re` shim (sandkeep-python), fed to a run only
# when its program imports re (see LAZY in lib.rs): the native module, with
# the calls that find every match of a big string (sub, subn, findall,
# finditer, split, module-level and compiled) made where the run's deadline
# is seen (host-side, re_scan.rs), the template expansion and function
# replacements the native sub lacks, and split's groups.
# It runs after the prelude, in the interpreter's subset (no inheritance,
# no generators, no method decorators).

_sk_re = _SkModule("re")
_sk_copy_attrs(_sk_re, _sk_nre, ["compile", "search", "match", "fullmatch", "findall", "finditer", "split", "escape", "purge", "error", "Pattern", "Match", "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE", "A", "ASCII", "U", "UNICODE", "NOFLAG"])


# A native re call finds all of a string's matches at once and cannot be
# stopped (sub over 400k chars: 14 s; findall/finditer: 100 ms and more
# past any deadline). Past this length the matches of sub, subn, findall,
# finditer and split are found host-side in batches (re_scan.rs, the same
# engine as the native calls), the run's deadline checked between them.
_SK_RE_HOST_MIN = 20000

# Matches per host call: a few milliseconds of work.
_SK_RE_BATCH = 2048

_SK_TEMPLATE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "f": "\f", "v": "\v", "\\": "\\"}


def _sk_re_template(repl):
    # A replacement template as pieces: literal text, or [group] (an int or
    # a name) to take from the match (Python's rules: \1, \g<1>, \g<name>, escapes).
    pieces = []
    text = []
    i = 0
    while i < len(repl):
        c = repl[i]
        if c != "\\" or i + 1 == len(repl):
            text.append(c)
            i += 1
            continue
        e = repl[i + 1]
        if e == "0":
            j = i + 2
            while j < len(repl) and j < i + 4 and repl[j] in "01234567":
                j += 1
            text.append(chr(int(repl[i + 1:j], 8)))
            i = j
        elif e.isdigit():
            j = i + 2
            if j < len(repl) and repl[j].isdigit():
                j += 1
            pieces.append("".join(text))
            text = []
            pieces.append([int(repl[i + 1:j])])
            i = j
        elif e == "g":
            end = repl.find(">", i)
            if i + 2 >= len(repl) or repl[i + 2] != "<" or end < 0:
                raise _sk_nre.error("missing group name")
            name = repl[i + 3:end]
            pieces.append("".join(text))
            text = []
            pieces.append([int(name) if name.isdigit() else name])
            i = end + 1
        elif e in _SK_TEMPLATE_ESCAPES:
            text.append(_SK_TEMPLATE_ESCAPES[e])
            i += 2
        elif e.isascii() and e.isalpha():
            raise _sk_nre.error("bad escape \\" + e)
        else:
            text.append(c + e)
            i += 2
    pieces.append("".join(text))
    return pieces


def _sk_re_expander(repl):
    pieces = _sk_re_template(repl)

    def expand(m):
        out = []
        for p in pieces:
            if isinstance(p, str):
                out.append(p)
            else:
                g = m.group(p[0])
                out.append(g if g is not None else "")
        return "".join(out)

    return expand


class _SkMatch:
    # A match found host-side: what the native re.Match offers (group,
    # groups, groupdict, start, end, span, string, m[g], its repr).
    def __init__(self, string, names, spans, texts):
        self.string = string
        self._names = names
        self._spans = spans
        self._texts = texts

    def _index(self, g):
        if isinstance(g, str):
            if g in self._names:
                return self._names.index(g)
        elif isinstance(g, int) and 0 <= g < len(self._texts):
            return int(g)
        raise IndexError("no such group")

    def group(self, *gs):
        if len(gs) == 0:
            return self._texts[0]
        if len(gs) == 1:
            return self._texts[self._index(gs[0])]
        return tuple([self._texts[self._index(g)] for g in gs])

    def __getitem__(self, g):
        return self._texts[self._index(g)]

    def groups(self, default=None):
        return tuple([default if t is None else t for t in self._texts[1:]])

    def groupdict(self, default=None):
        out = {}
        for i in range(len(self._names)):
            if self._names[i] is not None:
                t = self._texts[i]
                out[self._names[i]] = default if t is None else t
        return out

    def start(self, g=0):
        return self._spans[self._index(g)][0]

    def end(self, g=0):
        return self._spans[self._index(g)][1]

    def span(self, g=0):
        return self._spans[self._index(g)]

    def __bool__(self):
        return True

    def __repr__(self):
        return "<re.Match object; span=(" + str(self._spans[0][0]) + ", " + str(self._spans[0][1]) + "), match=" + repr(self._texts[0]) + ">"


def _sk_re_host_walk(pattern, flags, string, limit, visit):
    # Finds up to `limit` matches (0: all) host-side; calls visit(gap,
    # spans, texts, names) for each, gap being the text since the previous
    # match, names the group names (index 0 the whole match; None:
    # unnamed). Returns the text after the last match visited.
    if not isinstance(pattern, str):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        flags = pattern.flags
        pattern = pattern.pattern
    # A bad pattern raises here, in the native words.
    _sk_nre.compile(pattern, flags)
    names = _sk_host("re_open", pattern, flags, string)
    n = len(names)
    seen = 0
    while True:
        batch = _sk_host("re_next", _SK_RE_BATCH)
        if batch is None:
            return ""
        i = 0
        while i + 1 < len(batch):
            spans = []
            texts = []
            j = i + 1
            for k in range(n):
                spans.append((batch[j], batch[j + 1]))
                texts.append(batch[j + 2])
                j += 3
            visit(batch[i], spans, texts, names, None)
            i = j
            seen += 1
            if limit and seen >= limit:
                return string[spans[0][1]:]
        if i < len(batch):
            return batch[i]


def _sk_re_native_walk(pattern, flags, string, limit, visit):
    # _sk_re_host_walk over the native finditer (short strings); visit gets
    # the native match (and no group names: the match knows them).
    names = None
    # Slicing a str costs time linear in the index (a quadratic loop);
    # ASCII text's char indices are its bytes', and bytes slice at once.
    raw = string.encode() if string.isascii() else None
    last = 0
    seen = 0
    for m in _sk_nre.finditer(pattern, string, flags):
        if limit and seen >= limit:
            break
        gap = raw[last:m.start()].decode() if raw is not None else string[last:m.start()]
        texts = [m.group(0)] + list(m.groups())
        visit(gap, None, texts, names, m)
        last = m.end()
        seen += 1
    return raw[last:].decode() if raw is not None else string[last:]


def _sk_re_big(string):
    return isinstance(string, str) and len(string) > _SK_RE_HOST_MIN


def _sk_re_sub_walk(walk, pattern, repl, string, count, flags):
    # (the new string, the number of replacements)
    pieces = _sk_re_template(repl) if isinstance(repl, str) else None
    out = []
    chunk = []
    made = [0]

    def visit(gap, spans, texts, names, m):
        chunk.append(gap)
        if pieces is None:
            chunk.append(repl(m if m is not None else _SkMatch(string, names, spans, texts)))
        else:
            for p in pieces:
                if isinstance(p, str):
                    chunk.append(p)
                else:
                    g = m.group(p[0]) if m is not None else texts[_sk_re_group_index(names, p[0])]
                    chunk.append(g if g is not None else "")
        made[0] += 1
        if len(chunk) >= 4096:
            # Joined as it goes: a million small pieces cost more memory
            # than the text they hold.
            out.append("".join(chunk))
            chunk.clear()

    chunk.append(walk(pattern, flags, string, count, visit))
    out.append("".join(chunk))
    return ("".join(out), made[0])


def _sk_re_group_index(names, g):
    if isinstance(g, int):
        if g < len(names):
            return g
        raise _sk_nre.error("invalid group reference " + str(g))
    if g in names:
        return names.index(g)
    raise IndexError("unknown group name '" + g + "'")


def _sk_re_subn(pattern, repl, string, count=0, flags=0):
    if isinstance(repl, bytes) or not isinstance(string, str) or count < 0:
        n = len(_sk_nre.findall(pattern, string, flags)) if count >= 0 else 0
        if count:
            n = min(n, count)
        return (_sk_nre.sub(pattern, repl, string, count=count, flags=flags), n)
    if _sk_re_big(string):
        return _sk_re_sub_walk(_sk_re_host_walk, pattern, repl, string, count, flags)
    if isinstance(repl, str):
        n = len(_sk_nre.findall(pattern, string, flags))
        if count:
            n = min(n, count)
        return (_sk_nre.sub(pattern, repl, string, count=count, flags=flags), n)
    # The native sub takes no function.
    return _sk_re_sub_walk(_sk_re_native_walk, pattern, repl, string, count, flags)


def _sk_re_sub(pattern, repl, string, count=0, flags=0):
    if isinstance(repl, str) and not _sk_re_big(string):
        return _sk_nre.sub(pattern, repl, string, count=count, flags=flags)
    return _sk_re_subn(pattern, repl, string, count, flags)[0]


def _sk_re_findall(pattern, string, flags=0):
    if not _sk_re_big(string):
        return _sk_nre.findall(pattern, string, flags)
    out = []

    def visit(gap, spans, texts, names, m):
        if len(texts) == 1:
            out.append(texts[0])
        elif len(texts) == 2:
            out.append(texts[1] if texts[1] is not None else "")
        else:
            out.append(tuple([t if t is not None else "" for t in texts[1:]]))

    _sk_re_host_walk(pattern, flags, string, 0, visit)
    return out


def _sk_re_finditer(pattern, string, flags=0):
    if not _sk_re_big(string):
        return _sk_nre.finditer(pattern, string, flags)
    out = []

    def visit(gap, spans, texts, names, m):
        out.append(_SkMatch(string, names, spans, texts))

    _sk_re_host_walk(pattern, flags, string, 0, visit)
    return iter(out)


def _sk_re_split(pattern, string, maxsplit=0, flags=0):
    big = _sk_re_big(string)
    if not big and (not isinstance(pattern, str) or _sk_nre.search(r"(?<!\\)\((?!\?)", pattern) is None):
        return _sk_nre.split(pattern, string, maxsplit=maxsplit, flags=flags)
    if maxsplit < 0:
        return [string]
    out = []

    def visit(gap, spans, texts, names, m):
        out.append(gap)
        out.extend(texts[1:])

    walk = _sk_re_host_walk if big else _sk_re_native_walk
    out.append(walk(pattern, flags, string, maxsplit, visit))
    return out


class _SkPattern:
    # What re.compile returns: the native pattern, with the methods that
    # find every match sent through the module's functions above (host-side
    # past _SK_RE_HOST_MIN chars); search, match and fullmatch stay native
    # (one match: no pile of match objects).
    def __init__(self, native):
        self._native = native
        self.pattern = native.pattern
        self.flags = native.flags

    def search(self, string):
        return self._native.search(string)

    def match(self, string):
        return self._native.match(string)

    def fullmatch(self, string):
        return self._native.fullmatch(string)

    def sub(self, repl, string, count=0):
        return _sk_re_sub(self._native, repl, string, count)

    def subn(self, repl, string, count=0):
        return _sk_re_subn(self._native, repl, string, count)

    def findall(self, string):
        return _sk_re_findall(self._native, string)

    def finditer(self, string):
        return _sk_re_finditer(self._native, string)

    def split(self, string, maxsplit=0):
        return _sk_re_split(self._native, string, maxsplit)

    def __eq__(self, other):
        return isinstance(other, _SkPattern) and self.pattern == other.pattern and self.flags == other.flags

    def __hash__(self):
        return hash((self.pattern, self.flags))

    def __repr__(self):
        return repr(self._native)


def _sk_re_native(pattern):
    return pattern._native if isinstance(pattern, _SkPattern) else pattern


def _sk_re_compile(pattern, flags=0):
    if isinstance(pattern, _SkPattern):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        return pattern
    return _SkPattern(_sk_nre.compile(pattern, flags))


def _sk_re_unwrapping(f):
    # A module function taking a pattern first, given the native pattern.
    def g(pattern, *rest, **kw):
        return f(_sk_re_native(pattern), *rest, **kw)

    return g


_sk_re.compile = _sk_re_compile
_sk_re.Pattern = _SkPattern
_sk_re.search = _sk_re_unwrapping(_sk_nre.search)
_sk_re.match = _sk_re_unwrapping(_sk_nre.match)
_sk_re.fullmatch = _sk_re_unwrapping(_sk_nre.fullmatch)
_sk_re.sub = _sk_re_unwrapping(_sk_re_sub)
_sk_re.subn = _sk_re_unwrapping(_sk_re_subn)
_sk_re.findall = _sk_re_unwrapping(_sk_re_findall)
_sk_re.finditer = _sk_re_unwrapping(_sk_re_finditer)
_sk_re.split = _sk_re_unwrapping(_sk_re_split)
