//! The differential suite of `node`: every case (a bash script that runs
//! node: `-e`/`-p` one-liners, script files, modules, fs/path over the
//! workspace, process, stdin, timers, error paths) runs in a local shell
//! with the embedded node installed AND in host bash with the host's
//! `/usr/bin/node` (Node 20) in a fresh temp dir; stdout and exit status
//! must match (the temp dir's path reads as `/workspace` on both sides).
//! Cases live in `tests/cases/*.txt` in the shell's `### name` format,
//! written from Node's documentation and agent usage before the
//! implementation; a case that differs for a known reason carries
//! `#skip: reason`, and the suite checks it still differs.
//!
//! Run: `cargo test -p sandkeep-node --test differential`
//! (`NODE_CASE=substring` runs only matching cases and prints both sides).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "../../../shell/tests/support/cases.rs"]
#[allow(dead_code)]
mod cases;
#[path = "../../../shell/tests/support/tool_differential.rs"]
mod tool_differential;

use tool_differential::Suite;

const SUITE: Suite = Suite {
    name: "node",
    install: sandkeep_node::install,
    host_tool: "/usr/bin/node",
    only_var: "NODE_CASE",
    cases: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases"),
    min_cases: 150,
};

#[test]
fn node_matches_host_node() {
    SUITE.run();
}

/// An uncaught error's report has Node's shape where agents read it: the
/// `FILE:LINE` of the throw, the source line, and the `Name: message`
/// line (the stack frames below it are the engine's own and differ).
#[test]
fn uncaught_errors_are_node_shaped() {
    if !SUITE.host_has_tool() {
        return;
    }
    let shape = |stderr: &str| -> Vec<String> {
        let lines: Vec<&str> = stderr.lines().collect();
        let mut out: Vec<String> = lines.iter().take(2).map(|l| l.to_string()).collect();
        if let Some(e) = lines.iter().find(|l| {
            l.split(':').next().is_some_and(|n| n.ends_with("Error")) && !l.starts_with(' ')
        }) {
            out.push(e.to_string());
        }
        out
    };
    let mut failures = Vec::new();
    for script in [
        "node -e 'throw new Error(\"boom\")'",
        "node -e 'const x = 1;\nnull.f()'",
        "printf 'const a = 1;\\nfunction f() {\\n  throw new TypeError(\"bad type\");\\n}\\nf();\\n' > t.js; node t.js",
        "node -e 'undefinedName + 1'",
    ] {
        let theirs = SUITE.host(script);
        let mine = SUITE.ours(script);
        if shape(&theirs.stderr) != shape(&mine.stderr) || theirs.status != mine.status {
            failures.push(format!(
                "{script}\n--- node [{}]: {:?}\n--- ours [{}]: {:?}\n{}",
                theirs.status,
                shape(&theirs.stderr),
                mine.status,
                shape(&mine.stderr),
                mine.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
