//! Unit tests of the file commands, run directly over a fresh virtual tree.

use super::testutil::{Out, new_fs, run};
use super::*;

fn sh(fs: &crate::fs::Fs, name: &str, args: &[&str]) -> Out {
    let f = crate::commands::lookup(name).expect("command exists").run;
    let mut argv = vec![name];
    argv.extend_from_slice(args);
    run(fs, f, &argv, "")
}

#[test]
fn registry_has_every_command() {
    for c in COMMANDS {
        assert!(crate::commands::lookup(c.name).is_some(), "{}", c.name);
    }
}

#[test]
fn mkdir_touch_ls_rm() {
    let fs = new_fs();
    assert_eq!(sh(&fs, "mkdir", &["-p", "a/b/c"]).status, 0);
    assert_eq!(sh(&fs, "touch", &["a/f", "a/.hidden"]).status, 0);
    assert_eq!(sh(&fs, "ls", &["a"]).stdout, "b\nf\n");
    assert_eq!(sh(&fs, "ls", &["-A", "a"]).stdout, ".hidden\nb\nf\n");
    assert_eq!(sh(&fs, "ls", &["-a", "a"]).stdout, ".\n..\n.hidden\nb\nf\n");
    let out = sh(&fs, "ls", &["nope"]);
    assert_eq!(
        (out.status, out.stderr.as_str()),
        (2, "ls: cannot access 'nope': No such file or directory\n")
    );
    let out = sh(&fs, "rm", &["a"]);
    assert_eq!(
        (out.status, out.stderr.as_str()),
        (1, "rm: cannot remove 'a': Is a directory\n")
    );
    assert_eq!(sh(&fs, "rm", &["-r", "a"]).status, 0);
    assert_eq!(sh(&fs, "ls", &[]).stdout, "");
    let out = sh(&fs, "mkdir", &["x", "x"]);
    assert_eq!(
        out.stderr,
        "mkdir: cannot create directory ‘x’: File exists\n"
    );
}

#[test]
fn cat_numbering_and_cp_mv() {
    let fs = new_fs();
    fs.write("/workspace/f", b"a\n\n\nb\tc\n").unwrap();
    assert_eq!(
        sh(&fs, "cat", &["-n", "f"]).stdout,
        "     1\ta\n     2\t\n     3\t\n     4\tb\tc\n"
    );
    assert_eq!(sh(&fs, "cat", &["-sA", "f"]).stdout, "a$\n$\nb^Ic$\n");
    assert_eq!(sh(&fs, "cp", &["f", "g"]).status, 0);
    assert_eq!(
        sh(&fs, "mv", &["-v", "g", "h"]).stdout,
        "renamed 'g' -> 'h'\n"
    );
    assert_eq!(fs.read("/workspace/h").unwrap(), b"a\n\n\nb\tc\n");
    assert_eq!(sh(&fs, "wc", &["-l", "h"]).stdout, "4 h\n");
    assert_eq!(sh(&fs, "head", &["-n", "1", "h"]).stdout, "a\n");
    assert_eq!(sh(&fs, "tail", &["-n", "1", "h"]).stdout, "b\tc\n");
}

#[test]
fn symlinks_and_paths() {
    let fs = new_fs();
    sh(&fs, "mkdir", &["d"]);
    sh(&fs, "touch", &["d/f"]);
    assert_eq!(sh(&fs, "ln", &["-s", "d/f", "l"]).status, 0);
    assert_eq!(sh(&fs, "readlink", &["l"]).stdout, "d/f\n");
    assert_eq!(sh(&fs, "readlink", &["-f", "l"]).stdout, "/workspace/d/f\n");
    assert_eq!(sh(&fs, "realpath", &["--relative-to=d", "l"]).stdout, "f\n");
    assert_eq!(
        sh(&fs, "stat", &["-c", "%n %F %a", "l", "d"]).stdout,
        "l symbolic link 777\nd directory 755\n"
    );
    assert_eq!(sh(&fs, "chmod", &["u+x,go-r", "d/f"]).status, 0);
    assert_eq!(sh(&fs, "stat", &["-c", "%A", "d/f"]).stdout, "-rwx------\n");
}

#[test]
fn mktemp_is_deterministic_and_exclusive() {
    let fs = new_fs();
    let a = sh(&fs, "mktemp", &[]).stdout;
    let b = sh(&fs, "mktemp", &[]).stdout;
    assert!(
        a.starts_with("/tmp/tmp.") && a.len() == "/tmp/tmp.XXXXXXXXXX\n".len(),
        "{a}"
    );
    assert_ne!(a, b);
}
