# sandkeep's start-up hook for CPython on WASI, imported by `site` as
# `sitecustomize` from a directory only the interpreter sees. It makes the
# process look like one started in the shell: the working directory is the
# shell's (WASI preview1 has none, so it starts at /), sys.path and the
# environment hold what the user set and nothing of this hook. It also
# names the sandbox's limits under the errors CPython gives for them.
import os as _os
import sys as _sys


def _sandkeep_setup():
    env = _os.environ
    cwd = env.pop("_SANDKEEP_CWD", None)
    argv0 = env.pop("_SANDKEEP_ARGV0", None)
    if argv0 is not None and _sys.argv:
        _sys.argv[0] = argv0
    user_path = env.pop("_SANDKEEP_PYTHONPATH", None)
    if user_path is None:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = user_path
    hook_dir = "/.sandkeep-python"
    while hook_dir in _sys.path:
        _sys.path.remove(hook_dir)
    # The standard library, unpacked by the host from the interpreter's
    # zip (much faster to import from than the zip): its finder takes the
    # zip's place, so sys.path reads as CPython's own.
    stdlib = hook_dir + "/stdlib"
    finder = _sys.path_importer_cache.get(stdlib)
    zips = [p for p in _sys.path if p.endswith(".zip")]
    if stdlib in _sys.path and finder is not None and zips:
        _sys.path_importer_cache[zips[0]] = finder
        _sys.path.remove(stdlib)
    if cwd:
        try:
            _os.chdir(cwd)
        except OSError:
            pass
    # sys.path[0] for `-c`, `-m` and stdin is '' (the working directory),
    # computed after this hook runs, so it follows the chdir above.

    # Most specific first: urllib's traceback passes through socket.py too.
    limits = (
        ("urllib", "network access"),
        ("http", "network access"),
        ("subprocess", "processes"),
        ("multiprocessing", "processes"),
        ("threading", "threads"),
        ("concurrent", "threads"),
        ("_thread", "threads"),
        ("socket", "sockets"),
        ("asyncio", "sockets"),
    )
    default_hook = _sys.excepthook

    def excepthook(kind, value, tb):
        default_hook(kind, value, tb)
        names = []
        t = tb
        while t is not None:
            names.append(t.tb_frame.f_code.co_filename)
            t = t.tb_next
        if isinstance(value, OSError) and value.errno in (52, 58, 6):
            pass
        elif not isinstance(value, (OSError, RuntimeError, ModuleNotFoundError, AttributeError)):
            return
        for module, what in limits:
            if any(("/" + module + "/") in n or n.endswith("/" + module + ".py") for n in names) or (
                isinstance(value, ModuleNotFoundError) and (value.name or "").lstrip("_").startswith(module)
            ):
                print(
                    "python3: note: the sandbox's Python (CPython on WASI) has no "
                    + what
                    + "; this is a limit of the sandbox",
                    file=_sys.stderr,
                )
                return

    _sys.excepthook = excepthook
    _sys.meta_path.insert(0, _AsyncioWithoutSelfPipe())


class _AsyncioWithoutSelfPipe:
    """asyncio's selector loop wakes itself through a socketpair, which WASI
    does not have: after `asyncio.selector_events` loads, its loop gets no
    self-pipe (nothing here can call it from another thread anyway)."""

    def find_spec(self, name, path=None, target=None):
        if name != "asyncio.selector_events":
            return None
        _sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def patched(module):
            exec_module(module)
            loop = module.BaseSelectorEventLoop

            def make_self_pipe(self):
                self._ssock = self._csock = None

            def close_self_pipe(self):
                self._ssock = self._csock = None

            loop._make_self_pipe = make_self_pipe
            loop._close_self_pipe = close_self_pipe

        spec.loader.exec_module = patched
        return spec


_sandkeep_setup()
del _sandkeep_setup
