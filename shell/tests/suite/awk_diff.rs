//! Differential suite of awk: every line of `tests/awk_cases/*.cases` is a
//! shell command line (usually `printf ... | awk '...'`), run through our
//! interpreter and through host bash with `awk` meaning GNU awk (gawk), in an
//! empty temp dir. stdout and exit status must agree; when gawk fails with a
//! message, ours must print one too. Lines starting with `#` are comments.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::PathBuf;

use crate::support::host::command;
use sandkeep_shell::{RunOptions, Shell, ShellConfig};

fn cases() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/awk_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("awk_cases")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cases"))
        .collect();
    files.sort();
    let mut v = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for (i, l) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if l.trim().is_empty() || l.starts_with('#') {
                continue;
            }
            v.push((format!("{name}:{}", i + 1), l.to_string()));
        }
    }
    v
}

fn host(line: &str, tmp: &std::path::Path) -> Option<(i32, Vec<u8>, Vec<u8>)> {
    let gawk = ["/usr/bin/gawk", "/usr/local/bin/gawk"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())?;
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).ok()?;
    let link = bin.join("awk");
    if !link.exists() {
        std::os::unix::fs::symlink(gawk, &link).ok()?;
    }
    let work = tmp.join("w");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).ok()?;
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let o = command("bash", &path)
        .arg("-c")
        .arg(line)
        .current_dir(&work)
        .env_clear()
        .env("PATH", path)
        .env("LC_ALL", "C")
        .env("HOME", "/nonexistent")
        .output()
        .ok()?;
    Some((o.status.code().unwrap_or(-1), o.stdout, o.stderr))
}

#[test]
fn awk_matches_gawk() {
    let _alone = crate::support::suite::alone();
    let tmp = std::env::temp_dir().join(format!("awk_diff_{}", std::process::id()));
    let all = cases();
    let mut failures = Vec::new();
    let mut ran = 0;
    let only = std::env::var("AWK_CASE").ok();
    for (id, line) in &all {
        if only
            .as_ref()
            .is_some_and(|o| !line.contains(o.as_str()) && !id.contains(o.as_str()))
        {
            continue;
        }
        let err_case = line.starts_with("[err] ");
        let line = &line.trim_start_matches("[err] ").to_string();
        let Some((hs, hout, herr)) = host(line, &tmp) else {
            eprintln!("skipping: gawk not installed on the host");
            return;
        };
        let shell = Shell::new(ShellConfig::default());
        let opts = RunOptions {
            env: vec![("LC_ALL".to_string(), "C".to_string())],
            ..RunOptions::default()
        };
        let o = shell.run(line, opts);
        ran += 1;
        let mut why = Vec::new();
        if err_case {
            // Syntax errors: gawk exits 1, POSIX awks (mawk) 2; both must fail
            // with a message.
            if o.exit_code == 0 || hs == 0 || o.stderr.is_empty() {
                why.push(format!("error case: ours {} gawk {}", o.exit_code, hs));
            }
        } else if o.exit_code != hs {
            why.push(format!("status ours {} gawk {}", o.exit_code, hs));
        }
        if o.stdout != hout {
            why.push(format!(
                "stdout\n    ours: {:?}\n    gawk: {:?}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&hout)
            ));
        }
        if !herr.is_empty() && hs != 0 && o.stderr.is_empty() {
            why.push("gawk printed an error, ours did not".into());
        }
        if !why.is_empty() {
            failures.push(format!(
                "{id}: {line}\n  {}\n  ours stderr: {}",
                why.join("\n  "),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("awk_diff: {} cases, {} failed", ran, failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        ran,
        failures.join("\n")
    );
}
