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
    /// gawk's `FPAT`: the fields are the regex's matches.
    Pattern(Rc<AwkRegex>),
}

impl FieldSep {
    /// Compiles a separator; a regex one ignores case when `icase` (gawk's
    /// `IGNORECASE`; a single-character FS stays literal, as in gawk).
    pub fn with_case(fs: &str, icase: bool) -> Result<FieldSep, String> {
        let mut ch = fs.chars();
        Ok(match (ch.next(), ch.next()) {
            (None, _) => FieldSep::Each,
            (Some(' '), None) => FieldSep::Blank,
            (Some('\\'), None) => FieldSep::Char('\\'),
            (Some(c), None) if !"^$.[]|()*+?{}".contains(c) => FieldSep::Char(c),
            (Some(c), None) if c != '^' => FieldSep::Char(c),
            _ => FieldSep::Regex(Rc::new(AwkRegex::with_case(fs, icase)?)),
        })
    }

    /// Splits `s` into `out` (cleared first). `paragraph` adds newline as a
    /// separator (RS="" mode).
    pub fn split(&self, s: &str, out: &mut Vec<String>, paragraph: bool) {
        out.clear();
        match self {
            FieldSep::Pattern(re) => {
                for (a, b) in pattern_matches(re, s) {
                    out.push(slice(s, a, b).into_owned());
                }
            }
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

/// The byte ranges of `s` split by this separator, with the separators
/// between them (split()'s fourth argument): `(fields, seps)` where
/// `seps[0]` is leading text (blank FS only) and `seps[i]` follows field i.
pub fn split_with_seps(sep: &FieldSep, s: &str) -> (Vec<String>, Vec<(usize, String)>) {
    let mut fields = Vec::new();
    let mut seps = Vec::new();
    match sep {
        FieldSep::Blank => {
            let is_blank = |c: char| matches!(c, ' ' | '\t' | '\n');
            let mut rest = s;
            let lead = rest.len() - rest.trim_start_matches(is_blank).len();
            if lead > 0 {
                seps.push((0, rest[..lead].to_string()));
            }
            rest = &rest[lead..];
            while !rest.is_empty() {
                let end = rest.find(is_blank).unwrap_or(rest.len());
                fields.push(rest[..end].to_string());
                rest = &rest[end..];
                let gap = rest.len() - rest.trim_start_matches(is_blank).len();
                if gap > 0 {
                    seps.push((fields.len(), rest[..gap].to_string()));
                }
                rest = &rest[gap..];
            }
        }
        _ if s.is_empty() => {}
        FieldSep::Char(c) => {
            for (i, part) in s.split(*c).enumerate() {
                if i > 0 {
                    seps.push((i, c.to_string()));
                }
                fields.push(part.to_string());
            }
        }
        FieldSep::Each => {
            fields.extend(s.chars().map(String::from));
            seps.extend((1..fields.len()).map(|i| (i, String::new())));
        }
        FieldSep::Regex(re) => {
            let (mut pos, mut search) = (0, 0);
            while let Some((a, b)) = re.find_at(s, search) {
                if a == b {
                    search = a + 1;
                    if search > s.len() {
                        break;
                    }
                    continue;
                }
                fields.push(slice(s, pos, a).into_owned());
                seps.push((fields.len(), slice(s, a, b).into_owned()));
                pos = b;
                search = b;
            }
            fields.push(slice(s, pos, s.len()).into_owned());
        }
        FieldSep::Pattern(re) => {
            let mut pos = 0;
            for (a, b) in pattern_matches(re, s) {
                seps.push((fields.len(), slice(s, pos, a).into_owned()));
                fields.push(slice(s, a, b).into_owned());
                pos = b;
            }
            seps.push((fields.len(), slice(s, pos, s.len()).into_owned()));
        }
    }
    (fields, seps)
}

/// The matches of an FPAT-style pattern over `s`, as gawk takes them: an
/// empty match right where the previous match ended is not a field.
pub fn pattern_matches(re: &AwkRegex, s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut pos = 0;
    let mut prev_end = None;
    while pos <= s.len() {
        let Some((a, b)) = re.find_at(s, pos) else {
            break;
        };
        if a == b {
            if prev_end != Some(a) {
                v.push((a, a));
            }
            prev_end = Some(a);
            pos = a + 1;
        } else {
            v.push((a, b));
            prev_end = Some(b);
            pos = b;
        }
    }
    v
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
