//! `join`: join lines of two sorted files on a common field (`-1 -2 -j -t
//! -a -v -e -o -i --header --check-order --nocheck-order -z`).

use std::cmp::Ordering;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: join [OPTION]... FILE1 FILE2
For each pair of input lines with identical join fields, write a line to
standard output.  The default join field is the first, delimited by blanks.

  -a FILENUM        also print unpairable lines from file FILENUM, where
                      FILENUM is 1 or 2, corresponding to FILE1 or FILE2
  -e STRING         replace missing (empty) input fields with STRING
  -i, --ignore-case  ignore differences in case when comparing fields
  -j FIELD          equivalent to '-1 FIELD -2 FIELD'
  -o FORMAT         obey FORMAT while constructing output line
  -t CHAR           use CHAR as input and output field separator
  -v FILENUM        like -a FILENUM, but suppress joined output lines
  -1 FIELD          join on this FIELD of file 1
  -2 FIELD          join on this FIELD of file 2
  --check-order     check that the input is correctly sorted
  --nocheck-order   do not check that the input is correctly sorted
  --header          treat the first line in each file as field headers
  -z, --zero-terminated     line delimiter is NUL, not newline
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("a", Some('a'), None, Arg::Required),
    opt("e", Some('e'), None, Arg::Required),
    opt("i", Some('i'), Some("ignore-case"), Arg::None),
    opt("j", Some('j'), None, Arg::Required),
    opt("o", Some('o'), None, Arg::Required),
    opt("t", Some('t'), None, Arg::Required),
    opt("v", Some('v'), None, Arg::Required),
    opt("1", Some('1'), None, Arg::Required),
    opt("2", Some('2'), None, Arg::Required),
    opt("check-order", None, Some("check-order"), Arg::None),
    opt("nocheck-order", None, Some("nocheck-order"), Arg::None),
    opt("header", None, Some("header"), Arg::None),
    opt("z", Some('z'), Some("zero-terminated"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// An output field: `0` (the join field) or FILE.FIELD.
#[derive(Clone, Copy)]
enum OutField {
    Key,
    Field(usize, usize),
}

struct Cfg {
    tab: Option<u8>,
    keys: [usize; 2],
    icase: bool,
    empty: Option<Vec<u8>>,
    format: Option<Vec<OutField>>,
    auto: bool,
}

fn fields(line: &[u8], tab: Option<u8>) -> Vec<&[u8]> {
    match tab {
        Some(t) => line.split(|b| *b == t).collect(),
        None => line
            .split(|b| *b == b' ' || *b == b'\t')
            .filter(|f| !f.is_empty())
            .collect(),
    }
}

impl Cfg {
    fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        if self.icase {
            a.iter()
                .map(u8::to_ascii_lowercase)
                .cmp(b.iter().map(u8::to_ascii_lowercase))
        } else {
            a.cmp(b)
        }
    }

    fn sep(&self) -> u8 {
        self.tab.unwrap_or(b' ')
    }

    /// Writes one output line; `a`/`b` are the fields of each side (None: unpaired).
    fn emit(
        &self,
        a: Option<&[&[u8]]>,
        b: Option<&[&[u8]]>,
        widths: [usize; 2],
        out: &mut Vec<u8>,
    ) {
        let key = a
            .and_then(|f| f.get(self.keys[0]).copied())
            .or_else(|| b.and_then(|f| f.get(self.keys[1]).copied()));
        let empty: &[u8] = self.empty.as_deref().unwrap_or(b"");
        let mut parts: Vec<&[u8]> = Vec::new();
        let fmt: Vec<OutField> = match &self.format {
            Some(f) => f.clone(),
            None if self.auto => {
                let mut v = vec![OutField::Key];
                for (s, w) in widths.iter().enumerate() {
                    v.extend(
                        (0..*w)
                            .filter(|i| *i != self.keys[s])
                            .map(|i| OutField::Field(s, i)),
                    );
                }
                v
            }
            None => {
                parts.push(key.unwrap_or(empty));
                for (s, side) in [a, b].iter().enumerate() {
                    if let Some(f) = side {
                        parts.extend(
                            f.iter()
                                .enumerate()
                                .filter(|(i, _)| *i != self.keys[s])
                                .map(|(_, x)| *x),
                        );
                    }
                }
                Vec::new()
            }
        };
        for f in fmt {
            parts.push(match f {
                OutField::Key => key.unwrap_or(empty),
                OutField::Field(s, i) => [a, b][s].and_then(|x| x.get(i).copied()).unwrap_or(empty),
            });
        }
        for (k, p) in parts.iter().enumerate() {
            if k > 0 {
                out.push(self.sep());
            }
            out.extend_from_slice(p);
        }
    }
}

fn field_num(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n - 1),
        _ => Err(format!("invalid field number: {}", common::quote_locale(s))),
    }
}

/// What the options ask for besides the line format ([`Cfg`]).
struct Selection {
    /// `-a N` / `-v N`: print the unpairable lines of file N.
    print_unpaired: [bool; 2],
    /// `-v`: print only unpairable lines, no joined ones.
    only_unpaired: bool,
}

/// The line format and selection the options ask for, in option order.
fn parse_options(p: &common::Parsed) -> Result<(Cfg, Selection), String> {
    let mut cfg = Cfg {
        tab: None,
        keys: [0, 0],
        icase: false,
        empty: None,
        format: None,
        auto: false,
    };
    let mut sel = Selection {
        print_unpaired: [false, false],
        only_unpaired: false,
    };
    for (id, v) in &p.opts {
        apply_option(id, v.as_deref().unwrap_or(""), &mut cfg, &mut sel)?;
    }
    Ok((cfg, sel))
}

/// One option `id` with argument `v` (empty when it takes none).
fn apply_option(id: &str, v: &str, cfg: &mut Cfg, sel: &mut Selection) -> Result<(), String> {
    match id {
        "a" | "v" => {
            let n = match v {
                "1" => 0,
                "2" => 1,
                _ => return Err(format!("invalid field number: {}", common::quote_locale(v))),
            };
            sel.print_unpaired[n] = true;
            if id == "v" {
                sel.only_unpaired = true;
            }
        }
        "e" => cfg.empty = Some(v.as_bytes().to_vec()),
        "i" => cfg.icase = true,
        "j" => {
            let n = field_num(v)?;
            cfg.keys = [n, n];
        }
        "1" => cfg.keys[0] = field_num(v)?,
        "2" => cfg.keys[1] = field_num(v)?,
        "t" => {
            cfg.tab = match v.as_bytes() {
                [c] => Some(*c),
                [] => Some(b'\n'),
                b"\\0" => Some(0),
                _ => return Err(format!("multi-character tab {}", common::quote_locale(v))),
            }
        }
        "o" => {
            if v == "auto" {
                cfg.auto = true;
                return Ok(());
            }
            let mut f = cfg.format.take().unwrap_or_default();
            for spec in v.split([',', ' ']).filter(|s| !s.is_empty()) {
                if spec == "0" {
                    f.push(OutField::Key);
                    continue;
                }
                let quoted = common::quote_locale(spec);
                let (file, field) = match spec.as_bytes() {
                    [n @ (b'1' | b'2'), b'.', ..] => (usize::from(n - b'1'), &spec[2..]),
                    [b'0'..=b'2', ..] => {
                        return Err(format!("invalid field specifier: {quoted}"));
                    }
                    _ => return Err(format!("invalid file number in field spec: {quoted}")),
                };
                f.push(OutField::Field(file, field_num(field)?));
            }
            cfg.format = Some(f);
        }
        _ => {}
    }
    Ok(())
}

/// Both inputs split into records: each record's fields, and the record
/// itself (for the order-check message).
struct Sides<'a> {
    lines: [Vec<Vec<&'a [u8]>>; 2],
    raw: [Vec<&'a [u8]>; 2],
}

/// `join`
pub fn join(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let (cfg, sel) = match parse_options(&p) {
        Ok(parsed) => parsed,
        Err(e) => {
            common::err(ctx.stderr, "join", e);
            return 1;
        }
    };
    if p.operands.len() != 2 {
        let msg = match p.operands.len() {
            0 => "missing operand".to_string(),
            // GNU's join quotes the extra operand without the locale's quotes.
            1 => format!(
                "missing operand after {}",
                common::quote_locale(&p.operands[0])
            ),
            _ => format!("extra operand '{}'", p.operands[2]),
        };
        common::usage_error(ctx, &msg);
        return 1;
    }
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, common::fread_error);
    if !ok {
        return 1;
    }
    let eol = if p.has("z") { 0 } else { b'\n' };
    let check = if p.has("nocheck-order") {
        Some(false)
    } else if p.has("check-order") {
        Some(true)
    } else {
        None
    };
    let mut sides = Sides {
        lines: [Vec::new(), Vec::new()],
        raw: [Vec::new(), Vec::new()],
    };
    for (s, input) in inputs.iter().enumerate() {
        for l in common::records(&input.1, eol) {
            sides.lines[s].push(fields(l, cfg.tab));
            sides.raw[s].push(l);
        }
    }
    let mut out = Vec::new();
    let merge = Merge {
        cfg: &cfg,
        sel: &sel,
        check,
        names: &p.operands,
        eol,
    };
    let status = merge.run(&sides, p.has("header"), ctx.stderr, &mut out);
    let _ = ctx.stdout.write_all(&out);
    if status != 0 {
        common::err(ctx.stderr, "join", "input is not in sorted order");
    }
    status
}

/// How the two sides are walked in step.
struct Merge<'a> {
    cfg: &'a Cfg,
    sel: &'a Selection,
    /// `--check-order` (`Some(true)`), `--nocheck-order` (`Some(false)`), or
    /// the default: complain only about an unpairable line out of order.
    check: Option<bool>,
    /// The two file operands, for messages.
    names: &'a [String],
    eol: u8,
}

impl Merge<'_> {
    /// Walks both sorted sides, writing joined and unpaired lines to `out`;
    /// 1 when a side was out of order, else 0.
    fn run(
        &self,
        sides: &Sides<'_>,
        header: bool,
        stderr: &mut dyn std::io::Write,
        out: &mut Vec<u8>,
    ) -> i32 {
        let (cfg, eol, lines) = (self.cfg, self.eol, &sides.lines);
        let print_unpaired = self.sel.print_unpaired;
        let widths = [
            lines[0].first().map(|f| f.len()).unwrap_or(0),
            lines[1].first().map(|f| f.len()).unwrap_or(0),
        ];
        let (mut i, mut j) = (0, 0);
        if header {
            if !lines[0].is_empty() || !lines[1].is_empty() {
                cfg.emit(
                    lines[0].first().map(|v| &v[..]),
                    lines[1].first().map(|v| &v[..]),
                    widths,
                    out,
                );
                out.push(eol);
            }
            i = 1;
            j = 1;
        }
        let key = |s: usize, idx: usize| -> &[u8] {
            lines[s][idx].get(cfg.keys[s]).copied().unwrap_or(b"")
        };
        let mut status = 0;
        let mut disorder = [false, false];
        let mut warn = |s: usize, idx: usize, stderr: &mut dyn std::io::Write, status: &mut i32| {
            self.check_order(sides, &mut disorder, s, idx, stderr, status);
        };
        while i < lines[0].len() && j < lines[1].len() {
            let ord = cfg.cmp(key(0, i), key(1, j));
            match ord {
                Ordering::Less => {
                    warn(0, i, stderr, &mut status);
                    if print_unpaired[0] {
                        cfg.emit(Some(&lines[0][i]), None, widths, out);
                        out.push(eol);
                    }
                    i += 1;
                }
                Ordering::Greater => {
                    warn(1, j, stderr, &mut status);
                    if print_unpaired[1] {
                        cfg.emit(None, Some(&lines[1][j]), widths, out);
                        out.push(eol);
                    }
                    j += 1;
                }
                Ordering::Equal => {
                    let k = key(0, i);
                    let mut i2 = i;
                    while i2 < lines[0].len() && cfg.cmp(key(0, i2), k) == Ordering::Equal {
                        i2 += 1;
                    }
                    let mut j2 = j;
                    while j2 < lines[1].len() && cfg.cmp(key(1, j2), k) == Ordering::Equal {
                        j2 += 1;
                    }
                    if !self.sel.only_unpaired {
                        for a in i..i2 {
                            for b in j..j2 {
                                cfg.emit(Some(&lines[0][a]), Some(&lines[1][b]), widths, out);
                                out.push(eol);
                            }
                        }
                    }
                    i = i2;
                    j = j2;
                }
            }
        }
        while i < lines[0].len() {
            warn(0, i, stderr, &mut status);
            if print_unpaired[0] {
                cfg.emit(Some(&lines[0][i]), None, widths, out);
                out.push(eol);
            }
            i += 1;
        }
        while j < lines[1].len() {
            warn(1, j, stderr, &mut status);
            if print_unpaired[1] {
                cfg.emit(None, Some(&lines[1][j]), widths, out);
                out.push(eol);
            }
            j += 1;
        }
        status
    }

    /// Reports line `idx` of side `s` when it sorts before its predecessor:
    /// once per side, and (without `--check-order`) only for the unpairable
    /// lines this is called for.
    fn check_order(
        &self,
        sides: &Sides<'_>,
        disorder: &mut [bool; 2],
        s: usize,
        idx: usize,
        stderr: &mut dyn std::io::Write,
        status: &mut i32,
    ) {
        if self.check == Some(false) || disorder[s] || idx == 0 {
            return;
        }
        let cfg = self.cfg;
        let prev = sides.lines[s][idx - 1]
            .get(cfg.keys[s])
            .copied()
            .unwrap_or(b"");
        let cur = sides.lines[s][idx].get(cfg.keys[s]).copied().unwrap_or(b"");
        if cfg.cmp(prev, cur) == Ordering::Greater {
            disorder[s] = true;
            *status = 1;
            let _ = writeln!(
                stderr,
                "join: {}:{}: is not sorted: {}",
                self.names[s],
                idx + 1,
                String::from_utf8_lossy(sides.raw[s][idx])
            );
        }
    }
}
