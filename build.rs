//! Link settings of the `sandkeep` binary and of this package's tests.
//!
//! **Packed relocations.** The binary is a position-independent executable
//! (PIE, so its image gets address randomization) and holds ~57,000 relative
//! relocations (vtables, panic locations and `&str` tables of every
//! dependency). As classic `RELA` entries they fill 1.4 MB of `.rela.dyn`
//! that the loader reads at every start; `-z pack-relative-relocs` stores
//! them as `DT_RELR` bitmaps (17 KB): 29 fewer page faults of a start.
//! GNU ld 2.38+ and lld know the option; ld emits `DT_RELR` only when the C
//! library it links against provides `GLIBC_ABI_DT_RELR` (glibc 2.36+) and
//! otherwise keeps `RELA`, so an older toolchain still links a working
//! binary. `SANDKEEP_RELA=1` at build time keeps the classic relocations
//! (for a binary to be copied onto a host with an older glibc than the
//! build host's).
//!
//! **The unwinder linked in.** Rust's standard library links GCC's unwinder
//! as the shared `libgcc_s.so.1` on `*-linux-gnu` (and statically only in
//! fully static builds). Loading that library and running its constructor
//! (which probes the CPU with `cpuid`, a trap to the hypervisor on a VM)
//! was a tenth of `sandkeep run -c 'echo hi'` (0.3 ms of 3.1, README,
//! "Benchmarks"). A linker script named `libgcc_s.so` in `OUT_DIR`, found
//! before the system's, points `-lgcc_s` at the static `libgcc_eh.a`:
//! what `gcc -static-libgcc` does for C++ programs. Panics still unwind the
//! same way (the runtime's test `a_panicking_program_is_contained`). Where
//! the compiler has no `libgcc_eh.a` the shared library stays.
//!
//! **musl.** Neither applies to `*-linux-musl`, the static binary the
//! README installs: Rust links LLVM's unwinder into it, and its relocations
//! stay `RELA`, because musl's start-up code walks a `DT_RELR` bitmap one bit
//! at a time, which measured slower than reading the 1.4 MB of `RELA` (a
//! median `sandkeep run -c 'echo hi'` of 1.89 against 1.77 ms, release).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SANDKEEP_RELA");
    // `has_static_unwinder` asks this compiler.
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    let keep_rela = std::env::var_os("SANDKEEP_RELA").is_some_and(|v| v != "0");
    if !keep_rela {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if has_static_unwinder() {
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        std::fs::write(out.join("libgcc_s.so"), "INPUT(-lgcc_eh)\n").expect("OUT_DIR is writable");
        println!("cargo:rustc-link-search=native={}", out.display());
    }
}

/// Whether the C compiler that links the binary has `libgcc_eh.a` (it
/// prints the bare name when it has no such file).
fn has_static_unwinder() -> bool {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .is_some_and(|path| Path::new(path.trim()).is_absolute())
}
