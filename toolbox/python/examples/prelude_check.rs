//! Compiles and runs the prelude, then each lazily fed shim
//! (`src/shims/*.py`), and prints the first error, if any: a check while
//! editing them.
fn main() {
    let mut repl = monty::MontyRepl::new(
        "<prelude>",
        monty_types::ResourceTracker::new(monty_types::ResourceLimits::default()),
        monty_types::CompileOptions::default(),
    );
    for (name, src) in [
        ("prelude", include_str!("../src/prelude.py")),
        ("argparse", include_str!("../src/shims/argparse.py")),
        ("hashlib", include_str!("../src/shims/hashlib.py")),
        ("dataclasses", include_str!("../src/shims/dataclasses.py")),
    ] {
        match repl.feed_run(src, vec![], monty_types::PrintWriter::Stdout) {
            Ok(_) => println!("{name} ok"),
            Err(e) => {
                println!("{name}: {e}");
                return;
            }
        }
    }
}
