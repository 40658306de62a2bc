//! Reading variables for expansion: namerefs, array elements and keys, and
//! the dynamic parameters bash computes on every read (`$RANDOM`,
//! `$LINENO`, `$SECONDS`, `$BASHPID`, `FUNCNAME`, ...), plus the fixed
//! facts of the sandboxed shell (`$$`, `$UID`, `$BASH_VERSION`).

use crate::interp::arith::ArithFail;
use crate::interp::vars::Value;
use crate::interp::{Attrs, Interp, Interrupt};

/// `$$` of every sandboxed shell.
pub const SHELL_PID: i64 = 4242;
/// `$PPID`.
pub const SHELL_PPID: i64 = 4241;
/// `$UID` / `$EUID` of the `sandbox` user.
pub const SANDBOX_UID: u32 = 1000;
/// `$BASH_VERSION`.
pub const BASH_VERSION: &str = "5.2.15(1)-release";

/// A subscript resolved against an indexed array.
pub(crate) enum Index {
    /// An existing or assignable index.
    At(i64),
    /// A negative index beyond the start: `bad array subscript`.
    Bad,
}

impl Interp {
    /// The variable `name` refers to after following namerefs (`declare -n`),
    /// or `None` when `name` is not a nameref.
    pub fn nameref_target(&self, name: &str) -> Option<String> {
        let mut cur: Option<String> = None;
        for _ in 0..16 {
            let n = cur.as_deref().unwrap_or(name);
            let Some(v) = self.vars.get_raw(n) else {
                return cur;
            };
            if !v.attrs.has(Attrs::NAMEREF) {
                return cur;
            }
            match v.value.as_ref().and_then(|v| v.as_scalar()) {
                Some(t) if valid_ref_target(t) => cur = Some(t.to_string()),
                _ => return cur,
            }
        }
        // A cycle (`declare -n a=b b=a`): resolves to nothing.
        Some(String::new())
    }

    /// `$RANDOM`: 0..32767 from a 64-bit LCG seeded by the run's seed.
    pub fn next_random(&mut self) -> u32 {
        if self.random_state == 0 {
            self.random_state = self.control.seed.unwrap_or_else(|| {
                let t = self.control.clock.now();
                (t.secs as u64) ^ ((t.nanos as u64) << 20) ^ 0x9e37_79b9_7f4a_7c15
            }) | 1;
        }
        self.random_state = self
            .random_state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.random_state >> 33) & 0x7fff) as u32
    }

    /// The value of an ordinary scalar variable holding a plain decimal
    /// number, read without copying (the arithmetic hot path). `None`
    /// sends the caller down the general path.
    pub(crate) fn plain_int_var(&self, name: &str) -> Option<i64> {
        if is_dynamic_name(name) {
            return None;
        }
        let var = self.vars.get_raw(name)?;
        if var.attrs.has(Attrs::NAMEREF) {
            return None;
        }
        match var.value.as_ref()? {
            Value::Str(s) => crate::interp::arith::plain_decimal(s),
            _ => None,
        }
    }

    /// `SHELLOPTS` / `BASHOPTS`: the `set -o` / `shopt` options that are on,
    /// as bash keeps these read-only lists.
    pub(crate) fn option_list(&self, name: &str) -> Option<String> {
        use crate::interp::options::{SET_O_OPTIONS, SHOPT_OPTIONS};
        match name {
            "SHELLOPTS" => Some(options_on(SET_O_OPTIONS, |n| self.opts.get_set_option(n))),
            "BASHOPTS" => Some(options_on(SHOPT_OPTIONS, |n| self.opts.get_shopt(n))),
            _ => None,
        }
    }

    /// Values computed on every read; `None` for ordinary names.
    fn dynamic_scalar(&mut self, name: &str) -> Option<String> {
        let first = *name.as_bytes().first()?;
        if !matches!(first, b'R' | b'S' | b'L' | b'B' | b'E' | b'F') {
            return None;
        }
        Some(match name {
            "RANDOM" => self.next_random().to_string(),
            "SRANDOM" => {
                let a = self.next_random() as u64;
                let b = self.next_random() as u64;
                let c = self.next_random() as u64;
                ((a << 17 ^ b << 2 ^ c) & 0xffff_ffff).to_string()
            }
            "LINENO" => self.lineno.to_string(),
            "SECONDS" => self.seconds_elapsed().to_string(),
            "BASHPID" => {
                (self.pid + i64::from(self.subshell_depth - self.process_depth)).to_string()
            }
            "BASH_SUBSHELL" => self.subshell_depth.to_string(),
            "EPOCHSECONDS" => self.control.clock.now().secs.to_string(),
            "EPOCHREALTIME" => {
                let t = self.control.clock.now();
                format!("{}.{:06}", t.secs, t.nanos / 1000)
            }
            "FUNCNAME" => return self.call_stack.last().cloned(),
            // The options that are on, as bash keeps these read-only lists.
            "SHELLOPTS" | "BASHOPTS" if self.vars.get(name).is_none() => {
                return self.option_list(name);
            }
            _ => return None,
        })
    }

    fn seconds_elapsed(&self) -> i64 {
        if self.control.clock.is_fixed() {
            return 0;
        }
        match self.control.remaining() {
            Some(rem) => (self.control.limits.timeout.saturating_sub(rem)).as_secs() as i64,
            None => 0,
        }
    }

    /// Defaults for names bash always defines, used when the variable is unset.
    fn fallback_scalar(&self, name: &str) -> Option<String> {
        Some(match name {
            "PPID" => SHELL_PPID.to_string(),
            "UID" | "EUID" => SANDBOX_UID.to_string(),
            "BASH_VERSION" => BASH_VERSION.to_string(),
            "BASH" => "/bin/bash".to_string(),
            "OSTYPE" => "linux-gnu".to_string(),
            "HOSTTYPE" => "x86_64".to_string(),
            "MACHTYPE" => "x86_64-pc-linux-gnu".to_string(),
            _ => return None,
        })
    }

    /// Array values of dynamic arrays (`FUNCNAME`, `BASH_VERSINFO`, `DIRSTACK`).
    fn dynamic_array(&self, name: &str) -> Option<Vec<String>> {
        match name {
            "FUNCNAME" => {
                if self.call_stack.is_empty() {
                    return None;
                }
                Some(self.call_stack.iter().rev().cloned().collect())
            }
            "BASH_LINENO" => {
                if self.call_lines.is_empty() {
                    return None;
                }
                Some(self.call_lines.iter().rev().map(u32::to_string).collect())
            }
            // The directory stack as `dirs -l` lists it, working directory first.
            "DIRSTACK" if self.vars.get(name).is_none() => {
                let mut stack = vec![self.cwd.clone()];
                stack.extend(self.dir_stack.iter().cloned());
                Some(stack)
            }
            "BASH_VERSINFO" if self.vars.get(name).is_none() => Some(
                ["5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            _ => None,
        }
    }

    /// `$name`: a scalar, or element 0 of an array. `None` when unset.
    pub fn var_scalar(&mut self, name: &str) -> Option<String> {
        if let Some(v) = self.dynamic_scalar(name) {
            return Some(v);
        }
        if let Some(t) = self.nameref_target(name) {
            if t.contains('[') {
                let (n, sub) = split_subscript(&t)?;
                if sub == "@" || sub == "*" {
                    return self.var_values(n).map(|v| v.join(" "));
                }
                return self.var_element(n, sub).ok().flatten();
            }
            return self.var_scalar(&t);
        }
        match self.vars.get(name) {
            Some(v) => v
                .value
                .as_ref()
                .and_then(|v| v.as_scalar())
                .map(|s| s.to_string()),
            None => self
                .fallback_scalar(name)
                .or_else(|| self.dynamic_array(name).and_then(|a| a.into_iter().next())),
        }
    }

    /// True when `name` holds an indexed or associative array.
    pub(crate) fn is_array_var(&self, name: &str) -> bool {
        self.vars.get(name).is_some_and(|v| {
            matches!(v.value, Some(Value::Indexed(_) | Value::Assoc(_)))
                || v.attrs.has(Attrs::ASSOC)
        })
    }

    /// True when `name` is an associative array.
    pub fn is_assoc(&self, name: &str) -> bool {
        self.vars
            .get(name)
            .is_some_and(|v| matches!(v.value, Some(Value::Assoc(_))) || v.attrs.has(Attrs::ASSOC))
    }

    /// Resolves an arithmetic index against indexed array `name` (negative
    /// indices count from the end).
    pub(crate) fn resolve_index(&self, name: &str, i: i64) -> Index {
        if i >= 0 {
            return Index::At(i);
        }
        let max = match self.vars.get(name).and_then(|v| v.value.as_ref()) {
            Some(Value::Indexed(m)) => m.keys().next_back().copied().map(|k| k + 1).unwrap_or(0),
            Some(Value::Str(_)) => 1,
            _ => 0,
        };
        let j = max + i;
        if j < 0 { Index::Bad } else { Index::At(j) }
    }

    /// `${name[sub]}` with `sub` as written: expanded as a key for an
    /// associative array, evaluated arithmetically otherwise.
    pub fn var_element(&mut self, name: &str, sub: &str) -> Result<Option<String>, Interrupt> {
        if let Some(t) = self.nameref_target(name) {
            return self.var_element(&t, sub);
        }
        if self.is_assoc(name) {
            let key = self.expand_string(sub)?;
            return Ok(self.assoc_get(name, &key));
        }
        let i = match self.try_eval_arith(sub) {
            Ok(i) => i,
            Err(ArithFail::Error(m)) => {
                self.expansion_error(&m);
                return Err(Interrupt::Exit(1));
            }
            Err(ArithFail::Interrupt(i)) => return Err(i),
        };
        self.indexed_get(name, i)
    }

    fn assoc_get(&self, name: &str, key: &str) -> Option<String> {
        match self.vars.get(name)?.value.as_ref()? {
            Value::Assoc(m) => m.get(key).cloned(),
            _ => None,
        }
    }

    /// Element `i` of indexed array `name` (a scalar is element 0).
    fn indexed_get(&mut self, name: &str, i: i64) -> Result<Option<String>, Interrupt> {
        if let Some(arr) = self.dynamic_array(name) {
            let idx = if i < 0 { arr.len() as i64 + i } else { i };
            return Ok(usize::try_from(idx).ok().and_then(|k| arr.get(k).cloned()));
        }
        let i = match self.resolve_index(name, i) {
            Index::At(i) => i,
            Index::Bad => {
                self.expansion_error(&format!("{name}: bad array subscript"));
                return Ok(None);
            }
        };
        if i == 0 && self.vars.get(name).is_none() {
            return Ok(self.var_scalar(name));
        }
        Ok(match self.vars.get(name).and_then(|v| v.value.as_ref()) {
            Some(Value::Indexed(m)) => m.get(&i).cloned(),
            Some(Value::Str(s)) if i == 0 => Some(s.clone()),
            Some(Value::Assoc(m)) => m.get(&i.to_string()).cloned(),
            _ => None,
        })
    }

    /// `${name[@]}`: every value, in index order (`None`: unset).
    pub fn var_values(&mut self, name: &str) -> Option<Vec<String>> {
        if let Some(t) = self.nameref_target(name) {
            return self.var_values(&t);
        }
        if let Some(a) = self.dynamic_array(name) {
            return Some(a);
        }
        match self.vars.get(name)?.value.as_ref() {
            Some(Value::Str(s)) => Some(vec![s.clone()]),
            Some(Value::Indexed(m)) => Some(m.values().cloned().collect()),
            Some(Value::Assoc(m)) => Some(m.values().cloned().collect()),
            None => None,
        }
    }

    /// `${!name[@]}`: the indices or keys of `name`.
    pub fn var_keys(&mut self, name: &str) -> Vec<String> {
        if let Some(t) = self.nameref_target(name) {
            return self.var_keys(&t);
        }
        if let Some(a) = self.dynamic_array(name) {
            return (0..a.len()).map(|i| i.to_string()).collect();
        }
        match self.vars.get(name).and_then(|v| v.value.as_ref()) {
            Some(Value::Str(_)) => vec!["0".to_string()],
            Some(Value::Indexed(m)) => m.keys().map(|k| k.to_string()).collect(),
            Some(Value::Assoc(m)) => m.keys().cloned().collect(),
            None => Vec::new(),
        }
    }

    /// What a fatal expansion error (`${x:?}`, `set -u`) does to the shell.
    pub fn fatal_expansion(&self) -> Interrupt {
        if self.interactive && self.subshell_depth == self.process_depth {
            // An interactive shell abandons the command line and goes on.
            Interrupt::Discard(1)
        } else {
            Interrupt::Exit(self.fatal_expansion_status())
        }
    }

    /// The status a fatal expansion error ends a non-interactive shell with:
    /// 127 for a `bash -c` shell, 1 in a subshell, a script file, or under
    /// `set -e` (measured on bash 5.2).
    pub fn fatal_expansion_status(&self) -> i32 {
        if self.dash_c && self.subshell_depth == self.process_depth && !self.opts.errexit {
            127
        } else {
            1
        }
    }

    /// `$-`: the single-letter options in effect.
    pub fn option_flags(&self) -> String {
        let o = &self.opts;
        let mut s = String::new();
        for (on, c) in [
            (o.allexport, 'a'),
            (o.errexit, 'e'),
            (o.noglob, 'f'),
            (true, 'h'),
            (self.interactive, 'i'),
            (o.noexec, 'n'),
            (o.nounset, 'u'),
            (o.verbose, 'v'),
            (o.xtrace, 'x'),
            (true, 'B'),
            (o.noclobber, 'C'),
            (o.get_set_option("histexpand") == Some(true), 'H'),
        ] {
            if on {
                s.push(c);
            }
        }
        s.push('c');
        s
    }

    /// Reads variable `name` for arithmetic (already expanded text); `set -u`
    /// makes an unset name fatal.
    pub(crate) fn arith_var(&mut self, name: &str) -> Result<Option<String>, ArithFail> {
        let v = self.var_scalar(name);
        if v.is_none() && self.opts.nounset {
            self.expansion_error(&format!("{name}: unbound variable"));
            return Err(ArithFail::Interrupt(self.fatal_expansion()));
        }
        Ok(v)
    }

    /// Reads `name[sub]` for arithmetic; `sub` is already expanded.
    pub(crate) fn arith_element(
        &mut self,
        name: &str,
        sub: &str,
    ) -> Result<Option<String>, ArithFail> {
        if let Some(t) = self.nameref_target(name) {
            return self.arith_element(&t, sub);
        }
        // `set -u`: an unset array is fatal (a missing element reads as 0).
        if self.opts.nounset
            && self.vars.get(name).and_then(|v| v.value.as_ref()).is_none()
            && self.dynamic_array(name).is_none()
        {
            self.expansion_error(&format!("{name}: unbound variable"));
            return Err(ArithFail::Interrupt(self.fatal_expansion()));
        }
        if self.is_assoc(name) {
            return Ok(self.assoc_get(name, unquote_key(sub)));
        }
        let i = crate::interp::arith::eval_sub(self, sub)?;
        Ok(self.indexed_get(name, i)?)
    }
}

/// The names of `table` that `state` says are on, colon-separated.
fn options_on(table: &[(&str, bool)], state: impl Fn(&str) -> Option<bool>) -> String {
    let on: Vec<&str> = table
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| state(n) == Some(true))
        .collect();
    on.join(":")
}

/// True for the names [`Interp::dynamic_scalar`] computes.
fn is_dynamic_name(name: &str) -> bool {
    matches!(
        name,
        "RANDOM"
            | "SRANDOM"
            | "LINENO"
            | "SECONDS"
            | "BASHPID"
            | "BASH_SUBSHELL"
            | "EPOCHSECONDS"
            | "EPOCHREALTIME"
            | "FUNCNAME"
            | "BASH_LINENO"
    )
}

/// True when a nameref's value names a variable (`x`, `a[1]`): other values
/// (`1`, `$1`, empty) make the nameref read as a plain variable.
fn valid_ref_target(t: &str) -> bool {
    let base = t.split('[').next().unwrap_or_default();
    crate::interp::vars::is_valid_name(base) && (base.len() == t.len() || t.ends_with(']'))
}

/// An associative-array key written in arithmetic: blanks trimmed, one pair
/// of surrounding quotes removed (`A['x']`).
pub(crate) fn unquote_key(sub: &str) -> &str {
    let t = sub.trim();
    for q in ['\'', '"'] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return &t[1..t.len() - 1];
        }
    }
    t
}

/// Splits `a[sub]` into `("a", "sub")`.
pub(crate) fn split_subscript(s: &str) -> Option<(&str, &str)> {
    let open = s.find('[')?;
    let inner = s[open + 1..].strip_suffix(']')?;
    Some((&s[..open], inner))
}
