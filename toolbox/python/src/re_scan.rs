//! The matches of a regular expression over a big string, found host-side
//! in batches where the run's deadline is seen (issue 18). The embedded
//! interpreter's own `re` (monty's, on `fancy_regex`) finds every match of
//! `sub`/`findall`/`finditer`/`split` in one native call that cannot be
//! stopped: over a 400,000-character string that call alone outlasts the
//! 100 ms a timed-out run has to end in. The prelude sends such strings
//! here instead: the same engine, the pattern compiled the way monty
//! compiles it (`(?ims)` from the flags, default builder) and the matches
//! walked the way `fancy_regex`'s `captures_iter` walks them, so results
//! are the native ones; only the walk is cut into batches, with the run's
//! cancel flag read between matches.

use fancy_regex::{Regex, RegexBuilder};
use monty_types::{ExcType, MontyException, MontyObject};
use sandkeep_shell::RunControl;

/// Python's `re.IGNORECASE`, `re.MULTILINE` and `re.DOTALL` (monty's values).
const FLAG_LETTERS: [(i64, char); 3] = [(2, 'i'), (8, 'm'), (16, 's')];

/// A match's groups as byte spans (`None`: the group took no part).
type GroupSpans = Vec<Option<(usize, usize)>>;

/// Matches between two reads of the cancel flag.
const MATCHES_PER_CHECK: usize = 64;

/// One walk over one string: where the next search starts and what the
/// last match was, as `fancy_regex::CaptureMatches` keeps them.
pub struct Scan {
    regex: Regex,
    text: String,
    /// Char indices are byte indices.
    ascii: bool,
    /// Byte offset the next search starts at.
    last_end: usize,
    /// Byte offset the last match ended at.
    last_match: Option<usize>,
    /// Byte offset up to which the text was handed out (gaps, the tail).
    emitted: usize,
    /// A byte offset whose char index is known: (byte, char).
    cursor: (usize, usize),
    /// The walk met the end of the text.
    done: bool,
}

impl Scan {
    /// Compiles `pattern` with `flags` as monty does and starts a walk over
    /// `text`.
    pub fn open(pattern: &str, flags: i64, text: String) -> Result<Scan, MontyException> {
        let letters: String = FLAG_LETTERS
            .iter()
            .filter(|(bit, _)| flags & bit != 0)
            .map(|(_, c)| *c)
            .collect();
        let full = if letters.is_empty() {
            pattern.to_string()
        } else {
            format!("(?{letters}){pattern}")
        };
        let regex = RegexBuilder::new(&full).build().map_err(pattern_error)?;
        Ok(Scan {
            regex,
            ascii: text.is_ascii(),
            text,
            last_end: 0,
            last_match: None,
            emitted: 0,
            cursor: (0, 0),
            done: false,
        })
    }

    /// The names of the groups (index 0 is the whole match): a list of
    /// `str` or `None`.
    pub fn group_names(&self) -> MontyObject {
        MontyObject::List(
            self.regex
                .capture_names()
                .map(|n| n.map_or(MontyObject::None, |s| MontyObject::String(s.to_string())))
                .collect(),
        )
    }

    /// Up to `limit` more matches, flat: for each, the text between the
    /// previous match and this one, then per group its start, end (char
    /// indices, -1 when it did not take part) and text (`None` then).
    /// `None` once the walk is over; the batch that ends it carries the
    /// text after the last match as its last item.
    pub fn next_batch(
        &mut self,
        control: &RunControl,
        limit: usize,
    ) -> Result<MontyObject, MontyException> {
        if self.done {
            return Ok(MontyObject::None);
        }
        let mut out = Vec::new();
        for found in 0..limit {
            if found.is_multiple_of(MATCHES_PER_CHECK) {
                control
                    .check_fast()
                    .map_err(|kind| crate::limit_exception(control, kind))?;
            }
            let Some(spans) = self.next_match()? else {
                self.done = true;
                out.push(MontyObject::String(self.text[self.emitted..].to_string()));
                break;
            };
            self.push_match(&spans, &mut out);
        }
        Ok(MontyObject::List(out))
    }

    /// The group spans (byte offsets) of the next match, walked as
    /// `CaptureMatches::next` walks (an empty match right after a match is
    /// skipped).
    fn next_match(&mut self) -> Result<Option<GroupSpans>, MontyException> {
        loop {
            if self.last_end > self.text.len() {
                return Ok(None);
            }
            let Some(caps) = self
                .regex
                .captures_from_pos(&self.text, self.last_end)
                .map_err(pattern_error)?
            else {
                return Ok(None);
            };
            let whole = caps.get(0).expect("group 0 is the whole match");
            let (start, end) = (whole.start(), whole.end());
            if start == end {
                self.last_end = next_char(&self.text, end);
                if Some(end) == self.last_match {
                    continue;
                }
            } else {
                self.last_end = end;
            }
            self.last_match = Some(end);
            return Ok(Some(
                caps.iter()
                    .map(|g| g.map(|m| (m.start(), m.end())))
                    .collect(),
            ));
        }
    }

    fn push_match(&mut self, spans: &[Option<(usize, usize)>], out: &mut Vec<MontyObject>) {
        let (start, end) = spans[0].expect("group 0 took part");
        out.push(MontyObject::String(
            self.text[self.emitted..start].to_string(),
        ));
        self.emitted = end;
        for g in spans {
            match *g {
                Some((s, e)) => {
                    out.push(MontyObject::Int(self.char_index(s)));
                    out.push(MontyObject::Int(self.char_index(e)));
                    out.push(MontyObject::String(self.text[s..e].to_string()));
                }
                None => {
                    out.push(MontyObject::Int(-1));
                    out.push(MontyObject::Int(-1));
                    out.push(MontyObject::None);
                }
            }
        }
    }

    /// The char index of byte offset `b`, counted from the cursor (which
    /// only moves forward: a walk's matches come in order).
    fn char_index(&mut self, b: usize) -> i64 {
        if self.ascii {
            return b as i64;
        }
        let (cb, cc) = self.cursor;
        if b >= cb {
            let c = cc + self.text[cb..b].chars().count();
            self.cursor = (b, c);
            c as i64
        } else {
            (cc - self.text[b..cb].chars().count()) as i64
        }
    }
}

/// The byte offset after the char at `i` (or past the end).
fn next_char(text: &str, i: usize) -> usize {
    text.get(i..)
        .and_then(|rest| rest.chars().next())
        .map_or(i + 1, |c| i + c.len_utf8())
}

fn pattern_error(e: fancy_regex::Error) -> MontyException {
    MontyException::new(ExcType::RePatternError, Some(e.to_string()))
}
