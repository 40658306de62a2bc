//! Record input: a reader over stdin (read in big chunks) or a whole file,
//! cut into records by RS (newline, one character, paragraph mode, regex).

use std::io::Read;

use super::regex::{AwkRegex, slice};

/// How RS separates records.
pub enum RecordSep {
    /// One byte (`"\n"` by default).
    Byte(u8),
    /// `RS=""`: blank lines separate, leading newlines skipped.
    Paragraph,
    /// A regex (gawk: RS longer than one character).
    Regex(AwkRegex),
}

/// A source of records.
pub struct Reader {
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    from_stdin: bool,
    /// Stdin was a directory (`< dir`): its first read failed.
    directory: bool,
}

impl Reader {
    /// A reader over stdin (the caller passes the stream on each read).
    pub fn stdin() -> Reader {
        Reader {
            buf: Vec::new(),
            pos: 0,
            eof: false,
            from_stdin: true,
            directory: false,
        }
    }

    /// A reader over bytes already in memory.
    pub fn bytes(data: Vec<u8>) -> Reader {
        Reader {
            buf: data,
            pos: 0,
            eof: true,
            from_stdin: false,
            directory: false,
        }
    }

    fn fill(&mut self, input: &mut dyn Read) -> bool {
        if self.eof || !self.from_stdin {
            self.eof = true;
            return false;
        }
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + 256 * 1024, 0);
        let n = loop {
            match input.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.directory |= old == 0 && crate::fs::FsError::reported_read(&e).is_some();
                    break 0;
                }
            }
        };
        self.buf.truncate(old + n);
        if n == 0 {
            self.eof = true;
        }
        n > 0
    }

    /// Whether this was stdin redirected from a directory, which gawk
    /// skips with a warning.
    pub fn read_a_directory(&self) -> bool {
        self.directory
    }

    fn read_all(&mut self, input: &mut dyn Read) {
        while self.fill(input) {}
    }

    /// The next record and its terminator text, or `None` at the end.
    pub fn next(&mut self, rs: &RecordSep, input: &mut dyn Read) -> Option<(String, String)> {
        match rs {
            RecordSep::Byte(b) => loop {
                if let Some(i) = memchr::memchr(*b, &self.buf[self.pos..]) {
                    let rec =
                        String::from_utf8_lossy(&self.buf[self.pos..self.pos + i]).into_owned();
                    self.pos += i + 1;
                    return Some((rec, String::new()));
                }
                if !self.fill(input) {
                    if self.pos >= self.buf.len() {
                        return None;
                    }
                    let rec = String::from_utf8_lossy(&self.buf[self.pos..]).into_owned();
                    self.pos = self.buf.len();
                    return Some((rec, String::new()));
                }
            },
            RecordSep::Paragraph => {
                self.read_all(input);
                let b = &self.buf;
                let mut p = self.pos;
                while p < b.len() && b[p] == b'\n' {
                    p += 1;
                }
                if p >= b.len() {
                    self.pos = b.len();
                    return None;
                }
                match memchr::memmem::find(&b[p..], b"\n\n") {
                    Some(i) => {
                        let end = p + i;
                        let mut q = end;
                        while q < b.len() && b[q] == b'\n' {
                            q += 1;
                        }
                        let rec = String::from_utf8_lossy(&b[p..end]).into_owned();
                        let rt = String::from_utf8_lossy(&b[end..q]).into_owned();
                        self.pos = q;
                        Some((rec, rt))
                    }
                    None => {
                        let mut end = b.len();
                        while end > p && b[end - 1] == b'\n' {
                            end -= 1;
                        }
                        let rec = String::from_utf8_lossy(&b[p..end]).into_owned();
                        self.pos = b.len();
                        Some((rec, "\n".into()))
                    }
                }
            }
            RecordSep::Regex(re) => {
                self.read_all(input);
                if self.pos >= self.buf.len() {
                    return None;
                }
                let rest = String::from_utf8_lossy(&self.buf[self.pos..]).into_owned();
                let mut search = 0;
                while let Some((a, b)) = re.find_at(&rest, search) {
                    if a == b {
                        search = a + 1;
                        continue;
                    }
                    self.pos += b;
                    return Some((
                        slice(&rest, 0, a).into_owned(),
                        slice(&rest, a, b).into_owned(),
                    ));
                }
                self.pos = self.buf.len();
                Some((rest, String::new()))
            }
        }
    }
}
