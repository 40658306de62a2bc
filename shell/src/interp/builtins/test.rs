//! `test` and `[`: the builtins over the interpreter's state. The evaluator
//! is [`crate::builtin_core::test::evaluate`], shared with the program; this
//! file supplies the variables and options it asks about ([`InterpEnv`]) and
//! evaluates `-v` subscripts first.

use super::err;
use crate::builtin_core::test::{FsEnv, TestEnv, evaluate};
use crate::fs::Metadata;
use crate::interp::{ExecResult, Interp};

/// A [`TestEnv`] over the interpreter: its filesystem and cwd, variables and options.
struct InterpEnv<'a>(&'a Interp);

impl TestEnv for InterpEnv<'_> {
    fn stat(&self, path: &str) -> Option<Metadata> {
        FsEnv {
            fs: &self.0.fs,
            cwd: &self.0.cwd,
        }
        .stat(path)
    }
    fn lstat(&self, path: &str) -> Option<Metadata> {
        FsEnv {
            fs: &self.0.fs,
            cwd: &self.0.cwd,
        }
        .lstat(path)
    }
    fn atime(&self, path: &str) -> Option<crate::clock::Timestamp> {
        FsEnv {
            fs: &self.0.fs,
            cwd: &self.0.cwd,
        }
        .atime(path)
    }
    fn var_set(&self, name: &str) -> bool {
        let (base, sub) = crate::interp::vars::split_subscript(name);
        match sub {
            // bash always has these two (computed from the options).
            None if matches!(base, "SHELLOPTS" | "BASHOPTS") => true,
            // A whole variable is "set" when its element 0 is (bash).
            None => self
                .0
                .vars
                .get(base)
                .and_then(|v| v.value.as_ref())
                .is_some_and(|v| match v {
                    crate::interp::Value::Str(_) => true,
                    crate::interp::Value::Indexed(a) => a.contains_key(&0),
                    crate::interp::Value::Assoc(m) => m.contains_key("0"),
                }),
            Some("@") | Some("*") => self
                .0
                .vars
                .get(base)
                .and_then(|v| v.value.as_ref())
                .is_some_and(|v| !v.keys().is_empty()),
            Some(s) => {
                let key = match self.0.vars.get(base).map(|v| &v.value) {
                    Some(Some(crate::interp::Value::Assoc(_))) => {
                        crate::interp::vars::ElemKey::Key(s.to_string())
                    }
                    _ => match s.trim().parse() {
                        Ok(i) => crate::interp::vars::ElemKey::Index(i),
                        Err(_) => return false,
                    },
                };
                self.0.vars.get_elem(base, &key).is_some()
            }
        }
    }
    fn is_nameref(&self, name: &str) -> bool {
        self.0
            .vars
            .get_raw(name)
            .is_some_and(|v| v.attrs.has(crate::interp::Attrs::NAMEREF))
    }
    fn option(&self, name: &str) -> Option<bool> {
        self.0.opts.get_set_option(name)
    }
}

/// `test EXPR`
pub fn test(interp: &mut Interp, args: &[String]) -> ExecResult {
    run(interp, "test", &args[1..])
}

/// `[ EXPR ]`
pub fn bracket(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args.last().map(|s| s.as_str()) != Some("]") || args.len() < 2 {
        err(interp, "[: missing `]'");
        return Ok(2);
    }
    run(interp, "[", &args[1..args.len() - 1])
}

fn run(interp: &mut Interp, name: &str, args: &[String]) -> ExecResult {
    let resolved;
    let args = if args.iter().any(|a| a == "-v") {
        resolved = resolve_v_operands(interp, args)?;
        &resolved[..]
    } else {
        args
    };
    let r = evaluate(args, &InterpEnv(interp));
    Ok(match r {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            err(interp, format!("{name}: {msg}"));
            2
        }
    })
}

/// `-v 'a[EXPR]'`: bash evaluates the subscript when testing, so an
/// indexed subscript is computed (`a[1+1]`) and an associative key expanded
/// (`m[$key]`) before the evaluator sees the name.
fn resolve_v_operands(
    interp: &mut Interp,
    args: &[String],
) -> Result<Vec<String>, crate::interp::Interrupt> {
    let mut out = args.to_vec();
    for i in 0..out.len().saturating_sub(1) {
        if args[i] != "-v" {
            continue;
        }
        let operand = args[i + 1].clone();
        let (base, Some(sub)) = crate::interp::vars::split_subscript(&operand) else {
            continue;
        };
        if sub == "@" || sub == "*" {
            continue;
        }
        let assoc = interp.vars.get(base).is_some_and(|v| {
            v.attrs.has(crate::interp::Attrs::ASSOC)
                || matches!(v.value, Some(crate::interp::Value::Assoc(_)))
        });
        let key = if assoc {
            if sub.contains(['$', '"', '\'', '\\', '`']) {
                interp.expand_string(sub)?
            } else {
                sub.to_string()
            }
        } else {
            match interp.try_eval_arith(sub) {
                Ok(n) => {
                    // Negative indices count from the end.
                    if n < 0 {
                        let last = interp.vars.get(base).and_then(|v| match &v.value {
                            Some(crate::interp::Value::Indexed(a)) => a.keys().next_back().copied(),
                            _ => None,
                        });
                        match last {
                            Some(l) => (l + 1 + n).to_string(),
                            None => "x".to_string(),
                        }
                    } else {
                        n.to_string()
                    }
                }
                Err(crate::interp::arith::ArithFail::Interrupt(i)) => return Err(i),
                Err(_) => "x".to_string(),
            }
        };
        out[i + 1] = format!("{base}[{key}]");
    }
    Ok(out)
}
