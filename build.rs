//! Build script of the `sandkeep` package: links the `sandkeep` binary as
//! a position-dependent executable on Linux.
//!
//! Why: the binary is ~50 MB with ~60,000 relative relocations over 1 MB of
//! `.data.rel.ro`. As a PIE, every start has the dynamic loader apply them,
//! copying those pages (~270 page faults): about 0.6 ms of CPU per process,
//! a third of `sandkeep run -c 'echo hi'` (see the README's process start
//! table). Linked at a fixed address there is nothing to relocate. The heap,
//! stack and shared libraries stay randomized; only the executable's own
//! image loses ASLR. The library, tests and examples are unaffected.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        // After rustc's own `-pie` on the link line: the last one wins.
        println!("cargo:rustc-link-arg-bin=sandkeep=-no-pie");
    }
}
