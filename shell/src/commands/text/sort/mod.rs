//! `sort`: GNU sort in the C locale: keys (`-k POS1[,POS2]` with `.C` and
//! per-key options), `-t`, the orderings of [`compare`], `-r -u -s -c -C -m
//! -o -z`, and GNU's last-resort whole-line comparison unless `-s`.
//!
//! Keys are located once per line before sorting, so the comparisons of the
//! sort itself only compare prepared slices.

pub mod compare;

use std::cmp::Ordering;
use std::io::{BufWriter, Write};
use std::sync::Arc;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::fs::Fs;

use compare::is_blank;

pub(crate) const USAGE: &str = "\
Usage: sort [OPTION]... [FILE]...
Write sorted concatenation of all FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

  -b, --ignore-leading-blanks  ignore leading blanks
  -d, --dictionary-order      consider only blanks and alphanumeric characters
  -f, --ignore-case           fold lower case to upper case characters
  -g, --general-numeric-sort  compare according to general numerical value
  -i, --ignore-nonprinting    consider only printable characters
  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'
  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)
  -n, --numeric-sort          compare according to string numerical value
  -r, --reverse               reverse the result of comparisons
  -V, --version-sort          natural sort of (version) numbers within text
  -c, --check                 check for sorted input; do not sort
  -C                          like -c, but do not report first bad line
  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type
  -m, --merge                 merge already sorted files; do not sort
  -o, --output=FILE           write result to FILE instead of standard output
  -s, --stable                stabilize sort by disabling last-resort comparison
  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition
  -u, --unique                output only the first of an equal run
  -z, --zero-terminated       line delimiter is NUL, not newline
      --help                  display this help and exit

KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a
field number and C a character position in the field; both are origin 1, and
the stop position defaults to the line's end.  OPTS is one or more
single-letter ordering options [bdfgiMhnRrV], which override global ordering
options for that key.
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("ignore-leading-blanks"), Arg::None),
    opt("d", Some('d'), Some("dictionary-order"), Arg::None),
    opt("f", Some('f'), Some("ignore-case"), Arg::None),
    opt("g", Some('g'), Some("general-numeric-sort"), Arg::None),
    opt("i", Some('i'), Some("ignore-nonprinting"), Arg::None),
    opt("M", Some('M'), Some("month-sort"), Arg::None),
    opt("h", Some('h'), Some("human-numeric-sort"), Arg::None),
    opt("n", Some('n'), Some("numeric-sort"), Arg::None),
    opt("R", Some('R'), Some("random-sort"), Arg::None),
    opt("r", Some('r'), Some("reverse"), Arg::None),
    opt("V", Some('V'), Some("version-sort"), Arg::None),
    opt("sort", None, Some("sort"), Arg::Required),
    opt("c", Some('c'), None, Arg::None),
    opt("c", None, Some("check"), Arg::Optional),
    opt("C", Some('C'), None, Arg::None),
    opt("k", Some('k'), Some("key"), Arg::Required),
    opt("m", Some('m'), Some("merge"), Arg::None),
    opt("o", Some('o'), Some("output"), Arg::Required),
    opt("s", Some('s'), Some("stable"), Arg::None),
    opt("t", Some('t'), Some("field-separator"), Arg::Required),
    opt("u", Some('u'), Some("unique"), Arg::None),
    opt("z", Some('z'), Some("zero-terminated"), Arg::None),
    opt("S", Some('S'), Some("buffer-size"), Arg::Required),
    opt("T", Some('T'), Some("temporary-directory"), Arg::Required),
    opt("parallel", None, Some("parallel"), Arg::Required),
    opt("batch-size", None, Some("batch-size"), Arg::Required),
    opt(
        "compress-program",
        None,
        Some("compress-program"),
        Arg::Required,
    ),
    opt("debug", None, Some("debug"), Arg::None),
    opt("files0-from", None, Some("files0-from"), Arg::Required),
    opt("random-source", None, Some("random-source"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

/// How one key (or the whole line) is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Order {
    numeric: bool,
    general: bool,
    human: bool,
    month: bool,
    version: bool,
    random: bool,
    fold: bool,
    dict: bool,
    nonprint: bool,
    reverse: bool,
    /// `b` on the start position.
    skip_start: bool,
    /// `b` on the end position.
    skip_end: bool,
}

impl Order {
    fn any_ordering(&self) -> bool {
        self.numeric
            || self.general
            || self.human
            || self.month
            || self.version
            || self.random
            || self.fold
            || self.dict
            || self.nonprint
            || self.reverse
            || self.skip_start
            || self.skip_end
    }

    /// Applies one option letter; false if it is not an ordering letter.
    fn set(&mut self, c: char, end: bool) -> bool {
        match c {
            'b' => {
                if end {
                    self.skip_end = true;
                } else {
                    self.skip_start = true;
                }
            }
            'd' => self.dict = true,
            'f' => self.fold = true,
            'g' => self.general = true,
            'i' => self.nonprint = true,
            'M' => self.month = true,
            'h' => self.human = true,
            'n' => self.numeric = true,
            'R' => self.random = true,
            'r' => self.reverse = true,
            'V' => self.version = true,
            _ => return false,
        }
        true
    }
}

/// A `-k` key.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    sword: usize,
    schar: usize,
    /// `None`: to the end of the line.
    eword: Option<usize>,
    echar: usize,
    order: Order,
}

/// Parses a KEYDEF; the error is GNU's message.
fn parse_key(spec: &str, global: Order) -> Result<Key, String> {
    let bad = |why: &str| {
        format!(
            "{why}: invalid field specification {}",
            common::quote_locale(spec)
        )
    };
    let b = spec.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize| -> Option<usize> {
        let st = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        (*i > st).then(|| spec[st..*i].parse::<usize>().unwrap_or(usize::MAX))
    };
    let Some(f1) = num(&mut i) else {
        return Err(format!(
            "invalid number at field start: invalid count at start of {}",
            common::quote_locale(&spec[i..])
        ));
    };
    if f1 == 0 {
        return Err(bad("field number is zero"));
    }
    let mut c1 = 1;
    if b.get(i) == Some(&b'.') {
        i += 1;
        c1 = num(&mut i).ok_or_else(|| {
            format!(
                "invalid number after '.': invalid count at start of {}",
                common::quote_locale(&spec[i..])
            )
        })?;
        if c1 == 0 {
            return Err(bad("character offset is zero"));
        }
    }
    let mut order = Order::default();
    while i < b.len() && b[i] != b',' {
        if !order.set(b[i] as char, false) {
            return Err(format!("invalid option -- '{}'", b[i] as char))
                .map_err(|_| bad("invalid key option"));
        }
        i += 1;
    }
    let mut key = Key {
        sword: f1 - 1,
        schar: c1 - 1,
        eword: None,
        echar: 0,
        order,
    };
    if b.get(i) == Some(&b',') {
        i += 1;
        let Some(f2) = num(&mut i) else {
            return Err(format!(
                "invalid number after ',': invalid count at start of {}",
                common::quote_locale(&spec[i..])
            ));
        };
        if f2 == 0 {
            return Err(bad("field number is zero"));
        }
        key.eword = Some(f2 - 1);
        if b.get(i) == Some(&b'.') {
            i += 1;
            key.echar = num(&mut i).ok_or_else(|| {
                format!(
                    "invalid number after '.': invalid count at start of {}",
                    common::quote_locale(&spec[i..])
                )
            })?;
        }
        while i < b.len() {
            if !key.order.set(b[i] as char, true) {
                return Err(bad("invalid key option"));
            }
            i += 1;
        }
    }
    if !key.order.any_ordering() {
        // A key without options inherits the global ones.
        let (s, e) = (key.order.skip_start, key.order.skip_end);
        key.order = global;
        key.order.skip_start |= s;
        key.order.skip_end |= e;
    }
    Ok(key)
}

/// The field separator.
#[derive(Clone, Copy)]
enum Tab {
    Blanks,
    Char(u8),
}

fn begfield(line: &[u8], key: &Key, tab: Tab) -> usize {
    let lim = line.len();
    let mut p = 0;
    let mut sword = key.sword;
    match tab {
        Tab::Char(t) => {
            while p < lim && sword > 0 {
                sword -= 1;
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim {
                    p += 1;
                }
            }
        }
        Tab::Blanks => {
            while p < lim && sword > 0 {
                sword -= 1;
                while p < lim && is_blank(line[p]) {
                    p += 1;
                }
                while p < lim && !is_blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    if key.order.skip_start {
        while p < lim && is_blank(line[p]) {
            p += 1;
        }
    }
    (p + key.schar).min(lim)
}

fn limfield(line: &[u8], key: &Key, tab: Tab) -> usize {
    let lim = line.len();
    let Some(eword) = key.eword else { return lim };
    let echar = key.echar;
    let mut eword = if echar == 0 { eword + 1 } else { eword };
    let mut p = 0;
    match tab {
        Tab::Char(t) => {
            while p < lim && eword > 0 {
                eword -= 1;
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim && (eword > 0 || echar > 0) {
                    p += 1;
                }
            }
        }
        Tab::Blanks => {
            while p < lim && eword > 0 {
                eword -= 1;
                while p < lim && is_blank(line[p]) {
                    p += 1;
                }
                while p < lim && !is_blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    if echar != 0 {
        if key.order.skip_end {
            while p < lim && is_blank(line[p]) {
                p += 1;
            }
        }
        p = (p + echar).min(lim);
    }
    p
}

/// Everything the comparison needs.
struct Sorter {
    keys: Vec<Key>,
    tab: Tab,
    global: Order,
    stable: bool,
    unique: bool,
}

impl Sorter {
    fn key_slice<'l>(&self, line: &'l [u8], k: &Key) -> &'l [u8] {
        let b = begfield(line, k, self.tab);
        let e = limfield(line, k, self.tab);
        if e > b { &line[b..e] } else { &[] }
    }

    fn cmp_order(o: &Order, a: &[u8], b: &[u8]) -> Ordering {
        let r = if o.numeric {
            compare::numeric(a, b)
        } else if o.general {
            compare::general(a, b)
        } else if o.human {
            compare::human(a, b)
        } else if o.month {
            compare::month(a, b)
        } else if o.version {
            compare::version(a, b)
        } else {
            compare::text(a, b, o.fold, o.dict, o.nonprint)
        };
        if o.reverse { r.reverse() } else { r }
    }

    /// Compares by keys only (what `-u` calls equal).
    fn keycmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        if self.keys.is_empty() {
            let (mut x, mut y) = (a, b);
            if self.global.skip_start {
                x = trim_start(x);
                y = trim_start(y);
            }
            return Self::cmp_order(&self.global, x, y);
        }
        for k in &self.keys {
            let r = Self::cmp_order(&k.order, self.key_slice(a, k), self.key_slice(b, k));
            if r != Ordering::Equal {
                return r;
            }
        }
        Ordering::Equal
    }

    /// The full comparison, with the last-resort byte comparison.
    fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        let r = self.keycmp(a, b);
        if r != Ordering::Equal || self.stable || self.unique {
            return r;
        }
        if self.keys.is_empty() && !self.global.any_ordering() {
            return r;
        }
        let r = a.cmp(b);
        if self.global.reverse { r.reverse() } else { r }
    }

    /// True when the comparison is a plain `-n` on whole lines (fast path).
    fn plain_numeric(&self) -> bool {
        let g = self.global;
        self.keys.is_empty()
            && g.numeric
            && !(g.general || g.human || g.month || g.version || g.fold || g.dict || g.nonprint)
    }
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| is_blank(**b)).count();
    &s[n..]
}

/// What the options ask for.
struct SortOptions {
    /// The comparison (keys, separator, orderings, `-s`, `-u`).
    sorter: Sorter,
    /// `-c`/`-C`: check instead of sorting.
    check: bool,
    /// `-C`: check without a message.
    quiet_check: bool,
    /// `-m`: merge already sorted inputs.
    merge: bool,
    /// `-z`: NUL-terminated records.
    zero: bool,
    /// `-o FILE`.
    output: Option<String>,
}

/// The options in order; the error is the message for status 2.
fn parse_options(parsed: &common::Parsed) -> Result<SortOptions, String> {
    let mut global = Order::default();
    let mut key_specs = Vec::new();
    let mut tab = Tab::Blanks;
    let (mut check, mut quiet_check, mut merge, mut stable, mut unique, mut zero) =
        (false, false, false, false, false, false);
    let mut output: Option<String> = None;
    for (id, val) in &parsed.opts {
        let v = val.as_deref().unwrap_or("");
        match *id {
            "b" | "d" | "f" | "g" | "i" | "M" | "h" | "n" | "R" | "r" | "V" => {
                global.set(id.chars().next().unwrap(), false);
                if *id == "b" {
                    global.skip_end = true;
                }
            }
            "sort" => {
                let c = match v {
                    "general-numeric" => 'g',
                    "human-numeric" => 'h',
                    "month" => 'M',
                    "numeric" => 'n',
                    "random" => 'R',
                    "version" => 'V',
                    // Checked by `sort` before the options are read.
                    _ => continue,
                };
                global.set(c, false);
            }
            "c" => check = true,
            "C" => {
                check = true;
                quiet_check = true;
            }
            "k" => key_specs.push(v.to_string()),
            // Memory and threads are the sandbox's; GNU's checks still hold.
            "S" => check_buffer_size(v)?,
            "parallel" => match v.parse::<u64>() {
                Ok(0) => return Err("number in parallel must be nonzero".into()),
                Ok(_) => {}
                Err(_) => return Err(format!("invalid --parallel argument '{v}'")),
            },
            "m" => merge = true,
            "o" => output = Some(v.to_string()),
            "s" => stable = true,
            "u" => unique = true,
            "z" => zero = true,
            "t" => {
                let b = v.as_bytes();
                tab = match b {
                    [c] => Tab::Char(*c),
                    b"\\0" => Tab::Char(0),
                    [] => return Err("empty tab".into()),
                    _ => return Err(format!("multi-character tab {}", common::quote_locale(v))),
                };
            }
            _ => {}
        }
    }
    let ordering_count = [
        global.numeric,
        global.general,
        global.human,
        global.month,
        global.version,
        global.random,
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if ordering_count > 1 {
        return Err("options '-ghMnRV' are incompatible".into());
    }
    let mut keys = Vec::new();
    for k in &key_specs {
        keys.push(parse_key(k, global)?);
    }
    let sorter = Sorter {
        keys,
        tab,
        global,
        stable,
        unique,
    };
    Ok(SortOptions {
        sorter,
        check,
        quiet_check,
        merge,
        zero,
        output,
    })
}

/// `-S SIZE` as GNU checks it: a number (KiB without a suffix), then at
/// most one of its suffixes, the bytes fitting in 64 bits.
fn check_buffer_size(v: &str) -> Result<(), String> {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!("invalid -S argument '{v}'"));
    }
    let power = match &v.as_bytes()[digits..] {
        [] => 1,
        [b'%' | b'b'] => 0,
        [b'k' | b'K'] => 1,
        [b'm' | b'M'] => 2,
        [b'g' | b'G'] => 3,
        [b't' | b'T'] => 4,
        [b'P'] => 5,
        [b'E'] => 6,
        [b'Z' | b'Y'] => 7,
        _ => return Err(format!("invalid suffix in -S argument '{v}'")),
    };
    let bytes = v[..digits]
        .parse::<u128>()
        .ok()
        .and_then(|n| n.checked_mul(1u128 << (10 * power)));
    match bytes {
        Some(b) if b <= u64::MAX as u128 => Ok(()),
        _ => Err(format!("-S argument '{v}' too large")),
    }
}

/// `--sort=WORD` checked as GNU's argmatch does (status 1, before any
/// other option's error).
fn check_sort_words(ctx: &mut CommandCtx<'_>, parsed: &common::Parsed) -> Option<i32> {
    let words = [
        "general-numeric",
        "human-numeric",
        "month",
        "numeric",
        "random",
        "version",
    ];
    let bad = parsed.opts.iter().find_map(|(id, v)| {
        let v = v.as_deref().unwrap_or("");
        (*id == "sort" && !words.contains(&v)).then_some(v)
    })?;
    let valid: Vec<&[&str]> = words.iter().map(std::slice::from_ref).collect();
    Some(crate::commands::files::common::invalid_choice(
        ctx, "--sort", bad, &valid,
    ))
}

/// `sort`
pub fn sort(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "sort";
    let parsed = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            common::usage_error(ctx, &e);
            return 2;
        }
    };
    if let Some(status) = check_sort_words(ctx, &parsed) {
        return status;
    }
    let SortOptions {
        sorter,
        check,
        quiet_check,
        merge,
        zero,
        output,
    } = match parse_options(&parsed) {
        Ok(o) => o,
        Err(e) => {
            common::err(ctx.stderr, name, e);
            return 2;
        }
    };
    let (unique, stable) = (sorter.unique, sorter.stable);
    let delim = if zero { 0 } else { b'\n' };
    let files = if parsed.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        parsed.operands.clone()
    };
    if check && files.len() > 1 {
        common::err(
            ctx.stderr,
            name,
            format!(
                "extra operand {} not allowed with -c",
                crate::commands::files::common::quote(&files[1])
            ),
        );
        return 2;
    }
    let mut inputs: Vec<Arc<Vec<u8>>> = Vec::new();
    for f in &files {
        match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, f) {
            Ok(d) => inputs.push(d),
            Err(e) => {
                let what = if e == crate::fs::FsError::IsADirectory {
                    "read failed"
                } else {
                    "cannot read"
                };
                common::err(
                    ctx.stderr,
                    name,
                    format!("{what}: {}: {e}", common::quotef(f)),
                );
                return 2;
            }
        }
        if ctx.control.check().is_err() {
            return 2;
        }
    }
    if check {
        return check_order(ctx, &sorter, &inputs[0], &files[0], delim, quiet_check);
    }
    let mut lines: Vec<&[u8]> = Vec::new();
    for d in &inputs {
        lines.extend(common::records(d, delim));
    }
    if merge {
        // Inputs are sorted already: a stable merge keeps equal lines in file order.
        lines = merge_runs(&inputs, delim, &sorter);
    } else if sorter.plain_numeric() {
        lines = sort_numeric(lines, sorter.global.reverse, stable || unique);
    } else {
        lines.sort_by(|a, b| {
            // Sorting a big file is long work: a cancelled run leaves it.
            crate::cancel::sometimes();
            sorter.cmp(a, b)
        });
    }
    let mut buf = Vec::with_capacity(inputs.iter().map(|d| d.len() + 1).sum());
    let mut last: Option<&[u8]> = None;
    for l in lines {
        if unique {
            if let Some(p) = last
                && sorter.keycmp(p, l) == Ordering::Equal
            {
                continue;
            }
            last = Some(l);
        }
        buf.extend_from_slice(l);
        buf.push(delim);
    }
    match output {
        Some(o) => {
            if let Err(e) = ctx.fs.write(&Fs::resolve(ctx.cwd, &o), &buf) {
                common::err(ctx.stderr, name, format!("open failed: {o}: {e}"));
                return 2;
            }
            0
        }
        None => {
            let mut out = BufWriter::new(&mut *ctx.stdout);
            if out.write_all(&buf).and_then(|_| out.flush()).is_err() {
                return 2;
            }
            0
        }
    }
}

/// `-c`/`-C`: 0 when `data` (the input `file`) is sorted, else 1 after
/// reporting the first disorder (unless `quiet`).
fn check_order(
    ctx: &mut CommandCtx<'_>,
    sorter: &Sorter,
    data: &[u8],
    file: &str,
    delim: u8,
    quiet: bool,
) -> i32 {
    let mut prev: Option<&[u8]> = None;
    for (n, line) in common::records(data, delim).enumerate() {
        if let Some(p) = prev {
            let c = sorter.cmp(p, line);
            if c == Ordering::Greater || (sorter.unique && c == Ordering::Equal) {
                if !quiet {
                    let shown = if file == "-" { "-" } else { file };
                    let _ = writeln!(
                        ctx.stderr,
                        "sort: {shown}:{}: disorder: {}",
                        n + 1,
                        String::from_utf8_lossy(line)
                    );
                }
                return 1;
            }
        }
        prev = Some(line);
    }
    0
}

/// `sort -n` on whole lines: each number is parsed once; when every line
/// holds an integer that fits an `i64` the sort runs on plain integers.
fn sort_numeric(lines: Vec<&[u8]>, reverse: bool, no_last_resort: bool) -> Vec<&[u8]> {
    let finish = |r: Ordering| if reverse { r.reverse() } else { r };
    let small: Option<Vec<(i64, &[u8])>> = lines
        .iter()
        .map(|l| {
            let (n, _) = compare::Num::parse(l);
            n.as_i64().map(|v| (v, *l))
        })
        .collect();
    if let Some(mut keyed) = small {
        keyed.sort_by(|a, b| {
            crate::cancel::sometimes();
            let r = a.0.cmp(&b.0);
            finish(if r == Ordering::Equal && !no_last_resort {
                a.1.cmp(b.1)
            } else {
                r
            })
        });
        return keyed.into_iter().map(|(_, l)| l).collect();
    }
    let mut keyed: Vec<(compare::Num<'_>, &[u8])> = lines
        .iter()
        .map(|l| (compare::Num::parse(l).0, *l))
        .collect();
    keyed.sort_by(|a, b| {
        crate::cancel::sometimes();
        let r = a.0.cmp(&b.0);
        finish(if r == Ordering::Equal && !no_last_resort {
            a.1.cmp(b.1)
        } else {
            r
        })
    });
    keyed.into_iter().map(|(_, l)| l).collect()
}

/// Merges already-sorted inputs, taking from the earliest input on ties.
fn merge_runs<'d>(inputs: &'d [Arc<Vec<u8>>], delim: u8, sorter: &Sorter) -> Vec<&'d [u8]> {
    let mut runs: Vec<Vec<&[u8]>> = inputs
        .iter()
        .map(|d| common::records(d, delim).collect())
        .collect();
    let mut idx = vec![0usize; runs.len()];
    let mut out = Vec::new();
    loop {
        let mut best: Option<usize> = None;
        for (r, run) in runs.iter().enumerate() {
            if idx[r] >= run.len() {
                continue;
            }
            best = match best {
                Some(b) if sorter.cmp(runs[b][idx[b]], run[idx[r]]) != Ordering::Greater => Some(b),
                _ => Some(r),
            };
        }
        let Some(b) = best else { break };
        out.push(runs[b][idx[b]]);
        idx[b] += 1;
    }
    runs.clear();
    out
}

#[cfg(test)]
mod tests {
    use super::sort;
    use crate::commands::text::common::testing::run;

    fn s(args: &[&str], input: &str) -> String {
        let mut v = vec!["sort"];
        v.extend_from_slice(args);
        run(sort, &v, input).1
    }

    #[test]
    fn orders() {
        assert_eq!(s(&[], "b\na\nB\n"), "B\na\nb\n");
        assert_eq!(s(&["-n"], "10\n9\n-1\nx\n"), "-1\nx\n9\n10\n");
        assert_eq!(s(&["-rn"], "10\n9\n100\n"), "100\n10\n9\n");
        assert_eq!(s(&["-h"], "1G\n2K\n3M\n"), "2K\n3M\n1G\n");
        assert_eq!(s(&["-V"], "v1.10\nv1.2\nv1.9\n"), "v1.2\nv1.9\nv1.10\n");
        assert_eq!(s(&["-u"], "a\nb\na\n"), "a\nb\n");
        assert_eq!(s(&["-t", ",", "-k2,2n"], "x,10\ny,9\n"), "y,9\nx,10\n");
        assert_eq!(s(&["-k2"], "a b\nc a\n"), "c a\na b\n");
        assert_eq!(s(&["-f"], "b\nA\na\nB\n"), "A\na\nB\nb\n");
        assert_eq!(s(&["-fu"], "b\nA\na\nB\n"), "A\nb\n");
    }
}
