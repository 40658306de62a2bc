//! Every program of a new sandbox's `/usr/bin` (the command registry), run
//! the way a script runs a program (`env NAME ...`, so no bash builtin of
//! the same name answers instead) against the host's tool of that name:
//!
//! - `NAME --help`: the exit status and the first line of the help (GNU's
//!   synopsis, `Usage: NAME ...`) must agree; the rest of our texts is our
//!   own words for what we implement.
//! - `NAME --no-such-option-xyz`: the status and the first line of stdout
//!   (some tools print their usage there) must agree, and where the host
//!   explains the error on stderr, ours must too.
//!
//! The list is walked, not written out, so a command added to the registry
//! is checked without anyone remembering to. A name the host lacks is
//! skipped with a note; the few that differ on purpose are in [`DIFFERS`].

use crate::support::cases::Case;
use crate::support::host::host_has;
use crate::support::ours;
use crate::support::suite::Suite;

/// Programs left out of the comparison, and why.
const DIFFERS: &[(&str, &str)] = &[
    ("bash", "the shell itself, not a registry command"),
    ("sh", "the shell itself, not a registry command"),
    (
        "mawk",
        "the host's mawk is another awk; ours answers as gawk does",
    ),
];

/// Single cases left out (`NAME help` or `NAME bad option`), and why.
const CASE_DIFFERS: &[(&str, &str)] = &[
    (
        "gunzip help",
        "Debian's gunzip is a script: gzip names itself by the script's path",
    ),
    (
        "zcat help",
        "Debian's zcat is a script: gzip names itself by the script's path",
    ),
    (
        "unzip bad option",
        "Info-ZIP prints its whole usage screen; ours lists what we implement",
    ),
    (
        "xxd bad option",
        "vim's xxd takes `--no-such-option-xyz` as `-n NAME`; we refuse it",
    ),
];

/// Registry names that stand for host programs the local sandbox does not
/// have (the runtime crate adds `python3`, `git`, `curl`, `wget` as its own
/// commands): each must say so with status 127.
const HOST_ONLY: &[&str] = &[
    "apt", "apt-get", "curl", "docker", "git", "nc", "node", "npm", "npx", "ping", "pip", "pip3",
    "python", "python3", "scp", "ssh", "sudo", "wget",
];

/// The names a new sandbox's `/usr/bin` lists.
fn registry_names() -> Vec<String> {
    let out = ours::run_fresh("ls /usr/bin");
    assert_eq!(out.status, 0, "ls /usr/bin");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn every_command_answers_help_and_bad_options_as_gnu() {
    let names = registry_names();
    assert!(
        names.len() > 100,
        "the registry lists {} names",
        names.len()
    );
    let mut suite = Suite::of_gnu_tools("registry_diff");
    let mut cases = Vec::new();
    for name in &names {
        if DIFFERS.iter().any(|(n, _)| n == name) || HOST_ONLY.contains(&name.as_str()) {
            continue;
        }
        // Each run's stdout is read whole, then its first line kept: a
        // reader that stops early would kill a long writer with SIGPIPE,
        // and what follows GNU's synopsis is our own words.
        let first_line = |args: &str| {
            format!(
                "out=$(env {name} {args} </dev/null); s=$?; echo \"${{out%%$'\\n'*}}\"; echo \"status $s\""
            )
        };
        let help = first_line("--help");
        let bad = first_line("--no-such-option-xyz");
        for (kind, script) in [("help", help), ("bad option", bad)] {
            let label = format!("{name} {kind}");
            let mut case = Case::new("registry_diff", &label, script);
            if let Some((_, why)) = CASE_DIFFERS.iter().find(|(l, _)| *l == label) {
                case.skip = Some(why.to_string());
            } else if !host_has(name) {
                case.skip = Some(format!("no {name} on this host"));
            }
            cases.push(case);
        }
    }
    suite.run_cases(&cases);
    suite.finish();
}

#[test]
fn host_only_names_say_they_are_not_available() {
    let names = registry_names();
    for name in HOST_ONLY {
        assert!(names.iter().any(|n| n == name), "{name} is listed");
        let out = ours::run_fresh(&format!("env {name} --help"));
        assert_eq!(out.status, 127, "{name} --help");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not available"),
            "{name} explains itself"
        );
    }
}
