//! Unit tests of grep on stdin input; the differential suite against GNU
//! grep lives in `shell/tests/text_diff.rs`.

use super::grep;
use crate::commands::text::common::testing::run;

#[test]
fn basic_and_flags() {
    assert_eq!(
        run(grep, &["grep", "b"], "abc\nxyz\nb\n"),
        (0, "abc\nb\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-v", "b"], "abc\nxyz\nb\n"),
        (0, "xyz\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-c", "b"], "abc\nxyz\nb\n"),
        (0, "2\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-n", "b"], "abc\nxyz\nb"),
        (0, "1:abc\n3:b\n".into())
    );
    assert_eq!(run(grep, &["grep", "q"], "abc\n"), (1, "".into()));
    assert_eq!(
        run(grep, &["grep", "-o", "[0-9]\\+"], "a12b3\n"),
        (0, "12\n3\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-w", "ab"], "abc\nab c\n"),
        (0, "ab c\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-x", "ab"], "abc\nab\n"),
        (0, "ab\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-i", "AB"], "xaBc\n"),
        (0, "xaBc\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-m1", "a"], "a1\na2\n"),
        (0, "a1\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-e", "x", "-e", "y"], "x\ny\nz\n"),
        (0, "x\ny\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-E", "a|b"], "a\nb\nc\n"),
        (0, "a\nb\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-F", "a.b"], "a.b\naxb\n"),
        (0, "a.b\n".into())
    );
}

#[test]
fn context() {
    let input = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    assert_eq!(
        run(grep, &["grep", "-A1", "2"], input),
        (0, "2\n3\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-B1", "5"], input),
        (0, "4\n5\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-C1", "-e", "2", "-e", "7"], input),
        (0, "1\n2\n3\n--\n6\n7\n8\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-n", "-C1", "3"], input),
        (0, "2-2\n3:3\n4-4\n".into())
    );
}

#[test]
fn errors() {
    assert_eq!(run(grep, &["grep", "\\("], "x\n").0, 2);
    assert_eq!(run(grep, &["grep"], "x\n").0, 2);
    assert_eq!(run(grep, &["grep", "--bogus", "x"], "x\n").0, 2);
    assert_eq!(run(grep, &["grep", "--help"], "").0, 0);
}

#[test]
fn backref_line_by_line() {
    assert_eq!(
        run(grep, &["grep", "\\(.\\)\\1"], "ab\naab\nxyz\n"),
        (0, "aab\n".into())
    );
    assert_eq!(
        run(grep, &["grep", "-c", "^\\(.\\).*\\1$"], "aba\nabc\n"),
        (0, "1\n".into())
    );
}

#[test]
fn byte_counter_agrees_with_naive() {
    use super::search::count_byte_lines;
    let samples: [&[u8]; 5] = [
        b"",
        b"7",
        b"17\n27\n3\n",
        b"abc\n7\n\n77777777777777\nx",
        b"\n\n7\n",
    ];
    for s in samples {
        let naive_hits = crate::commands::text::common::records(s, b'\n')
            .filter(|l| l.contains(&b'7'))
            .count();
        let naive_lines = crate::commands::text::common::records(s, b'\n').count();
        assert_eq!(
            count_byte_lines(s, b'7', b'\n'),
            (naive_hits as u64, naive_lines as u64),
            "{s:?}"
        );
    }
    let big: String = (1..5000).map(|i| format!("{i}\n")).collect();
    let naive = big.lines().filter(|l| l.contains('7')).count() as u64;
    assert_eq!(count_byte_lines(big.as_bytes(), b'7', b'\n'), (naive, 4999));
}
