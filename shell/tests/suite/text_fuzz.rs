//! Property test of the grep and sed front ends: arbitrary patterns and
//! scripts (drawn mostly from regex and sed metacharacters) must give an
//! exit status, never a panic. The number of cases comes from
//! `PROPTEST_CASES` (default 2,000; a manual run can ask for a million).
#![allow(clippy::disallowed_methods)] // test knobs come from the environment

use std::time::{Duration, Instant};

use crate::support::ours::{Call, call};
use crate::support::proptest_config;
use proptest::prelude::*;
use sandkeep_shell::{Clock, Fs, Limits, RunControl};

const INPUT: &[u8] = b"abc\naab ba\n\nxyz (1) {2} [3]\nfoo.bar\\baz\na\tb\n0123456789\nAbC";

fn run(fs: &Fs, args: &[String]) -> i32 {
    // A short deadline bounds scripts that loop (`:a;ba`).
    let deadline = Some(Instant::now() + Duration::from_millis(200));
    let control = RunControl::new(Limits::default(), Clock::fixed(0), deadline, Some(1));
    let input = Call {
        stdin: INPUT,
        ..Call::new(args)
    };
    call(fs, &control, input).status
}

/// Strings made mostly of the characters that mean something to grep and sed.
fn meta_string(max: usize) -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "ab01\\()[]{}*+?|^$.,:-=/;!~<>'`wWsSbBnNpPdDgGhHxXyqQlz&ILM \n\t#"
        .chars()
        .collect();
    prop::collection::vec(prop::sample::select(alphabet), 0..max)
        .prop_map(|v| v.into_iter().collect())
}

fn fs() -> Fs {
    let fs = Fs::new(
        Limits::default().fs,
        Clock::fixed(0),
        sandkeep_shell::usr_bin_names(),
    );
    fs.write("/workspace/in.txt", INPUT).unwrap();
    fs
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn grep_never_panics(pat in meta_string(20), mode in 0usize..6) {
        let fs = fs();
        let flag = ["-G", "-E", "-F", "-P", "-Eiw", "-ox"][mode];
        let args: Vec<String> = ["grep", flag, "-e", &pat, "in.txt"].iter().map(|s| s.to_string()).collect();
        let status = run(&fs, &args);
        prop_assert!((0..=2).contains(&status), "status {status} for {pat:?}");
    }

    #[test]
    fn sed_never_panics(script in meta_string(24), extended in any::<bool>(), quiet in any::<bool>()) {
        let fs = fs();
        let mut args = vec!["sed".to_string()];
        if extended { args.push("-E".into()); }
        if quiet { args.push("-n".into()); }
        args.push("-e".into());
        args.push(script.clone());
        args.push("in.txt".into());
        let status = run(&fs, &args);
        prop_assert!((0..=255).contains(&status), "status {status} for {script:?}");
    }

    #[test]
    fn sed_substitution_never_panics(re in meta_string(12), repl in meta_string(8), flags in "[gpiI0-9]{0,3}") {
        let fs = fs();
        let script = format!("s/{}/{}/{}", re.replace('/', "\\/"), repl.replace('/', "\\/"), flags);
        let args: Vec<String> = ["sed", "-e", &script, "in.txt"].iter().map(|s| s.to_string()).collect();
        let status = run(&fs, &args);
        prop_assert!((0..=4).contains(&status), "status {status} for {script:?}");
    }
}
