//! Unit tests of grep on stdin input; the differential suite against GNU
//! grep lives in `shell/tests/text_diff.rs`.

use super::grep;
use crate::commands::testing::{control, new_fs, run_cmd};
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

/// Reads a few bytes at a time, to exercise chunk boundaries of stdin.
struct Trickle<'a>(&'a [u8], usize);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(self.0.len()).min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn run_trickle(args: &[&str], input: &[u8], step: usize) -> (i32, Vec<u8>) {
    let o = run_cmd(&new_fs(), grep, args, &mut Trickle(input, step), &control());
    (o.status, o.stdout)
}

#[test]
fn stdin_in_small_chunks_matches_whole_buffer() {
    let input: String = (1..=300)
        .map(|i| format!("line {i} {}\n", if i % 7 == 0 { "hit" } else { "miss" }))
        .collect();
    let input = input.as_bytes();
    let flag_sets: [&[&str]; 9] = [
        &["hit"],
        &["-n", "hit"],
        &["-b", "-n", "hit"],
        &["-c", "hit"],
        &["-v", "-n", "hit"],
        &["-n", "-C", "2", "hit"],
        &["-n", "-B", "3", "-A", "1", "9 hit"],
        &["-m", "3", "-A", "2", "hit"],
        &["-o", "-b", "[0-9]*7 "],
    ];
    for flags in flag_sets {
        let mut args = vec!["grep"];
        args.extend_from_slice(flags);
        let (s0, whole) = run_trickle(&args, input, 1 << 20);
        for step in [1, 3, 17, 64] {
            let (s, out) = run_trickle(&args, input, step);
            assert_eq!(
                (s, String::from_utf8_lossy(&out)),
                (s0, String::from_utf8_lossy(&whole)),
                "{flags:?} step {step}"
            );
        }
    }
}

#[test]
fn endless_stdin_stops_at_max_count() {
    struct Yes;
    impl std::io::Read for Yes {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for pair in buf.chunks_mut(2) {
                pair[0] = b'y';
                if pair.len() > 1 {
                    pair[1] = b'\n';
                }
            }
            Ok(buf.len() & !1)
        }
    }
    let fs = new_fs();
    for args in [
        vec!["grep", "-m2", "y"],
        vec!["grep", "-q", "y"],
        vec!["grep", "-l", "y"],
    ] {
        let o = run_cmd(&fs, grep, &args, &mut Yes, &control());
        assert_eq!(o.status, 0, "{args:?}");
    }
}
