//! `select NAME [in WORDS]; do ...; done`: the numbered menu on stderr, the
//! `PS3` prompt, one line of stdin per choice (read as `read` would into
//! `REPLY`), and the body run with NAME set to the chosen word.
//!
//! brush-parser has no `select`; the parser module hands it over as a `for`
//! clause with a marked name (see `parse::mark_loop_headers`). The menu's
//! layout is bash's `print_select_list`: columns filled top to bottom,
//! as many as `COLUMNS` (80 by default) allows.

use brush_parser::ast;

use super::{ExecResult, Interp, Interrupt};

/// The blanks and `)` after each number of the menu.
const RP_SPACE: &str = ") ";

impl Interp {
    /// Runs a `select` loop over `words` (already expanded).
    pub(crate) fn exec_select(
        &mut self,
        f: &ast::ForClauseCommand,
        name: &str,
        words: Vec<String>,
    ) -> ExecResult {
        if words.is_empty() {
            return Ok(0);
        }
        self.set_line(f.loc.start.line);
        self.debug_trap()?;
        self.looped(|sh| {
            let mut status = 0;
            let mut show_menu = true;
            loop {
                sh.control.count_iteration().map_err(Interrupt::Limit)?;
                let Some(choice) = sh.select_query(&words, show_menu)? else {
                    return Ok(1);
                };
                show_menu = false;
                if let Err(e) = sh.assign(name, &choice, false) {
                    if let super::vars::VarError::Interrupted(i) = e {
                        return Err(i);
                    }
                    sh.shell_error(&e);
                    return Ok(1);
                }
                if let super::compound::Flow::Stop = sh.loop_body(&f.body.list, &mut status)? {
                    return Ok(status);
                }
            }
        })
    }

    /// Shows the menu (when asked or after an empty reply) and the prompt,
    /// and reads replies until one is not empty: the chosen word, `""` for a
    /// reply that is not a number of the menu, `None` at end of input.
    fn select_query(
        &mut self,
        words: &[String],
        mut show_menu: bool,
    ) -> Result<Option<String>, Interrupt> {
        loop {
            let prompt = self.vars.get_str("PS3").unwrap_or("#? ").to_string();
            let mut text = String::new();
            if show_menu {
                text = self.select_menu(words);
            }
            text.push_str(&prompt);
            let _ = self.write_fd(2, text.as_bytes());
            let status = super::builtins::read::read(self, &["read".to_string()])?;
            if status != 0 {
                let _ = self.write_fd(1, b"\n");
                return Ok(None);
            }
            let reply = self.vars.get_str("REPLY").unwrap_or("").to_string();
            if reply.is_empty() {
                show_menu = true;
                continue;
            }
            let chosen = parse_choice(&reply)
                .filter(|n| (1..=words.len() as i64).contains(n))
                .map(|n| words[n as usize - 1].clone());
            return Ok(Some(chosen.unwrap_or_default()));
        }
    }

    /// The numbered list of `words` in columns, as bash lays it out.
    fn select_menu(&self, words: &[String]) -> String {
        let columns = self
            .vars
            .get_str("COLUMNS")
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|c| *c > 0)
            .unwrap_or(80);
        let index_len = words.len().to_string().len();
        let widest = words.iter().map(|w| w.chars().count()).max().unwrap_or(0);
        let cell = widest + index_len + RP_SPACE.len() + 2;
        let rows = menu_rows(words.len(), columns, cell);
        let mut out = String::new();
        for row in 0..rows {
            let mut pos = 0;
            let mut i = row;
            loop {
                let entry = format!("{:>index_len$}{RP_SPACE}{}", i + 1, words[i]);
                let len = index_len + RP_SPACE.len() + words[i].chars().count();
                out.push_str(&entry);
                i += rows;
                if i >= words.len() {
                    break;
                }
                indent(&mut out, pos + len, pos + cell);
                pos += cell;
            }
            out.push('\n');
        }
        out
    }
}

/// Rows of a menu of `n` entries `cell` wide on a line of `columns`: one
/// column (`n` rows) when everything would fit on one row.
fn menu_rows(n: usize, columns: usize, cell: usize) -> usize {
    let cols = (columns / cell.max(1)).max(1);
    let rows = n.div_ceil(cols).max(1);
    if rows == 1 { n } else { rows }
}

/// Pads from column `from` to column `to` with tabs (8 wide) and blanks.
fn indent(out: &mut String, mut from: usize, to: usize) {
    while from < to {
        if to / 8 > from / 8 {
            out.push('\t');
            from += 8 - from % 8;
        } else {
            out.push(' ');
            from += 1;
        }
    }
}

/// A reply as bash's `legal_number` reads it: a decimal integer with
/// optional sign and surrounding blanks.
fn parse_choice(reply: &str) -> Option<i64> {
    reply
        .trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n')
        .parse::<i64>()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_menus_are_one_column() {
        assert_eq!(menu_rows(3, 80, 7), 3);
        assert_eq!(menu_rows(12, 20, 12), 12);
    }

    #[test]
    fn long_menus_fill_columns() {
        assert_eq!(menu_rows(30, 80, 10), 4);
    }

    #[test]
    fn choices_allow_blanks_and_signs() {
        assert_eq!(parse_choice(" 2 "), Some(2));
        assert_eq!(parse_choice("+1"), Some(1));
        assert_eq!(parse_choice("1x"), None);
        assert_eq!(parse_choice(""), None);
    }
}
