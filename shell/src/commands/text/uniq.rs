//! `uniq`: report or omit repeated adjacent lines (`-c -d -D -u -i -f -s -w
//! -z --group`), reading stdin lazily so it works at the end of a pipe.

use std::io::{BufWriter, Write};

use super::common::{self, LineSource, Parsed};
use crate::commands::CommandCtx;
use crate::fs::Fs;

declare_options! {
    /// uniq's options.
    pub(crate) enum UniqOpt {
        usage: "Usage: uniq [OPTION]... [INPUT [OUTPUT]]",
        about: "Filter adjacent matching lines from INPUT (or standard input),
writing to OUTPUT (or standard output).
",
        after: "",
        column: 24,
        rows: [
            Count: 'c' "count" none => "prefix lines by the number of occurrences",
            Repeated: 'd' "repeated" none => "only print duplicate lines, one for each group",
            AllDuplicates: 'D' - none => "print all duplicate lines",
            AllRepeated: - "all-repeated" optional "METHOD" => "like -D, but allow separating groups
                with an empty line; METHOD={none(default),prepend,separate}",
            SkipFields: 'f' "skip-fields" required "N" => "avoid comparing the first N fields",
            Group: - "group" optional "METHOD" => "show all items, separating groups with an empty line;
                METHOD={separate(default),prepend,append,both}",
            IgnoreCase: 'i' "ignore-case" none => "ignore differences in case when comparing",
            SkipChars: 's' "skip-chars" required "N" => "avoid comparing the first N characters",
            Unique: 'u' "unique" none => "only print unique lines",
            ZeroTerminated: 'z' "zero-terminated" none => "line delimiter is NUL, not newline",
            CheckChars: 'w' "check-chars" required "N" => "compare no more than N characters in lines",
        ],
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Delimit {
    None,
    Prepend,
    Separate,
    Append,
    Both,
}

struct Cfg {
    count: bool,
    repeated: bool,
    all_repeated: Option<Delimit>,
    group: Option<Delimit>,
    unique: bool,
    icase: bool,
    skip_fields: usize,
    skip_chars: usize,
    check_chars: Option<usize>,
}

impl Cfg {
    fn key<'l>(&self, line: &'l [u8]) -> &'l [u8] {
        let mut p = 0;
        for _ in 0..self.skip_fields {
            while p < line.len() && (line[p] == b' ' || line[p] == b'\t') {
                p += 1;
            }
            while p < line.len() && !(line[p] == b' ' || line[p] == b'\t') {
                p += 1;
            }
        }
        p = (p + self.skip_chars).min(line.len());
        let end = match self.check_chars {
            Some(w) => (p + w).min(line.len()),
            None => line.len(),
        };
        &line[p..end]
    }

    fn same(&self, a: &[u8], b: &[u8]) -> bool {
        let (x, y) = (self.key(a), self.key(b));
        if self.icase {
            x.eq_ignore_ascii_case(y)
        } else {
            x == y
        }
    }
}

/// The options in order: the comparison and output settings, and the
/// record terminator (`-z`: NUL). The error is the message for status 1.
fn parse_options(parsed: &Parsed<UniqOpt>) -> Result<(Cfg, u8), String> {
    let mut cfg = Cfg {
        count: false,
        repeated: false,
        all_repeated: None,
        group: None,
        unique: false,
        icase: false,
        skip_fields: 0,
        skip_chars: 0,
        check_chars: None,
    };
    let mut delim = b'\n';
    for (id, val) in &parsed.opts {
        let v = val.as_deref().unwrap_or("");
        let num = |what: &str| -> Result<usize, String> {
            common::parse_count(v)
                .map(|n| n.min(usize::MAX as u64) as usize)
                .ok_or_else(|| format!("{v}: invalid number of {what}"))
        };
        match id {
            UniqOpt::Count => cfg.count = true,
            UniqOpt::Repeated => cfg.repeated = true,
            UniqOpt::AllDuplicates => cfg.all_repeated = Some(Delimit::None),
            UniqOpt::AllRepeated => {
                cfg.all_repeated = Some(match v {
                    "" | "none" => Delimit::None,
                    "prepend" => Delimit::Prepend,
                    "separate" => Delimit::Separate,
                    _ => return Err(format!("invalid argument '{v}' for '--all-repeated'")),
                })
            }
            UniqOpt::Group => {
                cfg.group = Some(match v {
                    "" | "separate" => Delimit::Separate,
                    "prepend" => Delimit::Prepend,
                    "append" => Delimit::Append,
                    "both" => Delimit::Both,
                    _ => return Err(format!("invalid argument '{v}' for '--group'")),
                })
            }
            UniqOpt::IgnoreCase => cfg.icase = true,
            UniqOpt::Unique => cfg.unique = true,
            UniqOpt::ZeroTerminated => delim = 0,
            UniqOpt::SkipFields => cfg.skip_fields = num("fields to skip")?,
            UniqOpt::SkipChars => cfg.skip_chars = num("bytes to skip")?,
            UniqOpt::CheckChars => cfg.check_chars = Some(num("bytes to compare")?),
        }
    }
    Ok((cfg, delim))
}

/// `uniq`
pub fn uniq(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "uniq";
    let Some(parsed) = UniqOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let (cfg, delim) = match parse_options(&parsed) {
        Ok(parsed) => parsed,
        Err(e) => {
            common::err(ctx.stderr, name, e);
            return 1;
        }
    };
    if cfg.group.is_some()
        && (cfg.count || cfg.repeated || cfg.all_repeated.is_some() || cfg.unique)
    {
        common::err(
            ctx.stderr,
            name,
            "--group is mutually exclusive with -c/-d/-D/-u",
        );
        common::try_help(ctx);
        return 1;
    }
    if cfg.count && cfg.all_repeated.is_some() {
        common::err(
            ctx.stderr,
            name,
            "printing all duplicated lines and repeat counts is meaningless",
        );
        common::try_help(ctx);
        return 1;
    }
    let ops = &parsed.operands;
    if ops.len() > 2 {
        let msg = format!("extra operand {}", common::quote_locale(&ops[2]));
        common::usage_error(ctx, &msg);
        return 1;
    }
    let input = ops.first().map(String::as_str).unwrap_or("-");
    let mut src = if input == "-" {
        LineSource::stream(&mut *ctx.stdin)
    } else {
        match common::read_file(ctx.fs, ctx.cwd, input) {
            Ok(d) => LineSource::buf(d),
            Err(crate::fs::FsError::IsADirectory) => {
                let input = crate::commands::files::common::quote(input);
                common::err(ctx.stderr, name, format!("error reading {input}"));
                return 1;
            }
            Err(e) => {
                common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(input)));
                return 1;
            }
        }
    };
    let mut buf: Vec<u8> = Vec::new();
    let to_file = ops.get(1).filter(|o| *o != "-").cloned();
    {
        let mut out: Box<dyn Write> = if to_file.is_some() {
            Box::new(&mut buf)
        } else {
            Box::new(BufWriter::with_capacity(64 * 1024, &mut *ctx.stdout))
        };
        if run(&cfg, &mut src, delim, &mut *out, ctx.control).is_err() {
            return 1;
        }
        if out.flush().is_err() {
            return 1;
        }
    }
    if src.read_error().is_some() {
        // GNU's wording names no cause.
        common::err(
            ctx.stderr,
            name,
            format!(
                "error reading {}",
                crate::commands::files::common::quote(input)
            ),
        );
        return 1;
    }
    if let Some(o) = to_file
        && let Err(e) = ctx.fs.write(&Fs::resolve(ctx.cwd, &o), &buf)
    {
        common::err(ctx.stderr, name, format!("{o}: {e}"));
        return 1;
    }
    0
}

fn run(
    cfg: &Cfg,
    src: &mut LineSource<'_>,
    delim: u8,
    out: &mut dyn Write,
    control: &crate::control::RunControl,
) -> std::io::Result<()> {
    let mut group: Vec<Vec<u8>> = Vec::new();
    let mut first_group = true;
    let mut line = Vec::new();
    let mut n: u64 = 0;
    loop {
        line.clear();
        let more = src.next_record(delim, &mut line);
        if more && line.last() == Some(&delim) {
            line.pop();
        }
        n += 1;
        if n.is_multiple_of(4096) && control.check().is_err() {
            return Err(std::io::Error::other("interrupted"));
        }
        let same = more && group.first().is_some_and(|g| cfg.same(g, &line));
        if same {
            group.push(line.clone());
            continue;
        }
        if !group.is_empty() {
            emit(cfg, &group, delim, out, &mut first_group)?;
            group.clear();
        }
        if !more {
            if cfg.group == Some(Delimit::Both) && !first_group {
                out.write_all(&[delim])?;
            }
            return Ok(());
        }
        group.push(line.clone());
    }
}

fn emit(
    cfg: &Cfg,
    group: &[Vec<u8>],
    delim: u8,
    out: &mut dyn Write,
    first: &mut bool,
) -> std::io::Result<()> {
    if let Some(g) = cfg.group {
        if matches!(g, Delimit::Prepend | Delimit::Both) || (g == Delimit::Separate && !*first) {
            out.write_all(&[delim])?;
        }
        *first = false;
        for l in group {
            out.write_all(l)?;
            out.write_all(&[delim])?;
        }
        if g == Delimit::Append {
            out.write_all(&[delim])?;
        }
        return Ok(());
    }
    let dup = group.len() > 1;
    if let Some(d) = cfg.all_repeated {
        if !dup {
            return Ok(());
        }
        if (d == Delimit::Prepend) || (d == Delimit::Separate && !*first) {
            out.write_all(&[delim])?;
        }
        *first = false;
        for l in group {
            out.write_all(l)?;
            out.write_all(&[delim])?;
        }
        return Ok(());
    }
    if (cfg.repeated && !dup) || (cfg.unique && dup) {
        return Ok(());
    }
    if cfg.count {
        write!(out, "{:>7} ", group.len())?;
    }
    out.write_all(&group[0])?;
    out.write_all(&[delim])
}
