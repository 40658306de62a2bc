//! The guest side of the WASI host never touches the host machine: no
//! `std::fs`, `std::process`, host environment or raw OS calls in any
//! source file but `cache.rs` (the host process's own compile cache, which
//! no guest can reach) — and none in `sandkeep-python` either.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};

const FORBIDDEN: &[&str] = &[
    "std::fs::",
    "std::fs;",
    "use std::fs",
    "std::process::",
    "use std::process",
    "std::env::",
    "set_current_dir(",
    "libc::",
    "nix::",
    "std::os::unix",
    "std::net::",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn guest_facing_source_never_touches_the_host() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&here.join("src"), &mut files);
    rust_files(&here.join("../python/src"), &mut files);
    files.retain(|f| f.file_name().is_some_and(|n| n != "cache.rs"));
    assert!(files.len() >= 7, "{files:?}");
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for pat in FORBIDDEN {
                if code.contains(pat) {
                    hits.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(hits.is_empty(), "host access:\n{}", hits.join("\n"));
}
