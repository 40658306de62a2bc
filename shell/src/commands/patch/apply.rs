//! Applying the hunks of one file patch to a file's lines as GNU patch
//! 2.7 does: each hunk is looked for at its line plus the offset the
//! previous hunks needed, then nearer first at growing offsets, then again
//! with growing fuzz (context lines at the hunk's ends left unmatched);
//! a hunk with less context before than after can only match at the start
//! of the file (and the other way round at its end). Context lines keep the
//! file's text, so a fuzzy match leaves the file's version of them.

use super::parse::{Hunk, Line};

/// A file as lines, each with whether it ends in a newline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Text {
    pub lines: Vec<(Vec<u8>, bool)>,
}

impl Text {
    /// The lines of `data`.
    pub fn from_bytes(data: &[u8]) -> Text {
        let mut lines: Vec<(Vec<u8>, bool)> = data
            .split(|b| *b == b'\n')
            .map(|l| (l.to_vec(), true))
            .collect();
        if data.ends_with(b"\n") || data.is_empty() {
            lines.pop();
        } else if let Some(last) = lines.last_mut() {
            last.1 = false;
        }
        Text { lines }
    }

    /// The bytes of the lines.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (l, nl) in &self.lines {
            out.extend_from_slice(l);
            if *nl {
                out.push(b'\n');
            }
        }
        out
    }
}

/// Where a search resumes and how far the last hunk moved.
#[derive(Default)]
pub(crate) struct Cursor {
    /// Input lines already consumed (0-based count).
    pub frozen: usize,
    /// The offset of the last hunk found.
    pub in_offset: isize,
}

/// Finds `hunk` in `input` with `fuzz` (GNU's `locate_hunk`): the 1-based
/// line its first old line sits at, and moves the cursor's offset.
pub(crate) fn locate(hunk: &Hunk, input: &Text, cur: &mut Cursor, fuzz: usize) -> Option<usize> {
    let pattern = hunk.old();
    let pat_lines = pattern.len() as isize;
    let input_lines = input.lines.len() as isize;
    let first_guess = hunk.old_start as isize + cur.in_offset;
    let prefix_context = hunk.prefix_context() as isize;
    let suffix_context = hunk.suffix_context() as isize;
    let context = prefix_context.max(suffix_context);
    let fuzz = fuzz as isize;
    let mut prefix_fuzz = fuzz + prefix_context - context;
    let suffix_fuzz = fuzz + suffix_context - context;
    let max_where = input_lines - (pat_lines - suffix_fuzz) + 1;
    let min_where = cur.frozen as isize + 1 - (prefix_context - prefix_fuzz);
    let max_pos_offset = max_where - first_guess;
    let mut max_neg_offset = first_guess - min_where;
    let max_offset = max_pos_offset.max(max_neg_offset);
    if pat_lines == 0 {
        return usize::try_from(first_guess).ok().filter(|w| *w >= 1);
    }
    if first_guess <= max_neg_offset {
        max_neg_offset = first_guess - 1;
    }
    let matches = |base: isize, pf: isize, sf: isize| -> bool {
        if base < 1 {
            return false;
        }
        let (pf, sf) = (pf.max(0) as usize, sf.max(0) as usize);
        (pf..pattern.len().saturating_sub(sf)).all(|i| {
            let at = base as usize - 1 + i;
            input
                .lines
                .get(at)
                .is_some_and(|(l, _)| l.as_slice() == pattern[i])
        })
    };
    if prefix_fuzz < 0 && hunk.old_start <= 1 {
        // Only the start of the file.
        if suffix_fuzz < 0 && (pat_lines != input_lines || prefix_context < cur.frozen as isize) {
            return None;
        }
        let offset = 1 - first_guess;
        if cur.frozen as isize <= prefix_context
            && offset <= max_pos_offset
            && matches(first_guess + offset, 0, suffix_fuzz)
        {
            cur.in_offset += offset;
            return Some((first_guess + offset) as usize);
        }
        return None;
    } else if prefix_fuzz < 0 {
        prefix_fuzz = 0;
    }
    if suffix_fuzz < 0 {
        // Only the end of the file: its last line is the pattern's last.
        let at = input_lines - pat_lines + 1;
        let offset = at - first_guess;
        let reachable = if offset >= 0 {
            offset <= max_pos_offset.max(0) || at >= min_where
        } else {
            -offset <= max_neg_offset
        };
        if reachable && at >= min_where.max(1) && matches(at, prefix_fuzz, 0) {
            cur.in_offset += offset;
            return Some(at as usize);
        }
        return None;
    }
    let mut offset = 0;
    while offset <= max_offset {
        if offset <= max_pos_offset && matches(first_guess + offset, prefix_fuzz, suffix_fuzz) {
            cur.in_offset += offset;
            return Some((first_guess + offset) as usize);
        }
        if offset > 0
            && offset <= max_neg_offset
            && matches(first_guess - offset, prefix_fuzz, suffix_fuzz)
        {
            cur.in_offset -= offset;
            return Some((first_guess - offset) as usize);
        }
        offset += 1;
    }
    None
}

/// Applies `hunk` found at line `at`: copies the input up to it into
/// `out`, then the hunk (context lines from the input, added lines from
/// the hunk), and moves the cursor past it.
pub(crate) fn apply(hunk: &Hunk, at: usize, input: &Text, cur: &mut Cursor, out: &mut Text) {
    let start = at - 1;
    while cur.frozen < start && cur.frozen < input.lines.len() {
        out.lines.push(input.lines[cur.frozen].clone());
        cur.frozen += 1;
    }
    let mut idx = start;
    let added_total = hunk
        .lines
        .iter()
        .filter(|l| !matches!(l, Line::Removed(_)))
        .count();
    let mut new_seen = 0;
    for line in &hunk.lines {
        match line {
            Line::Context(text) => {
                new_seen += 1;
                match input.lines.get(idx) {
                    Some(l) => out.lines.push(l.clone()),
                    None => out.lines.push((text.clone(), true)),
                }
                idx += 1;
            }
            Line::Removed(_) => idx += 1,
            Line::Added(text) => {
                new_seen += 1;
                let last = new_seen == added_total;
                out.lines.push((text.clone(), !(last && hunk.new_no_eol)));
            }
        }
    }
    cur.frozen = idx.min(input.lines.len()).max(cur.frozen);
}

/// Copies what is left of the input after the last hunk.
pub(crate) fn finish(input: &Text, cur: &mut Cursor, out: &mut Text) {
    while cur.frozen < input.lines.len() {
        out.lines.push(input.lines[cur.frozen].clone());
        cur.frozen += 1;
    }
}

/// A rejected hunk in unified form, as GNU writes it to the `.rej` file.
pub(crate) fn unified(hunk: &Hunk) -> Vec<u8> {
    let old = hunk.old().len();
    let new = hunk.new_lines().len();
    let range = |start: usize, count: usize| {
        let shown = if count == 0 {
            start.saturating_sub(1)
        } else {
            start
        };
        if count == 1 {
            format!("{shown}")
        } else {
            format!("{shown},{count}")
        }
    };
    let mut out = format!(
        "@@ -{} +{} @@\n",
        range(hunk.old_start, old),
        range(hunk.new_start, new)
    )
    .into_bytes();
    for l in &hunk.lines {
        let (mark, text) = match l {
            Line::Context(t) => (b' ', t),
            Line::Removed(t) => (b'-', t),
            Line::Added(t) => (b'+', t),
        };
        out.push(mark);
        out.extend_from_slice(text);
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::patch::parse::parse;

    fn hunk(p: &str) -> Hunk {
        parse(p.as_bytes()).remove(0).hunks.remove(0)
    }

    #[test]
    fn finds_at_an_offset_then_with_fuzz() {
        let h = hunk("--- f\n+++ f\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n");
        let input = Text::from_bytes(b"x\ny\na\nb\nc\nd\ne\n");
        let mut cur = Cursor::default();
        assert_eq!(locate(&h, &input, &mut cur, 0), Some(5));
        assert_eq!(cur.in_offset, 2);
        let fuzzy = Text::from_bytes(b"a\nb\nC\nd\ne\n");
        let mut cur = Cursor::default();
        assert_eq!(locate(&h, &fuzzy, &mut cur, 0), None);
        assert_eq!(locate(&h, &fuzzy, &mut cur, 1), Some(3));
        let mut out = Text::default();
        apply(&h, 3, &fuzzy, &mut cur, &mut out);
        finish(&fuzzy, &mut cur, &mut out);
        assert_eq!(out.to_bytes(), b"a\nb\nC\nD\ne\n");
    }

    #[test]
    fn little_context_before_anchors_at_the_start() {
        let h = hunk("--- f\n+++ f\n@@ -1,2 +1,3 @@\n+0\n a\n b\n");
        let input = Text::from_bytes(b"z\na\nb\n");
        assert_eq!(locate(&h, &input, &mut Cursor::default(), 0), None);
        assert_eq!(locate(&h, &input, &mut Cursor::default(), 2), Some(1));
    }
}
