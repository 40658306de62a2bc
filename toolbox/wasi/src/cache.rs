//! The on-disk cache of compiled modules, so a large module's compile
//! (CPython: ~7 s on two cores) is paid once per machine, not per process.
//!
//! This is the crate's only host access, and it is the host process's own
//! cache, never something a guest can reach: the directory is
//! `$XDG_CACHE_HOME/sandkeep` or `$HOME/.cache/sandkeep` (or
//! `$SANDKEEP_CACHE_DIR`), one file per module, named by the module's
//! SHA-256 and a hash of the engine's compatibility key (wasmtime version,
//! configuration, target). A missing, stale or unreadable entry is
//! recompiled; a failed write only costs the next process a compile.
//! Loading an entry runs native code it holds: whoever can write the
//! user's cache directory can already change what the user runs.

// The cache is the host process's, by design (see above).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use wasmtime::{Engine, Module};

use crate::LoadError;

/// Why the cache could not be used (reported, never fatal).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// No cache directory is known (no `HOME`).
    #[error("no cache directory")]
    NoDirectory,
    /// Reading or writing the entry failed.
    #[error("cache I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// The directory compiled modules are kept in.
pub fn directory() -> Result<PathBuf, CacheError> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("SANDKEEP_CACHE_DIR") {
        return Ok(dir);
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Ok(dir.join("sandkeep"));
    }
    var("HOME")
        .map(|h| h.join(".cache").join("sandkeep"))
        .ok_or(CacheError::NoDirectory)
}

/// The cache file for module `name` with hash `sha256` under `engine`.
pub fn entry(engine: &Engine, name: &str, sha256: &str) -> Result<PathBuf, CacheError> {
    let mut h = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    let short = sha256.get(..16).unwrap_or(sha256);
    Ok(directory()?.join(format!("{name}-{short}-{:016x}.cwasm", h.finish())))
}

/// The module from the cache, or compiled from `wasm()` and cached.
/// Returns whether the cache served it.
pub fn load(
    engine: &Engine,
    name: &str,
    sha256: &str,
    wasm: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Result<(Module, bool), LoadError> {
    let path = entry(engine, name, sha256);
    if let Ok(path) = &path
        && path.is_file()
    {
        // SAFETY: the file was written by `Module::serialize` of an engine
        // with the same compatibility hash (its name says so, and
        // `deserialize_file` checks the header again); see the module
        // comment for who can write it.
        match unsafe { Module::deserialize_file(engine, path) } {
            Ok(module) => return Ok((module, true)),
            Err(e) => tracing::warn!("sandkeep-wasi: stale cache entry {}: {e}", path.display()),
        }
    }
    let bytes = wasm().map_err(LoadError::Module)?;
    let module = Module::from_binary(engine, &bytes)?;
    match path {
        Ok(path) => {
            if let Err(e) = store(&module, &path) {
                tracing::warn!("sandkeep-wasi: cannot cache {}: {e}", path.display());
            }
        }
        Err(e) => tracing::warn!("sandkeep-wasi: no compile cache: {e}"),
    }
    Ok((module, false))
}

/// Writes the compiled module next to its final name and renames it into
/// place, so a concurrent reader never sees half a file.
fn store(module: &Module, path: &std::path::Path) -> Result<(), CacheError> {
    let bytes = module
        .serialize()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Bytes derived from a module (e.g. what the guest unpacked from it),
/// kept beside its compiled code: the cached file `name-key.bin` when it
/// exists, else `produce()`'s result, cached. `key` must change whenever
/// what `produce` makes would (the module's hash, a format version).
pub fn blob(
    name: &str,
    key: &str,
    produce: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let path = directory().map(|d| d.join(format!("{name}-{key}.bin")));
    if let Ok(path) = &path
        && let Ok(bytes) = std::fs::read(path)
    {
        return Ok(bytes);
    }
    let bytes = produce()?;
    if let Ok(path) = &path {
        let written = (|| -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, &bytes)?;
            std::fs::rename(&tmp, path)
        })();
        if let Err(e) = written {
            tracing::warn!("sandkeep-wasi: cannot cache {}: {e}", path.display());
        }
    }
    Ok(bytes)
}
