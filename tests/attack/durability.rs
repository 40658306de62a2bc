//! Durability: what a session keeps, also after a timeout.

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
            args: a,
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![],
        });
        v.push(Case {
            group: "durability",
            name: format!("{name}: read back"),
            args: run(&agent, second),
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![Stdout(want), Status(0)],
        });
    }
    v
}
