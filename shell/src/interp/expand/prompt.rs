//! Prompt strings for `${x@P}`, decoded as bash's `decode_prompt_string`
//! does: first the backslash escapes (`\u \h \w \W \s \v \V \$ \n \t \d
//! \D{fmt} \nnn ...`), then, as `promptvars` is on, parameter, command and
//! arithmetic expansion of the result in double-quote context.
//!
//! Escape results that come from outside the string (a directory name, a
//! user name) are backslash-quoted first, so a `$` in them stays literal
//! (bash's `sh_backslash_quote_for_double_quotes`), and `\$` becomes `\$`
//! for a non-root user so the expansion step prints it as `$`.

use super::special::SANDBOX_UID;
use crate::interp::{Interp, Interrupt};

/// bash formats prompt times with the C library's `strftime(3)`, in local
/// time.
fn strftime(fmt: &str, secs: i64, zone: &crate::time::Zone) -> String {
    crate::time::strftime_as(crate::time::Flavor::Libc, fmt, &zone.local(secs, 0))
}

/// Backslash-quotes the characters special inside double quotes.
fn quote_for_double_quotes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '`' | '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `\nnn`: the three characters after the backslash must all be octal
/// digits (fewer only at the end of the string), as bash's `read_octal`
/// requires; the value wraps to a byte. `None`: not an octal escape.
fn octal_escape(rest: &str) -> Option<(char, usize)> {
    let digits: Vec<char> = rest.chars().take(3).collect();
    if digits.is_empty() || !digits.iter().all(|c| ('0'..='7').contains(c)) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u32, |acc, c| acc * 8 + (*c as u32 - '0' as u32));
    let byte = (n & 0xff) as u8;
    // Only ASCII fits a string value byte for byte; others become U+FFFD.
    let c = if byte.is_ascii() {
        byte as char
    } else {
        char::REPLACEMENT_CHARACTER
    };
    Some((c, digits.len()))
}

impl Interp {
    /// Expands a prompt string: escapes, then `$`-expansions.
    pub fn prompt_expand(&mut self, s: &str) -> Result<String, Interrupt> {
        // `PS1='${PS1@P}'` expands itself without end: each level counts as
        // an `eval`, so the call-depth limit ends it, and `nest` moves deep
        // levels to fresh stacks before this thread's overflows.
        if self.source_depth >= self.control.limits.max_call_depth {
            self.control.trip(crate::LimitKind::CallDepth);
            return Err(Interrupt::Limit(crate::LimitKind::CallDepth));
        }
        self.source_depth += 1;
        let r = self.nest(|sh| {
            let decoded = sh.prompt_decode(s);
            sh.expand_heredoc(&decoded)
        });
        self.source_depth -= 1;
        r
    }

    /// The working directory as `\w` shows it (`~` for `$HOME`).
    fn prompt_dir(&self, basename: bool) -> String {
        let pwd = self.vars.get_str("PWD").unwrap_or(&self.cwd).to_string();
        let home = self.vars.get_str("HOME").unwrap_or("").to_string();
        let shown = if !home.is_empty() && (pwd == home || pwd.starts_with(&format!("{home}/"))) {
            format!("~{}", &pwd[home.len()..])
        } else {
            pwd
        };
        if basename && shown != "/" {
            shown.rsplit('/').next().unwrap_or(&shown).to_string()
        } else {
            shown
        }
    }

    /// The value of one escape `\e` that stands for text from outside the
    /// prompt (quoted for the expansion step), or `None` when `e` is not such
    /// an escape.
    fn prompt_value(&self, e: char) -> Option<String> {
        let now = || self.control.clock.now().secs;
        let time = |fmt: &str| strftime(fmt, now(), &self.local_zone());
        let text = match e {
            'u' => self.vars.get_str("USER").unwrap_or("sandbox").to_string(),
            'h' | 'H' => self
                .vars
                .get_str("HOSTNAME")
                .unwrap_or("sandbox")
                .to_string(),
            'w' | 'W' => self.prompt_dir(e == 'W'),
            's' => "bash".to_string(),
            'v' => "5.2".to_string(),
            'V' => "5.2.15".to_string(),
            't' => time("%H:%M:%S"),
            'T' => time("%I:%M:%S"),
            '@' => time("%I:%M %p"),
            'A' => time("%H:%M"),
            'd' => time("%a %b %d"),
            // Standard input is never a terminal here: bash then shows `tty`.
            'l' => "tty".to_string(),
            'j' => self.jobs.running().len().to_string(),
            '!' => self.history_number().to_string(),
            _ => return None,
        };
        Some(quote_for_double_quotes(&text))
    }

    /// Decodes the backslash escapes of a prompt string.
    fn prompt_decode(&mut self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(pos) = rest.find('\\') {
            out.push_str(&rest[..pos]);
            let after = &rest[pos + 1..];
            let Some(e) = after.chars().next() else {
                out.push('\\');
                return out;
            };
            rest = &after[e.len_utf8()..];
            if let Some(v) = self.prompt_value(e) {
                out.push_str(&v);
                continue;
            }
            match e {
                // `#` for root; for others a quoted `$` the expansion unquotes.
                '$' if SANDBOX_UID == 0 => out.push('#'),
                '$' => out.push_str("\\$"),
                // The expansion runs in double-quote context, where `\"` is `"`.
                '"' => out.push('"'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                'a' => out.push('\x07'),
                'e' => out.push('\x1b'),
                '\\' => out.push('\\'),
                '[' | ']' => {}
                'D' if rest.starts_with('{') => {
                    let body = &rest[1..];
                    let end = body.find('}').unwrap_or(body.len());
                    let fmt = if end == 0 { "%X" } else { &body[..end] };
                    let secs = self.control.clock.now().secs;
                    out.push_str(&quote_for_double_quotes(&strftime(
                        fmt,
                        secs,
                        &self.local_zone(),
                    )));
                    rest = body.get(end + 1..).unwrap_or("");
                }
                '0'..='7' => match octal_escape(after) {
                    Some((c, used)) => {
                        out.push(c);
                        rest = &after[used..];
                    }
                    None => {
                        out.push('\\');
                        rest = after;
                    }
                },
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        out.push_str(rest);
        out
    }
}
