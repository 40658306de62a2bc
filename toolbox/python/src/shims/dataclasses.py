# The embedded python3's `dataclasses` shim (sandkeep-python), fed to a run only
# when its program imports dataclasses (see LAZY in lib.rs): monty's own dataclass decorator plus fields/asdict/astuple/replace/is_dataclass, read from the class's annotations.
# It runs after the prelude, in the interpreter's subset (no inheritance,
# no generators, no method decorators).

import dataclasses as _sk_native_dataclasses

# ---- dataclasses: monty's own dataclass, with fields/asdict/astuple/replace from annotations


_sk_dataclasses = _SkModule("dataclasses")
_sk_copy_attrs(_sk_dataclasses, _sk_native_dataclasses, ["dataclass", "FrozenInstanceError", "KW_ONLY", "MISSING"])


class _SkField:
    def __init__(self, name, type):
        self.name = name
        self.type = type

    def __repr__(self):
        return "Field(name=" + repr(self.name) + ",type=" + str(self.type) + ")"


def _sk_dc_is(obj):
    try:
        return len(_sk_dc_names(obj)) > 0 and not isinstance(obj, (str, int, float, list, dict, tuple, set))
    except TypeError:
        return False


def _sk_dc_fields(obj):
    cls = obj if _sk_is_class(obj) else type(obj)
    ann = _sk_dc_names(obj)
    return tuple([_SkField(n, cls.__annotations__[n]) for n in ann])


def _sk_dc_value(v, factory):
    if _sk_dc_is(v) and not _sk_is_class(v):
        return factory([(n, _sk_dc_value(getattr(v, n), factory)) for n in _sk_dc_names(v)])
    if isinstance(v, list):
        return [_sk_dc_value(x, factory) for x in v]
    if isinstance(v, tuple):
        return tuple([_sk_dc_value(x, factory) for x in v])
    if isinstance(v, dict):
        return {_sk_dc_value(k, factory): _sk_dc_value(x, factory) for k, x in v.items()}
    return _sk_deepcopy(v)


def _sk_dc_asdict(obj, dict_factory=dict):
    if not _sk_dc_is(obj) or _sk_is_class(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _sk_dc_value(obj, dict_factory)


def _sk_dc_astuple(obj, tuple_factory=tuple):
    if not _sk_dc_is(obj) or _sk_is_class(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    return tuple_factory([_sk_dc_astuple(getattr(obj, n)) if _sk_dc_is(getattr(obj, n)) else _sk_deepcopy(getattr(obj, n)) for n in _sk_dc_names(obj)])


def _sk_dc_replace(obj, **changes):
    kw = {n: getattr(obj, n) for n in _sk_dc_names(obj)}
    for k, v in changes.items():
        if k not in kw:
            raise TypeError(type(obj).__name__ + ".__init__() got an unexpected keyword argument '" + k + "'")
        kw[k] = v
    return type(obj)(**kw)


class _SkMissing:
    def __repr__(self):
        return "MISSING"


_sk_dc_missing = _SkMissing()


def _sk_dc_field(*, default=_sk_dc_missing, default_factory=None, **kw):
    if default_factory is not None or default is _sk_dc_missing:
        raise NotImplementedError("dataclasses.field() without a plain default (default_factory=...) is not available in the local sandbox's embedded Python")
    return default


_sk_dataclasses.fields = _sk_dc_fields
_sk_dataclasses.asdict = _sk_dc_asdict
_sk_dataclasses.astuple = _sk_dc_astuple
_sk_dataclasses.replace = _sk_dc_replace
_sk_dataclasses.field = _sk_dc_field
_sk_dataclasses.is_dataclass = _sk_dc_is
_sk_dataclasses.MISSING = _sk_dc_missing

