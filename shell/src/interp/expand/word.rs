//! The expansion driver: walks a word's pieces left to right and builds its
//! fields. Each field keeps two forms: `text` (after quote removal) and
//! `pat`, the pattern form in which quoted pattern characters are
//! backslash-escaped, so globbing and `[[ == ]]` see only unquoted
//! wildcards. IFS splitting applies only to the results of unquoted
//! expansions, as in bash.

use brush_parser::word::{WordPiece, WordPieceWithSource};

use super::{ParseMode, Unparsed, parse_word};
use crate::interp::parse::TOO_COMPLEX;
use crate::interp::pattern::glob::glob;
use crate::interp::pattern::has_glob_chars;
use crate::interp::{Interp, Interrupt};

/// One field under construction.
#[derive(Clone, Debug, Default)]
pub(crate) struct Field {
    /// The field's text after quote removal.
    pub text: String,
    /// The pattern form (quoted specials escaped).
    pub pat: String,
    /// True when an unquoted glob character is present.
    pub glob: bool,
    /// True when the field exists even if empty (`""`, `"$x"`).
    pub started: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Delim {
    None,
    Ws,
    NonWs,
}

/// Accumulates the fields of one word.
pub(crate) struct Acc {
    pub fields: Vec<Field>,
    pub cur: Field,
    /// Split unquoted expansions on IFS.
    pub split: bool,
    /// Build the pattern form.
    pub want_pat: bool,
    ifs: String,
    delim: Delim,
    extglob: bool,
    /// How operands of `${x:-word}` are parsed (tilde rules of the context).
    pub mode: ParseMode,
    /// The last unquoted character was a backslash from an expansion: it
    /// escapes the next one in the pattern form.
    escaped: bool,
    /// IFS as a byte table when it is all ASCII (the usual case): splitting
    /// then scans bytes instead of searching IFS for every character.
    ifs_table: Option<[bool; 128]>,
}

/// Bytes that mean something in a pattern, so need the character-by-
/// character pattern-form path and a backslash when quoted.
fn is_pat_special(b: u8) -> bool {
    matches!(
        b,
        b'*' | b'?'
            | b'['
            | b']'
            | b'\\'
            | b'&'
            | b'('
            | b')'
            | b'|'
            | b'!'
            | b'@'
            | b'+'
            | b'-'
            | b'^'
    )
}

fn is_ifs_ws(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\n'
}

impl Acc {
    pub(crate) fn new(split: bool, want_pat: bool, ifs: Option<&str>, extglob: bool) -> Acc {
        let mut acc = Acc {
            fields: Vec::new(),
            cur: Field::default(),
            split,
            want_pat,
            ifs: if split {
                ifs.unwrap_or(" \t\n").to_string()
            } else {
                String::new()
            },
            delim: Delim::None,
            extglob,
            mode: ParseMode::Word,
            escaped: false,
            ifs_table: None,
        };
        if split && acc.ifs.is_ascii() {
            let mut t = [false; 128];
            for b in acc.ifs.bytes() {
                t[b as usize] = true;
            }
            acc.ifs_table = Some(t);
        }
        acc
    }

    fn push_pat_char(&mut self, c: char, quoted: bool) {
        if !self.want_pat {
            return;
        }
        // `&` is escaped too: in a `${x/p/r}` replacement it means the match.
        // Extglob characters are escaped whether or not extglob is on:
        // `[[ ]]` matches with extglob enabled regardless. `-` and `^` mean
        // a range and a negation inside brackets (`[C\-D]`, `["^"a]`).
        let special = c.is_ascii() && is_pat_special(c as u8);
        if quoted {
            if special {
                self.cur.pat.push('\\');
            }
            self.escaped = false;
        } else if self.escaped {
            // Escaped by a backslash from an unquoted expansion (bash 5.2:
            // `v='*\*.txt'; echo $v` matches a literal `*`).
            self.escaped = false;
        } else if c == '\\' {
            self.escaped = true;
        } else if matches!(c, '*' | '?' | '[') || (self.extglob && c == '(') {
            self.cur.glob = true;
        }
        self.cur.pat.push(c);
    }

    /// Literal word text (quoted or not): never split.
    pub(crate) fn push_literal(&mut self, s: &str, quoted: bool) {
        if quoted || !s.is_empty() {
            self.cur.started = true;
            self.delim = Delim::None;
        }
        self.cur.text.push_str(s);
        if self.want_pat {
            for c in s.chars() {
                self.push_unquoted_or_quoted(c, quoted);
            }
        }
    }

    fn push_unquoted_or_quoted(&mut self, c: char, quoted: bool) {
        if !self.want_pat {
            return;
        }
        // A backslash in unquoted literal text never reaches here (the parser
        // makes it an escape sequence), so only expansion results need the
        // `\\` treatment, which push_pat_char applies to every backslash.
        self.push_pat_char(c, quoted);
    }

    /// The result of an expansion: split on IFS when unquoted and splitting.
    pub(crate) fn push_expansion(&mut self, s: &str, quoted: bool) {
        if quoted || !self.split {
            self.push_literal(s, quoted);
            return;
        }
        if self.ifs.is_empty() {
            if !s.is_empty() {
                self.push_literal(s, false);
            }
            return;
        }
        let mut rest = s;
        while !rest.is_empty() {
            // A run without IFS characters goes in at once.
            let run = match &self.ifs_table {
                Some(t) => rest.bytes().position(|b| b < 128 && t[b as usize]),
                None => rest.find(|c: char| self.ifs.contains(c)),
            }
            .unwrap_or(rest.len());
            if run > 0 {
                let (seg, tail) = rest.split_at(run);
                self.delim = Delim::None;
                self.cur.started = true;
                self.cur.text.push_str(seg);
                if self.want_pat {
                    if self.escaped || seg.bytes().any(is_pat_special) {
                        for c in seg.chars() {
                            self.push_pat_char(c, false);
                        }
                    } else {
                        self.cur.pat.push_str(seg);
                    }
                }
                rest = tail;
                continue;
            }
            let mut it = rest.chars();
            let c = it.next().unwrap_or(' ');
            rest = it.as_str();
            if self.ifs.contains(c) {
                // Millions of fields (`$(yes)` unquoted): a cancelled run or
                // one over its memory budget stops splitting; the caller
                // reports the limit.
                if self.fields.len() % 4096 == 4095 && crate::cancel::requested() {
                    return;
                }
                if is_ifs_ws(c) {
                    if self.cur.started || !self.cur.text.is_empty() {
                        self.finish_field();
                    }
                    if self.delim == Delim::None {
                        self.delim = Delim::Ws;
                    }
                } else {
                    if self.delim == Delim::Ws {
                        // `a : b`: whitespace then one non-whitespace delimiter.
                        self.delim = Delim::NonWs;
                        continue;
                    }
                    self.finish_field_always();
                    self.delim = Delim::NonWs;
                }
            } else {
                self.delim = Delim::None;
                self.cur.started = true;
                self.cur.text.push(c);
                self.push_pat_char(c, false);
            }
        }
    }

    fn finish_field(&mut self) {
        let f = std::mem::take(&mut self.cur);
        self.fields.push(f);
        self.delim = Delim::None;
        self.escaped = false;
    }

    fn finish_field_always(&mut self) {
        self.cur.started = true;
        self.finish_field();
    }

    /// Ends the current field if it has content (between `"$@"` elements).
    pub(crate) fn field_break(&mut self) {
        if self.cur.started || !self.cur.text.is_empty() {
            self.finish_field();
        }
        self.delim = Delim::None;
    }

    /// The finished fields.
    pub(crate) fn finish(mut self) -> Vec<Field> {
        if self.cur.started || !self.cur.text.is_empty() {
            let f = std::mem::take(&mut self.cur);
            self.fields.push(f);
        }
        self.fields
    }
}

/// True when a word needs no expansion at all (the common case).
fn is_plain(word: &str) -> bool {
    !word.bytes().any(|b| {
        matches!(
            b,
            b'$' | b'`' | b'\'' | b'"' | b'\\' | b'*' | b'?' | b'[' | b'~' | b'{' | b'(' | b'\n'
        )
    })
}

impl Interp {
    /// The IFS value (`None`: unset, meaning the default).
    pub(crate) fn ifs_value(&self) -> Option<String> {
        self.vars.get_str("IFS").map(|s| s.to_string())
    }

    /// Expands one command word into `out` (brace, ..., globbing).
    pub(crate) fn expand_word_into(
        &mut self,
        word: &str,
        out: &mut Vec<String>,
    ) -> Result<(), Interrupt> {
        if is_plain(word) {
            out.push(word.to_string());
            return Ok(());
        }
        let braced = if word.contains('{') {
            let control = &self.control;
            super::brace_expand_until(word, &|| control.check_fast().is_err())
        } else {
            vec![word.to_string()]
        };
        for w in &braced {
            // Millions of words each take their expansion: a cancelled run
            // (or one over its memory budget) stops here.
            self.control.check_fast().map_err(Interrupt::Limit)?;
            let ifs = self.ifs_value();
            let mut acc = Acc::new(true, true, ifs.as_deref(), self.opts.extglob);
            // `echo x=~/a:~/b`: bash expands tildes after `=` and `:` in a
            // word that looks like an assignment.
            let (prefix, rest) = match assignment_split(w) {
                Some((p, r)) if r.contains('~') => (p, r),
                _ => ("", w.as_str()),
            };
            let mode = if prefix.is_empty() {
                ParseMode::Word
            } else {
                ParseMode::Assignment
            };
            acc.mode = mode;
            let pieces = self.parse_or_bad_subst(rest, mode)?;
            acc.push_literal(prefix, false);
            self.expand_pieces(&pieces, false, &mut acc)?;
            for (i, f) in acc.finish().into_iter().enumerate() {
                if i % 4096 == 0 {
                    self.control.check_fast().map_err(Interrupt::Limit)?;
                }
                self.glob_field(f, out)?;
            }
        }
        Ok(())
    }

    /// Pathname expansion of one field, then quote removal.
    fn glob_field(&mut self, f: Field, out: &mut Vec<String>) -> Result<(), Interrupt> {
        // `f.glob` only says an unquoted `*?[` was seen; a `[` without its
        // `]` is literal (bash's `glob_pattern_p`), which matters to nullglob.
        if !f.glob || self.opts.noglob || !has_glob_chars(&f.pat, self.opts.extglob) {
            out.push(f.text);
            return Ok(());
        }
        let matches = glob(self, &f.pat);
        if !matches.is_empty() {
            out.extend(matches);
        } else if self.opts.failglob {
            self.expansion_error(&format!("no match: {}", f.text));
            return Err(self.expansion_abort());
        } else if !self.opts.nullglob {
            out.push(f.text);
        }
        Ok(())
    }

    /// How a non-arithmetic expansion error (bad substitution, invalid
    /// indirection, failglob, assigning to a readonly variable) interrupts:
    /// bash abandons the current command and goes on with the next one,
    /// except under `set -e`, where it exits (arithmetic errors and negative
    /// substring lengths always just abandon the command).
    pub(crate) fn expansion_abort(&self) -> Interrupt {
        if self.opts.errexit {
            Interrupt::Exit(1)
        } else {
            Interrupt::Discard(1)
        }
    }

    /// Parses a word, reporting `bad substitution` when it can't be parsed.
    pub(crate) fn parse_or_bad_subst(
        &mut self,
        w: &str,
        mode: ParseMode,
    ) -> Result<super::Pieces, Interrupt> {
        match parse_word(w, mode) {
            Ok(p) => Ok(p),
            Err(Unparsed::TooComplex) => {
                let shown: String = w.chars().take(40).collect();
                let more = if shown.len() < w.len() { "..." } else { "" };
                self.expansion_error(&format!("{shown}{more}: {TOO_COMPLEX}"));
                Err(self.expansion_abort())
            }
            Err(Unparsed::BadSubstitution) => {
                let shown = match w.find("${") {
                    Some(i) => match w[i..].find('}') {
                        Some(j) => &w[i..i + j + 1],
                        None => &w[i..],
                    },
                    None => w,
                };
                self.expansion_error(&format!("{shown}: bad substitution"));
                Err(self.expansion_abort())
            }
        }
    }

    /// Expands `word` to one string (no splitting, no globbing); with `pat`,
    /// returns the pattern form instead.
    pub(crate) fn expand_nosplit(
        &mut self,
        word: &str,
        mode: ParseMode,
        pat: bool,
    ) -> Result<String, Interrupt> {
        if is_plain(word) && mode != ParseMode::Heredoc {
            return Ok(word.to_string());
        }
        let pieces = self.parse_or_bad_subst(word, mode)?;
        let mut acc = Acc::new(false, pat, None, self.opts.extglob);
        acc.mode = mode;
        let quoted = mode == ParseMode::Heredoc;
        self.expand_pieces(&pieces, quoted, &mut acc)?;
        let mut fields = acc.finish();
        if fields.len() == 1 {
            let f = fields.pop().unwrap_or_default();
            return Ok(if pat { f.pat } else { f.text });
        }
        let mut s = String::new();
        for (i, f) in fields.into_iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(if pat { &f.pat } else { &f.text });
        }
        Ok(s)
    }

    /// Expands one piece on its own (unquoted context, no splitting).
    pub(crate) fn expand_one_piece(&mut self, piece: &WordPiece) -> Result<String, Interrupt> {
        let mut acc = Acc::new(false, false, None, self.opts.extglob);
        self.expand_piece(piece, false, &mut acc)?;
        Ok(acc
            .finish()
            .into_iter()
            .map(|f| f.text)
            .collect::<Vec<_>>()
            .join(" "))
    }

    /// Expands `word` (a parameter operand such as the `y` of `${x:-y}`)
    /// into `acc` in the given quoting context.
    /// Unquoted, its unquoted literal text is split too (`${u:-a b}` gives
    /// two fields), as it is part of an unquoted expansion.
    pub(crate) fn expand_operand_into(
        &mut self,
        word: &str,
        quoted: bool,
        acc: &mut Acc,
    ) -> Result<(), Interrupt> {
        // No tilde expansion inside double quotes; otherwise the context's rules.
        let mode = if quoted || acc.mode == ParseMode::Heredoc {
            ParseMode::NoTilde
        } else {
            acc.mode
        };
        let pieces = self.parse_or_bad_subst(word, mode)?;
        if quoted {
            return self.expand_pieces(&pieces, quoted, acc);
        }
        for (i, p) in pieces.iter().enumerate() {
            self.refuse_unparsed_brace(&pieces, i)?;
            match &p.piece {
                WordPiece::Text(s) => acc.push_expansion(s, false),
                other => self.expand_piece(other, false, acc)?,
            }
        }
        Ok(())
    }

    /// Expands pieces into `acc`; `quoted` is true inside double quotes.
    pub(crate) fn expand_pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        quoted: bool,
        acc: &mut Acc,
    ) -> Result<(), Interrupt> {
        for i in 0..pieces.len() {
            self.refuse_unparsed_brace(pieces, i)?;
            self.expand_piece(&pieces[i].piece, quoted, acc)?;
        }
        Ok(())
    }

    /// The parser leaves a `${...}` it could not parse as the text `$`
    /// followed by text starting with `{`: bash's "bad substitution".
    fn refuse_unparsed_brace(
        &mut self,
        pieces: &[WordPieceWithSource],
        i: usize,
    ) -> Result<(), Interrupt> {
        if let WordPiece::Text(t) = &pieces[i].piece
            && t.ends_with('$')
            && let Some(WordPiece::Text(next)) = pieces.get(i + 1).map(|n| &n.piece)
            && next.starts_with('{')
        {
            let end = next.find('}').map(|e| e + 1).unwrap_or(next.len());
            self.expansion_error(&format!("${}: bad substitution", &next[..end]));
            return Err(self.expansion_abort());
        }
        Ok(())
    }

    fn expand_piece(
        &mut self,
        piece: &WordPiece,
        quoted: bool,
        acc: &mut Acc,
    ) -> Result<(), Interrupt> {
        match piece {
            WordPiece::Text(s) => acc.push_literal(s, quoted),
            WordPiece::SingleQuotedText(s) => {
                if quoted {
                    // `"${x:-'$v'}"`: inside double quotes the single quotes
                    // are literal and their content is double-quoted text.
                    acc.push_literal("'", true);
                    match parse_word(&format!("\"{s}\""), ParseMode::NoTilde) {
                        Ok(inner) if !s.contains('"') => self.expand_pieces(&inner, true, acc)?,
                        _ => acc.push_literal(s, true),
                    }
                    acc.push_literal("'", true);
                } else {
                    acc.push_literal(s, true);
                }
            }
            WordPiece::AnsiCQuotedText(s) => {
                let d = super::decode_ansi_c(s);
                acc.push_literal(&d, true);
            }
            WordPiece::DoubleQuotedSequence(ps) | WordPiece::GettextDoubleQuotedSequence(ps) => {
                if ps.is_empty() {
                    acc.push_literal("", true);
                } else {
                    self.expand_pieces(ps, true, acc)?;
                }
            }
            WordPiece::TildeExpansion(t) => match self.tilde_value(t) {
                Some(home) => acc.push_literal(&home, true),
                None => acc.push_literal(&super::tilde::tilde_text(t), false),
            },
            WordPiece::ParameterExpansion(e) => self.expand_param(e, quoted, acc)?,
            WordPiece::CommandSubstitution(src) => {
                let out = self.run_substitution(src)?;
                acc.push_expansion(&out, quoted);
            }
            WordPiece::BackquotedCommandSubstitution(src) => {
                let src = unescape_backquoted(src, quoted);
                let out = self.run_substitution(&src)?;
                acc.push_expansion(&out, quoted);
            }
            WordPiece::EscapeSequence(s) => {
                let c = s.strip_prefix('\\').unwrap_or(s);
                if quoted && !matches!(c, "$" | "`" | "\"" | "\\" | "\n" | "}") {
                    acc.push_literal(s, true);
                } else if c == "\n" {
                    // Line continuation.
                } else {
                    acc.push_literal(c, true);
                }
            }
            WordPiece::ArithmeticExpression(e) => {
                let v = self.eval_arith_subst(&e.value)?;
                acc.push_expansion(&v.to_string(), quoted);
            }
        }
        Ok(())
    }

    /// Runs a command substitution and strips its trailing newlines.
    pub(crate) fn run_substitution(&mut self, src: &str) -> Result<String, Interrupt> {
        let mut bytes = self.command_substitution(src)?;
        if bytes.contains(&0) {
            // bash's strings end at a NUL, so it drops them (with a warning).
            bytes.retain(|&b| b != 0);
            self.shell_error("warning: command substitution: ignored null byte in input");
        }
        let mut s = crate::bytes::decode_vec(bytes);
        while s.ends_with('\n') {
            s.pop();
        }
        Ok(s)
    }
}

/// Splits `NAME=rest` (or `NAME+=rest`) after the `=`; `None` for other words.
fn assignment_split(w: &str) -> Option<(&str, &str)> {
    let eq = w.find('=')?;
    let name = w[..eq].strip_suffix('+').unwrap_or(&w[..eq]);
    crate::interp::vars::is_valid_name(name).then(|| w.split_at(eq + 1))
}

/// Backslash processing inside backquotes: `\$`, `` \` `` and `\\` lose
/// the backslash (and `\"` inside double quotes).
fn unescape_backquoted(src: &str, in_dquote: bool) -> String {
    if !src.contains('\\') {
        return src.to_string();
    }
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&n) if n == '$' || n == '`' || n == '\\' || (in_dquote && n == '"') => {
                    out.push(n);
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Interp {
    /// Expands arithmetic text before evaluation: `$x`, `${...}`, `$(...)`,
    /// nested `$((...))` and quote removal, no tilde, splitting or globbing.
    pub(crate) fn expand_arith_text(&mut self, expr: &str) -> Result<String, Interrupt> {
        let pieces = self.parse_or_bad_subst(expr, ParseMode::NoTilde)?;
        let mut acc = Acc::new(false, false, None, false);
        for p in pieces.iter() {
            match &p.piece {
                // Single quotes are not quote characters here.
                WordPiece::SingleQuotedText(s) => acc.push_literal(&format!("'{s}'"), true),
                other => self.expand_piece(other, true, &mut acc)?,
            }
        }
        Ok(acc
            .finish()
            .into_iter()
            .map(|f| f.text)
            .collect::<Vec<_>>()
            .join(" "))
    }
}
