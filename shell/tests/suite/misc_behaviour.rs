//! Behaviour of the misc commands that has no host counterpart to diff
//! against: `df` on the virtual filesystem, seeded `shuf`, the host-only
//! program names, `--help`, `timeout` stopping a runaway command.

use crate::support::suite::off_suites;
use crate::support::text;
use sandkeep_shell::{Determinism, RunOptions, RunOutput, Shell, ShellConfig};

fn run(script: &str) -> RunOutput {
    Shell::new(ShellConfig::default()).run(script, RunOptions::default())
}

fn run_seeded(script: &str, seed: u64) -> RunOutput {
    let config = ShellConfig {
        deterministic: Some(Determinism {
            epoch_secs: 1_700_000_000,
            seed,
        }),
        ..ShellConfig::default()
    };
    Shell::new(config).run(script, RunOptions::default())
}

#[test]
fn df_reports_one_sandbox_filesystem() {
    let _off_suites = off_suites();
    let out = run("printf '%10000s' x > f; df; df -h /");
    assert_eq!(out.exit_code, 0, "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 4, "{s}");
    assert!(lines[0].starts_with("Filesystem") && lines[0].contains("1K-blocks"));
    assert!(lines[0].ends_with("Mounted on"));
    let cols: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(cols[0], "sandbox");
    assert_eq!(cols[5], "/");
    let size: u64 = cols[1].parse().unwrap();
    let used: u64 = cols[2].parse().unwrap();
    let avail: u64 = cols[3].parse().unwrap();
    assert!(used >= 10, "10 kB written, used {used}");
    assert!(size >= used + avail - 1 && size <= used + avail + 1);
    assert!(lines[2].contains("Size") && lines[2].contains("Avail"));
    assert!(lines[3].starts_with("sandbox"));
    let bad = run("df /nope");
    assert_eq!(bad.exit_code, 1);
    assert!(!bad.stderr.is_empty());
}

#[test]
fn shuf_is_deterministic_with_a_seed_and_a_random_source() {
    let _off_suites = off_suites();
    let a = run_seeded("seq 50 | shuf", 7);
    let b = run_seeded("seq 50 | shuf", 7);
    assert_eq!(a.stdout, b.stdout);
    let c = run_seeded("seq 50 | shuf", 8);
    assert_ne!(a.stdout, c.stdout, "another seed, another order");
    let sorted: Vec<u32> = {
        let mut v: Vec<u32> = text(&a.stdout)
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        assert_ne!(v, (1..=50).collect::<Vec<_>>(), "shuffled");
        v.sort_unstable();
        v
    };
    assert_eq!(sorted, (1..=50).collect::<Vec<_>>());
    let src = "printf 'key' > r; shuf -i 1-30 --random-source=r";
    assert_eq!(run(src).stdout, run(src).stdout);
    // -r draws with repetition: every line one of the inputs.
    let rep = run_seeded("shuf -r -n 100 -e a b c", 3);
    let s = text(&rep.stdout);
    assert_eq!(s.lines().count(), 100);
    assert!(s.lines().all(|l| ["a", "b", "c"].contains(&l)));
    assert!(["a", "b", "c"].iter().all(|x| s.lines().any(|l| l == *x)));
}

#[test]
fn host_programs_explain_they_are_unavailable() {
    let _off_suites = off_suites();
    for name in [
        "curl", "wget", "python", "python3", "pip", "pip3", "node", "npm", "npx", "apt", "apt-get",
        "sudo", "docker", "ssh", "scp", "git", "ping", "nc",
    ] {
        let out = run(&format!("{name} --version"));
        assert_eq!(out.exit_code, 127, "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        assert_eq!(
            text(&out.stderr),
            format!("{name}: not available in the local sandbox (no network, no host programs)\n")
        );
    }
}

#[test]
fn every_misc_command_has_help() {
    let _off_suites = off_suites();
    for name in [
        "expr", "bc", "truncate", "shuf", "split", "du", "df", "tree", "file", "timeout",
    ] {
        let out = run(&format!("{name} --help"));
        assert_eq!(out.exit_code, 0, "{name}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.to_lowercase().contains("usage"), "{name}: {s}");
    }
}

#[test]
fn timeout_stops_a_runaway_command_and_the_run_goes_on() {
    let _off_suites = off_suites();
    let out = run("timeout 0.3 bash -c 'while :; do :; done'; echo status $?; echo after");
    assert_eq!(
        text(&out.stdout),
        "status 124\nafter\n",
        "{}",
        text(&out.stderr)
    );
    let out = run("timeout 0.3 sh -c 'while :; do :; done' || echo timed out");
    assert_eq!(text(&out.stdout), "timed out\n");
}

#[test]
fn split_reports_exhausted_suffixes() {
    let _off_suites = off_suites();
    let out = run("seq 30 | split -a 1 -l 1; echo $?; ls | wc -l");
    assert_eq!(text(&out.stdout), "1\n26\n");
    assert!(text(&out.stderr).contains("suffixes exhausted"));
}

#[test]
fn du_uses_ext4_like_blocks() {
    let _off_suites = off_suites();
    let out = run("mkdir d; printf x > d/one; printf '%4097s' x > d/two; du -a d | sort -k2");
    assert_eq!(text(&out.stdout), "16\td\n4\td/one\n8\td/two\n");
    let out = run("mkdir d; printf x > d/one; du -b d; du -sh d");
    assert_eq!(text(&out.stdout), "4097\td\n8.0K\td\n");
}

#[test]
fn bc_refuses_huge_powers_instead_of_hanging() {
    let _off_suites = off_suites();
    let out = run("echo '2^99999999' | bc; echo '1+1' | bc");
    assert_eq!(text(&out.stdout), "2\n");
    assert!(text(&out.stderr).contains("exponent too large"));
    let out = run("echo 'scale=1000; sqrt(2)' | bc | head -1 | cut -c1-10");
    assert_eq!(text(&out.stdout), "1.41421356\n");
}
