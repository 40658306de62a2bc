//! sandkeep: following the `case` commands of a `$( )` body, so that a
//! pattern's `)` does not end the substitution (see SANDKEEP.md). Kept out of
//! `tokenizer.rs`, upstream's file, as sandkeep's own addition.

use super::Token;

/// sandkeep: where the `case` commands of a `$( )` body are, as the
/// tokens of the body go by (see `consume_nested_construct`).
#[derive(Debug)]
pub(super) struct CaseScan {
    /// Off for `$(( ))`, `$[ ]` and other constructs.
    on: bool,
    /// One entry per `case` being read, innermost last.
    stack: Vec<CaseStep>,
    /// The next word is in command position (where `case`/`esac` count).
    command_start: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaseStep {
    /// After `case`: the word.
    Word,
    /// After the word: `in`.
    In,
    /// Reading a pattern list; `paren` when it began with `(`.
    Pattern { paren: bool, started: bool },
    /// The commands of a clause.
    Body,
}

impl CaseScan {
    pub(super) const fn new(on: bool) -> Self {
        Self {
            on,
            stack: Vec::new(),
            command_start: true,
        }
    }

    pub(super) fn token(&mut self, token: &Token) {
        if !self.on {
            return;
        }
        let text = token.to_str().trim();
        let top = self.stack.last().copied();
        match token {
            Token::Word(..) => {
                match top {
                    Some(CaseStep::Word) => self.set_top(CaseStep::In),
                    Some(CaseStep::In) if text == "in" => self.set_top(CaseStep::Pattern {
                        paren: false,
                        started: false,
                    }),
                    Some(CaseStep::Pattern { started: false, .. }) if text == "esac" => {
                        self.stack.pop();
                    }
                    Some(CaseStep::Pattern { paren, .. }) => self.set_top(CaseStep::Pattern {
                        paren,
                        started: true,
                    }),
                    Some(CaseStep::Body) if self.command_start && text == "esac" => {
                        self.stack.pop();
                    }
                    Some(CaseStep::Body) | None if self.command_start && text == "case" => {
                        self.stack.push(CaseStep::Word);
                    }
                    _ => {}
                }
                self.command_start = matches!(
                    text,
                    "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "{" | "!" | "time"
                );
            }
            Token::Operator(..) => {
                match top {
                    Some(CaseStep::Pattern { started: false, .. }) if text == "(" => {
                        self.set_top(CaseStep::Pattern {
                            paren: true,
                            started: true,
                        });
                    }
                    Some(CaseStep::Body) if matches!(text, ";;" | ";&" | ";;&") => {
                        self.set_top(CaseStep::Pattern {
                            paren: false,
                            started: false,
                        });
                    }
                    _ => {}
                }
                self.command_start = true;
            }
        }
    }

    pub(super) fn newline(&mut self) {
        self.command_start = true;
    }

    fn set_top(&mut self, step: CaseStep) {
        if let Some(top) = self.stack.last_mut() {
            *top = step;
        }
    }

    /// Whether a `)` now ends a pattern list.
    pub(super) fn pattern_ends(&self) -> bool {
        matches!(self.stack.last(), Some(CaseStep::Pattern { started: true, .. }))
    }

    pub(super) fn pattern_had_paren(&self) -> bool {
        matches!(self.stack.last(), Some(CaseStep::Pattern { paren: true, .. }))
    }

    pub(super) fn enter_body(&mut self) {
        self.set_top(CaseStep::Body);
        self.command_start = true;
    }
}
