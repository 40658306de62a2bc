//! `tac`: concatenate files with their records in reverse order (`-s SEP`,
//! `-b`; a regex separator `-r` is taken literally).

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::commands::files::common::quote;
use crate::fs::FsError;

pub(crate) const USAGE: &str = "\
Usage: tac [OPTION]... [FILE]...
Write each FILE to standard output, last line first.

With no FILE, or when FILE is -, read standard input.

  -b, --before             attach the separator before instead of after
  -r, --regex              interpret the separator as a regular expression
  -s, --separator=STRING   use STRING as the separator instead of newline
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("before"), Arg::None),
    opt("r", Some('r'), Some("regex"), Arg::None),
    opt("s", Some('s'), Some("separator"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

/// `tac`
pub fn tac(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let sep = p.last("s").unwrap_or("\n").as_bytes().to_vec();
    if sep.is_empty() {
        common::err(ctx.stderr, "tac", "separator cannot be empty");
        return 1;
    }
    let before = p.has("b");
    // GNU's tac seeks in its input: a directory fails with EINVAL.
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, |name, e| match e {
        FsError::IsADirectory if name == "-" => {
            "'standard input': read error: Invalid argument".into()
        }
        FsError::IsADirectory => format!("{}: read error: Invalid argument", common::quotef(name)),
        _ => format!("failed to open {} for reading: {e}", quote(name)),
    });
    let mut out = Vec::new();
    for (_, data) in &inputs {
        // Split into records, each keeping its separator (after, or before with -b).
        let finder = memchr::memmem::Finder::new(&sep);
        let mut recs: Vec<&[u8]> = Vec::new();
        let mut start = 0;
        for i in finder.find_iter(data) {
            if before {
                if i > start || i == 0 {
                    recs.push(&data[start..i]);
                }
                start = i;
            } else {
                recs.push(&data[start..i + sep.len()]);
                start = i + sep.len();
            }
        }
        if start < data.len() {
            recs.push(&data[start..]);
        }
        if before && recs.first().is_some_and(|r| r.is_empty()) {
            recs.remove(0);
        }
        for r in recs.iter().rev() {
            out.extend_from_slice(r);
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}
