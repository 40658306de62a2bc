//! The search of one buffer: finding selected lines and printing them with
//! their prefixes and context, in GNU grep's output format.
//!
//! The whole buffer is searched at once: the regex jumps straight to the next
//! match and only then is the surrounding line located, so long runs of
//! non-matching lines cost no per-line work (what makes `grep -c` over a big
//! file fast).

use std::io::{Read, Write};

use memchr::{memchr, memrchr};

use super::super::common;
use super::super::posix_regex::Regex;
use crate::fs::FsError;

/// How binary files are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Binary {
    /// Report "binary file matches" instead of lines.
    #[default]
    Report,
    /// Treat as text.
    Text,
    /// Treat as not matching.
    WithoutMatch,
}

/// Everything that shapes the search and the output.
#[derive(Debug)]
pub struct Config {
    /// Line terminator (`\n`, or NUL with `-z`).
    pub eol: u8,
    /// `-v`
    pub invert: bool,
    /// `-m NUM`
    pub max_count: Option<u64>,
    /// `-b`
    pub byte_offset: bool,
    /// `-n`
    pub line_number: bool,
    /// Prefix lines with the file name (`-H`, or several files).
    pub with_name: bool,
    /// `--label`: the name shown for stdin.
    pub label: String,
    /// `-o`
    pub only_matching: bool,
    /// `-q`
    pub quiet: bool,
    /// `--binary-files`, `-a`, `-I`
    pub binary: Binary,
    /// `-s`
    pub no_messages: bool,
    /// `-r` (`Some(false)`) or `-R` (`Some(true)`: follow all symlinks).
    pub recursive: Option<bool>,
    /// `-d skip`
    pub skip_dirs: bool,
    /// `--include` globs.
    pub include: Vec<String>,
    /// `--exclude` globs.
    pub exclude: Vec<String>,
    /// `--exclude-dir` globs.
    pub exclude_dir: Vec<String>,
    /// `Some(true)`: `-l`; `Some(false)`: `-L`.
    pub list: Option<bool>,
    /// `-c`
    pub count: bool,
    /// `-T`
    pub initial_tab: bool,
    /// `-Z`
    pub null: bool,
    /// `-B NUM`
    pub before: usize,
    /// `-A NUM`
    pub after: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            eol: b'\n',
            invert: false,
            max_count: None,
            byte_offset: false,
            line_number: false,
            with_name: false,
            label: String::new(),
            only_matching: false,
            quiet: false,
            binary: Binary::Report,
            no_messages: false,
            recursive: None,
            skip_dirs: false,
            include: Vec::new(),
            exclude: Vec::new(),
            exclude_dir: Vec::new(),
            list: None,
            count: false,
            initial_tab: false,
            null: false,
            before: 0,
            after: 0,
        }
    }
}

/// A compiled pattern set.
pub enum Matcher {
    /// BRE, ERE or fixed strings.
    Posix(Regex),
    /// `-P`: the regex crate's own (Perl-like) syntax.
    Pcre(regex::bytes::Regex),
    /// `-P` with what the regex crate lacks (look-around, `\K`,
    /// back-references): a backtracking engine, run line by line on lines
    /// that are valid UTF-8.
    Fancy(Box<fancy_regex::Regex>),
}

impl Matcher {
    fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        match self {
            Matcher::Posix(re) => re.find_at(hay, start),
            Matcher::Pcre(re) => re.find_at(hay, start).map(|m| (m.start(), m.end())),
            Matcher::Fancy(re) => {
                let text = std::str::from_utf8(hay).ok()?;
                let m = re.find_from_pos(text, start).ok()??;
                Some((m.start(), m.end()))
            }
        }
    }

    /// Where the first match at or after `start` begins (its end is not
    /// needed to pick the line, and is dearer under POSIX longest-match).
    fn find_start_at(&self, hay: &[u8], start: usize) -> Option<usize> {
        match self {
            Matcher::Posix(re) => re.find_start_at(hay, start),
            _ => self.find_at(hay, start).map(|m| m.0),
        }
    }

    fn line_by_line(&self) -> bool {
        match self {
            Matcher::Posix(re) => re.is_backtracking(),
            Matcher::Pcre(_) => false,
            Matcher::Fancy(_) => true,
        }
    }
}

/// The result of searching one buffer.
pub enum Outcome {
    /// The number of selected lines.
    Selected(u64),
    /// The number of selected lines before reading the input failed (`<
    /// dir`), which was reported: grep's status is then 2.
    Failed(u64),
    /// `-q` found a line: stop everything.
    Quit,
    /// Writing failed.
    Broken,
}

/// Searches buffers with one configuration.
pub struct Searcher<'a> {
    cfg: &'a Config,
    m: &'a Matcher,
    /// Whether any group was printed yet (for the `--` separator).
    printed_any: bool,
}

/// What one chunk of a stream hands to the next.
#[derive(Debug, Default)]
struct Carry {
    /// Stream offset of the chunk's first byte.
    base: u64,
    /// Line number of the chunk's first line.
    line_no: u64,
    /// Lines selected so far.
    selected: u64,
    /// End of the last printed line, within the chunk.
    last_end: Option<usize>,
    /// After-context lines still owed.
    pending_after: usize,
}

/// Per-buffer output state.
struct Emit<'b> {
    data: &'b [u8],
    name: &'b str,
    /// Stream offset of `data[0]` (for `-b`).
    base: u64,
    /// End (after the terminator) of the last printed line.
    last_end: Option<usize>,
    /// After-context lines still to print.
    pending_after: usize,
    /// Line-number cursor: the line number of the line starting at `ln_off`.
    ln_off: usize,
    ln_no: u64,
}

type WResult = std::io::Result<()>;

impl<'a> Searcher<'a> {
    /// A searcher for `cfg` and `m`.
    pub fn new(cfg: &'a Config, m: &'a Matcher) -> Searcher<'a> {
        Searcher {
            cfg,
            m,
            printed_any: false,
        }
    }

    /// The next line (start, end excluding terminator) at or after `pos`
    /// that contains a match.
    fn next_match_line(&self, data: &[u8], pos: usize) -> Option<(usize, usize)> {
        let eol = self.cfg.eol;
        if self.m.line_by_line() {
            let mut p = pos;
            while p < data.len() {
                let e = memchr(eol, &data[p..]).map(|i| p + i).unwrap_or(data.len());
                if self.m.find_start_at(&data[p..e], 0).is_some() {
                    return Some((p, e));
                }
                p = e + 1;
            }
            return None;
        }
        let s = self.m.find_start_at(data, pos)?;
        if s >= data.len() && (data.is_empty() || data[data.len() - 1] == eol) {
            return None;
        }
        let ls = memrchr(eol, &data[pos..s])
            .map(|i| pos + i + 1)
            .unwrap_or(pos);
        let le = memchr(eol, &data[s..]).map(|i| s + i).unwrap_or(data.len());
        Some((ls, le))
    }

    /// Searches `data` (named `name` in output) and prints what the options ask.
    pub fn search(
        &mut self,
        data: &[u8],
        name: &str,
        out: &mut dyn Write,
        stderr: &mut dyn Write,
    ) -> Outcome {
        let cfg = self.cfg;
        let binary = cfg.binary != Binary::Text && cfg.eol != 0 && memchr(0, data).is_some();
        if binary && cfg.binary == Binary::WithoutMatch {
            return Outcome::Selected(0);
        }
        if cfg.count
            && cfg.list.is_none()
            && !cfg.quiet
            && cfg.max_count.is_none()
            && let Matcher::Posix(re) = self.m
            && let Some(b) = re.single_byte()
        {
            let (hits, lines) = count_byte_lines(data, b, cfg.eol);
            let selected = if cfg.invert { lines - hits } else { hits };
            return self.finish_counts(name, selected, binary, out, stderr);
        }
        let mut carry = Carry {
            line_no: 1,
            ..Carry::default()
        };
        if self.scan(data, 0, name, binary, &mut carry, out).is_err() {
            return Outcome::Broken;
        }
        if cfg.quiet && carry.selected > 0 {
            return Outcome::Quit;
        }
        self.finish_counts(name, carry.selected, binary, out, stderr)
    }

    /// Searches a stream (stdin) chunk by chunk, so that `yes | grep -m1 y`
    /// ends and output flows while input still arrives. Each chunk holds
    /// whole lines, preceded by the last `-B` lines of the previous one.
    pub fn search_stream(
        &mut self,
        input: &mut dyn Read,
        name: &str,
        out: &mut dyn Write,
        stderr: &mut dyn Write,
        control: &crate::control::RunControl,
    ) -> Outcome {
        let cfg = self.cfg;
        let mut buf: Vec<u8> = Vec::new();
        let mut carry = Carry {
            line_no: 1,
            ..Carry::default()
        };
        let mut overlap = 0;
        let mut binary = false;
        let mut chunk = vec![0u8; 64 * 1024];
        let mut failed = false;
        loop {
            if control.check().is_err() {
                return Outcome::Broken;
            }
            let n = match input.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // `< dir` is reported; other failures (a cancelled run's
                // pipe) end the input.
                Err(e) => {
                    if let Some(reported) = FsError::reported_read(&e) {
                        failed = true;
                        if !cfg.no_messages {
                            common::err(stderr, "grep", format!("{name}: {reported}"));
                        }
                    }
                    0
                }
            };
            let eof = n == 0;
            buf.extend_from_slice(&chunk[..n]);
            let end = if eof {
                buf.len()
            } else {
                match memrchr(cfg.eol, &buf[overlap..]) {
                    Some(i) => overlap + i + 1,
                    None => continue,
                }
            };
            if !binary
                && cfg.binary != Binary::Text
                && cfg.eol != 0
                && memchr(0, &buf[overlap..end]).is_some()
            {
                binary = true;
                if cfg.binary == Binary::WithoutMatch {
                    return Outcome::Selected(0);
                }
            }
            let stop = match self.scan(&buf[..end], overlap, name, binary, &mut carry, out) {
                Ok(stop) => stop,
                Err(_) => return Outcome::Broken,
            };
            if stop || eof {
                break;
            }
            // Keep the last `-B` lines for leading context of the next chunk.
            let mut keep = end;
            for _ in 0..cfg.before {
                if keep == 0 {
                    break;
                }
                keep = memrchr(cfg.eol, &buf[..keep - 1])
                    .map(|i| i + 1)
                    .unwrap_or(0);
            }
            carry.base += keep as u64;
            carry.line_no += memchr::memchr_iter(cfg.eol, &buf[..keep]).count() as u64;
            carry.last_end = carry.last_end.and_then(|x| x.checked_sub(keep));
            buf.drain(..keep);
            overlap = end - keep;
        }
        if cfg.quiet && carry.selected > 0 {
            return Outcome::Quit;
        }
        match self.finish_counts(name, carry.selected, binary, out, stderr) {
            Outcome::Selected(n) if failed => Outcome::Failed(n),
            outcome => outcome,
        }
    }

    /// Selects and prints lines of `data` from `start` on, continuing the
    /// state in `carry`; returns true when nothing more needs to be read.
    fn scan(
        &mut self,
        data: &[u8],
        start: usize,
        name: &str,
        binary: bool,
        carry: &mut Carry,
        out: &mut dyn Write,
    ) -> std::io::Result<bool> {
        let cfg = self.cfg;
        let quiet_lines = cfg.quiet || cfg.count || cfg.list.is_some() || binary;
        let mut e = Emit {
            data,
            name,
            base: carry.base,
            last_end: carry.last_end,
            pending_after: carry.pending_after,
            ln_off: 0,
            ln_no: carry.line_no,
        };
        let mut selected = carry.selected;
        let max = cfg.max_count.unwrap_or(u64::MAX);
        let mut pos = start;
        let r: WResult = (|| {
            while pos < data.len() && selected < max {
                let found = self.next_match_line(data, pos);
                if !cfg.invert {
                    let Some((ls, le)) = found else { break };
                    selected += 1;
                    if cfg.quiet {
                        return Ok(());
                    }
                    if !quiet_lines {
                        self.emit_selected(&mut e, out, ls, le)?;
                    } else if cfg.list.is_some() {
                        break;
                    }
                    pos = le + 1;
                } else {
                    let stop = found.map(|(ls, _)| ls).unwrap_or(data.len());
                    while pos < stop && selected < max {
                        let le = memchr(cfg.eol, &data[pos..stop])
                            .map(|i| pos + i)
                            .unwrap_or(stop);
                        selected += 1;
                        if cfg.quiet {
                            return Ok(());
                        }
                        if !quiet_lines {
                            self.emit_selected(&mut e, out, pos, le)?;
                        } else if cfg.list.is_some() {
                            return Ok(());
                        }
                        pos = le + 1;
                    }
                    match found {
                        Some((_, le)) if selected < max => pos = le + 1,
                        _ => break,
                    }
                }
            }
            if !quiet_lines {
                self.flush_after(&mut e, out, data.len())?;
            }
            Ok(())
        })();
        r?;
        carry.selected = selected;
        carry.last_end = e.last_end;
        carry.pending_after = e.pending_after;
        let done = (cfg.quiet || cfg.list.is_some()) && selected > 0
            || selected >= max && e.pending_after == 0;
        Ok(done)
    }

    /// Prints the per-file summary (`-c`, `-l`, `-L`, binary notice).
    fn finish_counts(
        &mut self,
        name: &str,
        selected: u64,
        binary: bool,
        out: &mut dyn Write,
        stderr: &mut dyn Write,
    ) -> Outcome {
        let cfg = self.cfg;
        let r: WResult = (|| {
            if cfg.count && cfg.list.is_none() {
                if cfg.with_name {
                    self.write_name(out, name, b':')?;
                }
                writeln!(out, "{selected}")?;
            }
            match cfg.list {
                Some(true) if selected > 0 => self.write_list(out, name)?,
                Some(false) if selected == 0 => self.write_list(out, name)?,
                _ => {}
            }
            if binary && selected > 0 && !cfg.quiet && !cfg.count && cfg.list.is_none() {
                out.flush()?;
                let _ = writeln!(stderr, "grep: {name}: binary file matches");
            }
            Ok(())
        })();
        if r.is_err() {
            return Outcome::Broken;
        }
        Outcome::Selected(selected)
    }

    fn write_list(&self, out: &mut dyn Write, name: &str) -> WResult {
        out.write_all(name.as_bytes())?;
        out.write_all(if self.cfg.null { b"\0" } else { b"\n" })
    }

    fn write_name(&self, out: &mut dyn Write, name: &str, sep: u8) -> WResult {
        out.write_all(name.as_bytes())?;
        out.write_all(&[if self.cfg.null { 0 } else { sep }])
    }

    /// Line number of the line starting at `off` (offsets only grow).
    fn line_no(&self, e: &mut Emit<'_>, off: usize) -> u64 {
        if off > e.ln_off {
            e.ln_no += memchr::memchr_iter(self.cfg.eol, &e.data[e.ln_off..off]).count() as u64;
            e.ln_off = off;
        }
        e.ln_no
    }

    fn prefix(
        &self,
        e: &mut Emit<'_>,
        out: &mut dyn Write,
        ls: usize,
        off: usize,
        sep: u8,
    ) -> WResult {
        let cfg = self.cfg;
        if cfg.with_name {
            self.write_name(out, e.name, sep)?;
        }
        if cfg.line_number {
            let n = self.line_no(e, ls);
            if cfg.initial_tab {
                write!(out, "{n:>4}{}", sep as char)?;
            } else {
                write!(out, "{n}{}", sep as char)?;
            }
        }
        if cfg.byte_offset {
            write!(out, "{}{}", e.base + off as u64, sep as char)?;
        }
        if cfg.initial_tab && (cfg.with_name || cfg.line_number || cfg.byte_offset) {
            out.write_all(b"\t")?;
        }
        Ok(())
    }

    fn line(
        &self,
        e: &mut Emit<'_>,
        out: &mut dyn Write,
        ls: usize,
        le: usize,
        sep: u8,
    ) -> WResult {
        self.prefix(e, out, ls, ls, sep)?;
        out.write_all(&e.data[ls..le])?;
        out.write_all(&[self.cfg.eol])?;
        e.last_end = Some(le + 1);
        Ok(())
    }

    /// Prints pending after-context lines that end before `limit`.
    fn flush_after(&mut self, e: &mut Emit<'_>, out: &mut dyn Write, limit: usize) -> WResult {
        while e.pending_after > 0 {
            let Some(p) = e.last_end else { break };
            if p >= limit || p >= e.data.len() {
                break;
            }
            let le = memchr(self.cfg.eol, &e.data[p..])
                .map(|i| p + i)
                .unwrap_or(e.data.len());
            self.line(e, out, p, le, b'-')?;
            e.pending_after -= 1;
        }
        Ok(())
    }

    fn emit_selected(
        &mut self,
        e: &mut Emit<'_>,
        out: &mut dyn Write,
        ls: usize,
        le: usize,
    ) -> WResult {
        let cfg = self.cfg;
        let ctx_on = cfg.before > 0 || cfg.after > 0;
        if ctx_on {
            self.flush_after(e, out, ls)?;
        }
        // Leading context: up to `before` lines, not overlapping printed ones.
        let floor = e.last_end.unwrap_or(0);
        let mut start = ls;
        for _ in 0..cfg.before {
            if start <= floor {
                break;
            }
            start = memrchr(cfg.eol, &e.data[floor..start - 1])
                .map(|i| floor + i + 1)
                .unwrap_or(floor);
        }
        if ctx_on && self.printed_any && e.last_end != Some(start) {
            out.write_all(b"--\n")?;
        }
        while start < ls {
            let l_end = memchr(cfg.eol, &e.data[start..ls])
                .map(|i| start + i)
                .unwrap_or(ls);
            self.line(e, out, start, l_end, b'-')?;
            start = l_end + 1;
        }
        self.printed_any = true;
        if cfg.only_matching {
            if !cfg.invert {
                let mut p = ls;
                while p <= le {
                    let found = if self.m.line_by_line() {
                        self.m
                            .find_at(&e.data[ls..le], p - ls)
                            .map(|(a, b)| (a + ls, b + ls))
                    } else {
                        self.m.find_at(&e.data[..le], p)
                    };
                    let Some((s, t)) = found else { break };
                    if t == s {
                        p = s + 1;
                        continue;
                    }
                    self.prefix(e, out, ls, s, b':')?;
                    out.write_all(&e.data[s..t])?;
                    out.write_all(&[cfg.eol])?;
                    p = t;
                }
            }
            e.last_end = Some(le + 1);
        } else {
            self.line(e, out, ls, le, b':')?;
        }
        e.pending_after = cfg.after;
        Ok(())
    }
}

/// Counts the lines containing byte `needle` and all lines, eight bytes at a
/// time: per word, exact masks of needle and terminator bytes are built with
/// SWAR arithmetic and only their set bits are visited.
pub fn count_byte_lines(data: &[u8], needle: u8, eol: u8) -> (u64, u64) {
    const LO: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    #[inline(always)]
    fn zero_mask(x: u64) -> u64 {
        // High bit of each byte set exactly where x's byte is zero.
        !(((x & LO).wrapping_add(LO)) | x | LO)
    }
    let (bn, be) = (ONES * needle as u64, ONES * eol as u64);
    let (mut hits, mut lines) = (0u64, 0u64);
    let mut hit = false;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        let mn = zero_mask(w ^ bn);
        let me = zero_mask(w ^ be);
        if me == 0 {
            hit |= mn != 0;
            continue;
        }
        if mn == 0 {
            hits += hit as u64;
            lines += me.count_ones() as u64;
            hit = false;
            continue;
        }
        let mut all = mn | me;
        while all != 0 {
            let bit = all & all.wrapping_neg();
            if me & bit != 0 {
                hits += hit as u64;
                lines += 1;
                hit = false;
            } else {
                hit = true;
            }
            all ^= bit;
        }
    }
    for &b in chunks.remainder() {
        if b == eol {
            hits += hit as u64;
            lines += 1;
            hit = false;
        } else if b == needle {
            hit = true;
        }
    }
    if data.last().is_some_and(|b| *b != eol) {
        hits += hit as u64;
        lines += 1;
    }
    (hits, lines)
}
