//! `test` and `[`: POSIX's argument-count rules, then a recursive-descent
//! parser for longer expressions (`!`, `-a`, `-o`, parentheses). File tests
//! go through a [`TestEnv`], so the same evaluator serves the builtin (over
//! the interpreter) and the `/usr/bin/test` program (over a command context).

use crate::fs::{FileKind, Fs, Metadata};

/// What `test` needs to know about the world.
pub trait TestEnv {
    /// Metadata of `path` (relative to the working directory), following symlinks.
    fn stat(&self, path: &str) -> Option<Metadata>;
    /// Metadata of `path` itself (a symlink is not followed).
    fn lstat(&self, path: &str) -> Option<Metadata>;
    /// `-v NAME`: is the variable set?
    fn var_set(&self, name: &str) -> bool;
    /// `-R NAME`: is the variable a nameref?
    fn is_nameref(&self, _name: &str) -> bool {
        false
    }
    /// `-o OPT`: is the shell option on? (`None`: unknown option.)
    fn option(&self, name: &str) -> Option<bool>;
    /// The access time of `path` (following symlinks), for `-N`.
    fn atime(&self, _path: &str) -> Option<crate::clock::Timestamp> {
        None
    }
    /// `-t FD`: is it a terminal? Never, in a sandbox.
    fn is_tty(&self, _fd: i64) -> bool {
        false
    }
}

/// A [`TestEnv`] over a filesystem and a working directory (the program form).
pub struct FsEnv<'a> {
    /// The filesystem.
    pub fs: &'a Fs,
    /// The working directory.
    pub cwd: &'a str,
}

impl TestEnv for FsEnv<'_> {
    fn stat(&self, path: &str) -> Option<Metadata> {
        if path.is_empty() {
            return None;
        }
        self.fs.metadata(&Fs::resolve(self.cwd, path)).ok()
    }
    fn lstat(&self, path: &str) -> Option<Metadata> {
        if path.is_empty() {
            return None;
        }
        self.fs.symlink_metadata(&Fs::resolve(self.cwd, path)).ok()
    }
    fn atime(&self, path: &str) -> Option<crate::clock::Timestamp> {
        if path.is_empty() {
            return None;
        }
        self.fs.atime(&Fs::resolve(self.cwd, path)).ok()
    }
    fn var_set(&self, _name: &str) -> bool {
        false
    }
    fn option(&self, _name: &str) -> Option<bool> {
        None
    }
}

/// Evaluates a test expression; `Err` holds bash's message (status 2).
pub fn evaluate(args: &[String], env: &dyn TestEnv) -> Result<bool, String> {
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    by_count(&a, env)
}

fn by_count(a: &[&str], env: &dyn TestEnv) -> Result<bool, String> {
    match a.len() {
        0 => Ok(false),
        1 => Ok(!a[0].is_empty()),
        2 => {
            if a[0] == "!" {
                return Ok(a[1].is_empty());
            }
            if is_unary(a[0]) {
                return unary(a[0], a[1], env);
            }
            Err(format!("{}: unary operator expected", a[0]))
        }
        3 => {
            if is_binary(a[1]) {
                return binary(a[0], a[1], a[2], env);
            }
            if a[1] == "-a" || a[1] == "-o" {
                let l = !a[0].is_empty();
                let r = !a[2].is_empty();
                return Ok(if a[1] == "-a" { l && r } else { l || r });
            }
            if a[0] == "!" {
                return by_count(&a[1..], env).map(|b| !b);
            }
            if a[0] == "(" && a[2] == ")" {
                return Ok(!a[1].is_empty());
            }
            Parser { a, pos: 0, env }.parse_all()
        }
        4 => {
            if a[0] == "!" {
                return by_count(&a[1..], env).map(|b| !b);
            }
            if a[0] == "(" && a[3] == ")" {
                return by_count(&a[1..3], env);
            }
            Parser { a, pos: 0, env }.parse_all()
        }
        _ => Parser { a, pos: 0, env }.parse_all(),
    }
}

fn is_unary(op: &str) -> bool {
    matches!(
        op,
        "-a" | "-b"
            | "-c"
            | "-d"
            | "-e"
            | "-f"
            | "-g"
            | "-h"
            | "-k"
            | "-p"
            | "-r"
            | "-s"
            | "-t"
            | "-u"
            | "-w"
            | "-x"
            | "-G"
            | "-L"
            | "-N"
            | "-O"
            | "-S"
            | "-n"
            | "-z"
            | "-v"
            | "-o"
            | "-R"
    )
}

fn is_binary(op: &str) -> bool {
    matches!(
        op,
        "=" | "=="
            | "!="
            | "<"
            | ">"
            | "-eq"
            | "-ne"
            | "-lt"
            | "-le"
            | "-gt"
            | "-ge"
            | "-nt"
            | "-ot"
            | "-ef"
    )
}

struct Parser<'a, 'e> {
    a: &'a [&'a str],
    pos: usize,
    env: &'e dyn TestEnv,
}

impl<'a> Parser<'a, '_> {
    fn parse_all(&mut self) -> Result<bool, String> {
        let v = self.or()?;
        if self.pos < self.a.len() {
            return Err("too many arguments".to_string());
        }
        Ok(v)
    }

    fn peek(&self) -> Option<&'a str> {
        self.a.get(self.pos).copied()
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.peek() == Some("-o") {
            self.pos += 1;
            let r = self.and()?;
            v = v || r;
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.not()?;
        while self.peek() == Some("-a") {
            self.pos += 1;
            let r = self.not()?;
            v = v && r;
        }
        Ok(v)
    }

    fn not(&mut self) -> Result<bool, String> {
        if self.peek() == Some("!") {
            self.pos += 1;
            return self.not().map(|b| !b);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<bool, String> {
        let Some(tok) = self.peek() else {
            let last = self.a.last().copied().unwrap_or("");
            return Err(format!("{last}: argument expected"));
        };
        if tok == "(" {
            self.pos += 1;
            let v = self.or()?;
            if self.peek() != Some(")") {
                return Err("`)' expected".to_string());
            }
            self.pos += 1;
            return Ok(v);
        }
        // A binary expression takes precedence when the next token is an operator.
        if let Some(op) = self.a.get(self.pos + 1).copied()
            && is_binary(op)
        {
            let Some(rhs) = self.a.get(self.pos + 2).copied() else {
                return Err(format!("{op}: argument expected"));
            };
            self.pos += 3;
            return binary(tok, op, rhs, self.env);
        }
        if is_unary(tok) {
            let Some(arg) = self.a.get(self.pos + 1).copied() else {
                // A lone operator word is a non-empty string.
                self.pos += 1;
                return Ok(true);
            };
            self.pos += 2;
            return unary(tok, arg, self.env);
        }
        self.pos += 1;
        Ok(!tok.is_empty())
    }
}

fn owner_bit(m: &Metadata, bit: u32) -> bool {
    // The sandbox user owns every file; a directory's x bit means search.
    m.mode & (bit << 6) != 0
}

fn unary(op: &str, arg: &str, env: &dyn TestEnv) -> Result<bool, String> {
    let st = || env.stat(arg);
    Ok(match op {
        "-n" => !arg.is_empty(),
        "-z" => arg.is_empty(),
        "-e" | "-a" => st().is_some(),
        "-f" => st().is_some_and(|m| m.kind == FileKind::File),
        "-d" => st().is_some_and(|m| m.kind == FileKind::Dir),
        "-c" => st().is_some_and(|m| m.kind == FileKind::CharDevice),
        "-p" => st().is_some_and(|m| m.kind == FileKind::Fifo),
        "-b" | "-S" => false,
        "-h" | "-L" => env.lstat(arg).is_some_and(|m| m.kind == FileKind::Symlink),
        "-s" => st().is_some_and(|m| m.size > 0),
        "-r" => st().is_some_and(|m| owner_bit(&m, 4)),
        "-w" => st().is_some_and(|m| owner_bit(&m, 2)),
        "-x" => st().is_some_and(|m| owner_bit(&m, 1)),
        "-u" => st().is_some_and(|m| m.mode & 0o4000 != 0),
        "-g" => st().is_some_and(|m| m.mode & 0o2000 != 0),
        "-k" => st().is_some_and(|m| m.mode & 0o1000 != 0),
        "-O" | "-G" => st().is_some(),
        // Modified since last read: the modification time is past the
        // access time.
        "-N" => st().is_some_and(|m| env.atime(arg).is_some_and(|a| m.mtime > a)),
        "-t" => match parse_int(arg) {
            Ok(fd) => env.is_tty(fd),
            Err(_) => false,
        },
        "-v" => env.var_set(arg),
        "-R" => env.is_nameref(arg),
        "-o" => env.option(arg).unwrap_or(false),
        _ => return Err(format!("{op}: unary operator expected")),
    })
}

/// Parses an integer operand: optional blanks, sign, decimal digits.
fn parse_int(s: &str) -> Result<i64, String> {
    let t = s.trim_matches([' ', '\t', '\n']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s}: integer expression expected"));
    }
    t.parse::<i64>()
        .map_err(|_| format!("{s}: integer expression expected"))
}

fn binary(l: &str, op: &str, r: &str, env: &dyn TestEnv) -> Result<bool, String> {
    Ok(match op {
        "=" | "==" => l == r,
        "!=" => l != r,
        "<" => l < r,
        ">" => l > r,
        "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
            let a = parse_int(l)?;
            let b = parse_int(r)?;
            match op {
                "-eq" => a == b,
                "-ne" => a != b,
                "-lt" => a < b,
                "-le" => a <= b,
                "-gt" => a > b,
                _ => a >= b,
            }
        }
        "-nt" => match (env.stat(l), env.stat(r)) {
            (Some(a), Some(b)) => a.mtime > b.mtime,
            (Some(_), None) => true,
            _ => false,
        },
        "-ot" => match (env.stat(l), env.stat(r)) {
            (Some(a), Some(b)) => a.mtime < b.mtime,
            (None, Some(_)) => true,
            _ => false,
        },
        "-ef" => match (env.stat(l), env.stat(r)) {
            (Some(a), Some(b)) => a.ino == b.ino,
            _ => false,
        },
        _ => return Err(format!("{op}: binary operator expected")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoFs;
    impl TestEnv for NoFs {
        fn stat(&self, _: &str) -> Option<Metadata> {
            None
        }
        fn lstat(&self, _: &str) -> Option<Metadata> {
            None
        }
        fn var_set(&self, n: &str) -> bool {
            n == "x"
        }
        fn option(&self, _: &str) -> Option<bool> {
            Some(false)
        }
    }

    fn t(args: &[&str]) -> Result<bool, String> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        evaluate(&v, &NoFs)
    }

    #[test]
    fn argument_count_rules() {
        assert_eq!(t(&[]), Ok(false));
        assert_eq!(t(&["-n"]), Ok(true));
        assert_eq!(t(&["!", "-z"]), Ok(false));
        assert_eq!(t(&["a", "=", "a", "-a", "b"]), Ok(true));
        assert_eq!(t(&["(", "a", ")"]), Ok(true));
        assert_eq!(
            t(&["1", "-eq", "a"]),
            Err("a: integer expression expected".into())
        );
        assert_eq!(t(&["-q", "x"]), Err("-q: unary operator expected".into()));
        assert_eq!(t(&["a", "b"]), Err("a: unary operator expected".into()));
        assert_eq!(t(&["(", "a", "=", "b", ")", "-o", "b"]), Ok(true));
        assert_eq!(t(&[" 1 ", "-eq", "1"]), Ok(true));
        assert_eq!(t(&["!", "!", "a"]), Ok(true));
        assert_eq!(t(&[")"]), Ok(true));
        assert_eq!(t(&["-e"]), Ok(true));
        assert_eq!(
            t(&["1", "-eq", "2", "-o", "2", "-eq", "2", "-a", "3"]),
            Ok(true)
        );
        assert_eq!(t(&["-v", "x"]), Ok(true));
        assert_eq!(t(&["a", "<", "b"]), Ok(true));
    }
}
