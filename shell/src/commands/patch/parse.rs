//! Reading a patch: the file patches it holds (unified or context diffs,
//! with or without `diff --git` headers, among any other text), each with
//! its names and hunks, in the shape GNU patch works on: per hunk, the old
//! start line and a list of context, removed and added lines.

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// In both versions.
    Context(Vec<u8>),
    /// Only in the old version.
    Removed(Vec<u8>),
    /// Only in the new version.
    Added(Vec<u8>),
}

/// One hunk: where it starts in the old file and its lines. A line that
/// ends without a newline (`\ No newline at end of file`) is marked.
#[derive(Clone, Debug)]
pub(crate) struct Hunk {
    /// First old line (1-based; for a hunk of no old lines, the line it
    /// goes before).
    pub old_start: usize,
    /// First new line.
    pub new_start: usize,
    pub lines: Vec<Line>,
    /// The old side's last line has no newline.
    pub old_no_eol: bool,
    /// The new side's last line has no newline.
    pub new_no_eol: bool,
    /// The hunk's line in the patch input (1-based).
    pub at_line: usize,
}

impl Hunk {
    /// The lines of the old version (context and removed).
    pub fn old(&self) -> Vec<&[u8]> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Removed(t) => Some(t.as_slice()),
                Line::Added(_) => None,
            })
            .collect()
    }

    /// The lines of the new version (context and added).
    pub fn new_lines(&self) -> Vec<&[u8]> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Added(t) => Some(t.as_slice()),
                Line::Removed(_) => None,
            })
            .collect()
    }

    /// Context lines before the first change.
    pub fn prefix_context(&self) -> usize {
        self.lines
            .iter()
            .take_while(|l| matches!(l, Line::Context(_)))
            .count()
    }

    /// Context lines after the last change.
    pub fn suffix_context(&self) -> usize {
        if self.lines.iter().all(|l| matches!(l, Line::Context(_))) {
            return self.lines.len();
        }
        self.lines
            .iter()
            .rev()
            .take_while(|l| matches!(l, Line::Context(_)))
            .count()
    }

    /// The same hunk undoing itself (`-R`).
    pub fn reversed(&self) -> Hunk {
        Hunk {
            old_start: self.new_start,
            new_start: self.old_start,
            lines: self
                .lines
                .iter()
                .map(|l| match l {
                    Line::Removed(t) => Line::Added(t.clone()),
                    Line::Added(t) => Line::Removed(t.clone()),
                    c => c.clone(),
                })
                .collect(),
            old_no_eol: self.new_no_eol,
            new_no_eol: self.old_no_eol,
            at_line: self.at_line,
        }
    }
}

/// The patch of one file.
#[derive(Clone, Debug, Default)]
pub(crate) struct FilePatch {
    /// The name on the `---` (unified) or `***` (context) line.
    pub old_name: Option<String>,
    /// The name on the `+++` (unified) or `---` (context) line.
    pub new_name: Option<String>,
    /// The old side's timestamp is the epoch: `diff -N` wrote it for a file
    /// that did not exist, so the patch creates the file (as GNU reads it).
    pub old_absent: bool,
    /// The new side's timestamp is the epoch: the patch deletes the file.
    pub new_absent: bool,
    /// The lines before the first hunk, since the previous file patch (what
    /// GNU shows when it cannot find the file).
    pub leading: Vec<String>,
    /// The `---`/`+++` lines as written, for the reject file.
    pub header: Vec<String>,
    pub hunks: Vec<Hunk>,
}

/// The file patches of `input` (any other text around them is skipped).
pub(crate) fn parse(input: &[u8]) -> Vec<FilePatch> {
    let lines: Vec<&[u8]> = split_lines(input);
    let mut out = Vec::new();
    let mut i = 0;
    let mut leading: Vec<String> = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        let text = String::from_utf8_lossy(line).into_owned();
        // A `diff --git` line starts a file's header: what came before it
        // is not shown with this file.
        if text.starts_with("diff --git ") {
            leading = vec![text.clone()];
            i += 1;
            continue;
        }
        // Unified: `--- OLD` `+++ NEW` `@@ ...`.
        if text.starts_with("--- ")
            && i + 2 < lines.len()
            && lines[i + 1].starts_with(b"+++ ")
            && lines[i + 2].starts_with(b"@@ ")
        {
            let new_text = String::from_utf8_lossy(lines[i + 1]).into_owned();
            let mut fp = FilePatch {
                old_name: Some(name_of(&text[4..])),
                new_name: Some(name_of(&new_text[4..])),
                old_absent: stamped_epoch(&text[4..]),
                new_absent: stamped_epoch(&new_text[4..]),
                header: vec![text.clone(), new_text.clone()],
                ..FilePatch::default()
            };
            leading.push(text);
            leading.push(new_text);
            fp.leading = std::mem::take(&mut leading);
            i += 2;
            while i < lines.len() && lines[i].starts_with(b"@@ ") {
                match unified_hunk(&lines, &mut i) {
                    Some(h) => fp.hunks.push(h),
                    None => break,
                }
            }
            out.push(fp);
            continue;
        }
        // Context: `*** OLD` `--- NEW` `***************`.
        if text.starts_with("*** ")
            && i + 2 < lines.len()
            && lines[i + 1].starts_with(b"--- ")
            && lines[i + 2].starts_with(b"***************")
        {
            let new_text = String::from_utf8_lossy(lines[i + 1]).into_owned();
            let mut fp = FilePatch {
                old_name: Some(name_of(&text[4..])),
                new_name: Some(name_of(&new_text[4..])),
                old_absent: stamped_epoch(&text[4..]),
                new_absent: stamped_epoch(&new_text[4..]),
                header: vec![text.clone(), new_text.clone()],
                ..FilePatch::default()
            };
            leading.push(text);
            leading.push(new_text);
            fp.leading = std::mem::take(&mut leading);
            i += 2;
            while i < lines.len() && lines[i].starts_with(b"***************") {
                match context_hunk(&lines, &mut i) {
                    Some(h) => fp.hunks.push(h),
                    None => break,
                }
            }
            out.push(fp);
            continue;
        }
        leading.push(text);
        i += 1;
    }
    out
}

/// The lines of `input`, each without its newline.
fn split_lines(input: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if input.ends_with(b"\n") || input.is_empty() {
        v.pop();
    }
    v
}

/// A name on a `---`/`+++` line: up to a tab (a timestamp follows), and as
/// GNU's `fetchname` does, up to the first white space; `"..."` is a
/// quoted name.
fn name_of(field: &str) -> String {
    if let Some(q) = field.strip_prefix('"')
        && let Some(end) = q.find('"')
    {
        return q[..end].to_string();
    }
    field
        .split(['\t', ' '])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Whether the timestamp after a `---`/`+++` name (past its tab) is the
/// epoch in any zone (`1970-01-01 00:00:00.000000000 +0000`, or
/// `1969-12-31 19:00:00 -0500`): what `diff -N` writes for a missing file.
fn stamped_epoch(field: &str) -> bool {
    let Some((_, stamp)) = field.split_once('\t') else {
        return false;
    };
    let mut parts = stamp.split_whitespace();
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    let zone = parts.next().unwrap_or("+0000");
    let num = |s: &str| s.parse::<i64>().ok();
    let date: Vec<Option<i64>> = date.split('-').map(num).collect();
    let time: Vec<Option<i64>> = time
        .split('.')
        .next()
        .unwrap_or_default()
        .split(':')
        .map(num)
        .collect();
    let (&[Some(y), Some(m), Some(d)], &[Some(hh), Some(mm), Some(ss)]) =
        (date.as_slice(), time.as_slice())
    else {
        return false;
    };
    let (sign, digits) = match zone.split_at_checked(1) {
        Some(("-", z)) => (-1, z),
        Some(("+", z)) => (1, z),
        _ => return false,
    };
    let (Some(zh), Some(zm)) = (
        digits.get(..2).and_then(num),
        digits.get(2..4).and_then(num),
    ) else {
        return false;
    };
    // Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
    // days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let local = days * 86_400 + hh * 3_600 + mm * 60 + ss;
    local - sign * (zh * 3_600 + zm * 60) == 0
}

/// `START[,COUNT]` of a hunk header.
fn range(s: &str) -> Option<(usize, usize)> {
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

/// One `@@ -A,B +C,D @@` hunk starting at `lines[*i]`.
fn unified_hunk(lines: &[&[u8]], i: &mut usize) -> Option<Hunk> {
    let header = String::from_utf8_lossy(lines[*i]).into_owned();
    let at_line = *i + 1;
    let mut parts = header.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    *i += 1;
    let mut h = Hunk {
        old_start: if old_count == 0 {
            old_start + 1
        } else {
            old_start
        },
        new_start: if new_count == 0 {
            new_start + 1
        } else {
            new_start
        },
        lines: Vec::new(),
        old_no_eol: false,
        new_no_eol: false,
        at_line,
    };
    let (mut old_seen, mut new_seen) = (0, 0);
    while *i < lines.len() && (old_seen < old_count || new_seen < new_count) {
        let l = lines[*i];
        match l.first() {
            Some(b' ') | None => {
                h.lines
                    .push(Line::Context(l.get(1..).unwrap_or_default().to_vec()));
                old_seen += 1;
                new_seen += 1;
            }
            Some(b'-') => {
                h.lines.push(Line::Removed(l[1..].to_vec()));
                old_seen += 1;
            }
            Some(b'+') => {
                h.lines.push(Line::Added(l[1..].to_vec()));
                new_seen += 1;
            }
            Some(b'\\') => {}
            _ => return None,
        }
        *i += 1;
        no_eol_marker(lines, i, &mut h);
    }
    no_eol_marker(lines, i, &mut h);
    Some(h)
}

/// A `\ No newline at end of file` after the line just read marks the side
/// that line belongs to.
fn no_eol_marker(lines: &[&[u8]], i: &mut usize, h: &mut Hunk) {
    if *i < lines.len() && lines[*i].starts_with(b"\\") {
        match h.lines.last() {
            Some(Line::Removed(_)) => h.old_no_eol = true,
            Some(Line::Added(_)) => h.new_no_eol = true,
            Some(Line::Context(_)) => {
                h.old_no_eol = true;
                h.new_no_eol = true;
            }
            None => {}
        }
        *i += 1;
    }
}

/// One context-diff hunk: `***************`, `*** A,B ****` and its old
/// lines, `--- C,D ----` and its new lines (a side of only context is
/// left out).
fn context_hunk(lines: &[&[u8]], i: &mut usize) -> Option<Hunk> {
    let at_line = *i + 1;
    *i += 1;
    let old_header = String::from_utf8_lossy(lines.get(*i)?).into_owned();
    let old_range = old_header.strip_prefix("*** ")?.strip_suffix(" ****")?;
    let (old_start, old_end) = range(old_range)?;
    *i += 1;
    let mut old: Vec<(u8, Vec<u8>)> = Vec::new();
    while *i < lines.len() && !lines[*i].starts_with(b"--- ") {
        let l = lines[*i];
        if l.starts_with(b"\\") {
            *i += 1;
            continue;
        }
        old.push((
            *l.first().unwrap_or(&b' '),
            l.get(2..).unwrap_or_default().to_vec(),
        ));
        *i += 1;
    }
    let new_header = String::from_utf8_lossy(lines.get(*i)?).into_owned();
    let new_range = new_header.strip_prefix("--- ")?.strip_suffix(" ----")?;
    let (new_start, new_end) = range(new_range)?;
    *i += 1;
    let mut new: Vec<(u8, Vec<u8>)> = Vec::new();
    while *i < lines.len()
        && !lines[*i].starts_with(b"***************")
        && !lines[*i].starts_with(b"*** ")
        && !lines[*i].starts_with(b"diff ")
        && matches!(lines[*i].first(), Some(b' ' | b'+' | b'!' | b'-' | b'\\'))
    {
        let l = lines[*i];
        if !l.starts_with(b"\\") {
            new.push((l[0], l.get(2..).unwrap_or_default().to_vec()));
        }
        *i += 1;
    }
    let old_count = if old_start == 0 {
        0
    } else {
        old_end + 1 - old_start
    };
    let new_count = if new_start == 0 {
        0
    } else {
        new_end + 1 - new_start
    };
    if old.is_empty() && old_count > 0 {
        old = new.iter().filter(|(m, _)| *m == b' ').cloned().collect();
    }
    if new.is_empty() && new_count > 0 {
        new = old.iter().filter(|(m, _)| *m == b' ').cloned().collect();
    }
    let mut h = Hunk {
        old_start: if old_count == 0 {
            old_start + 1
        } else {
            old_start
        },
        new_start: if new_count == 0 {
            new_start + 1
        } else {
            new_start
        },
        lines: Vec::new(),
        old_no_eol: false,
        new_no_eol: false,
        at_line,
    };
    let (mut a, mut b) = (0, 0);
    while a < old.len() || b < new.len() {
        let om = old.get(a).map(|(m, _)| *m);
        let nm = new.get(b).map(|(m, _)| *m);
        match (om, nm) {
            (Some(b'-'), _) => {
                h.lines.push(Line::Removed(old[a].1.clone()));
                a += 1;
            }
            (_, Some(b'+')) => {
                h.lines.push(Line::Added(new[b].1.clone()));
                b += 1;
            }
            (Some(b'!'), _) => {
                while old.get(a).is_some_and(|(m, _)| *m == b'!') {
                    h.lines.push(Line::Removed(old[a].1.clone()));
                    a += 1;
                }
                while new.get(b).is_some_and(|(m, _)| *m == b'!') {
                    h.lines.push(Line::Added(new[b].1.clone()));
                    b += 1;
                }
            }
            (_, Some(b'!')) => {
                while new.get(b).is_some_and(|(m, _)| *m == b'!') {
                    h.lines.push(Line::Added(new[b].1.clone()));
                    b += 1;
                }
            }
            (Some(_), Some(_)) => {
                h.lines.push(Line::Context(old[a].1.clone()));
                a += 1;
                b += 1;
            }
            (Some(_), None) => {
                h.lines.push(Line::Context(old[a].1.clone()));
                a += 1;
            }
            (None, Some(_)) => {
                h.lines.push(Line::Context(new[b].1.clone()));
                b += 1;
            }
            (None, None) => break,
        }
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_and_context_hunks_read_alike() {
        let u = parse(b"--- f\t2024\n+++ f\n@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n");
        let c = parse(
            b"*** f\n--- f\n***************\n*** 2,4 ****\n  a\n! b\n  c\n--- 2,4 ----\n  a\n! B\n  c\n",
        );
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].old_name.as_deref(), Some("f"));
        assert_eq!(u[0].hunks[0].lines, c[0].hunks[0].lines);
        assert_eq!(u[0].hunks[0].old_start, 2);
        assert_eq!(u[0].hunks[0].prefix_context(), 1);
    }

    #[test]
    fn an_empty_old_side_starts_after_its_line() {
        let p = parse(b"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n");
        assert_eq!(p[0].hunks[0].old_start, 1);
        assert!(p[0].hunks[0].old().is_empty());
    }
}
