//! Reading Oils spec files (`*.test.sh`): cases, their code, and what bash
//! is expected to print, following the Oils harness's rules for variants.

/// One case and what bash must produce.
pub struct Case {
    /// The `#### name` line.
    pub name: String,
    /// The script.
    pub code: String,
    /// Expected stdout (`None`: not checked).
    pub stdout: Option<String>,
    /// Expected exit status.
    pub status: i32,
}

impl Case {
    /// Whether `stdout` and `status` are what bash must produce.
    pub fn matches(&self, stdout: &[u8], status: i32) -> bool {
        self.stdout.as_ref().is_none_or(|e| e.as_bytes() == stdout) && status == self.status
    }
}

/// Expectations of one block (default, or one shell variant).
#[derive(Default, Clone)]
struct Expect {
    stdout: Option<String>,
    status: Option<i32>,
}

/// Parses a JSON string literal (the `stdout-json:` form).
fn json_string(s: &str) -> Option<String> {
    let s = s.trim();
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            '/' => out.push('/'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                let n = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// Which expectation block a `## ...` line belongs to: `None` for the
/// default, `Some(true)` for a variant naming bash, `Some(false)` otherwise.
/// Returns the rest of the line after the qualifier.
fn qualifier(meta: &str) -> (Option<bool>, &str) {
    let mut parts = meta.splitn(3, ' ');
    let first = parts.next().unwrap_or("");
    let base = first.split('-').next().unwrap_or("");
    if matches!(base, "OK" | "N-I" | "BUG") || first.starts_with("N-I") {
        let shells = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("");
        let bash = shells.split('/').any(|s| s == "bash");
        return (Some(bash), rest);
    }
    (None, meta)
}

/// Parses a spec file into its cases.
pub fn parse(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() && !lines[i].starts_with("#### ") {
        i += 1;
    }
    while i < lines.len() {
        let name = lines[i][5..].trim().to_string();
        i += 1;
        let mut code = String::new();
        let mut default = Expect::default();
        let mut bash = Expect::default();
        let mut bash_seen = false;
        let mut inline_code: Option<String> = None;
        while i < lines.len() && !lines[i].starts_with("#### ") {
            let line = lines[i];
            let Some(meta) = line.strip_prefix("## ") else {
                if default.stdout.is_none() && default.status.is_none() && !bash_seen {
                    code.push_str(line);
                    code.push('\n');
                }
                i += 1;
                continue;
            };
            i += 1;
            let (q, rest) = qualifier(meta.trim_end());
            let target = match q {
                None => Some(&mut default),
                Some(true) => {
                    bash_seen = true;
                    Some(&mut bash)
                }
                Some(false) => None,
            };
            let (key, value) = match rest.split_once(':') {
                Some((k, v)) => (k.trim(), v),
                None => (rest.trim(), ""),
            };
            let block = matches!(key, "STDOUT" | "STDERR") && value.trim().is_empty();
            let mut body = String::new();
            if block {
                while i < lines.len()
                    && !lines[i].starts_with("## END")
                    && !lines[i].starts_with("#### ")
                {
                    // Inside a block, a `## ` line that starts another
                    // expectation ends it (the Oils harness allows that).
                    if let Some(m) = lines[i].strip_prefix("## ")
                        && (m.starts_with("OK")
                            || m.starts_with("N-I")
                            || m.starts_with("BUG")
                            || m.starts_with("status:")
                            || m.starts_with("STDOUT:")
                            || m.starts_with("STDERR:")
                            || m.starts_with("stdout"))
                    {
                        break;
                    }
                    body.push_str(lines[i]);
                    body.push('\n');
                    i += 1;
                }
                if i < lines.len() && lines[i].starts_with("## END") {
                    i += 1;
                }
            }
            if q.is_none() && key == "code" {
                inline_code = Some(format!("{}\n", value.trim_start()));
                continue;
            }
            let Some(t) = target else {
                continue;
            };
            match key {
                "stdout" => {
                    t.stdout = Some(format!("{}\n", value.strip_prefix(' ').unwrap_or(value)))
                }
                "stdout-json" => t.stdout = json_string(value),
                "STDOUT" => t.stdout = Some(body),
                "status" => t.status = value.trim().parse().ok(),
                _ => {}
            }
        }
        let stdout = if bash.stdout.is_some() {
            bash.stdout
        } else {
            default.stdout
        };
        let status = bash.status.or(default.status).unwrap_or(0);
        // The harness drops blank lines between the name and the code.
        let code = inline_code.unwrap_or_else(|| code.trim_start_matches('\n').to_string());
        cases.push(Case {
            name,
            code,
            stdout,
            status,
        });
    }
    cases
}
