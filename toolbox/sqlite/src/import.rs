//! Reading `.import` input: CSV with RFC 4180 quoting (`--csv`, or the
//! csv output mode), or plain separator-split text (the other modes:
//! `.separator`'s column and row separators, no quoting, as sqlite3).

/// The records of `data` with the 1-based line each starts on.
pub fn parse(data: &[u8], col_sep: &str, row_sep: &str, csv: bool) -> Vec<(usize, Vec<String>)> {
    let text = String::from_utf8_lossy(data);
    // A UTF-8 byte-order mark is not part of the first field.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if csv {
        parse_csv(text, col_sep)
    } else {
        parse_plain(text, col_sep, row_sep)
    }
}

fn parse_plain(text: &str, col_sep: &str, row_sep: &str) -> Vec<(usize, Vec<String>)> {
    let row_sep = if row_sep.is_empty() { "\n" } else { row_sep };
    let mut out = Vec::new();
    let mut line = 1;
    let mut rows: Vec<&str> = text.split(row_sep).collect();
    if rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    for row in rows {
        let row = if row_sep == "\n" {
            row.strip_suffix('\r').unwrap_or(row)
        } else {
            row
        };
        let fields = if col_sep.is_empty() {
            vec![row.to_string()]
        } else {
            row.split(col_sep).map(str::to_string).collect()
        };
        out.push((line, fields));
        line += row.matches('\n').count() + usize::from(row_sep.contains('\n'));
    }
    out
}

fn parse_csv(text: &str, col_sep: &str) -> Vec<(usize, Vec<String>)> {
    let sep: Vec<char> = if col_sep.is_empty() {
        vec![',']
    } else {
        col_sep.chars().collect()
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let start_line = line;
        let mut fields = Vec::new();
        loop {
            let mut field = String::new();
            if chars.get(i) == Some(&'"') {
                i += 1;
                loop {
                    match chars.get(i) {
                        None => break,
                        Some('"') if chars.get(i + 1) == Some(&'"') => {
                            field.push('"');
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                            i += 1;
                        }
                    }
                }
                // Text after the closing quote up to the separator is kept.
                while let Some(&c) = chars.get(i) {
                    if c == '\n' || chars[i..].starts_with(&sep) {
                        break;
                    }
                    if c != '\r' {
                        field.push(c);
                    }
                    i += 1;
                }
            } else {
                while let Some(&c) = chars.get(i) {
                    if c == '\n' || chars[i..].starts_with(&sep) {
                        break;
                    }
                    field.push(c);
                    i += 1;
                }
                if field.ends_with('\r') && chars.get(i) == Some(&'\n') {
                    field.pop();
                }
            }
            fields.push(field);
            if i < chars.len() && chars[i..].starts_with(&sep) {
                i += sep.len();
                continue;
            }
            break;
        }
        if chars.get(i) == Some(&'\n') {
            i += 1;
            line += 1;
        }
        out.push((start_line, fields));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_newlines() {
        let r = parse(b"a,b\n\"x,y\",\"l1\nl2\"\n3,\"q\"\"\"\n", ",", "\n", true);
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].1, ["x,y", "l1\nl2"]);
        assert_eq!(r[2], (4, vec!["3".to_string(), "q\"".to_string()]));
    }

    #[test]
    fn plain_split() {
        let r = parse(b"a|b\n1|2\n", "|", "\n", false);
        assert_eq!(
            r,
            [
                (1, vec!["a".into(), "b".into()]),
                (2, vec!["1".into(), "2".into()])
            ]
        );
    }
}
