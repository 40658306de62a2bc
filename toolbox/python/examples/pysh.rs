//! Runs one bash script (the first argument) in a local shell that has
//! `python3`, printing what it wrote and its exit status: a quick manual
//! check, e.g. `cargo run --release -p sandkeep-python --example pysh -- 'python3 -c "print(1)"'`.
fn main() {
    let script = std::env::args().nth(1).unwrap_or_default();
    let shell = sandkeep_shell::Shell::new(sandkeep_python::install(
        sandkeep_shell::ShellConfig::default(),
    ));
    let t = std::time::Instant::now();
    let out = shell.run(&script, sandkeep_shell::RunOptions::default());
    let took = t.elapsed();
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("[status {} in {took:?}]", out.exit_code);
}
