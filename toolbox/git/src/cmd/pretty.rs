//! How `log` and `show` print a commit: the pretty formats (medium,
//! oneline, short, full, fuller, raw-ish `format:`/`tformat:`
//! placeholders) and the date styles.

use std::collections::BTreeMap;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::G;
use super::diffcmd::{Output, print_changes};
use crate::diff;
use crate::error::Result;
use crate::repo::Repo;
use crate::worktree::Pathspec;

/// How `log`/`show` print a commit.
#[derive(Clone, Debug)]
pub enum Pretty {
    /// The default.
    Medium,
    /// `--oneline`.
    Oneline,
    /// `--pretty=oneline`: the full id.
    OnelineFull,
    /// `--pretty=short`.
    Short,
    /// `--pretty=full`.
    Full,
    /// `--pretty=fuller`.
    Fuller,
    /// `--format=...` (`true`: terminator semantics, `tformat`).
    Format(String, bool),
}

pub(super) fn parse_pretty(v: &str) -> Pretty {
    match v {
        "oneline" => Pretty::OnelineFull,
        "short" => Pretty::Short,
        "medium" => Pretty::Medium,
        "full" => Pretty::Full,
        "fuller" => Pretty::Fuller,
        s if s.starts_with("format:") => Pretty::Format(s[7..].to_string(), false),
        s if s.starts_with("tformat:") => Pretty::Format(s[8..].to_string(), true),
        s => Pretty::Format(s.to_string(), true),
    }
}

/// Date styles of `--date`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DateStyle {
    /// `--date=relative`, against this time (seconds).
    Relative(i64),
    /// `--date=format:...`.
    Format(std::sync::Arc<str>),
    /// `--date=local`: the default form in the sandbox's zone (UTC), no offset.
    Local,
    /// git's default.
    Default,
    /// `--date=iso`.
    Iso,
    /// `--date=iso-strict`.
    IsoStrict,
    /// `--date=short`.
    Short,
    /// `--date=raw`.
    Raw,
    /// `--date=unix`.
    Unix,
    /// `--date=rfc`.
    Rfc,
}

pub fn fmt_date(t: &gix_date::Time, style: &DateStyle) -> String {
    use gix_date::time::format;
    match style {
        DateStyle::Relative(now) => super::dates::relative(t, *now),
        DateStyle::Format(f) => super::dates::strftime(t, f),
        DateStyle::Local => {
            super::dates::strftime(&gix_date::Time::new(t.seconds, 0), "%a %b %-d %H:%M:%S %Y")
        }
        DateStyle::Default => t.format_or_unix(format::DEFAULT),
        DateStyle::Iso => t.format_or_unix(format::ISO8601),
        // git writes a zero offset as `Z`.
        DateStyle::IsoStrict if t.offset == 0 => {
            let s = t.format_or_unix(format::ISO8601_STRICT);
            match s.strip_suffix("+00:00") {
                Some(base) => format!("{base}Z"),
                None => s,
            }
        }
        DateStyle::IsoStrict => t.format_or_unix(format::ISO8601_STRICT),
        DateStyle::Short => t.format_or_unix(format::SHORT),
        DateStyle::Raw => t.format_or_unix(format::RAW),
        DateStyle::Unix => t.seconds.to_string(),
        DateStyle::Rfc => t.format_or_unix(format::GIT_RFC2822),
    }
}

/// Options shared by log and show.
#[derive(Clone)]
pub struct LogOpts {
    /// `--left-right`'s mark for the commit being written.
    pub mark: Option<char>,
    /// The time relative dates count from.
    pub now: i64,
    /// `--abbrev=N` for abbreviated ids.
    pub abbrev: Option<usize>,
    /// Commit format.
    pub pretty: Pretty,
    /// Date style.
    pub date: DateStyle,
    /// Diff output after each commit, if any.
    pub diff: Option<Output>,
    /// `--stat -p`.
    pub patch_too: bool,
    /// `--decorate`.
    pub decorate: bool,
    /// `--abbrev-commit` (medium etc).
    pub abbrev_commit: bool,
    /// `show` of a merge prints the (empty) combined diff's blank line.
    pub combined_separator: bool,
}

/// Subject and body of a message.
fn split_message(msg: &str) -> (String, String) {
    let subject = super::status::subject(msg);
    let mut lines = msg.lines();
    for l in lines.by_ref() {
        if l.trim().is_empty() {
            break;
        }
    }
    let body: Vec<&str> = lines.collect();
    let mut b = body.join("\n");
    let start = b.len() - b.trim_start_matches('\n').len();
    b.drain(..start);
    if !b.is_empty() {
        b.push('\n');
    }
    (subject, b)
}

/// Expands `--format` placeholders for one commit.
pub fn format_commit(
    repo: &Repo<'_>,
    id: &ObjectId,
    c: &gix_object::Commit,
    fmt: &str,
    date: &DateStyle,
    now: i64,
    decos: &BTreeMap<ObjectId, Vec<String>>,
) -> String {
    let msg = c.message.to_str_lossy().into_owned();
    let (subject, body) = split_message(&msg);
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let person = |who: char| if who == 'a' { &c.author } else { &c.committer };
    while i < chars.len() {
        if chars[i] != '%' || i + 1 >= chars.len() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i + 1];
        i += 2;
        match n {
            '%' => out.push('%'),
            'n' => out.push('\n'),
            'H' => out.push_str(&id.to_hex().to_string()),
            'h' => out.push_str(&repo.abbrev(id)),
            'T' => out.push_str(&c.tree.to_hex().to_string()),
            't' => out.push_str(&repo.abbrev(&c.tree)),
            'P' => out.push_str(
                &c.parents
                    .iter()
                    .map(|p| p.to_hex().to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            'p' => out.push_str(
                &c.parents
                    .iter()
                    .map(|p| repo.abbrev(p))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            's' => out.push_str(&subject),
            'b' => out.push_str(&body),
            'B' => out.push_str(&msg),
            'd' | 'D' => {
                if let Some(d) = decos.get(id) {
                    if n == 'd' {
                        out.push_str(&format!(" ({})", d.join(", ")));
                    } else {
                        out.push_str(&d.join(", "));
                    }
                }
            }
            '(' => {
                let Some(len) = chars[i..].iter().position(|&c| c == ')') else {
                    out.push_str("%(");
                    continue;
                };
                let inner: String = chars[i..i + len].iter().collect();
                i += len + 1;
                match inner
                    .split_once(':')
                    .map_or((inner.as_str(), ""), |(a, b)| (a, b))
                {
                    ("trailers", args) => out.push_str(&trailers(&msg, args)),
                    _ => {
                        out.push_str("%(");
                        out.push_str(&inner);
                        out.push(')');
                    }
                }
            }
            'x' if i + 1 < chars.len() => {
                let hex: String = chars[i..i + 2].iter().collect();
                if let Ok(b) = u8::from_str_radix(&hex, 16) {
                    out.push(b as char);
                }
                i += 2;
            }
            'a' | 'c' if i < chars.len() => {
                let p = person(n);
                let f = chars[i];
                i += 1;
                match f {
                    'n' => out.push_str(&p.name.to_str_lossy()),
                    'e' => out.push_str(&p.email.to_str_lossy()),
                    'd' => out.push_str(&fmt_date(&p.time, date)),
                    'D' => out.push_str(&fmt_date(&p.time, &DateStyle::Rfc)),
                    'r' => out.push_str(&super::dates::relative(&p.time, now)),
                    't' => out.push_str(&p.time.seconds.to_string()),
                    'i' => out.push_str(&fmt_date(&p.time, &DateStyle::Iso)),
                    'I' => out.push_str(&fmt_date(&p.time, &DateStyle::IsoStrict)),
                    's' => out.push_str(&fmt_date(&p.time, &DateStyle::Short)),
                    _ => {
                        out.push('%');
                        out.push(n);
                        out.push(f);
                    }
                }
            }
            'C' => {
                // Colours: nothing when not on a terminal.
                if chars.get(i) == Some(&'(') {
                    while i < chars.len() && chars[i] != ')' {
                        i += 1;
                    }
                    i += 1;
                } else {
                    for name in ["reset", "red", "green", "blue"] {
                        let s: String = chars[i..].iter().take(name.len()).collect();
                        if s == name {
                            i += name.len();
                            break;
                        }
                    }
                }
            }
            other => {
                out.push('%');
                out.push(other);
            }
        }
    }
    out
}

/// `%(trailers[:options])`: the trailer block of a message (its last
/// paragraph, when every line is `Key: value` or a continuation), with
/// `key=K`, `only`, `unfold` and `valueonly` as git reads them.
fn trailers(msg: &str, args: &str) -> String {
    let paragraphs: Vec<&str> = msg.trim_end().split("\n\n").collect();
    if paragraphs.len() < 2 {
        return String::new();
    }
    let block = paragraphs[paragraphs.len() - 1];
    let is_trailer = |l: &str| {
        l.split_once(':').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let lines: Vec<&str> = block.lines().collect();
    if !lines
        .iter()
        .all(|l| is_trailer(l) || l.starts_with([' ', '\t']))
        || !is_trailer(lines[0])
    {
        return String::new();
    }
    // `only` changes nothing here: a block with other lines is no trailer block.
    let (mut keys, mut unfold, mut value_only) = (Vec::new(), false, false);
    for a in args.split(',').filter(|a| !a.is_empty()) {
        let (name, v) = a.split_once('=').unwrap_or((a, "true"));
        let yes = !matches!(v, "false" | "no" | "off" | "0");
        match name {
            "key" => keys.push(v.to_ascii_lowercase()),
            "unfold" => unfold = yes,
            "valueonly" => value_only = yes,
            _ => {}
        }
    }
    // Join continuation lines to their trailer.
    let mut items: Vec<String> = Vec::new();
    for l in lines {
        match items.last_mut() {
            Some(last) if l.starts_with([' ', '\t']) => {
                if unfold {
                    last.push(' ');
                    last.push_str(l.trim());
                } else {
                    last.push('\n');
                    last.push_str(l);
                }
            }
            _ => items.push(l.to_string()),
        }
    }
    let mut out = String::new();
    for t in items {
        let (k, v) = t.split_once(':').unwrap_or((&t, ""));
        if !keys.is_empty() && !keys.contains(&k.trim().to_ascii_lowercase()) {
            continue;
        }
        if value_only {
            out.push_str(v.trim_start());
        } else {
            out.push_str(&t);
        }
        out.push('\n');
    }
    out
}

fn indent_message(msg: &str, out: &mut String) {
    let lines: Vec<&str> = msg.trim_end_matches('\n').lines().collect();
    for l in lines {
        out.push_str("    ");
        out.push_str(&expand_tabs(l));
        out.push('\n');
    }
}

fn expand_tabs(l: &str) -> String {
    if !l.contains('\t') {
        return l.to_string();
    }
    let mut s = String::new();
    let mut col = 0;
    for ch in l.chars() {
        if ch == '\t' {
            let n = 8 - (col % 8);
            s.push_str(&" ".repeat(n));
            col += n;
        } else {
            s.push(ch);
            col += 1;
        }
    }
    s
}

/// Writes one commit in `opts`' format, followed by its diff.
pub(super) fn write_commit(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    opts: &LogOpts,
    decos: &BTreeMap<ObjectId, Vec<String>>,
    first: bool,
    spec: &Pathspec,
) -> Result<()> {
    let (text, separator, diff) = render_commit(g, repo, id, opts, decos, first, spec)?;
    g.out.extend_from_slice(&text);
    if separator {
        g.out.push(b'\n');
    }
    g.out.extend_from_slice(&diff);
    Ok(())
}

/// Whether commits in `pretty` are separated by a blank line (rather than
/// each ending in its own newline).
pub(super) fn separates(pretty: &Pretty) -> bool {
    !matches!(
        pretty,
        Pretty::Oneline | Pretty::OnelineFull | Pretty::Format(_, true)
    )
}

/// One commit in `opts`' format: its text, whether a blank line comes
/// before its diff, and the diff.
pub(super) fn render_commit(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    opts: &LogOpts,
    decos: &BTreeMap<ObjectId, Vec<String>>,
    first: bool,
    spec: &Pathspec,
) -> Result<(Vec<u8>, bool, Vec<u8>)> {
    let c = repo.commit(id)?;
    let msg = c.message.to_str_lossy().into_owned();
    let mut s = String::new();
    let deco = if opts.decorate {
        decos
            .get(id)
            .map(|d| format!(" ({})", d.join(", ")))
            .unwrap_or_default()
    } else {
        String::new()
    };
    let mut hash = if opts.abbrev_commit {
        repo.abbrev_len(id, opts.abbrev.unwrap_or(7).clamp(4, 40))
    } else {
        id.to_hex().to_string()
    };
    if let Some(m) = opts.mark {
        hash = format!("{m} {hash}");
    }
    let sig = |p: &gix_actor::Signature| format!("{} <{}>", p.name, p.email);
    let has_diff = opts.diff.is_some_and(|d| d != Output::Nothing);
    match &opts.pretty {
        Pretty::Oneline | Pretty::OnelineFull => {
            s.push_str(&format!("{hash}{deco} {}\n", super::status::subject(&msg)));
        }
        Pretty::Format(f, tformat) => {
            if !first && !*tformat {
                s.push('\n');
            }
            s.push_str(&format_commit(repo, id, &c, f, &opts.date, opts.now, decos));
            // An empty format writes no line at all (git's
            // commit_format_is_empty), not an empty one.
            if *tformat && !f.is_empty() {
                s.push('\n');
            }
        }
        other => {
            if !first {
                s.push('\n');
            }
            s.push_str(&format!("commit {hash}{deco}\n"));
            if c.parents.len() > 1 {
                let ps: Vec<String> = c.parents.iter().map(|p| repo.abbrev(p)).collect();
                s.push_str(&format!("Merge: {}\n", ps.join(" ")));
            }
            match other {
                Pretty::Short => s.push_str(&format!("Author: {}\n", sig(&c.author))),
                Pretty::Full => {
                    s.push_str(&format!("Author: {}\n", sig(&c.author)));
                    s.push_str(&format!("Commit: {}\n", sig(&c.committer)));
                }
                Pretty::Fuller => {
                    s.push_str(&format!("Author:     {}\n", sig(&c.author)));
                    s.push_str(&format!(
                        "AuthorDate: {}\n",
                        fmt_date(&c.author.time, &opts.date)
                    ));
                    s.push_str(&format!("Commit:     {}\n", sig(&c.committer)));
                    s.push_str(&format!(
                        "CommitDate: {}\n",
                        fmt_date(&c.committer.time, &opts.date)
                    ));
                }
                _ => {
                    s.push_str(&format!("Author: {}\n", sig(&c.author)));
                    s.push_str(&format!(
                        "Date:   {}\n",
                        fmt_date(&c.author.time, &opts.date)
                    ));
                }
            }
            s.push('\n');
            if matches!(other, Pretty::Short) {
                s.push_str(&format!("    {}\n", super::status::subject(&msg)));
            } else {
                indent_message(&msg, &mut s);
            }
        }
    }
    let text = s.into_bytes();
    let mut diff_out = Vec::new();
    let mut separator = false;
    if has_diff {
        let Some(how) = opts.diff else {
            return Ok((text, false, diff_out));
        };
        if c.parents.len() > 1 {
            // git's combined diff of a clean merge prints only its separator.
            return Ok((text, opts.combined_separator, diff_out));
        }
        let old = match c.parents.first() {
            Some(p) => diff::side_of(&repo.commit_files(Some(p))?),
            None => diff::Side::new(),
        };
        let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
        let keep = |p: &str| spec.matches(p);
        let check = g.checker();
        let changes = diff::changes_with_renames(repo, &old, &new, &keep, &check)?;
        let mut buf = Vec::new();
        print_changes(repo, &changes, how, opts.patch_too, &mut buf, &check)?;
        if !buf.is_empty() {
            separator = match &opts.pretty {
                Pretty::Oneline | Pretty::OnelineFull => false,
                Pretty::Format(f, _) => !f.is_empty(),
                _ => true,
            };
            diff_out = buf;
        }
    }
    Ok((text, separator, diff_out))
}
