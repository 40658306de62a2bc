//! Unit tests of sed on stdin input; the differential suite against GNU sed
//! lives in `shell/tests/text_diff.rs`.

use super::sed;
use crate::commands::text::common::testing::run;

fn s(args: &[&str], input: &str) -> (i32, String) {
    let mut v = vec!["sed"];
    v.extend_from_slice(args);
    run(sed, &v, input)
}

#[test]
fn substitutions() {
    assert_eq!(s(&["s/a/b/"], "aa\n"), (0, "ba\n".into()));
    assert_eq!(s(&["s/a/b/g"], "aa\n"), (0, "bb\n".into()));
    assert_eq!(s(&["s/a/b/2"], "aaa\n"), (0, "aba\n".into()));
    assert_eq!(s(&["s/a/b/2g"], "aaa\n"), (0, "abb\n".into()));
    assert_eq!(s(&["s/x*/-/g"], "abc\n"), (0, "-a-b-c-\n".into()));
    assert_eq!(s(&["s/a*/x/g"], "baaac\n"), (0, "xbxcx\n".into()));
    assert_eq!(
        s(&["s/\\(l\\+\\)/[\\U\\1\\E]/"], "hello\n"),
        (0, "he[LL]o\n".into())
    );
    assert_eq!(s(&["-E", "s/(a)(b)/\\2\\1/"], "ab\n"), (0, "ba\n".into()));
    assert_eq!(
        s(&["s/\\w\\+/\\u&/g"], "foo bar\n"),
        (0, "Foo Bar\n".into())
    );
    assert_eq!(s(&["s/x/a\\nb/"], "x\n"), (0, "a\nb\n".into()));
}

#[test]
fn commands_and_addresses() {
    assert_eq!(s(&["-n", "2p"], "1\n2\n3\n"), (0, "2\n".into()));
    assert_eq!(s(&["-n", "$p"], "1\n2\n3\n"), (0, "3\n".into()));
    assert_eq!(s(&["2,+1d"], "1\n2\n3\n4\n5\n"), (0, "1\n4\n5\n".into()));
    assert_eq!(s(&["-n", "0~2p"], "1\n2\n3\n4\n5\n"), (0, "2\n4\n".into()));
    assert_eq!(s(&["0,/1/d"], "1\n2\n1\n"), (0, "2\n1\n".into()));
    assert_eq!(s(&["1!G;h;$!d"], "1\n2\n3\n"), (0, "3\n2\n1\n".into()));
    assert_eq!(s(&["$!N;s/\\n/-/"], "1\n2\n3\n"), (0, "1-2\n3\n".into()));
    assert_eq!(s(&["n;d"], "1\n2\n3\n"), (0, "1\n3\n".into()));
    assert_eq!(s(&["a\\  x"], "a\n"), (0, "a\n  x\n".into()));
    assert_eq!(
        s(&["1i\\\nhello\\\nworld"], "a\n"),
        (0, "hello\nworld\na\n".into())
    );
    assert_eq!(s(&["y/abc/xyz/"], "abc\n"), (0, "xyz\n".into()));
    assert_eq!(s(&["q5"], "a\nb\n"), (5, "a\n".into()));
    assert_eq!(
        s(&[":a;N;$!ba;s/\\n/,/g"], "1\n2\n3\n"),
        (0, "1,2,3\n".into())
    );
    assert_eq!(s(&["p"], "x"), (0, "x\nx".into()));
    assert_eq!(s(&["-n", "l"], "a\tb\n"), (0, "a\\tb$\n".into()));
}

#[test]
fn errors() {
    assert_eq!(s(&["s/a/b"], "x\n").0, 1);
    assert_eq!(s(&["k"], "x\n").0, 1);
    assert_eq!(s(&["b nowhere"], "x\n").0, 4);
    assert_eq!(s(&["{p"], "x\n").0, 1);
    assert_eq!(s(&[], "x\n").0, 1);
}
