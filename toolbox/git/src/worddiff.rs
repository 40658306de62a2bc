//! `diff --word-diff` (`plain`, `porcelain`, `color`) and `--color-words`:
//! a unified patch rewritten so that each block of removed and added lines
//! shows the words that changed, `[-old-]{+new+}`, the way git marks them.
//! Words are runs of non-space characters, or the matches of
//! `--word-diff-regex`.

use regex::bytes::Regex;

/// How changed words are marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordMode {
    /// `[-old-]{+new+}`.
    Plain,
    /// One token per line: ` common`, `-old`, `+new`, `~` for a newline.
    Porcelain,
    /// ANSI red and green (`--color-words`).
    Color,
}

const RED: &[u8] = b"\x1b[31m";
const GREEN: &[u8] = b"\x1b[32m";
const BOLD: &[u8] = b"\x1b[1m";
const CYAN: &[u8] = b"\x1b[36m";
const RESET: &[u8] = b"\x1b[m";

/// The (start, end) of each word of `text`.
fn words(text: &[u8], re: Option<&Regex>) -> Vec<(usize, usize)> {
    match re {
        Some(r) => r
            .find_iter(text)
            .filter(|m| m.end() > m.start())
            .map(|m| (m.start(), m.end()))
            .collect(),
        None => {
            let mut out = Vec::new();
            let mut i = 0;
            while i < text.len() {
                if text[i].is_ascii_whitespace() {
                    i += 1;
                    continue;
                }
                let s = i;
                while i < text.len() && !text[i].is_ascii_whitespace() {
                    i += 1;
                }
                out.push((s, i));
            }
            out
        }
    }
}

/// Runs of changes between two word lists: (minus range, plus range).
fn word_hunks(a: &[&[u8]], b: &[&[u8]]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        return vec![(0..n, 0..m)];
    }
    // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let (mut di, mut dj) = (0, 0);
    let mut open = false;
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if open {
                out.push((di..i, dj..j));
                open = false;
            }
            i += 1;
            j += 1;
            continue;
        }
        if !open {
            open = true;
            di = i;
            dj = j;
        }
        if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            j += 1;
        } else {
            i += 1;
        }
    }
    if open {
        out.push((di..n, dj..m));
    }
    out
}

/// Writes `text` in a style, each line's part marked on its own.
fn styled(out: &mut Vec<u8>, text: &[u8], kind: u8, mode: WordMode) {
    let (open, close): (&[u8], &[u8]) = match (mode, kind) {
        (WordMode::Plain, b'-') => (b"[-", b"-]"),
        (WordMode::Plain, b'+') => (b"{+", b"+}"),
        (WordMode::Color, b'-') => (RED, RESET),
        (WordMode::Color, b'+') => (GREEN, RESET),
        _ => (b"", b""),
    };
    let mut first = true;
    for part in text.split(|&b| b == b'\n') {
        if !first {
            if mode == WordMode::Porcelain {
                out.extend_from_slice(b"~\n");
            } else {
                out.push(b'\n');
            }
        }
        first = false;
        if part.is_empty() {
            continue;
        }
        if mode == WordMode::Porcelain {
            out.push(if kind == b' ' { b' ' } else { kind });
            out.extend_from_slice(part);
            out.push(b'\n');
        } else {
            out.extend_from_slice(open);
            out.extend_from_slice(part);
            out.extend_from_slice(close);
        }
    }
}

/// One block of removed and added lines, word by word.
fn block(minus: &[u8], plus: &[u8], mode: WordMode, re: Option<&Regex>, out: &mut Vec<u8>) {
    if plus.is_empty() {
        styled(out, minus, b'-', mode);
        return;
    }
    let mw = words(minus, re);
    let pw = words(plus, re);
    let a: Vec<&[u8]> = mw.iter().map(|&(s, e)| &minus[s..e]).collect();
    let b: Vec<&[u8]> = pw.iter().map(|&(s, e)| &plus[s..e]).collect();
    let mut current = 0;
    for (dr, ir) in word_hunks(&a, &b) {
        let plus_begin = pw.get(ir.start).map_or(plus.len(), |w| w.0);
        let plus_end = if ir.is_empty() {
            plus_begin
        } else {
            pw[ir.end - 1].1
        };
        if plus_begin > current {
            styled(out, &plus[current..plus_begin], b' ', mode);
        }
        if !dr.is_empty() {
            styled(out, &minus[mw[dr.start].0..mw[dr.end - 1].1], b'-', mode);
        }
        if !ir.is_empty() {
            styled(out, &plus[plus_begin..plus_end], b'+', mode);
        }
        current = plus_end.max(current);
    }
    if current < plus.len() {
        styled(out, &plus[current..], b' ', mode);
    }
}

/// Rewrites the unified patch `patch` with word-level marks.
pub fn rewrite(patch: &[u8], mode: WordMode, re: Option<&Regex>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut minus: Vec<u8> = Vec::new();
    let mut plus: Vec<u8> = Vec::new();
    let mut in_hunk = false;
    let flush = |out: &mut Vec<u8>, minus: &mut Vec<u8>, plus: &mut Vec<u8>| {
        if !minus.is_empty() || !plus.is_empty() {
            block(minus, plus, mode, re, out);
            minus.clear();
            plus.clear();
        }
    };
    for line in patch.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            flush(&mut out, &mut minus, &mut plus);
            in_hunk = false;
        }
        if !in_hunk || line.starts_with(b"@@") {
            flush(&mut out, &mut minus, &mut plus);
            if line.starts_with(b"@@") {
                in_hunk = true;
            }
            if mode == WordMode::Color {
                let body = line.strip_suffix(b"\n").unwrap_or(line);
                if line.starts_with(b"@@") {
                    // The function context after the second `@@` stays plain.
                    let end = body[2..]
                        .windows(2)
                        .position(|w| w == b"@@")
                        .map_or(body.len(), |p| p + 4);
                    out.extend_from_slice(CYAN);
                    out.extend_from_slice(&body[..end]);
                    out.extend_from_slice(RESET);
                    out.extend_from_slice(&body[end..]);
                } else {
                    out.extend_from_slice(BOLD);
                    out.extend_from_slice(body);
                    out.extend_from_slice(RESET);
                }
                out.push(b'\n');
            } else {
                out.extend_from_slice(line);
            }
            continue;
        }
        match line.first() {
            Some(b'-') => minus.extend_from_slice(&line[1..]),
            Some(b'+') => plus.extend_from_slice(&line[1..]),
            Some(b'\\') => {}
            _ => {
                flush(&mut out, &mut minus, &mut plus);
                let text = line.get(1..).unwrap_or_default();
                if mode == WordMode::Porcelain {
                    styled(&mut out, text, b' ', mode);
                } else {
                    out.extend_from_slice(text);
                }
            }
        }
    }
    flush(&mut out, &mut minus, &mut plus);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(old: &str, new: &str) -> String {
        let mut out = Vec::new();
        block(
            old.as_bytes(),
            new.as_bytes(),
            WordMode::Plain,
            None,
            &mut out,
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn marks_words_as_git_does() {
        assert_eq!(
            plain("one two three\n", "one 2 three\n"),
            "one [-two-]{+2+} three\n"
        );
        assert_eq!(
            plain("one two three\n", "one 2 three four\n"),
            "one [-two-]{+2+} three {+four+}\n"
        );
        assert_eq!(plain("", "new line\n"), "{+new line+}\n");
        assert_eq!(plain("gone\n", ""), "[-gone-]\n");
    }
}
