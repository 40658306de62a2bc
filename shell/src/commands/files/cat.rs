//! `cat`: concatenate files, with GNU's numbering and visibility options.

use super::common::{GnuError, quotef};
use std::io::Write;

use super::input::{for_each_chunk, open};
use crate::commands::CommandCtx;

declare_options! {
    /// `cat`'s options.
    pub(crate) enum CatOpt {
        usage: "Usage: cat [OPTION]... [FILE]...",
        about: "Write the FILEs to standard output, one after the other.

With no FILE, or when FILE is -, read standard input.
",
        after: "",
        column: 27,
        rows: [
            ShowAll: 'A' "show-all" none => "same as -vET",
            NumberNonblank: 'b' "number-nonblank" none => "number the non-empty lines only (wins over -n)",
            NonprintingEnds: 'e' - none => "same as -vE",
            ShowEnds: 'E' "show-ends" none => "write $ at the end of each line",
            Number: 'n' "number" none => "number every line",
            SqueezeBlank: 's' "squeeze-blank" none => "write a run of empty lines as a single one",
            NonprintingTabs: 't' - none => "same as -vT",
            ShowTabs: 'T' "show-tabs" none => "write TAB characters as ^I",
            Unbuffered: 'u' - none => "(ignored)",
            ShowNonprinting: 'v' "show-nonprinting" none => "write control and high bytes in ^ and M- notation
                (newline and TAB excepted)",
        ],
    }
}

#[derive(Default)]
struct Style {
    number: bool,
    nonblank: bool,
    ends: bool,
    tabs: bool,
    nonprinting: bool,
    squeeze: bool,
}

impl Style {
    fn plain(&self) -> bool {
        !(self.number
            || self.nonblank
            || self.ends
            || self.tabs
            || self.nonprinting
            || self.squeeze)
    }
}

/// Line state carried across files, as GNU cat does.
struct State {
    line: u64,
    at_start: bool,
    blank_run: u32,
}

fn render(style: &Style, st: &mut State, chunk: &[u8], out: &mut Vec<u8>) {
    for &b in chunk {
        if st.at_start {
            if b == b'\n' {
                st.blank_run += 1;
                if style.squeeze && st.blank_run > 1 {
                    continue;
                }
                if style.number && !style.nonblank {
                    st.line += 1;
                    let _ = write!(out, "{:>6}\t", st.line);
                }
                if style.ends {
                    out.push(b'$');
                }
                out.push(b'\n');
                continue;
            }
            st.blank_run = 0;
            if style.number || style.nonblank {
                st.line += 1;
                let _ = write!(out, "{:>6}\t", st.line);
            }
            st.at_start = false;
        }
        match b {
            b'\n' => {
                if style.ends {
                    out.push(b'$');
                }
                out.push(b'\n');
                st.at_start = true;
            }
            b'\t' if style.tabs => out.extend_from_slice(b"^I"),
            b'\t' => out.push(b),
            _ if style.nonprinting => push_visible(b, out),
            _ => out.push(b),
        }
    }
}

/// `cat -v`'s notation: `^X` for controls, `^?` for DEL, `M-` for high bytes.
fn push_visible(b: u8, out: &mut Vec<u8>) {
    let mut c = b;
    if c >= 128 {
        out.extend_from_slice(b"M-");
        c -= 128;
    }
    if c < 32 {
        out.push(b'^');
        out.push(c + 64);
    } else if c == 127 {
        out.extend_from_slice(b"^?");
    } else {
        out.push(c);
    }
}

/// `cat [-AbeEnstTuv] [FILE]...`
pub fn cat(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = CatOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut style = Style::default();
    for (id, _) in &p.opts {
        match *id {
            CatOpt::ShowAll => {
                style.nonprinting = true;
                style.ends = true;
                style.tabs = true;
            }
            CatOpt::NumberNonblank => style.nonblank = true,
            CatOpt::NonprintingEnds => {
                style.nonprinting = true;
                style.ends = true;
            }
            CatOpt::ShowEnds => style.ends = true,
            CatOpt::Number => style.number = true,
            CatOpt::SqueezeBlank => style.squeeze = true,
            CatOpt::NonprintingTabs => {
                style.nonprinting = true;
                style.tabs = true;
            }
            CatOpt::ShowTabs => style.tabs = true,
            CatOpt::ShowNonprinting => style.nonprinting = true,
            // POSIX's unbuffered output: every write here goes straight out.
            CatOpt::Unbuffered => {}
        }
    }
    let files = if p.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        p.operands.clone()
    };
    let mut st = State {
        line: 0,
        at_start: true,
        blank_run: 0,
    };
    let mut status = 0;
    for name in &files {
        let src = match open(ctx, name) {
            Ok(s) => s,
            Err(e) => {
                ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
                status = 1;
                continue;
            }
        };
        let mut write_failed = false;
        let out = &mut *ctx.stdout;
        let plain = style.plain();
        let mut buf = Vec::new();
        let read = for_each_chunk(ctx.stdin, &src, |chunk| {
            let r = if plain {
                out.write_all(chunk)
            } else {
                buf.clear();
                render(&style, &mut st, chunk, &mut buf);
                out.write_all(&buf)
            };
            if r.is_err() {
                write_failed = true;
            }
            !write_failed
        });
        if write_failed {
            return 1;
        }
        if let Err(e) = read {
            ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
            status = 1;
        }
    }
    status
}
