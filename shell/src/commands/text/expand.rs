//! `expand` and `unexpand`: convert tabs to spaces and back (`-t N|LIST`,
//! `-i`, `-a`, `--first-only`).

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const EXPAND_USAGE: &str = "\
Usage: expand [OPTION]... [FILE]...
Convert tabs in each FILE to spaces, writing to standard output.

  -i, --initial    do not convert tabs after non blanks
  -t, --tabs=N     have tabs N characters apart, not 8
  -t, --tabs=LIST  use comma separated list of tab positions
      --help       display this help and exit
";

pub(crate) const UNEXPAND_USAGE: &str = "\
Usage: unexpand [OPTION]... [FILE]...
Convert blanks in each FILE to tabs, writing to standard output.

  -a, --all        convert all blanks, instead of just initial blanks
      --first-only  convert only leading sequences of blanks (overrides -a)
  -t, --tabs=N     have tabs N characters apart instead of 8 (enables -a)
  -t, --tabs=LIST  use comma separated list of tab positions (enables -a)
      --help       display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("i", Some('i'), Some("initial"), Arg::None),
    opt("a", Some('a'), Some("all"), Arg::None),
    opt("first-only", None, Some("first-only"), Arg::None),
    opt("t", Some('t'), Some("tabs"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

/// Tab stops: explicit positions, then every `step` after the last (or
/// single spaces when `step` is 0).
struct Stops {
    list: Vec<usize>,
    step: usize,
}

impl Stops {
    fn parse(specs: &[String]) -> Result<Stops, String> {
        let mut list = Vec::new();
        for s in specs {
            for part in s.split([',', ' ']).filter(|p| !p.is_empty()) {
                let p = part.trim_start_matches(['/', '+']);
                let n: usize = p.parse().map_err(|_| {
                    format!(
                        "tab size contains invalid character(s): {}",
                        common::quote_locale(s)
                    )
                })?;
                if n == 0 {
                    return Err("tab size cannot be 0".into());
                }
                if list.last().is_some_and(|l| *l >= n) {
                    return Err("tab sizes must be ascending".into());
                }
                list.push(n);
            }
        }
        Ok(match list.len() {
            0 => Stops {
                list: vec![],
                step: 8,
            },
            1 => Stops {
                list: vec![],
                step: list[0],
            },
            _ => Stops { list, step: 0 },
        })
    }

    /// The next stop after column `col`; `None` past the last explicit one.
    fn next(&self, col: usize) -> Option<usize> {
        if self.list.is_empty() {
            return Some(col + self.step - col % self.step);
        }
        self.list.iter().copied().find(|s| *s > col)
    }
}

fn setup(ctx: &mut CommandCtx<'_>) -> Result<(common::Parsed, Stops), i32> {
    let mode = ParseMode {
        digit_option: true,
        ..Default::default()
    };
    let p = common::start(ctx, SPEC, mode, 1)?;
    let mut specs: Vec<String> = Vec::new();
    for (id, v) in &p.opts {
        if *id == "t" || *id == "NUM" {
            specs.push(v.clone().unwrap_or_default());
        }
    }
    match Stops::parse(&specs) {
        Ok(s) => Ok((p, s)),
        Err(e) => {
            let name = ctx.args[0].clone();
            common::err(ctx.stderr, &name, e);
            Err(1)
        }
    }
}

/// `expand`
pub fn expand(ctx: &mut CommandCtx<'_>) -> i32 {
    let (p, stops) = match setup(ctx) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let initial = p.has("i");
    let (inputs, ok) = common::read_operands(ctx, &p.operands);
    let mut out = Vec::new();
    for (_, data) in &inputs {
        let mut col = 0;
        let mut leading = true;
        for &b in data.iter() {
            match b {
                b'\t' if !initial || leading => {
                    let to = stops.next(col).unwrap_or(col + 1);
                    out.extend(std::iter::repeat_n(b' ', to - col));
                    col = to;
                }
                b'\n' => {
                    out.push(b);
                    col = 0;
                    leading = true;
                }
                8 => {
                    out.push(b);
                    col = col.saturating_sub(1);
                }
                _ => {
                    if b != b' ' && b != b'\t' {
                        leading = false;
                    }
                    out.push(b);
                    col += 1;
                }
            }
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}

/// `unexpand`
pub fn unexpand(ctx: &mut CommandCtx<'_>) -> i32 {
    let (p, stops) = match setup(ctx) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let all = (p.has("a") || p.has("t")) && !p.has("first-only");
    let (inputs, ok) = common::read_operands(ctx, &p.operands);
    let mut out = Vec::new();
    for (_, data) in &inputs {
        for line in data.split_inclusive(|b| *b == b'\n') {
            unexpand_line(line, &stops, all, &mut out);
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}

fn unexpand_line(line: &[u8], stops: &Stops, all: bool, out: &mut Vec<u8>) {
    let mut col = 0;
    let mut pending: Vec<u8> = Vec::new();
    let mut leading = true;
    for (i, &b) in line.iter().enumerate() {
        let convertible = leading || all;
        if (b == b' ' || b == b'\t') && convertible {
            let next = if b == b'\t' {
                stops.next(col)
            } else {
                Some(col + 1)
            };
            let Some(next) = next else {
                // Past the last tab stop: copy the rest unchanged.
                out.append(&mut pending);
                out.extend_from_slice(&line[i..]);
                return;
            };
            pending.push(b);
            let stop = stops.next(col);
            col = next;
            if stop == Some(col) {
                if pending.len() > 1 || pending[0] == b'\t' {
                    out.push(b'\t');
                } else {
                    out.push(b' ');
                }
                pending.clear();
            }
            continue;
        }
        out.append(&mut pending);
        if b != b'\n' {
            leading = false;
        }
        out.push(b);
        col = if b == 8 {
            col.saturating_sub(1)
        } else {
            col + 1
        };
    }
    out.append(&mut pending);
}
