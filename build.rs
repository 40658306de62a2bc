//! Link settings of the `sandkeep` binary (the library and the tests are
//! built as before).
//!
//! The binary is a position-independent executable (PIE, so its image gets
//! address randomization) and holds ~61,000 relative relocations (vtables,
//! panic locations and `&str` tables of every dependency). As classic `RELA`
//! entries they fill 1.4 MB of `.rela.dyn` that the loader reads at every
//! start; `-z pack-relative-relocs` stores them as `DT_RELR` bitmaps (17 KB):
//! 29 fewer page faults of a start's ~600, about 2% of `run -c 'echo hi'`
//! (README, "Benchmarks": the process-start notes).
//!
//! GNU ld 2.38+ and lld know the option; ld emits `DT_RELR` only when the
//! C library it links against provides `GLIBC_ABI_DT_RELR` (glibc 2.36+)
//! and otherwise keeps `RELA`, so an older toolchain still links a working
//! binary. `SANDKEEP_RELA=1` at build time keeps the classic relocations
//! (for a binary to be copied onto a host with an older glibc than the
//! build host's).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SANDKEEP_RELA");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let keep_rela = std::env::var_os("SANDKEEP_RELA").is_some_and(|v| v != "0");
    if os == "linux" && env == "gnu" && !keep_rela {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
