//! Unit tests of the system commands.

use crate::commands::files::common::OptSpec;

fn run(name: &str, args: &[&str]) -> (i32, String, String) {
    let fs = crate::commands::files::testutil::new_fs();
    let f = crate::commands::lookup(name).expect("command exists").run;
    let mut argv = vec![name];
    argv.extend_from_slice(args);
    let o = crate::commands::files::testutil::run(&fs, f, &argv, "");
    (o.status, o.stdout, o.stderr)
}

#[test]
fn seq_matches_gnu() {
    let _: Option<OptSpec> = None;
    assert_eq!(run("seq", &["3"]).1, "1\n2\n3\n");
    assert_eq!(
        run("seq", &["1", "0.5", "3"]).1,
        "1.0\n1.5\n2.0\n2.5\n3.0\n"
    );
    assert_eq!(run("seq", &["0.1", "0.1", "0.3"]).1, "0.1\n0.2\n0.3\n");
    assert_eq!(run("seq", &["-w", "8", "11"]).1, "08\n09\n10\n11\n");
    assert_eq!(run("seq", &["-w", "-1", "1"]).1, "-1\n00\n01\n");
    assert_eq!(run("seq", &["-s,", "3"]).1, "1,2,3\n");
    assert_eq!(run("seq", &["-f", "%03g", "2"]).1, "001\n002\n");
    assert_eq!(run("seq", &["5", "-2", "0"]).1, "5\n3\n1\n");
    assert_eq!(run("seq", &["3", "1"]).1, "");
    assert_eq!(run("seq", &["1e2", "1e2"]).1, "100\n");
    let (st, _, err) = run("seq", &["1", "0", "2"]);
    assert_eq!(st, 1);
    assert!(err.starts_with("seq: invalid Zero increment value: ‘0’"));
}

#[test]
fn date_formats_fixed_times() {
    assert_eq!(
        run("date", &["-d", "@0"]).1,
        "Thu Jan  1 00:00:00 UTC 1970\n"
    );
    assert_eq!(
        run("date", &["-R", "-d", "@0"]).1,
        "Thu, 01 Jan 1970 00:00:00 +0000\n"
    );
    assert_eq!(
        run("date", &["-Iseconds", "-d", "@0"]).1,
        "1970-01-01T00:00:00+00:00\n"
    );
    assert_eq!(run("date", &["+%F %T"]).1, "2024-01-01 00:00:00\n");
    assert_eq!(run("date", &["-d", "zz"]).2, "date: invalid date ‘zz’\n");
}

#[test]
fn identity_commands() {
    assert_eq!(run("whoami", &[]).1, "sandbox\n");
    assert_eq!(
        run("id", &[]).1,
        "uid=1000(sandbox) gid=1000(sandbox) groups=1000(sandbox)\n"
    );
    assert_eq!(run("id", &["-un"]).1, "sandbox\n");
    assert_eq!(
        run("uname", &["-a"]).1,
        "Linux sandbox 6.1.0-sandkeep #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n"
    );
    assert_eq!(run("uname", &[]).1, "Linux\n");
    assert_eq!(
        run("tty", &[]),
        (1, "not a tty\n".to_string(), String::new())
    );
}

#[test]
fn env_and_which() {
    assert_eq!(run("printenv", &["HOME"]).1, "/workspace\n");
    assert_eq!(run("printenv", &["NOPE"]).0, 1);
    let (st, out, _) = run("env", &["-i", "A=1"]);
    assert_eq!((st, out.as_str()), (0, "A=1\n"));
    assert_eq!(run("env", &["nope-cmd"]).0, 127);
}

#[test]
fn sleep_gives_way_to_the_deadline() {
    use crate::clock::Clock;
    use crate::control::RunControl;
    use crate::limits::Limits;
    use std::time::{Duration, Instant};

    let fs = crate::commands::files::testutil::new_fs();
    let deadline = Instant::now() + Duration::from_millis(50);
    let control = RunControl::new(Limits::default(), Clock::real(), Some(deadline), None);
    let f = crate::commands::lookup("sleep").expect("sleep exists").run;
    let start = Instant::now();
    let out = crate::commands::files::testutil::run_with(&fs, f, &["sleep", "10"], "", &control);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "sleep ignored the deadline"
    );
    assert_ne!(out.status, 0);
}
