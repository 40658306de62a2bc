//! Runaway scripts end cleanly with a message naming the limit, output is
//! truncated and flagged, syntax errors look like bash's, and the sandbox
//! stays usable afterwards.

use std::time::Duration;

use crate::support::ours::run_raw as run;
use crate::support::suite::off_suites;
use sandkeep_shell::FsLimits;
use sandkeep_shell::{LimitKind, Limits, RunOptions, RunOutput, Shell, ShellConfig};

fn shell(limits: Limits) -> Shell {
    Shell::new(ShellConfig {
        limits,
        ..ShellConfig::default()
    })
}

fn quick() -> Limits {
    Limits {
        timeout: Duration::from_secs(3),
        ..Limits::default()
    }
}

fn stderr(o: &RunOutput) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// After any limit, the same sandbox runs the next script normally.
fn assert_usable(sh: &Shell) {
    let o = run(sh, "echo still here > /tmp/after; cat /tmp/after");
    assert_eq!(o.exit_code, 0, "{}", stderr(&o));
    assert_eq!(o.stdout, b"still here\n");
    assert_eq!(o.limit, None);
}

#[test]
fn infinite_loop_hits_a_limit() {
    let _off_suites = off_suites();
    let sh = shell(Limits {
        max_loop_iterations: 20_000,
        timeout: Duration::from_secs(20),
        ..Limits::default()
    });
    let o = run(&sh, "echo start; while true; do :; done; echo never");
    assert_eq!(o.stdout, b"start\n");
    assert_eq!(o.exit_code, 124);
    assert_eq!(o.limit, Some(LimitKind::LoopIterations));
    assert!(
        stderr(&o).contains("loop iteration limit exceeded"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
}

#[test]
fn infinite_loop_hits_the_timeout() {
    let _off_suites = off_suites();
    let sh = shell(Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    let o = run(&sh, "while :; do x=1; done");
    assert_eq!(o.exit_code, 124);
    assert_eq!(o.limit, Some(LimitKind::Timeout));
    assert!(stderr(&o).contains("timeout exceeded"), "{}", stderr(&o));
    assert_usable(&sh);
}

/// The message names the timeout in force for the run, not the sandbox default.
#[test]
fn per_run_timeout_is_named_in_the_message() {
    let _off_suites = off_suites();
    let sh = shell(Limits::default());
    let o = sh.run(
        "while :; do :; done",
        RunOptions {
            timeout: Some(Duration::from_millis(200)),
            ..RunOptions::default()
        },
    );
    assert_eq!(o.exit_code, 124);
    assert!(
        stderr(&o).contains("timeout exceeded (0.2s)"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
}

#[test]
fn runaway_recursion_hits_the_call_depth() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(&sh, "f(){ f; }; f; echo never");
    assert_eq!(o.exit_code, 124);
    assert_eq!(o.limit, Some(LimitKind::CallDepth));
    assert!(
        stderr(&o).contains("call depth limit exceeded"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
}

#[test]
fn recursion_through_command_substitution_ends() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(&sh, "f(){ echo $(f); }; f; echo never");
    assert_eq!(o.exit_code, 124);
    assert!(o.limit.is_some());
    assert_usable(&sh);
}

#[test]
fn deep_but_legal_recursion_works() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(
        &sh,
        "f(){ if [ $1 -gt 0 ]; then f $(( $1 - 1 )); else echo bottom; fi; }; f 900",
    );
    assert_eq!(o.exit_code, 0, "{}", stderr(&o));
    assert_eq!(o.stdout, b"bottom\n");
}

#[test]
fn command_limit() {
    let _off_suites = off_suites();
    let sh = shell(Limits {
        max_commands: 1000,
        ..quick()
    });
    let o = run(&sh, "for i in $(seq 1 5000); do true; done");
    assert_eq!(o.exit_code, 124);
    assert_eq!(o.limit, Some(LimitKind::Commands));
    assert_usable(&sh);
}

#[test]
fn filling_the_filesystem_ends_the_writer() {
    let _off_suites = off_suites();
    let limits = Limits {
        fs: FsLimits {
            max_total_bytes: 1 << 20,
            max_file_size: 1 << 20,
            ..FsLimits::default()
        },
        ..quick()
    };
    let sh = shell(limits);
    let o = run(&sh, "yes > /tmp/x; echo status=$?");
    assert_eq!(o.limit, None, "{}", stderr(&o));
    assert_eq!(o.stdout, b"status=1\n");
    let err = stderr(&o);
    assert!(
        err.contains("No space left on device") || err.contains("File too large"),
        "{err}"
    );
    // Space comes back once the file is gone.
    let o = run(&sh, "rm /tmp/x; echo ok > /tmp/y; cat /tmp/y");
    assert_eq!(o.stdout, b"ok\n");
}

#[test]
fn pipelines_end_when_the_reader_stops() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(&sh, "yes | head -n 2; echo ${PIPESTATUS[@]}");
    assert_eq!(o.stdout, b"y\ny\n141 0\n");
    let o = run(&sh, "while true; do echo x; done | head -n 1");
    assert_eq!(o.stdout, b"x\n");
    assert_eq!(o.exit_code, 0);
}

#[test]
fn output_is_truncated_and_flagged() {
    let _off_suites = off_suites();
    let sh = shell(Limits {
        max_output_bytes: 1000,
        ..quick()
    });
    let o = run(&sh, "yes");
    assert!(o.truncated);
    assert_eq!(o.stdout.len(), 1000);
    assert_eq!(o.limit, Some(LimitKind::Output));
    // The reader stopped taking output (SIGPIPE's 141), not a timeout's 124.
    assert_eq!(o.exit_code, 141);
    assert!(
        stderr(&o).contains("[output truncated: output limit of 1000 bytes reached]"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
}

#[test]
fn small_output_is_not_flagged() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(&sh, "echo hi");
    assert!(!o.truncated);
    assert_eq!(o.limit, None);
}

#[test]
fn syntax_errors_look_like_bash() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    let o = run(&sh, "echo before\nfi\necho after");
    assert_eq!(o.stdout, b"before\n");
    assert_eq!(o.exit_code, 2);
    assert_eq!(
        stderr(&o),
        "bash: -c: line 2: syntax error near unexpected token `fi'\nbash: -c: line 2: `fi'\n"
    );
    let o = run(&sh, "if true; then echo x");
    assert_eq!(o.exit_code, 2);
    assert!(
        stderr(&o).contains("syntax error: unexpected end of file"),
        "{}",
        stderr(&o)
    );
    let o = run(&sh, "echo 'unterminated");
    assert_eq!(o.exit_code, 2);
    assert!(
        stderr(&o).contains("unexpected EOF while looking for matching `''"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
}

#[test]
fn garbage_never_panics() {
    let _off_suites = off_suites();
    let sh = shell(quick());
    for s in [
        ")(",
        "((((",
        "${",
        "$((1+",
        "case x in",
        "<<",
        "a=(",
        "f() {",
        "`",
        "'\"",
        "|| &&",
        ";;",
        "{ }",
    ] {
        let o = run(&sh, s);
        assert_ne!(o.exit_code, 0, "{s}");
    }
}

#[test]
fn endless_streams_into_memory_end_at_the_file_size_limit() {
    let _off_suites = off_suites();
    let limits = Limits {
        fs: FsLimits {
            max_file_size: 1 << 20,
            ..FsLimits::default()
        },
        ..quick()
    };
    let sh = shell(limits);
    // A command substitution holds at most one file's worth.
    let o = run(&sh, "x=$(yes); echo never ${#x}");
    assert_eq!(o.limit, Some(LimitKind::Memory), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("never"));
    assert!(
        stderr(&o).contains("memory limit exceeded (1048576 bytes captured)"),
        "{}",
        stderr(&o)
    );
    assert_usable(&sh);
    // Commands that must read a stream whole fail instead of growing.
    let o = run(
        &sh,
        "yes | sort > /dev/null; echo sort=$?; tac < /dev/zero; echo tac=$?",
    );
    assert_eq!(o.limit, None, "{}", stderr(&o));
    assert_eq!(o.stdout, b"sort=2\ntac=1\n", "{}", stderr(&o));
    assert!(stderr(&o).contains("File too large"), "{}", stderr(&o));
    // So do `head -n -N` and `date -f -`, with GNU's read error naming stdin.
    let o = run(
        &sh,
        "yes | head -n -1 > /dev/null; echo head=$?; \
         yes 2024-01-01 | date -f - > /dev/null; echo date=$?; \
         seq 1 5 | head -n -3",
    );
    assert_eq!(o.limit, None, "{}", stderr(&o));
    assert_eq!(o.stdout, b"head=1\ndate=1\n1\n2\n", "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "head: error reading 'standard input': File too large\n\
         date: 'standard input': File too large\n"
    );
    // printf builds a field in memory before writing it: huge widths fail.
    let o = run(
        &sh,
        "printf '%*s' 2000000000 '' | wc -c; echo ${PIPESTATUS[0]}",
    );
    assert_eq!(o.stdout, b"0\n1\n", "{}", stderr(&o));
    assert!(stderr(&o).contains("too large"), "{}", stderr(&o));
    // Streaming consumers are not limited by it.
    let o = run(
        &sh,
        "yes | head -c 3000000 | tail -c 4; seq 1 400000 | tail -n 1",
    );
    assert_eq!(o.stdout, b"y\ny\n400000\n", "{}", stderr(&o));
}

/// `rg` over a tree of 100,000 files stops at the run's deadline: its walk
/// checks the run before each directory and each file, so it ends long
/// before the whole walk would (which the same tree without a deadline
/// measures).
#[test]
fn rg_over_a_hundred_thousand_files_stops_at_the_deadline() {
    let _off_suites = off_suites();
    let tree = |sh: &Shell| {
        let fs = sh.fs();
        for d in 0..100 {
            let dir = format!("/workspace/tree/d{d}");
            fs.mkdir_all(&dir).unwrap();
            for f in 0..1000 {
                fs.write(&format!("{dir}/f{f}.txt"), b"alpha needle\nbeta\n")
                    .unwrap();
            }
        }
    };
    let script = "cd /workspace/tree && rg -c needle | wc -l; echo after";
    let unlimited = shell(Limits::default());
    tree(&unlimited);
    let started = std::time::Instant::now();
    let whole = run(&unlimited, script);
    let whole_walk = started.elapsed();
    assert_eq!(whole.stdout, b"100000\nafter\n", "{}", stderr(&whole));

    let sh = shell(Limits {
        timeout: Duration::from_millis(100),
        ..Limits::default()
    });
    tree(&sh);
    let started = std::time::Instant::now();
    let o = run(&sh, script);
    let stopped = started.elapsed();
    assert_eq!(o.limit, Some(LimitKind::Timeout), "{}", stderr(&o));
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("after"),
        "the run went on past its deadline"
    );
    assert!(
        stopped < whole_walk / 2,
        "stopped after {stopped:?}; the whole walk takes {whole_walk:?}"
    );
    assert_usable(&sh);
}

/// A Makefile whose recipe loops forever, and one whose recipe runs make
/// again without end: both end the run with the limit named, and the
/// sandbox stays usable.
#[test]
fn make_recipe_loops_and_recursion_end_the_run() {
    let _off_suites = off_suites();
    let sh = shell(Limits {
        timeout: Duration::from_millis(500),
        ..Limits::default()
    });
    let o = run(
        &sh,
        "printf 'all:\\n\\t@while :; do :; done\\n' > Makefile; make; echo never",
    );
    assert_eq!(o.limit, Some(LimitKind::Timeout), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("never"));
    assert_usable(&sh);

    let sh = shell(Limits {
        timeout: Duration::from_secs(20),
        ..Limits::default()
    });
    let o = run(
        &sh,
        "printf 'all:\\n\\t@$(MAKE) -s\\n' > Makefile; make; echo never",
    );
    assert_eq!(o.exit_code, 124, "{}", stderr(&o));
    assert!(o.limit.is_some(), "{}", stderr(&o));
    assert!(stderr(&o).contains("limit exceeded"), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("never"));
    assert_usable(&sh);
}
