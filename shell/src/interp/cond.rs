//! `[[ ... ]]`: file tests, string and integer comparisons, `==` patterns,
//! `=~` with BASH_REMATCH. OWNER: expand helper.
//!
//! Operands are expanded without word splitting or globbing. The right side
//! of `==`/`!=` is a pattern (quoted parts literal; extglob always on, as in
//! bash 5.2); the right side of `=~` is a POSIX extended regular expression
//! (quoted parts literal), run by the POSIX engine grep and sed use
//! (leftmost-longest, as glibc's `regcomp` that bash calls).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use brush_parser::ast::{BinaryPredicate, ExtendedTestExpr, UnaryPredicate, Word};
use brush_parser::word::WordPiece;

use super::arith::ArithFail;
use super::expand::{ParseMode, split_subscript};
use super::pattern::{self, MatchOptions};
use super::vars::Value;
use super::{Attrs, Interp, Interrupt};
use crate::commands::text::posix_regex::{Flavor, Regex, RegexOptions, Syntax};
use crate::fs::{FileKind, Fs};

/// Compiled `=~` regexes by source text and case-insensitivity.
type RegexCache = HashMap<(String, bool), Option<Rc<Regex>>>;

thread_local! {
    /// Compiled `=~` regexes by source text and case-insensitivity (`None`:
    /// the source does not compile).
    static REGEX_CACHE: RefCell<RegexCache> = RefCell::new(HashMap::new());
}

impl Interp {
    /// Evaluates a `[[ ]]` expression to bash's exit status: 0 true, 1 false,
    /// 2 when an `=~` regex does not compile. Like bash, `&&` and `||` pass a
    /// 2 through as a failure and `!` turns it into 0.
    pub fn eval_cond_status(&mut self, expr: &ExtendedTestExpr) -> Result<i32, Interrupt> {
        match expr {
            ExtendedTestExpr::And(a, b) => match self.eval_cond_status(a)? {
                0 => self.eval_cond_status(b),
                s => Ok(s),
            },
            ExtendedTestExpr::Or(a, b) => match self.eval_cond_status(a)? {
                0 => Ok(0),
                _ => self.eval_cond_status(b),
            },
            ExtendedTestExpr::Not(a) => Ok(i32::from(self.eval_cond_status(a)? == 0)),
            ExtendedTestExpr::Parenthesized(a) => self.eval_cond_status(a),
            ExtendedTestExpr::UnaryTest(pred, w) => {
                let s = self.expand_string(&w.value)?;
                Ok(i32::from(!self.unary_test(pred, &s)))
            }
            ExtendedTestExpr::BinaryTest(pred, l, r) => self.binary_test(pred, l, r),
        }
    }

    /// A unary test on an expanded operand (shared with `test`/`[`).
    pub fn unary_test(&mut self, pred: &UnaryPredicate, s: &str) -> bool {
        use UnaryPredicate as U;
        match pred {
            U::StringHasZeroLength => return s.is_empty(),
            U::StringHasNonZeroLength => return !s.is_empty(),
            U::ShellOptionEnabled => return self.option_enabled(s),
            U::ShellVariableIsSetAndAssigned => return self.var_is_set(s),
            U::ShellVariableIsSetAndNameRef => {
                // The variable itself, not what it refers to.
                return self
                    .vars
                    .get_raw(s)
                    .is_some_and(|v| v.attrs.has(Attrs::NAMEREF));
            }
            U::FdIsOpenTerminal => return false,
            _ => {}
        }
        if s.is_empty() {
            return false;
        }
        let path = Fs::resolve(&self.cwd, s);
        if matches!(pred, U::FileExistsAndIsSymlink) {
            return self
                .fs
                .symlink_metadata(&path)
                .is_ok_and(|m| m.kind == FileKind::Symlink);
        }
        let Ok(m) = self.fs.metadata(&path) else {
            return false;
        };
        match pred {
            U::FileExists => true,
            U::FileExistsAndIsRegularFile => m.kind == FileKind::File,
            U::FileExistsAndIsDir => m.kind == FileKind::Dir,
            U::FileExistsAndIsCharSpecialFile => m.kind == FileKind::CharDevice,
            U::FileExistsAndIsFifo => m.kind == FileKind::Fifo,
            U::FileExistsAndIsBlockSpecialFile | U::FileExistsAndIsSocket => false,
            U::FileExistsAndIsNotZeroLength => m.size > 0,
            U::FileExistsAndIsReadable => m.mode & 0o444 != 0 || m.kind == FileKind::CharDevice,
            U::FileExistsAndIsWritable => m.mode & 0o222 != 0 || m.kind == FileKind::CharDevice,
            U::FileExistsAndIsExecutable => m.mode & 0o111 != 0,
            U::FileExistsAndIsSetgid => m.mode & 0o2000 != 0,
            U::FileExistsAndIsSetuid => m.mode & 0o4000 != 0,
            U::FileExistsAndHasStickyBit => m.mode & 0o1000 != 0,
            U::FileExistsAndOwnedByEffectiveGroupId | U::FileExistsAndOwnedByEffectiveUserId => {
                true
            }
            U::FileExistsAndModifiedSinceLastRead => false,
            _ => false,
        }
    }

    /// `[[ -v name ]]` / `[[ -v a[i] ]]` / `[[ -v 1 ]]`.
    pub fn var_is_set(&mut self, s: &str) -> bool {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            let n: usize = s.parse().unwrap_or(usize::MAX);
            return n == 0 || n <= self.positional.len();
        }
        if let Some((name, sub)) = split_subscript(s) {
            if sub == "@" || sub == "*" {
                return self.var_values(name).is_some_and(|v| !v.is_empty());
            }
            return matches!(self.var_element(name, sub), Ok(Some(_)));
        }
        self.var_scalar(s).is_some()
    }

    /// `set -o NAME` is on.
    pub fn option_enabled(&self, name: &str) -> bool {
        let o = &self.opts;
        match name {
            "errexit" => o.errexit,
            "nounset" => o.nounset,
            "xtrace" => o.xtrace,
            "pipefail" => o.pipefail,
            "noglob" => o.noglob,
            "noclobber" => o.noclobber,
            "allexport" => o.allexport,
            "noexec" => o.noexec,
            "verbose" => o.verbose,
            "braceexpand" | "hashall" | "interactive-comments" => true,
            _ => false,
        }
    }

    fn binary_test(
        &mut self,
        pred: &BinaryPredicate,
        l: &Word,
        r: &Word,
    ) -> Result<i32, Interrupt> {
        use BinaryPredicate as B;
        let left = self.expand_string(&l.value)?;
        match pred {
            B::StringExactlyMatchesPattern | B::StringDoesNotExactlyMatchPattern => {
                let pat = self.expand_pattern(&r.value)?;
                let opts = MatchOptions {
                    extglob: true,
                    nocase: self.opts.nocasematch,
                };
                let m = pattern::matches(&pat, &left, opts);
                Ok(i32::from(
                    m != matches!(pred, B::StringExactlyMatchesPattern),
                ))
            }
            B::StringMatchesRegex | B::StringContainsSubstring => self.regex_test(&left, r),
            _ => {
                let right = self.expand_string(&r.value)?;
                Ok(i32::from(!self.binary_values(pred, &left, &right)))
            }
        }
    }

    /// A binary test on expanded operands, except the pattern and regex
    /// operators (shared with `test`/`[`, whose `-eq` operands are integers:
    /// this evaluates them as `[[` does, as arithmetic expressions).
    pub fn binary_values(&mut self, pred: &BinaryPredicate, left: &str, right: &str) -> bool {
        use BinaryPredicate as B;
        match pred {
            B::StringExactlyMatchesString | B::StringExactlyMatchesPattern => left == right,
            B::StringDoesNotExactlyMatchString | B::StringDoesNotExactlyMatchPattern => {
                left != right
            }
            B::LeftSortsBeforeRight => left < right,
            B::LeftSortsAfterRight => left > right,
            B::ArithmeticEqualTo
            | B::ArithmeticNotEqualTo
            | B::ArithmeticLessThan
            | B::ArithmeticLessThanOrEqualTo
            | B::ArithmeticGreaterThan
            | B::ArithmeticGreaterThanOrEqualTo => {
                let (Some(a), Some(b)) = (self.cond_int(left), self.cond_int(right)) else {
                    return false;
                };
                match pred {
                    B::ArithmeticEqualTo => a == b,
                    B::ArithmeticNotEqualTo => a != b,
                    B::ArithmeticLessThan => a < b,
                    B::ArithmeticLessThanOrEqualTo => a <= b,
                    B::ArithmeticGreaterThan => a > b,
                    _ => a >= b,
                }
            }
            B::FilesReferToSameDeviceAndInodeNumbers => {
                let (a, b) = (Fs::resolve(&self.cwd, left), Fs::resolve(&self.cwd, right));
                match (self.fs.metadata(&a), self.fs.metadata(&b)) {
                    (Ok(x), Ok(y)) => x.ino == y.ino,
                    _ => false,
                }
            }
            B::LeftFileIsNewerOrExistsWhenRightDoesNot
            | B::LeftFileIsOlderOrDoesNotExistWhenRightDoes => {
                let (a, b) = (Fs::resolve(&self.cwd, left), Fs::resolve(&self.cwd, right));
                let (ma, mb) = (self.fs.metadata(&a).ok(), self.fs.metadata(&b).ok());
                let newer = matches!(pred, B::LeftFileIsNewerOrExistsWhenRightDoesNot);
                match (ma, mb) {
                    (Some(x), Some(y)) => {
                        if newer {
                            x.mtime > y.mtime
                        } else {
                            x.mtime < y.mtime
                        }
                    }
                    (Some(_), None) => newer,
                    (None, Some(_)) => !newer,
                    (None, None) => false,
                }
            }
            B::StringMatchesRegex | B::StringContainsSubstring => false,
        }
    }

    /// An integer operand of `[[ -eq ]]`: an arithmetic expression.
    fn cond_int(&mut self, s: &str) -> Option<i64> {
        match self.eval_arith_expanded(s) {
            Ok(v) => Some(v),
            Err(ArithFail::Error(m)) => {
                self.expansion_error(&format!("[[: {m}"));
                None
            }
            Err(ArithFail::Interrupt(_)) => None,
        }
    }

    /// `[[ s =~ re ]]`: sets BASH_REMATCH (emptied when nothing matches,
    /// a group that took no part is an empty element). Status 0 on a match,
    /// 1 without one, 2 when the regex does not compile (bash prints nothing
    /// and leaves BASH_REMATCH alone).
    fn regex_test(&mut self, left: &str, r: &Word) -> Result<i32, Interrupt> {
        let src = self.expand_regex_operand(&r.value)?;
        let icase = self.opts.nocasematch;
        let re = REGEX_CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() > 256 {
                c.clear();
            }
            c.entry((src.clone(), icase))
                .or_insert_with(|| {
                    let opts = RegexOptions {
                        syntax: Syntax::Extended,
                        flavor: Flavor::Bash,
                        icase,
                        ..Default::default()
                    };
                    Regex::new(src.as_bytes(), opts).ok().map(Rc::new)
                })
                .clone()
        });
        let Some(re) = re else {
            return Ok(2);
        };
        let mut slots = re.capture_slots();
        let mut m = BTreeMap::new();
        let found = re.captures_at(left.as_bytes(), 0, &mut slots);
        if found {
            for i in 0..=re.groups() {
                let text = match slots.caps.get(i).copied().flatten() {
                    Some((a, b)) => String::from_utf8_lossy(&left.as_bytes()[a..b]).into_owned(),
                    None => String::new(),
                };
                m.insert(i as i64, text);
            }
        }
        let _ = self.vars.set("BASH_REMATCH", Value::Indexed(m));
        Ok(i32::from(!found))
    }

    /// Expands the right side of `=~` as bash quotes it: a quoted regex
    /// operator is escaped, except inside a bracket expression, where
    /// quoted characters are taken as they are.
    fn expand_regex_operand(&mut self, word: &str) -> Result<String, Interrupt> {
        let pieces = self.parse_or_bad_subst(word, ParseMode::Word)?;
        let mut out = RegexText::default();
        for p in pieces.iter() {
            let quoted = matches!(
                p.piece,
                WordPiece::SingleQuotedText(_)
                    | WordPiece::DoubleQuotedSequence(_)
                    | WordPiece::GettextDoubleQuotedSequence(_)
                    | WordPiece::AnsiCQuotedText(_)
                    | WordPiece::EscapeSequence(_)
                    | WordPiece::TildeExpansion(_)
            );
            let text = self.expand_one_piece(&p.piece)?;
            for ch in text.chars() {
                if quoted && out.state.outside() && ".[\\()*+?{|^$".contains(ch) {
                    out.push('\\');
                }
                out.push(ch);
            }
        }
        Ok(out.text)
    }
}

/// The text of an `=~` regex being built, with where it stands in the
/// bracket syntax of POSIX EREs.
#[derive(Default)]
struct RegexText {
    text: String,
    state: Bracket,
}

/// Where a regex's text stands with respect to bracket expressions.
#[derive(Clone, Copy, Default, PartialEq)]
enum Bracket {
    /// Outside any bracket.
    #[default]
    Out,
    /// After a backslash outside brackets.
    Escaped,
    /// Just after `[` (`neg`: and a `^`): a `]` here is a member.
    Start { neg: bool },
    /// Among the members.
    In,
    /// After a `[` among the members: `[:`, `[.` or `[=` may follow.
    Sub,
    /// Inside `[:name:]` (or `[.x.]`, `[=x=]`), closed by `kind` and `]`.
    Class { kind: char, closing: bool },
}

impl Bracket {
    fn outside(self) -> bool {
        matches!(self, Bracket::Out | Bracket::Escaped)
    }
}

impl RegexText {
    fn push(&mut self, ch: char) {
        use Bracket as B;
        self.text.push(ch);
        self.state = match (self.state, ch) {
            (B::Out, '\\') => B::Escaped,
            (B::Out, '[') => B::Start { neg: false },
            (B::Out | B::Escaped, _) => B::Out,
            (B::Start { neg: false }, '^') => B::Start { neg: true },
            (B::Start { .. } | B::In, '[') => B::Sub,
            (B::Start { .. }, _) => B::In,
            (B::In, ']') => B::Out,
            (B::In, _) => B::In,
            (B::Sub, ':' | '.' | '=') => B::Class {
                kind: ch,
                closing: false,
            },
            (B::Sub, ']') => B::Out,
            (B::Sub, '[') => B::Sub,
            (B::Sub, _) => B::In,
            (B::Class { closing: true, .. }, ']') => B::In,
            (B::Class { kind, .. }, c) => B::Class {
                kind,
                closing: c == kind,
            },
        };
    }
}
