//! Compiles and runs the prelude alone and prints the error, if any: a
//! check while editing `prelude.py`.
fn main() {
    let mut repl = monty::MontyRepl::new(
        "<prelude>",
        monty_types::ResourceTracker::new(monty_types::ResourceLimits::default()),
        monty_types::CompileOptions::default(),
    );
    let src = include_str!("../src/prelude.py");
    match repl.feed_run(src, vec![], monty_types::PrintWriter::Stdout) {
        Ok(_) => println!("prelude ok"),
        Err(e) => println!("{e}"),
    }
}
