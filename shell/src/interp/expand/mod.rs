//! Word expansion: brace, tilde, parameter, command substitution, arithmetic,
//! word splitting, pathname expansion and quote removal, in bash's order.
//! OWNER: expand helper.
//!
//! Module map:
//! - `word`: the driver: walks brush-parser's word pieces and builds fields
//!   (with IFS splitting and the pattern form used for globbing);
//! - `param`: `${...}` operators; `special`: special and dynamic parameters
//!   and variable lookup (namerefs, arrays); `assign`: assignments made by
//!   expansions and arithmetic (`${x:=v}`, `((x=1))`);
//! - `brace`, `tilde`, `ansi` (`$'...'` escapes), `quote` (`${x@Q}`,
//!   `printf %q`, `declare -p` quoting).
//!
//! Parsed words are cached per thread, so a loop body expands without
//! re-parsing.

mod ansi;
mod assign;
pub(crate) mod brace;
mod param;
mod prompt;
mod reparse;
pub(crate) mod special;
mod tilde;
mod word;

use std::cell::RefCell;
use std::rc::Rc;

use brush_parser::ParserOptions;
use brush_parser::ast::Word;
use brush_parser::word::WordPieceWithSource;

use super::vars::FastMap;
use super::{Interp, Interrupt};

use crate::builtin_core::quote;
pub use ansi::decode_ansi_c;
pub use brace::brace_expand_until;
pub(crate) use special::split_subscript;

/// Parsed pieces of a word.
pub(crate) type Pieces = Rc<Vec<WordPieceWithSource>>;

/// How a word is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ParseMode {
    /// A command word: tilde at the start.
    Word,
    /// An assignment value: tilde at the start and after `:`.
    Assignment,
    /// Arithmetic text or a here-document: no tilde expansion.
    NoTilde,
    /// A here-document body (`"` and `'` are literal).
    Heredoc,
}

thread_local! {
    /// One cache per parse mode, so lookups borrow the word (no allocation).
    static WORD_CACHE: RefCell<[FastMap<Pieces>; 4]> = RefCell::new(Default::default());
}

/// Unclosed `${` and `$(` a word may have and still reach the parser.
/// brush-parser's grammar backtracks at each one (an expansion, then
/// literal text), so k of them cost 2^k attempts: 20 took seconds and 25
/// ran past any time limit, with no point to stop it. Such words come from
/// here-documents and from text parsed at run time (`PS4`, subscripts of
/// `test -v`, associative keys). More than this many is a bad
/// substitution, as bash says for any unclosed one.
const MAX_UNCLOSED_EXPANSIONS: usize = 8;

/// How many `${` and `$(` (and `(` within one) of `word` no later `}` or
/// `)` can close: every unescaped opener opens and every unescaped closer
/// closes. Single quotes outside double quotes hide what they hold, except
/// at the top of a here-document (`heredoc`), whose quotes are text. A
/// closer that should not count only makes the count smaller.
fn unclosed_expansions(word: &str, heredoc: bool) -> usize {
    let b = word.as_bytes();
    let (mut braces, mut parens, mut i) = (0usize, 0usize, 0);
    let mut in_double = false;
    while i < b.len() {
        let quotes_count = !heredoc || parens > 0;
        match b[i] {
            b'\\' => i += 1,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                braces += 1;
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                parens += 1;
                i += 1;
            }
            b'"' if quotes_count => in_double = !in_double,
            b'\'' if quotes_count && !in_double => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
            }
            // Outside `$(` (and in quotes), a parenthesis is just text.
            b'(' if parens > 0 && !in_double => parens += 1,
            b'}' => braces = braces.saturating_sub(1),
            b')' => parens = parens.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    braces + parens
}

/// Why a word did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unparsed {
    /// Its syntax is wrong: bash's "bad substitution".
    BadSubstitution,
    /// The parser gave up on it (see `parse::within_parse_budget`).
    TooComplex,
}

/// Parses `word` into pieces, from the per-thread cache when possible.
pub(crate) fn parse_word(word: &str, mode: ParseMode) -> Result<Pieces, Unparsed> {
    if unclosed_expansions(word, mode == ParseMode::Heredoc) > MAX_UNCLOSED_EXPANSIONS {
        return Err(Unparsed::BadSubstitution);
    }
    WORD_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let cache = &mut c[mode as usize];
        if let Some(p) = cache.get(word) {
            return Ok(p.clone());
        }
        let options = ParserOptions {
            enable_extended_globbing: true,
            tilde_expansion_at_word_start: matches!(mode, ParseMode::Word | ParseMode::Assignment),
            tilde_expansion_after_colon: mode == ParseMode::Assignment,
            ..ParserOptions::default()
        };
        let parse = |w: &str| {
            let parsed = if mode == ParseMode::Heredoc {
                brush_parser::word::parse_heredoc(w, &options)
            } else {
                brush_parser::word::parse(w, &options)
            };
            parsed.ok()
        };
        let pieces = super::parse::within_parse_budget(word.len(), || match parse(word) {
            Some(p) if !reparse::has_unparsed(&p) => Some(p),
            Some(p) => Some(reparse::parse_rejected(word, parse).unwrap_or(p)),
            None => reparse::parse_rejected(word, parse),
        })
        .ok_or(Unparsed::TooComplex)?
        .ok_or(Unparsed::BadSubstitution)?;
        let pieces = Rc::new(pieces);
        if cache.len() > 4096 {
            cache.clear();
        }
        cache.insert(word.to_string(), pieces.clone());
        Ok(pieces)
    })
}

impl Interp {
    /// Fully expands command words (arguments): every expansion, IFS
    /// splitting and globbing. `"$@"` yields one field per parameter.
    pub fn expand_words(&mut self, words: &[Word]) -> Result<Vec<String>, Interrupt> {
        let mut out = Vec::with_capacity(words.len());
        for w in words {
            self.expand_word_into(&w.value, &mut out)?;
        }
        Ok(out)
    }

    /// Expands a word to one string without splitting or globbing (assignment
    /// values, redirection targets, `case` words, here-strings).
    pub fn expand_string(&mut self, word: &str) -> Result<String, Interrupt> {
        self.expand_nosplit(word, ParseMode::Word, false)
    }

    /// Expands an assignment's value (`x=VALUE`): like [`Interp::expand_string`],
    /// plus tilde expansion after each unquoted `:` (`PATH=~/bin:~/x`).
    pub fn expand_assignment_value(&mut self, word: &str) -> Result<String, Interrupt> {
        self.expand_nosplit(word, ParseMode::Assignment, false)
    }

    /// Expands a word used as a pattern (`case`, `[[ == ]]`, `${x#pat}`):
    /// quoted parts are escaped so they match literally.
    pub fn expand_pattern(&mut self, word: &str) -> Result<String, Interrupt> {
        self.expand_nosplit(word, ParseMode::Word, true)
    }

    /// Expands the body of an unquoted here-document.
    pub fn expand_heredoc(&mut self, body: &str) -> Result<String, Interrupt> {
        if !body.contains(['$', '`', '\\']) {
            return Ok(body.to_string());
        }
        self.expand_nosplit(body, ParseMode::Heredoc, false)
    }

    /// Writes `bash: line N: MSG` to stderr, the shape of bash's expansion
    /// errors (`bad substitution`, `unbound variable`, arithmetic errors).
    pub fn expansion_error(&mut self, msg: &str) {
        let line = format!("{}: {msg}\n", self.err_prefix());
        let _ = self.write_fd(2, line.as_bytes());
    }
}
