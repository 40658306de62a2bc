//! Resources: memory doubling, fork bombs, endless loops and devices per
//! command family, depth bombs for every parser, and jq recursion.

use super::*;

pub(super) fn resources() -> Vec<Case> {
    use Check::*;
    let limit = |what: &'static str| vec![Status(124), Stderr(what)];
    let mut v = vec![
        // touch never checked its run between operands: it went on past the
        // deadline until the backend gave up on it 5 s later.
        local(
            "resources",
            "a million touch operands",
            4,
            "touch {1..1000000}; echo not reached",
            vec![
                Status(124),
                Stderr("timeout exceeded"),
                Never("not reached".into()),
            ],
        ),
        local(
            "resources",
            "variable doubling",
            10,
            "x=a; while :; do x=$x$x; done",
            limit("memory limit exceeded"),
        ),
        local(
            "resources",
            "python list growth",
            // CPython raises MemoryError at the budget (catchable), then
            // frees the list before it exits: seconds at this build's -O0
            // when the suite's cases run side by side.
            30,
            "python3 -c 'x = []\nwhile True: x.append(\"a\" * 1000)'",
            vec![
                Status(1),
                Stderr("MemoryError"),
                Stderr("the run's memory limit ("),
            ],
        ),
        local(
            "resources",
            "python string doubling",
            10,
            "python3 -c 's = \"a\"\nwhile True: s = s + s'",
            vec![Stderr("MemoryError")],
        ),
        local(
            "resources",
            "array growth",
            10,
            "a=(); while :; do a+=(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa); done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "awk string doubling",
            10,
            "awk 'BEGIN{s=\"a\"; while(1) s = s s}'",
            vec![Stderr("exceeded")],
        ),
        local(
            "resources",
            "sed hold-space doubling",
            10,
            "echo a | sed ':a;h;G;ba' > /dev/null",
            vec![Stderr("exceeded")],
        ),
        local(
            "resources",
            "printf padding",
            10,
            "printf '%*d' 2000000000 1 | wc -c",
            vec![Stderr("too large")],
        ),
        local(
            "resources",
            "here-doc doubling",
            10,
            "x=a; while :; do x=$(cat <<EOF\n$x$x\nEOF\n); done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "fork bomb",
            10,
            ":(){ :|:& };:",
            vec![Status(124), Stderr("process limit exceeded")],
        ),
        local(
            "resources",
            "background job flood",
            10,
            "while :; do sleep 100 & done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "infinite while",
            1,
            "while :; do :; done",
            limit("timeout exceeded"),
        ),
        local(
            "resources",
            "infinite for",
            1,
            "for ((;;)); do :; done",
            limit("timeout exceeded"),
        ),
        local(
            "resources",
            "infinite until",
            1,
            "until false; do :; done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "infinite recursion",
            10,
            "f(){ f; }; f",
            vec![Status(124), Stderr("call depth limit")],
        ),
        local(
            "resources",
            "sleep past deadline",
            1,
            "sleep 100",
            vec![Status(124)],
        ),
        local(
            "resources",
            "background sleep past deadline",
            1,
            "sleep 100 & wait",
            vec![Status(124)],
        ),
        local(
            "resources",
            "yes into a pipe forever",
            1,
            "yes > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "cat of an endless device",
            1,
            "cat /dev/zero > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "capture of yes",
            10,
            "x=$(yes)",
            vec![Status(124), Stderr("memory limit")],
        ),
        local(
            "resources",
            "file size limit names the limit",
            10,
            "head -c 200M /dev/zero > f; echo rc=$?",
            vec![Stdout("rc=1"), Stderr("file size limit")],
        ),
        local(
            "resources",
            "yes into a file",
            10,
            "yes | head -c 10G > f; echo rc=$?",
            vec![Stdout("rc="), Stderr("file size limit")],
        ),
        local(
            "resources",
            "brace expansion in budget",
            10,
            "set -- {1..50000}; echo $#",
            vec![StdoutIs("50000\n".into())],
        ),
        local(
            "resources",
            "brace expansion of five million words",
            10,
            "set -- {1..5000000}; echo $#",
            // Past the 256 MiB budget: refused with the memory limit, never
            // left as the literal word (which made `$#` 1).
            limit("memory limit exceeded"),
        ),
        local(
            "resources",
            "cat of two files past the file size limit",
            10,
            "head -c 100M /dev/zero > a; head -c 100M /dev/zero > b; cat a b > h; echo rc=$?",
            vec![Stdout("rc=1"), Stderr("file size limit")],
        ),
        local(
            "resources",
            "brace expansion past budget",
            10,
            "set -- {1..50000000}; echo $#",
            vec![Status(124), Stderr("memory limit")],
        ),
        local(
            "resources",
            "brace product",
            10,
            "echo {1..1000}{1..1000}{1..1000} | wc -c",
            vec![Status(124), Stderr("exceeded")],
        ),
        local(
            "resources",
            "seq huge",
            1,
            "seq 1e12 > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "sort of an endless device",
            10,
            "sort /dev/zero",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "grep endless",
            1,
            "yes | grep -c x",
            vec![Status(124)],
        ),
        local(
            "resources",
            "awk infinite loop",
            1,
            "awk 'BEGIN{while(1);}'",
            vec![Status(124)],
        ),
        local(
            "resources",
            "sed infinite branch",
            1,
            "echo a | sed ':a;ba'",
            vec![Status(124)],
        ),
        local(
            "resources",
            "bc infinite loop",
            1,
            "echo 'while(1){}' | bc",
            vec![Status(124)],
        ),
        local(
            "resources",
            "gzip endless",
            1,
            "gzip -c /dev/zero > /dev/null",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "find over a symlink loop",
            10,
            "mkdir d; ln -s .. d/up; find -L . > /dev/null; echo done",
            vec![Stdout("done")],
        ),
        local(
            "resources",
            "tar of a big file",
            10,
            "head -c 100M /dev/zero > f && tar czf f.tgz f && ls -l f.tgz | wc -l",
            vec![Status(0)],
        ),
        local(
            "resources",
            "many files",
            10,
            "mkdir d; for i in $(seq 30000); do :> d/$i; done; ls d | wc -l",
            vec![Status(0)],
        ),
        local(
            "resources",
            "jq giant array",
            10,
            "jq -n '[range(1e9)]' | wc -c",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "extglob backtracking",
            2,
            "shopt -s extglob; x=$(printf 'a%.0s' {1..200}); [[ $x == *(a)*(a)*(a)*(a)*(a)c ]]; echo $?",
            vec![StdoutIs("1\n".into()), Status(0)],
        ),
    ];
    let deep = |n: usize, open: &str, mid: &str, close: &str| {
        format!("{}{}{}", open.repeat(n), mid, close.repeat(n))
    };
    for (name, script) in [
        ("nested subshells", deep(100_000, "(", "true", ")")),
        ("nested groups", deep(100_000, "{ ", "true; ", "}; ")),
        (
            "nested arithmetic",
            format!("echo $(({}))", deep(100_000, "(", "1", ")")),
        ),
        (
            "nested conditional",
            format!("[[ {} ]]", deep(100_000, "( ", "a", " )")),
        ),
        (
            "nested command substitution",
            deep(20_000, "$(", "echo", ")"),
        ),
        (
            "nested jq program",
            format!("jq -n '{}'", deep(100_000, "[", "1", "]")),
        ),
        (
            "nested jq input",
            "head -c 300000 /dev/zero | tr '\\0' '[' | jq .".to_string(),
        ),
        (
            "nested arithmetic from a variable",
            "x=$(printf '(%.0s' {1..100000}); echo $(( $x 1 ))".to_string(),
        ),
        (
            "nested eval",
            "s=true; for i in {1..3000}; do s=\"($s)\"; done; eval \"$s\"; echo $?".to_string(),
        ),
        (
            "nested json for fromjson",
            "printf '%.0s[' {1..100000} > d; jq -Rr 'fromjson?' d; echo done".to_string(),
        ),
    ] {
        v.push(local(
            "resources",
            &format!("depth: {name}"),
            10,
            &script,
            // Refused with a message naming the nesting, or (fromjson?)
            // handled as a failed parse; never a crash (checked for all).
            if name == "nested json for fromjson" {
                vec![Stdout("done")]
            } else if name == "nested eval" {
                vec![Stderr("nesting too deep"), Stdout("2")]
            } else {
                vec![NotStatus(0)]
            },
        ));
    }
    for (name, script, want) in [
        (
            "shallow subshells still run",
            deep(100, "(\n", "echo ok", "\n)"),
            "ok\n",
        ),
        (
            "shallow arithmetic still runs",
            format!("echo $(({}))", deep(100, "(", "7", ")")),
            "7\n",
        ),
        (
            "shallow jq still runs",
            format!("jq -nc '{}'", deep(100, "[", "1", "]")),
            "[[[[",
        ),
    ] {
        v.push(local(
            "resources",
            &format!("depth: {name}"),
            10,
            &script,
            vec![Status(0), Stdout(want)],
        ));
    }
    v.push(nothing_outlives_its_turn());
    v.push(deep_chain_then_resume());
    v
}

/// Inputs on which brush-parser backtracked: one parse call, which nothing
/// can interrupt, ran seconds to hours past the run's deadline (a subscript
/// nested 12 deep: 19 times the work per level; `((` around a syntax error:
/// twice per parenthesis; a syntax error at the end of a long script: the
/// rest re-parsed after every command). Each must end by its deadline,
/// nested ones with bash's result.
pub(super) fn parser_backtracking() -> Vec<Case> {
    use Check::*;
    let deep = |n: usize, open: &str, mid: &str, close: &str| {
        format!("{}{}{}", open.repeat(n), mid, close.repeat(n))
    };
    let case = |name: &str, script: String, checks: Vec<Check>| {
        local(
            "resources",
            &format!("parser backtracking: {name}"),
            2,
            &script,
            checks,
        )
    };
    let mut v = vec![
        case(
            "an associative subscript nested 40 deep",
            format!("declare -A A; A[x]=x; echo {}", deep(40, "${A[", "x", "]}")),
            vec![StdoutIs("x\n".into()), Status(0)],
        ),
        case(
            "an array assignment subscript nested 30 deep",
            format!(
                "a=(0); a[{}]+=5; echo ${{a[0]}}",
                deep(30, "${a[", "0", "]}")
            ),
            vec![StdoutIs("05\n".into()), Status(0)],
        ),
        case(
            "quoted subscripts left open 30 times",
            format!("{}]+=1", "A['x'".repeat(30)),
            vec![NotStatus(0)],
        ),
        case(
            "parentheses around a syntax error",
            format!("if {} ; {}; then :; fi", "(".repeat(40), ")".repeat(40)),
            vec![Status(2), Stderr("syntax error")],
        ),
        case(
            "1,096 nested ifs cut by a syntax error",
            // Found by script_fuzz: each parse of a prefix copied the nest
            // over and over (quadratic), 7 s with a 2 s deadline; a parse
            // now also stops at the run's deadline or memory limit.
            format!(
                "f() {{\n  {{ echo e1;\n   {} echo w; {}then :; fi e2\n  }} >&2\n}}\nf 2> >(grep w) | tac\n{}",
                "if ".repeat(1096),
                "then :; fi; ".repeat(1095),
                "cat nothing OUT\n".repeat(30)
            ),
            vec![NotStatus(0)],
        ),
        case(
            "a syntax error after 20,000 lines",
            format!("{}fi", "echo hi\n".repeat(20_000)),
            vec![
                Status(2),
                Stderr("unexpected token `fi'"),
                Stdout("hi\nhi\n"),
            ],
        ),
    ];
    // Not the parser, found the same way (script_fuzz): an array literal's
    // element was brace-expanded with no stop to count its words, and the
    // expansion checked the run once per group: 5.8 s with a 2 s deadline.
    v.push(local(
        "resources",
        "a brace product in an array literal",
        2,
        &format!("a=([k]=-{}); echo ${{#a[@]}}", "{a,b}".repeat(30)),
        vec![NotStatus(0)],
    ));
    // Found by the 1M script_fuzz run: an unquoted `$(yes)` split into
    // millions of fields with no stop (6.2 s with a 1 s deadline), and
    // extglob groups left open 30 deep, each re-read by every enclosing
    // group (6 s with a 1 s deadline).
    v.push(local(
        "resources",
        "an unquoted endless substitution split into words",
        2,
        "basename $(yes); ec+=++ho $(yes<<EOF tac\none\nEOF\n)",
        vec![NotStatus(0)],
    ));
    let open_groups = "@(help|verbose|no-@(long|shor-".repeat(30);
    v.push(local(
        "resources",
        "extglob groups left open 30 deep",
        2,
        &format!(
            "shopt -s extglob; pat='--{open_groups}@(help|verbose|no-@(long|short)-option)'\n\
             [[ --oops == $pat ]] || echo FALSE"
        ),
        vec![StdoutIs("FALSE\n".into()), Status(0)],
    ));
    v
}

/// A chain of 8,000 nested directories (by `cd`, and by renames that nest
/// a directory ever deeper), then a resume: the chain stops where its path
/// would pass PATH_MAX, and the next session restores what was kept in
/// moments (8,000 levels took > 20 s at 100% CPU, restore being quadratic
/// in the depth).
fn deep_chain_then_resume() -> Case {
    use Check::*;
    let script = r#"
"$SK" run --backend local --agent deep-chain --timeout 60 -c '
for i in $(seq 8000); do mkdir d 2>/dev/null && cd d || break; done
echo "cd chain: $(pwd | wc -c) bytes"; mkdir d
cd /workspace; mkdir r
for i in $(seq 8000); do mkdir x && mv r x/ 2>/dev/null && mv x r || break; done
echo "rename chain stopped"; mv r x/' 2>&1
"$SK" run --backend local --agent deep-chain --timeout 60 -c 'cd d/d/d && echo resumed' 2>&1
"#;
    host_script(
        "resources",
        "a chain of 8000 nested directories, then a resume",
        25,
        script,
        vec![
            Stdout("File name too long"),
            Stdout("rename chain stopped"),
            Stdout("resumed"),
        ],
    )
}

/// An MCP turn whose jq times out, then a turn that only sleeps: the
/// server's user CPU time stays near the first turn's second of work (a
/// timed-out run's thread that kept going would burn a core through the
/// sleep: 5.5 s on earlier builds).
fn nothing_outlives_its_turn() -> Case {
    use Check::*;
    let script = r#"init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
busy='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"jq -n "reduce range(1e12) as \$i (0; .+1)"","timeout_ms":1000}}}'
idle='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 4; echo idle-done"}}}'
t=$(mktemp)
{ printf '%s
' "$init" "$busy"; sleep 2; printf '%s
' "$idle"; sleep 5; } |
    /usr/bin/time -f 'cpu=%U' -o "$t" "$SK" mcp --backend local --agent cpu-after
awk -F= '/cpu=/ { print ($2 < 2.5 ? "cpu-ok" : "cpu-burned " $2) }' "$t"; rm -f "$t""#;
    host_script(
        "resources",
        "a timed-out turn uses no CPU during the next turn",
        15,
        script,
        vec![Stdout(r#""id":2"#), Stdout("idle-done"), Stdout("cpu-ok")],
    )
}

/// jq programs that loop or nest by recursion alone (no `range`): each
/// ends at its deadline, or for a nesting one with an error, never by
/// overflowing the stack.
pub(super) fn jq_recursion() -> Vec<Case> {
    use Check::*;
    let timeout = |what: &str, program: &str| {
        local(
            "resources",
            &format!("jq recursion: {what}"),
            2,
            &format!("jq -n '{program}'"),
            vec![Status(124), Stderr("timeout exceeded")],
        )
    };
    vec![
        timeout("endless tail call", "def f: f; f"),
        timeout("recurse", "[recurse(.+1)]"),
        timeout("until", "until(false; .)"),
        timeout("repeat", "[repeat(1)] | length"),
        timeout("while", "[while(true; .)] | length"),
        local(
            "resources",
            "jq recursion: nesting",
            10,
            "jq -n 'def f: 1 + f; f'",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "jq recursion: nesting arrays",
            10,
            "jq -n 'def f: [f]; f'",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "jq fromjson ten thousand deep",
            10,
            "printf '%.0s[' {1..10000} | jq -R 'fromjson'; echo rc=$?",
            vec![Stdout("rc=5"), Stderr("Exceeds depth limit for parsing")],
        ),
        local(
            "resources",
            "jq fromjson ten thousand deep, closed",
            10,
            "x=$(printf '%.0s[' {1..10000}; printf '%.0s]' {1..10000}); jq -n --arg x \"$x\" '$x | fromjson | length'; echo rc=$?",
            vec![Stdout("rc=5"), Stderr("Exceeds depth limit for parsing")],
        ),
    ]
}
