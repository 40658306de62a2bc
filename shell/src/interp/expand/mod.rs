//! Word expansion: brace, tilde, parameter, command substitution, arithmetic,
//! word splitting, pathname expansion and quote removal, in bash's order.
//! OWNER: expand helper.

use brush_parser::ast::Word;

use super::{Interp, Interrupt};

impl Interp {
    /// Fully expands command words (arguments): every expansion, IFS
    /// splitting and globbing. `"$@"` yields one field per parameter.
    pub fn expand_words(&mut self, words: &[Word]) -> Result<Vec<String>, Interrupt> {
        let _ = words;
        todo!()
    }

    /// Expands a word to one string without splitting or globbing (assignment
    /// values, redirection targets, `case` words, here-strings).
    pub fn expand_string(&mut self, word: &str) -> Result<String, Interrupt> {
        let _ = word;
        todo!()
    }

    /// Expands a word used as a pattern (`case`, `[[ == ]]`, `${x#pat}`):
    /// quoted parts are escaped so they match literally.
    pub fn expand_pattern(&mut self, word: &str) -> Result<String, Interrupt> {
        let _ = word;
        todo!()
    }

    /// Expands the body of an unquoted here-document.
    pub fn expand_heredoc(&mut self, body: &str) -> Result<String, Interrupt> {
        let _ = body;
        todo!()
    }
}
