//! The archive commands end to end through [`Shell::run`]: the two commands
//! the workspace-sync hook runs, pipelines through tar and gzip, and the
//! state they leave behind.

use crate::support::ours::deterministic_shell as shell;
use crate::support::text;
use sandkeep_shell::{RunOptions, Shell};

fn run(sh: &Shell, script: &str) -> (i32, String, String) {
    let out = sh.run(script, RunOptions::default());
    (out.exit_code, text(&out.stdout), text(&out.stderr))
}

#[test]
fn sync_hook_commands() {
    let sh = shell();
    let (code, _, err) = run(
        &sh,
        "mkdir -p sub && echo one > a.txt && echo two > sub/b.txt && echo '{}' > mindlog.jsonl \
         && ln -s a.txt link && chmod 755 sub/b.txt",
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(
        &sh,
        "tar czf /tmp/a.tgz -C /workspace --exclude=./mindlog.jsonl . && echo ok",
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "ok\n", ""));
    let bytes = sh.fs().read("/tmp/a.tgz").unwrap();

    // restore into another sandbox, the way the hook does on session start
    let other = shell();
    other.fs().write("/tmp/a.tgz", &bytes).unwrap();
    let (code, out, err) = run(
        &other,
        "mkdir -p /workspace && tar xzf /tmp/a.tgz -C /workspace && rm -f /tmp/a.tgz",
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let (code, out, _) = run(
        &other,
        "cat a.txt sub/b.txt; readlink link; test -x sub/b.txt && echo x",
    );
    assert_eq!((code, out.as_str()), (0, "one\ntwo\na.txt\nx\n"));
    let (code, _, _) = run(&other, "test -e mindlog.jsonl");
    assert_eq!(code, 1, "the excluded mindlog is not restored");
    assert!(!other.fs().exists("/tmp/a.tgz"));
}

#[test]
fn pipelines_through_tar_and_gzip() {
    let sh = shell();
    let script = "for i in $(seq 1 20); do echo $i > f$i.txt; done
tar czf /tmp/ws.tgz -C . . && tar tzf /tmp/ws.tgz | wc -l
tar cf - f1.txt f2.txt | tar tvf - | head -1
echo hello | gzip | zcat
tar cf - -C /workspace f3.txt | (mkdir -p /tmp/u && cd /tmp/u && tar xf - && cat f3.txt)
gzip -k f4.txt && ls f4.txt*
tar xzf /tmp/nope.tgz; echo status=$?";
    let (code, out, err) = run(&sh, script);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "21\n-rw-r--r-- sandbox/sandbox   2 2024-01-01 00:00 f1.txt\nhello\n3\nf4.txt\nf4.txt.gz\nstatus=2\n"
    );
    assert!(
        err.contains("tar: /tmp/nope.tgz: Cannot open: No such file or directory"),
        "{err}"
    );
}
