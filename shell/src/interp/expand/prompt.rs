//! Prompt-string escapes for `${x@P}`: the subset that makes sense in a
//! non-interactive sandbox (`\u \h \H \w \W \s \v \V \$ \n \r \a \e \\ \[ \]`).

use crate::interp::Interp;

impl Interp {
    /// Expands the backslash escapes of a prompt string.
    pub fn prompt_expand(&mut self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = chars.next() else {
                out.push('\\');
                break;
            };
            match e {
                'u' => out.push_str(self.vars.get_str("USER").unwrap_or("sandbox")),
                'h' | 'H' => out.push_str(self.vars.get_str("HOSTNAME").unwrap_or("sandbox")),
                'w' | 'W' => {
                    let pwd = self.vars.get_str("PWD").unwrap_or(&self.cwd).to_string();
                    let home = self.vars.get_str("HOME").unwrap_or("").to_string();
                    let shown = if !home.is_empty()
                        && (pwd == home || pwd.starts_with(&format!("{home}/")))
                    {
                        format!("~{}", &pwd[home.len()..])
                    } else {
                        pwd
                    };
                    if e == 'W' && shown != "/" {
                        out.push_str(shown.rsplit('/').next().unwrap_or(&shown));
                    } else {
                        out.push_str(&shown);
                    }
                }
                's' => out.push_str("bash"),
                'v' => out.push_str("5.2"),
                'V' => out.push_str("5.2.15"),
                '$' => out.push('$'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                'a' => out.push('\x07'),
                'e' => out.push('\x1b'),
                '\\' => out.push('\\'),
                '[' | ']' => {}
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        out
    }
}
