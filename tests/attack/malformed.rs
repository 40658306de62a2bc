//! Malformed input: syntax errors, bad CLI arguments, garbage and
//! sparse-bomb archives, and MCP garbage, invalid UTF-8 and oversized lines.

use std::io::Read as _;

use super::*;

pub(super) fn malformed(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    for (name, script, status, err) in [
        ("unterminated quote", "echo 'abc", 2, "unexpected EOF"),
        ("unterminated subst", "echo $(echo", 2, "syntax error"),
        ("stray fi", "fi", 2, "syntax error"),
        ("bad redirect", "echo >", 2, "syntax error"),
        ("division by zero", "echo $((1/0))", 1, "division by 0"),
        ("unset required", "echo ${x:?gone}", 127, "gone"),
        ("bad substitution", "echo ${x!}", 1, "bad substitution"),
        (
            "unknown command",
            "no-such-command",
            127,
            "command not found",
        ),
        (
            "bad option",
            "set -o no-such-option",
            2,
            "invalid option name",
        ),
        (
            "non-executable",
            "echo x > f; ./f",
            126,
            "Permission denied",
        ),
    ] {
        v.push(local(
            "malformed",
            name,
            10,
            script,
            vec![Status(status), Stderr(err)],
        ));
    }
    for (name, script) in [
        ("NUL bytes", "echo a\u{0}b; echo after"),
        (
            "invalid utf8 in a word",
            "printf '\\xff\\xfe' | od -c | head -1; echo after",
        ),
        (
            "huge word",
            &format!("x={}; echo ${{#x}}; echo after", "a".repeat(200_000)),
        ),
        ("many lines", &"echo line\n".repeat(20_000)),
        (
            "deep alias loop",
            "shopt -s expand_aliases; alias a=b; alias b=a; a; echo after",
        ),
        ("time in a pipe", "{ time; } |& wc -l; echo after"),
        ("time alone", "time; echo after"),
        ("empty script", ""),
        ("only comments", "# nothing\n# here"),
        ("jq bad json", "echo '{' | jq .; echo after"),
        ("jq bad program", "jq -n '(((' ; echo after"),
        ("awk bad program", "awk '{' ; echo after"),
        ("sed bad program", "sed 's/' < /dev/null; echo after"),
        (
            "tar of garbage",
            "echo garbage > g.tar; tar tf g.tar; echo after",
        ),
        (
            "gunzip of garbage",
            "echo garbage > g.gz; gunzip g.gz; echo after",
        ),
        (
            "regex bomb grep",
            "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | grep -E '(a*)*b'; echo after",
        ),
        (
            "regex bomb sed",
            "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | sed -E 's/(a|aa)*c/x/'; echo after",
        ),
        ("base64 garbage", "echo '!!!' | base64 -d; echo after"),
        ("printf bad format", "printf '%Z' 1; echo after"),
        ("read from closed fd", "cat <&9; echo after"),
    ] {
        v.push(local("malformed", name, 10, script, vec![Stdout("after")]));
    }
    // Some scripts have no "after": they only must not crash.
    for c in v.iter_mut() {
        if c.name == "empty script" || c.name == "only comments" || c.name == "many lines" {
            c.checks = vec![Status(0)];
        }
    }
    let garbage = h.dir.path().join("garbage.tgz");
    std::fs::write(&garbage, b"\x1f\x8b\x08\x00garbage-not-a-real-gzip").unwrap();
    let g = garbage.display().to_string();
    let file_as_data = h.secret_file.display().to_string();
    for (name, a, checks) in [
        (
            "timeout 1e20",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "1e20",
                "-c",
                "echo ok",
            ],
            vec![Stderr("too large"), NotStatus(0)],
        ),
        (
            "timeout negative",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "-1",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "timeout nan",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "NaN",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "timeout words",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "soon",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent path traversal",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "../../x",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent slash",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "a/b",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent empty",
            vec!["run", "--backend", "local", "--agent", "", "-c", "echo ok"],
            vec![NotStatus(0)],
        ),
        (
            "data is a file",
            vec![
                "--data",
                file_as_data.as_str(),
                "run",
                "--backend",
                "local",
                "--agent",
                "a",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "restore of a garbage archive",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "garbage",
                "--workspace-archive",
                g.as_str(),
                "-c",
                "echo ok",
            ],
            vec![Stderr("restore failed")],
        ),
        (
            "archive ls without a store",
            vec![
                "archive",
                "ls",
                "--agent",
                "nobody",
                "--data",
                "/nonexistent/d",
                "1",
            ],
            vec![NotStatus(0)],
        ),
        (
            "unknown subcommand",
            vec!["no-such-subcommand"],
            vec![Status(2)],
        ),
        (
            "script file missing",
            vec!["run", "--backend", "local", "/nonexistent/script.sh"],
            vec![NotStatus(0)],
        ),
    ] {
        let owned: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        v.push(args("malformed", name, &refs, checks));
    }
    // A small archive holding a huge member of zeros: restoring it must
    // stream and cap, not hold the member in memory.
    let sparse = h.dir.path().join("sparse.tgz");
    {
        let f = std::fs::File::create(&sparse).unwrap();
        let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        let mut t = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_path("huge.bin").unwrap();
        header.set_size(600 << 20);
        header.set_mode(0o644);
        header.set_cksum();
        let zeros = std::io::repeat(0).take(600 << 20);
        t.append(&header, zeros).unwrap();
        t.into_inner().unwrap().finish().unwrap();
    }
    let s = sparse.display().to_string();
    v.push(args(
        "malformed",
        "restore of an archive with a huge member",
        &[
            "run",
            "--backend",
            "local",
            "--agent",
            "sparse",
            "--workspace-archive",
            &s,
            "-c",
            "echo ok",
        ],
        vec![Stderr(
            "larger than one file may be (limit 268435456 bytes)",
        )],
    ));
    // 163 bytes of gzip holding a GNU sparse member of 2.5 GB, left as an
    // agent's legacy workspace.tgz: listing the agent imports it first.
    let bomb_data = h.dir.path().join("bomb-data");
    {
        let dir = bomb_data.join("agents").join("bomb");
        std::fs::create_dir_all(&dir).unwrap();
        let f = std::fs::File::create(dir.join("workspace.tgz")).unwrap();
        let gz = flate2::write::GzEncoder::new(f, flate2::Compression::best());
        let mut t = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_path("sparse.bin").unwrap();
        header.set_entry_type(tar::EntryType::GNUSparse);
        header.set_mode(0o644);
        header.set_size(512);
        let real = 2_500_000_000u64;
        let gnu = header.as_gnu_mut().unwrap();
        gnu.set_real_size(real);
        gnu.sparse[0].set_offset(real - 512);
        gnu.sparse[0].set_length(512);
        header.set_cksum();
        t.append(&header, &[7u8; 512][..]).unwrap();
        t.into_inner().unwrap().finish().unwrap();
    }
    let bd = bomb_data.display().to_string();
    v.push(args(
        "malformed",
        "archive ls of a sparse bomb",
        &["--data", &bd, "archive", "ls", "--agent", "bomb"],
        vec![NotStatus(0), Stderr("limit 268435456 bytes")],
    ));
    v.extend(mcp_cases());
    v.extend(schedule_cases());
    v
}

/// Schedule files with bad frontmatter: each is reported by file and line,
/// and none is fired or listed.
fn schedule_cases() -> Vec<Case> {
    use Check::*;
    // A schedule folder of one file, made and removed by the case.
    let with_schedule = |stem: &str, frontmatter: &str, command: &str| {
        format!(
            "d=$(mktemp -d) && printf -- '---\\ncron: \"*/15 * * * *\"\\n{frontmatter}\\n---\\n```bash\\necho hi\\n```\\n' \\
             > $d/{stem}.md && \"$SK\" schedule {command} $d; s=$?; rm -rf $d; exit $s"
        )
    };
    vec![
        host_script(
            "malformed",
            "schedule: a timeout past what a duration holds",
            10,
            &with_schedule(
                "huge",
                "agent: huge\\ntimeout: 500000000000000000h",
                "--once huge",
            ),
            vec![Stderr("huge.md:4: invalid timeout"), NotStatus(0)],
        ),
        host_script(
            "malformed",
            "schedule: an agent name that leaves the data dir is reported, not listed",
            10,
            &with_schedule("trav", "agent: ../../x", "--list"),
            vec![
                Stderr("trav.md:3: invalid agent name"),
                Never("agent=../../x".into()),
            ],
        ),
    ]
}

/// MCP: one line each, then a good request: the server must answer both,
/// the bad one with its id when it has one a reply can carry, and exit at
/// the end of its input (the case's deadline).
pub(super) fn mcp_cases() -> Vec<Case> {
    use Check::*;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let list = r#"{"jsonrpc":"2.0","id":99,"method":"tools/list"}"#;
    let mut v = Vec::new();
    let bad_lines: Vec<(&str, Vec<u8>, &'static str)> = vec![
        ("garbage", b"garbage here".to_vec(), r#""code":-32700"#),
        (
            "invalid utf8",
            b"\xff\xfe\xfd{\"id\":3}".to_vec(),
            r#""code":-32700"#,
        ),
        (
            "binary",
            (0u8..=255).filter(|b| *b != b'\n').collect(),
            r#""code":-32700"#,
        ),
        ("json array", b"[1,2,3]".to_vec(), r#""code":-32600"#),
        ("json number", b"42".to_vec(), r#""code":-32600"#),
        (
            "no jsonrpc",
            br#"{"id":5,"method":"tools/list"}"#.to_vec(),
            r#""id":5"#,
        ),
        (
            "truncated json",
            br#"{"jsonrpc":"2.0","id":6,"method":"#.to_vec(),
            r#""id":6"#,
        ),
        // rmcp's decoder drops these without an answer: the request stayed
        // pending and the server never exited at end of input.
        (
            "object id",
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#.to_vec(),
            r#""code":-32600"#,
        ),
        (
            "array id",
            br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.to_vec(),
            r#""code":-32600"#,
        ),
        (
            "string params",
            br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}"#.to_vec(),
            r#""id":8"#,
        ),
        (
            "string id, params without a name",
            br#"{"jsonrpc":"2.0","id":"q9","method":"tools/call","params":{}}"#.to_vec(),
            r#""id":"q9""#,
        ),
        (
            "notification with string params",
            br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#.to_vec(),
            r#""id":99"#,
        ),
        (
            "oversized",
            {
                let mut l =
                    br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":""#.to_vec();
                l.extend(std::iter::repeat_n(b'a', 17 << 20));
                l.extend(br#""}}"#);
                l
            },
            r#""id":7"#,
        ),
    ];
    for (name, line, want) in bad_lines {
        let mut stdin = Vec::new();
        stdin.extend(init.as_bytes());
        stdin.push(b'\n');
        stdin.extend(&line);
        stdin.push(b'\n');
        stdin.extend(list.as_bytes());
        stdin.push(b'\n');
        v.push(Case {
            group: "malformed",
            name: format!("mcp: {name} line"),
            program: Program::Sandkeep,
            args: vec![
                "mcp".into(),
                "--backend".into(),
                "local".into(),
                "--agent".into(),
                "mcp-attack".into(),
            ],
            stdin,
            deadline: Duration::from_secs(15),
            checks: vec![Stdout(want), Stdout(r#""id":99"#)],
        });
    }
    v
}
