//! The awk lexer: source text to tokens. A `/` starts a regex literal when an
//! operand is expected (decided from the previous token), else it divides.

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A numeric literal.
    Num(f64),
    /// A string literal, escapes processed.
    Str(String),
    /// A regex literal (`/.../`), only `\/` unescaped.
    Regex(String),
    /// A name not followed by `(`.
    Name(String),
    /// A name immediately followed by `(` (user function call).
    FuncName(String),
    /// A builtin function name.
    Builtin(String),
    /// A keyword (`if`, `print`, `BEGIN`, ...).
    Kw(&'static str),
    /// Punctuation or operator.
    Op(&'static str),
    /// A newline (statement terminator).
    Newline,
    /// End of input.
    Eof,
}

const KEYWORDS: &[&str] = &[
    "BEGIN",
    "END",
    "BEGINFILE",
    "ENDFILE",
    "function",
    "func",
    "if",
    "else",
    "while",
    "for",
    "do",
    "break",
    "continue",
    "next",
    "nextfile",
    "exit",
    "return",
    "delete",
    "in",
    "getline",
    "print",
    "printf",
];

/// Builtin function names.
pub const BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "tolower", "toupper",
    "sin", "cos", "atan2", "exp", "log", "sqrt", "int", "rand", "srand", "system", "close",
    "fflush", "gensub", "strftime", "systime", "mktime", "asort", "asorti", "patsplit", "typeof",
    "strtonum", "and", "or", "xor", "lshift", "rshift", "compl",
];

const OPS: &[&str] = &[
    "**=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=",
    "!~", ">>", "**", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!",
    ">", "<", "|", "?", ":", "~", "$", "=",
];

/// A token with its source line.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line number.
    pub line: usize,
}

/// Processes awk string escapes (`\n`, `\t`, `\\`, `\"`, `\/`, octal).
pub fn unescape(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        match c {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '/' => out.push('/'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut v = c as u32 - '0' as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && ('0'..='7').contains(&b[i]) {
                    v = v * 8 + (b[i] as u32 - '0' as u32);
                    i += 1;
                    n += 1;
                }
                out.push(char::from_u32(v & 0xff).unwrap_or('?'));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn operand_end(t: Option<&Tok>) -> bool {
    match t {
        Some(Tok::Num(_) | Tok::Str(_) | Tok::Regex(_) | Tok::Name(_) | Tok::Builtin(_)) => true,
        Some(Tok::Op(o)) => matches!(*o, ")" | "]" | "$" | "++" | "--"),
        Some(Tok::Kw("getline")) => true,
        _ => false,
    }
}

/// Splits `src` into tokens; the error is `(line, message)`.
pub fn lex(src: &str) -> Result<Vec<Token>, (usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < c.len() {
        let ch = c[i];
        if ch == '\\' && c.get(i + 1) == Some(&'\n') {
            i += 2;
            line += 1;
            continue;
        }
        if ch == '\\' && c.get(i + 1) == Some(&'\r') && c.get(i + 2) == Some(&'\n') {
            i += 3;
            line += 1;
            continue;
        }
        if ch == ' ' || ch == '\t' || ch == '\r' {
            i += 1;
            continue;
        }
        if ch == '#' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if ch == '\n' {
            out.push(Token {
                tok: Tok::Newline,
                line,
            });
            line += 1;
            i += 1;
            continue;
        }
        let start_line = line;
        if ch == '"' {
            let raw = string_lit(&c, &mut i, &mut line)?;
            out.push(Token {
                tok: Tok::Str(unescape(&raw)),
                line: start_line,
            });
            continue;
        }
        if ch == '/' && !operand_end(out.last().map(|t| &t.tok)) {
            let re = regex_lit(&c, &mut i, start_line)?;
            out.push(Token {
                tok: Tok::Regex(re),
                line: start_line,
            });
            continue;
        }
        if ch.is_ascii_digit() || (ch == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            out.push(Token {
                tok: Tok::Num(number(&c, &mut i)),
                line,
            });
            continue;
        }
        if ch.is_ascii_alphabetic() || ch == '_' {
            out.push(Token {
                tok: word(&c, &mut i),
                line,
            });
            continue;
        }
        let rest: String = c[i..(i + 3).min(c.len())].iter().collect();
        match OPS.iter().find(|o| rest.starts_with(**o)) {
            Some(o) => {
                out.push(Token {
                    tok: Tok::Op(o),
                    line,
                });
                i += o.chars().count();
            }
            None => return Err((line, format!("syntax error at or near {ch}"))),
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
    });
    Ok(out)
}

/// A string constant from the `"` at `c[*i]`: its text with the escapes
/// still in (a backslash-newline is dropped, counting the line); `*i` ends
/// past the closing quote.
fn string_lit(c: &[char], i: &mut usize, line: &mut usize) -> Result<String, (usize, String)> {
    let start_line = *line;
    let mut s = String::new();
    *i += 1;
    loop {
        match c.get(*i) {
            None | Some('\n') => {
                return Err((start_line, "runaway string constant".into()));
            }
            Some('"') => break,
            Some('\\') if c.get(*i + 1) == Some(&'\n') => {
                *i += 2;
                *line += 1;
            }
            Some('\\') if *i + 1 < c.len() => {
                s.push('\\');
                s.push(c[*i + 1]);
                *i += 2;
            }
            Some(&x) => {
                s.push(x);
                *i += 1;
            }
        }
    }
    *i += 1;
    Ok(s)
}

/// A regex constant from the `/` at `c[*i]` (a `/` inside a bracket
/// expression does not end it); `*i` ends past the closing `/`.
fn regex_lit(c: &[char], i: &mut usize, start_line: usize) -> Result<String, (usize, String)> {
    let mut s = String::new();
    *i += 1;
    let mut in_bracket = false;
    loop {
        match c.get(*i) {
            None | Some('\n') => {
                return Err((start_line, "unterminated regexp".into()));
            }
            Some('/') if !in_bracket => break,
            Some('\\') if *i + 1 < c.len() => {
                if c[*i + 1] == '/' {
                    s.push('/');
                } else {
                    s.push('\\');
                    s.push(c[*i + 1]);
                }
                *i += 2;
            }
            Some(&x) => {
                if x == '[' && !in_bracket {
                    in_bracket = true;
                    s.push(x);
                    *i += 1;
                    // `[]...]` and `[^]...]`: the first `]` is literal.
                    if c.get(*i) == Some(&'^') {
                        s.push('^');
                        *i += 1;
                    }
                    if c.get(*i) == Some(&']') {
                        s.push(']');
                        *i += 1;
                    }
                    continue;
                }
                if x == '[' && in_bracket && matches!(c.get(*i + 1), Some(':' | '.' | '=')) {
                    let close = c[*i + 1];
                    s.push('[');
                    s.push(close);
                    *i += 2;
                    while *i < c.len() && !(c[*i] == close && c.get(*i + 1) == Some(&']')) {
                        s.push(c[*i]);
                        *i += 1;
                    }
                    if *i < c.len() {
                        s.push(close);
                        s.push(']');
                        *i += 2;
                    }
                    continue;
                }
                if x == ']' && in_bracket {
                    in_bracket = false;
                }
                s.push(x);
                *i += 1;
            }
        }
    }
    *i += 1;
    Ok(s)
}

/// A number constant at `c[*pos]`: decimal with fraction and exponent, `0x`
/// hex, or gawk's all-octal-digits `0...`; `*pos` ends past it.
fn number(c: &[char], pos: &mut usize) -> f64 {
    let st = *pos;
    let mut i = st;
    if c[i] == '0'
        && matches!(c.get(i + 1), Some('x' | 'X'))
        && c.get(i + 2).is_some_and(|d| d.is_ascii_hexdigit())
    {
        i += 2;
        while i < c.len() && c[i].is_ascii_hexdigit() {
            i += 1;
        }
        *pos = i;
        let s: String = c[st + 2..i].iter().collect();
        return u64::from_str_radix(&s, 16)
            .map(|v| v as f64)
            .unwrap_or(f64::INFINITY);
    }
    while i < c.len() && c[i].is_ascii_digit() {
        i += 1;
    }
    if c.get(i) == Some(&'.') {
        i += 1;
        while i < c.len() && c[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(c.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(c.get(j), Some('+' | '-')) {
            j += 1;
        }
        if c.get(j).is_some_and(|d| d.is_ascii_digit()) {
            i = j;
            while i < c.len() && c[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    *pos = i;
    let s: String = c[st..i].iter().collect();
    // gawk reads a leading-zero integer as octal when all digits are.
    if s.len() > 1 && s.starts_with('0') && s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        u64::from_str_radix(&s, 8).map(|v| v as f64).unwrap_or(0.0)
    } else {
        s.parse().unwrap_or(0.0)
    }
}

/// A word at `c[*pos]`: a keyword, a builtin, a function name (directly
/// followed by `(`) or a variable name; `*pos` ends past it.
fn word(c: &[char], pos: &mut usize) -> Tok {
    let st = *pos;
    let mut i = st;
    while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
        i += 1;
    }
    *pos = i;
    let w: String = c[st..i].iter().collect();
    if let Some(k) = KEYWORDS.iter().find(|k| **k == w) {
        Tok::Kw(if *k == "func" { "function" } else { k })
    } else if BUILTINS.contains(&w.as_str()) {
        Tok::Builtin(w)
    } else if c.get(i) == Some(&'(') {
        Tok::FuncName(w)
    } else {
        Tok::Name(w)
    }
}
