# The embedded python3's `hashlib` shim (sandkeep-python), fed to a run only
# when its program imports hashlib (see LAZY in lib.rs): digests computed by the host side with the sha1, sha2 and md-5 crates.
# It runs after the prelude, in the interpreter's subset (no inheritance,
# no generators, no method decorators).

# ---- hashlib: digests computed by the host side (sha1/sha2/md5 crates) --------------

_sk_hashlib = _SkModule("hashlib")
_sk_hash_sizes = {"md5": (16, 64), "sha1": (20, 64), "sha224": (28, 64), "sha256": (32, 64), "sha384": (48, 128), "sha512": (64, 128)}


class _SkHash:
    def __init__(self, name, data):
        self.name = name
        self.digest_size = _sk_hash_sizes[name][0]
        self.block_size = _sk_hash_sizes[name][1]
        self._parts = []
        if data is not None:
            self.update(data)

    def update(self, data):
        if isinstance(data, str):
            raise TypeError("Strings must be encoded before hashing")
        self._parts.append(bytes(data))

    def digest(self):
        return _sk_host("digest", self.name, b"".join(self._parts))

    def hexdigest(self):
        return self.digest().hex()

    def copy(self):
        h = _SkHash(self.name, None)
        h._parts = list(self._parts)
        return h


def _sk_hash_new(name, data=None, usedforsecurity=True):
    n = name.lower().replace("-", "").replace("_", "")
    if n not in _sk_hash_sizes:
        raise ValueError("unsupported hash type " + name)
    return _SkHash(n, data)


_sk_hashlib.new = _sk_hash_new
_sk_hashlib.md5 = lambda data=None, usedforsecurity=True: _SkHash("md5", data)
_sk_hashlib.sha1 = lambda data=None, usedforsecurity=True: _SkHash("sha1", data)
_sk_hashlib.sha224 = lambda data=None, usedforsecurity=True: _SkHash("sha224", data)
_sk_hashlib.sha256 = lambda data=None, usedforsecurity=True: _SkHash("sha256", data)
_sk_hashlib.sha384 = lambda data=None, usedforsecurity=True: _SkHash("sha384", data)
_sk_hashlib.sha512 = lambda data=None, usedforsecurity=True: _SkHash("sha512", data)
_sk_hashlib.algorithms_available = set(_sk_hash_sizes.keys())
_sk_hashlib.algorithms_guaranteed = set(_sk_hash_sizes.keys())

