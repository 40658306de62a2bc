//! Field splitting: default blank splitting, a single literal character, a
//! regex, and the per-character split of an empty FS.

use std::rc::Rc;

use super::regex::{AwkRegex, slice};

/// How FS (or split's separator) splits a record.
pub enum FieldSep {
    /// `" "`: runs of blanks and newlines, leading/trailing ignored.
    Blank,
    /// One literal character.
    Char(char),
    /// A regex.
    Regex(Rc<AwkRegex>),
    /// `""`: each character a field.
    Each,
}

impl FieldSep {
    /// Compiles a separator from its string form.
    pub fn new(fs: &str) -> Result<FieldSep, String> {
        let mut ch = fs.chars();
        Ok(match (ch.next(), ch.next()) {
            (None, _) => FieldSep::Each,
            (Some(' '), None) => FieldSep::Blank,
            (Some('\\'), None) => FieldSep::Char('\\'),
            (Some(c), None) if !"^$.[]|()*+?{}".contains(c) => FieldSep::Char(c),
            (Some(c), None) if c != '^' => FieldSep::Char(c),
            _ => FieldSep::Regex(Rc::new(AwkRegex::new(fs)?)),
        })
    }

    /// Splits `s` into `out` (cleared first). `paragraph` adds newline as a
    /// separator (RS="" mode).
    pub fn split(&self, s: &str, out: &mut Vec<String>, paragraph: bool) {
        out.clear();
        match self {
            FieldSep::Blank => {
                out.extend(
                    s.split([' ', '\t', '\n'])
                        .filter(|x| !x.is_empty())
                        .map(str::to_string),
                );
            }
            _ if s.is_empty() => {}
            FieldSep::Char(c) => {
                if paragraph && *c != '\n' {
                    for line in s.split('\n') {
                        out.extend(line.split(*c).map(str::to_string));
                    }
                } else {
                    out.extend(s.split(*c).map(str::to_string));
                }
            }
            FieldSep::Each => out.extend(s.chars().map(String::from)),
            FieldSep::Regex(re) => {
                if paragraph {
                    for line in s.split('\n') {
                        regex_split(re, line, out);
                    }
                } else {
                    regex_split(re, s, out);
                }
            }
        }
    }
}

fn regex_split(re: &AwkRegex, s: &str, out: &mut Vec<String>) {
    if s.is_empty() {
        return;
    }
    let mut pos = 0;
    let mut search = 0;
    while let Some((a, b)) = re.find_at(s, search) {
        if b == a {
            // An empty match separates nothing; step over one byte.
            search = a + 1;
            if search > s.len() {
                break;
            }
            continue;
        }
        out.push(slice(s, pos, a).into_owned());
        pos = b;
        search = b;
    }
    out.push(slice(s, pos, s.len()).into_owned());
}
