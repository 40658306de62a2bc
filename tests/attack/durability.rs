//! Durability: what a session keeps, also after a timeout, also when two
//! sessions of one agent park at once (the merge), and names the other
//! backend could not restore are refused up front.

use super::*;

pub(super) fn durability() -> Vec<Case> {
    use Check::*;
    let run = |agent: &str, script: &str| -> Vec<String> {
        [
            "run",
            "--backend",
            "local",
            "-q",
            "--agent",
            agent,
            "-c",
            script,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut v = Vec::new();
    // Cases run in order within this group (see `main`): the second reads
    // what the first kept.
    let pairs: [(&str, &str, &str, &'static str); 6] = [
        ("file", "echo kept > f", "cat f", "kept"),
        (
            "nested dirs",
            "mkdir -p a/b/c && echo deep > a/b/c/f",
            "cat a/b/c/f",
            "deep",
        ),
        (
            "binary content",
            "printf '\\x00\\xff\\x01' > b",
            "od -An -tx1 b",
            "00 ff 01",
        ),
        ("symlink", "echo t > t && ln -s t l", "readlink l", "t"),
        ("mode", "echo x > e && chmod 755 e", "stat -c %a e", "755"),
        (
            "after a timeout",
            "echo before > g; while :; do :; done",
            "cat g",
            "before",
        ),
    ];
    for (i, (name, first, second, want)) in pairs.iter().enumerate() {
        let agent = format!("dur{i}");
        let mut a = run(&agent, first);
        a.insert(3, "--timeout".into());
        a.insert(4, "2".into());
        v.push(Case {
            group: "durability",
            name: format!("{name}: write"),
            program: Program::Sandkeep,
            args: a,
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![],
        });
        v.push(Case {
            group: "durability",
            name: format!("{name}: read back"),
            program: Program::Sandkeep,
            args: run(&agent, second),
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![Stdout(want), Status(0)],
        });
    }
    v.extend(merges());
    // A park that cannot be written (here: the host's file-size limit, the
    // shape of a full disk) fails the run and leaves the last generation.
    v.push(host_script(
        "durability",
        "a park that cannot be written fails the run and keeps the last generation",
        20,
        "trap '' XFSZ; r() { \"$SK\" run --backend local -q --agent fsz -c \"$1\"; }; \
         r 'echo first > keep' && \
         (ulimit -f 64; r 'head -c 1M /dev/urandom > big; echo second > keep'); \
         [ $? -ne 0 ] && echo park-failed; r 'cat keep; ls'",
        vec![StdoutIs("park-failed\nfirst\nkeep\n".into()), Status(0)],
    ));
    v.push(local(
        "durability",
        "a name past 255 bytes is refused as a real filesystem refuses it",
        10,
        "n=$(printf %0256d 0); echo x > $n; echo st=$?; mkdir -p d/$n; echo md=$?",
        vec![Stdout("st=1"), Stdout("md=1"), Stderr("File name too long")],
    ));
    v
}

/// Two sessions of one agent at once: the slow one restored the same
/// generation as the quick one and parks second, so its park merges.
pub(super) fn concurrent(
    agent: &str,
    backend: &str,
    slow: &str,
    quick: &str,
    read: &str,
) -> String {
    let run =
        |script: &str| format!("\"$SK\" run --backend {backend} -q --agent {agent} -c '{script}'");
    // The quick session starts once the slow one has surely restored (a
    // docker session takes longer to start).
    let (pause, head_start) = if backend == "docker" {
        (8, 4.0)
    } else {
        (3, 1.5)
    };
    format!(
        "{base} && {{ {slow} & }}; sleep {head_start}; {quick}; wait; {read}",
        base = run("echo base > keep"),
        slow = run(&format!("sleep {pause}; {slow}")),
        quick = run(quick),
        read = run(read),
    )
}

fn merges() -> Vec<Case> {
    use Check::*;
    let all_files = "find . -type f -exec cat {} + | sort | tr \"\\n\" \" \"";
    vec![
        host_script(
            "durability",
            "merge: a file x and a directory x/ from concurrent sessions both stay",
            25,
            &concurrent(
                "merge-fd",
                "local",
                "echo FILESIDE > x",
                "mkdir x; echo DIRSIDE > x/f",
                all_files,
            ),
            vec![Stdout("DIRSIDE FILESIDE base"), Status(0)],
        ),
        host_script(
            "durability",
            "merge: a directory x/ and a file x from concurrent sessions both stay",
            25,
            &concurrent(
                "merge-df",
                "local",
                "mkdir x; echo DIRSIDE > x/f",
                "echo FILESIDE > x",
                all_files,
            ),
            vec![Stdout("DIRSIDE FILESIDE base"), Status(0)],
        ),
    ]
}
