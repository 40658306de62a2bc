//! `diff3` (GNU diffutils 3.8): compares MYFILE and YOURFILE with their
//! common ancestor OLDFILE. The two two-way diffs (OLDFILE against each
//! side, on `imara-diff`) are joined into three-way blocks, which are
//! printed as diff3's listing (`====`, `====1/2/3`), as an ed script that
//! brings yours' changes into mine (`-e -E -x -X -3 -A`, `-i`) or as the
//! merged file with conflict markers (`-m`). Status 0, 1 when conflicts
//! were output (ed and merge forms), 2 on trouble.

use std::ops::Range;

use imara_diff::{Algorithm, Diff, InternedInput};

use super::common::quoting::quote;
use super::text::common::{diffutils_usage_error, read_input};
use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("diff3", Diff3Opt::HELP, diff3)];

declare_options! {
    /// diff3's options.
    pub(crate) enum Diff3Opt {
        usage: "Usage: diff3 [OPTION]... MYFILE OLDFILE YOURFILE",
        about: "Compare three files line by line.

Mandatory arguments to long options are mandatory for short options too.",
        after: "The default output format is a somewhat human-readable representation of
the changes.

The -e, -E, -x, -X (and corresponding long) options cause an ed script
to be output instead of the default.

Finally, the -m (--merge) option causes diff3 to do the merge internally
and output the actual merged file.  For unusual input, this is more
robust than using ed.

If a FILE is '-', read standard input.
Exit status is 0 if successful, 1 if conflicts, 2 if trouble.",
        rows: [
            ShowAll: 'A' "show-all" none => "output all changes, bracketing conflicts",
            Ed: 'e' "ed" none => "output ed script incorporating changes\nfrom OLDFILE to YOURFILE into MYFILE",
            ShowOverlap: 'E' "show-overlap" none => "like -e, but bracket conflicts",
            EasyOnly: '3' "easy-only" none => "like -e, but incorporate only nonoverlapping changes",
            OverlapOnly: 'x' "overlap-only" none => "like -e, but incorporate only overlapping changes",
            OverlapBracketed: 'X' - none => "like -x, but bracket conflicts",
            FinalWrite: 'i' - none => "append 'w' and 'q' commands to ed scripts",
            Merge: 'm' "merge" none => "output actual merged file, according to\n-A if no other options are given",
            Text: 'a' "text" none => "treat all files as text",
            StripCr: - "strip-trailing-cr" none => "strip trailing carriage return on input",
            InitialTab: 'T' "initial-tab" none => "make tabs line up by prepending a tab",
            DiffProgram: - "diff-program" required "PROGRAM" => "use PROGRAM to compare files",
            Label: 'L' "label" required "LABEL" => "use LABEL instead of file name\n(can be repeated up to three times)",
            Version: 'v' "version" none => "output version information and exit",
        ],
    }
}

/// Which blocks an ed script or a merge takes, and how (GNU's flags).
#[derive(Clone, Copy, Default)]
struct Mode {
    /// Output the older file's lines in conflicts (`-A`).
    show_2nd: bool,
    /// Bracket conflicts (`-E`, `-X`, `-A`).
    flagging: bool,
    /// Only the overlapping changes (`-x`, `-X`).
    overlap_only: bool,
    /// Only the non-overlapping changes (`-3`).
    simple_only: bool,
}

/// What the command line asked for.
struct Request {
    mode: Mode,
    /// An ed script (any of `-e -E -x -X -3 -A`, or `-i`).
    ed: bool,
    merge: bool,
    final_write: bool,
    initial_tab: bool,
    strip_cr: bool,
    labels: Vec<String>,
}

/// How one block differs: which file is the odd one out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// All three differ (`====`).
    All,
    /// Only mine differs (`====1`).
    Mine,
    /// Only the older file differs: mine and yours made the same change (`====2`).
    Older,
    /// Only yours differs (`====3`).
    Yours,
}

/// A three-way block: its kind and its line range in each file
/// (0 mine, 1 older, 2 yours).
struct Block {
    kind: Kind,
    ranges: [Range<usize>; 3],
}

/// `diff3 [OPTION]... MYFILE OLDFILE YOURFILE`
pub fn diff3(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match Diff3Opt::TABLE.parse(ctx.args) {
        Ok(p) => p,
        Err(e) => return diffutils_usage_error(ctx, &e),
    };
    let mut incompatible = 0;
    let mut req = Request {
        mode: Mode::default(),
        ed: false,
        merge: false,
        final_write: false,
        initial_tab: false,
        strip_cr: false,
        labels: Vec::new(),
    };
    for (opt, value) in &p.opts {
        match opt {
            Diff3Opt::ShowAll => {
                req.mode.show_2nd = true;
                req.mode.flagging = true;
                incompatible += 1;
            }
            Diff3Opt::Ed => incompatible += 1,
            Diff3Opt::ShowOverlap => {
                req.mode.flagging = true;
                incompatible += 1;
            }
            Diff3Opt::EasyOnly => {
                req.mode.simple_only = true;
                incompatible += 1;
            }
            Diff3Opt::OverlapOnly => {
                req.mode.overlap_only = true;
                incompatible += 1;
            }
            // diffutils 3.8 prints -X's script as -x's, unbracketed.
            Diff3Opt::OverlapBracketed => {
                req.mode.overlap_only = true;
                incompatible += 1;
            }
            Diff3Opt::FinalWrite => req.final_write = true,
            Diff3Opt::Merge => req.merge = true,
            Diff3Opt::Text | Diff3Opt::DiffProgram => {}
            Diff3Opt::StripCr => req.strip_cr = true,
            Diff3Opt::InitialTab => req.initial_tab = true,
            Diff3Opt::Label => {
                if req.labels.len() == 3 {
                    return diffutils_usage_error(ctx, "too many file label options");
                }
                req.labels.push(value.clone().unwrap_or_default());
            }
            Diff3Opt::Version => {
                let _ = ctx.stdout.write_all(b"diff3 (GNU diffutils) 3.8\n");
                return 0;
            }
        }
    }
    // -m alone means -A; -e is the default ed script.
    if req.merge && incompatible == 0 {
        req.mode.show_2nd = true;
        req.mode.flagging = true;
    }
    req.ed = incompatible > 0;
    if incompatible > 1
        || (req.final_write && req.merge)
        || !(req.labels.is_empty() || req.merge || req.mode.flagging)
    {
        return diffutils_usage_error(ctx, "incompatible options");
    }
    match p.operands.len() {
        0..=2 => {
            let msg = match p.operands.last() {
                Some(last) => format!("missing operand after {}", quote(last)),
                None => "missing operand after 'diff3'".to_string(),
            };
            return diffutils_usage_error(ctx, &msg);
        }
        3 => {}
        _ => {
            let msg = format!("extra operand {}", quote(&p.operands[3]));
            return diffutils_usage_error(ctx, &msg);
        }
    }
    let mut texts = Vec::with_capacity(3);
    for name in &p.operands {
        match read_input(ctx.fs, ctx.cwd, ctx.stdin, name) {
            Ok(data) => texts.push(data),
            Err(e) => {
                ctx.error(format!("{name}: {e}"));
                return 2;
            }
        }
    }
    for (i, name) in p.operands.iter().enumerate() {
        if req.labels.len() <= i {
            req.labels.push(name.clone());
        }
    }
    let files: Vec<Vec<&[u8]>> = texts.iter().map(|t| lines(t, req.strip_cr)).collect();
    let blocks = three_way(&files);
    let mut out = Vec::new();
    let conflicts = if req.merge {
        merged(&mut out, &blocks, &files, &req)
    } else if req.ed {
        ed_script(&mut out, &blocks, &files, &req)
    } else {
        listing(&mut out, &blocks, &files, req.initial_tab);
        false
    };
    let _ = ctx.stdout.write_all(&out);
    i32::from(conflicts)
}

/// The lines of a file, each with its newline (the last may lack one).
fn lines(data: &[u8], strip_cr: bool) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    if strip_cr {
        // A line's CR before its newline does not count in comparisons;
        // GNU prints the lines without it too.
        for l in &mut v {
            if l.ends_with(b"\r\n") {
                *l = &l[..l.len() - 2];
            }
        }
    }
    v
}

/// The hunks turning `older` into `other`: (older range, other range).
fn hunks(older: &[&[u8]], other: &[&[u8]]) -> Vec<(Range<usize>, Range<usize>)> {
    let mut input = InternedInput::default();
    input.update_before(older.iter().copied());
    input.update_after(other.iter().copied());
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_no_heuristic(&input);
    diff.hunks()
        .map(|h| {
            (
                h.before.start as usize..h.before.end as usize,
                h.after.start as usize..h.after.end as usize,
            )
        })
        .collect()
}

/// Joins the two diffs against the older file into blocks: hunks of
/// either side that overlap or touch in the older file make one block.
fn three_way(files: &[Vec<&[u8]>]) -> Vec<Block> {
    let sides = [hunks(&files[1], &files[0]), hunks(&files[1], &files[2])];
    let mut next = [0usize, 0usize];
    // Lines each side gained over the older file before the current point.
    let mut shift = [0isize, 0isize];
    let mut blocks = Vec::new();
    loop {
        let first = match (sides[0].get(next[0]), sides[1].get(next[1])) {
            (None, None) => break,
            (Some(_), None) => 0,
            (None, Some(_)) => 1,
            (Some(a), Some(b)) => usize::from(b.0.start < a.0.start),
        };
        let low = sides[first][next[first]].0.start;
        let mut high = sides[first][next[first]].0.end;
        let mut taken: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        taken[first].push(next[first]);
        next[first] += 1;
        // Keep taking hunks of either side that reach the block.
        loop {
            let mut grew = false;
            for s in 0..2 {
                while let Some(h) = sides[s].get(next[s])
                    && h.0.start <= high
                {
                    high = high.max(h.0.end);
                    taken[s].push(next[s]);
                    next[s] += 1;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let mut ranges = [0..0, low..high, 0..0];
        for s in 0..2 {
            let file = if s == 0 { 0 } else { 2 };
            let (start, end) = match (taken[s].first(), taken[s].last()) {
                (Some(&f), Some(&l)) => {
                    let (fo, fx) = &sides[s][f];
                    let (lo, lx) = &sides[s][l];
                    let start = fx.start as isize - (fo.start as isize - low as isize);
                    let end = lx.end as isize + (high as isize - lo.end as isize);
                    (start, end)
                }
                _ => (low as isize + shift[s], high as isize + shift[s]),
            };
            ranges[file] = start.max(0) as usize..end.max(start).max(0) as usize;
            shift[s] = end - high as isize;
        }
        let kind = match (taken[0].is_empty(), taken[1].is_empty()) {
            (false, true) => Kind::Mine,
            (true, false) => Kind::Yours,
            _ if files[0][ranges[0].clone()] == files[2][ranges[2].clone()] => Kind::Older,
            _ => Kind::All,
        };
        blocks.push(Block { kind, ranges });
    }
    blocks
}

/// `2c`, `1,3c`, `0a` (an empty range after line 0).
fn range_words(r: &Range<usize>) -> String {
    match r.len() {
        0 => format!("{}a", r.start),
        1 => format!("{}c", r.start + 1),
        _ => format!("{},{}c", r.start + 1, r.end),
    }
}

/// The default listing: each block's header, then each file's range, the
/// lines printed once per group of files that agree (after the last of them).
fn listing(out: &mut Vec<u8>, blocks: &[Block], files: &[Vec<&[u8]>], tab: bool) {
    for b in blocks {
        let (header, order): (&str, [usize; 3]) = match b.kind {
            Kind::All => ("====\n", [0, 1, 2]),
            Kind::Mine => ("====1\n", [0, 1, 2]),
            Kind::Older => ("====2\n", [0, 2, 1]),
            Kind::Yours => ("====3\n", [0, 1, 2]),
        };
        out.extend_from_slice(header.as_bytes());
        for (k, &f) in order.iter().enumerate() {
            out.extend_from_slice(format!("{}:{}\n", f + 1, range_words(&b.ranges[f])).as_bytes());
            let same_as_next = matches!(
                (b.kind, k),
                (Kind::Yours, 0) | (Kind::Mine, 1) | (Kind::Older, 0)
            );
            if same_as_next {
                continue;
            }
            for line in &files[f][b.ranges[f].clone()] {
                out.extend_from_slice(if tab { b"\t" } else { b"  " });
                out.extend_from_slice(line);
                if !line.ends_with(b"\n") {
                    out.extend_from_slice(b"\n\\ No newline at end of file\n");
                }
            }
        }
    }
}

/// Whether an ed script or a merge takes a block, and as a conflict.
fn chosen(kind: Kind, mode: Mode) -> Option<bool> {
    match kind {
        Kind::Mine => None,
        Kind::Older => mode.show_2nd.then_some(true),
        Kind::Yours => (!mode.overlap_only).then_some(false),
        Kind::All => (!mode.simple_only).then_some(mode.flagging),
    }
}

/// Appends lines for an ed `a`/`c` command, doubling a leading `.` (then
/// undone by an `s` command); returns whether any line needed it.
fn ed_lines(out: &mut Vec<u8>, lines: &[&[u8]]) -> bool {
    let mut dotted = false;
    for line in lines {
        if line.first() == Some(&b'.') {
            out.push(b'.');
            dotted = true;
        }
        out.extend_from_slice(line);
        if !line.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    dotted
}

/// Ends an ed text block; when lines were dotted, removes the extra dots
/// from the `count` lines that start at `start`.
fn ed_end(out: &mut Vec<u8>, dotted: bool, start: usize, count: usize) {
    out.extend_from_slice(b".\n");
    if dotted {
        let cmd = if count > 1 {
            format!("{},{}s/^\\.//\n", start, start + count - 1)
        } else {
            format!("{start}s/^\\.//\n")
        };
        out.extend_from_slice(cmd.as_bytes());
    }
}

/// The ed script bringing yours' changes into mine, last block first.
fn ed_script(out: &mut Vec<u8>, blocks: &[Block], files: &[Vec<&[u8]>], req: &Request) -> bool {
    let mut conflicts = false;
    for b in blocks.iter().rev() {
        let Some(conflict) = chosen(b.kind, req.mode) else {
            continue;
        };
        let [mine, older, yours] = &b.ranges;
        let (low, high) = (mine.start + 1, mine.end);
        if conflict {
            conflicts = true;
            out.extend_from_slice(format!("{high}a\n").as_bytes());
            let mut dotted = false;
            if b.kind == Kind::All {
                if req.mode.show_2nd {
                    out.extend_from_slice(format!("||||||| {}\n", req.labels[1]).as_bytes());
                    dotted |= ed_lines(out, &files[1][older.clone()]);
                }
                out.extend_from_slice(b"=======\n");
                dotted |= ed_lines(out, &files[2][yours.clone()]);
            }
            out.extend_from_slice(format!(">>>>>>> {}\n", req.labels[2]).as_bytes());
            ed_end(out, dotted, high + 2, older.len() + yours.len() + 1);
            let opener = if b.kind == Kind::All {
                format!("<<<<<<< {}", req.labels[0])
            } else {
                // Mine and yours agree: the older lines go before them.
                let mut s = format!("<<<<<<< {}\n", req.labels[1]);
                let mut body = Vec::new();
                ed_lines(&mut body, &files[1][older.clone()]);
                s.push_str(&String::from_utf8_lossy(&body));
                s.push_str("=======");
                s
            };
            out.extend_from_slice(format!("{}a\n{opener}\n.\n", low - 1).as_bytes());
        } else if yours.is_empty() {
            let cmd = if low == high {
                format!("{low}d\n")
            } else {
                format!("{low},{high}d\n")
            };
            out.extend_from_slice(cmd.as_bytes());
        } else {
            let cmd = match mine.len() {
                0 => format!("{high}a\n"),
                1 => format!("{high}c\n"),
                _ => format!("{low},{high}c\n"),
            };
            out.extend_from_slice(cmd.as_bytes());
            let dotted = ed_lines(out, &files[2][yours.clone()]);
            ed_end(out, dotted, low, yours.len());
        }
    }
    if req.final_write {
        out.extend_from_slice(b"w\nq\n");
    }
    conflicts
}

/// The merged file: mine, with the chosen blocks replaced by yours' lines
/// or by a bracketed conflict.
fn merged(out: &mut Vec<u8>, blocks: &[Block], files: &[Vec<&[u8]>], req: &Request) -> bool {
    let mut conflicts = false;
    let mut at = 0;
    let marker = |out: &mut Vec<u8>, words: &str| {
        // A marker starts its own line even after a last line without newline.
        if out.last().is_some_and(|&c| c != b'\n') {
            out.push(b'\n');
        }
        out.extend_from_slice(words.as_bytes());
        out.push(b'\n');
    };
    for b in blocks {
        let Some(conflict) = chosen(b.kind, req.mode) else {
            continue;
        };
        let [mine, older, yours] = &b.ranges;
        for line in &files[0][at..mine.start] {
            out.extend_from_slice(line);
        }
        at = mine.end;
        if !conflict {
            for line in &files[2][yours.clone()] {
                out.extend_from_slice(line);
            }
            continue;
        }
        conflicts = true;
        if b.kind == Kind::All {
            marker(out, &format!("<<<<<<< {}", req.labels[0]));
            files[0][mine.clone()]
                .iter()
                .for_each(|l| out.extend_from_slice(l));
            if req.mode.show_2nd {
                marker(out, &format!("||||||| {}", req.labels[1]));
                files[1][older.clone()]
                    .iter()
                    .for_each(|l| out.extend_from_slice(l));
            }
        } else {
            marker(out, &format!("<<<<<<< {}", req.labels[1]));
            files[1][older.clone()]
                .iter()
                .for_each(|l| out.extend_from_slice(l));
        }
        marker(out, "=======");
        files[2][yours.clone()]
            .iter()
            .for_each(|l| out.extend_from_slice(l));
        marker(out, &format!(">>>>>>> {}", req.labels[2]));
    }
    for line in &files[0][at..] {
        out.extend_from_slice(line);
    }
    conflicts
}
