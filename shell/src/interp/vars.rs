//! Shell variables: scalars, indexed and associative arrays, attributes, and
//! the dynamic scopes that `local` creates.
//!
//! OWNER: builtins helper (declare/local/export/readonly/unset live on top of it).
//!
//! Scoping follows bash: every function call that declares a local pushes a
//! scope; lookups search from the innermost scope outwards (dynamic scoping).
//! `unset` of a local declared in the *current* function leaves it visible as
//! unset (an outer variable of the same name stays hidden), while `unset` of a
//! variable that belongs to an outer scope removes it there, revealing the
//! next one out. Namerefs (`declare -n`) are resolved here, so every reader
//! and writer sees through them.
//!
//! Assignments that need the interpreter (`declare -i` evaluates arithmetic,
//! `set -a` exports) go through the `Interp::assign*` methods at the bottom
//! of this file: use them for every assignment statement.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use indexmap::IndexMap;

use super::{Interp, Interrupt};

/// A variable's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A plain string.
    Str(String),
    /// An indexed array (sparse).
    Indexed(BTreeMap<i64, String>),
    /// An associative array, in insertion order.
    Assoc(IndexMap<String, String>),
}

impl Value {
    /// The value as a scalar: a string, or element 0 / key "0" of an array.
    pub fn as_scalar(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            Value::Indexed(a) => a.get(&0).map(|s| s.as_str()),
            Value::Assoc(a) => a.get("0").map(|s| s.as_str()),
        }
    }

    /// The values in order: one for a scalar, every element of an array.
    pub fn values(&self) -> Vec<String> {
        match self {
            Value::Str(s) => vec![s.clone()],
            Value::Indexed(a) => a.values().cloned().collect(),
            Value::Assoc(a) => a.values().cloned().collect(),
        }
    }

    /// The keys in order (`${!a[@]}`): `0` for a scalar.
    pub fn keys(&self) -> Vec<String> {
        match self {
            Value::Str(_) => vec!["0".to_string()],
            Value::Indexed(a) => a.keys().map(|k| k.to_string()).collect(),
            Value::Assoc(a) => a.keys().cloned().collect(),
        }
    }
}

/// Variable attributes (`declare -x -r -i -l -u -n -a -A`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(pub u16);

impl Attrs {
    /// `-x`
    pub const EXPORT: Attrs = Attrs(1);
    /// `-r`
    pub const READONLY: Attrs = Attrs(2);
    /// `-i`
    pub const INTEGER: Attrs = Attrs(4);
    /// `-l`
    pub const LOWER: Attrs = Attrs(8);
    /// `-u`
    pub const UPPER: Attrs = Attrs(16);
    /// `-n`
    pub const NAMEREF: Attrs = Attrs(32);
    /// `-a`
    pub const INDEXED: Attrs = Attrs(64);
    /// `-A`
    pub const ASSOC: Attrs = Attrs(128);
    /// `-t`
    pub const TRACE: Attrs = Attrs(256);

    /// True when every bit of `other` is set.
    pub fn has(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets the bits of `other`.
    pub fn insert(&mut self, other: Attrs) {
        self.0 |= other.0;
    }

    /// Clears the bits of `other`.
    pub fn remove(&mut self, other: Attrs) {
        self.0 &= !other.0;
    }
}

/// One variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Var {
    /// `None`: declared (e.g. `local x`, `declare -a a`) but without a value.
    pub value: Option<Value>,
    /// Its attributes.
    pub attrs: Attrs,
}

/// Why an assignment was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VarError {
    /// Assignment to a readonly variable.
    #[error("{0}: readonly variable")]
    Readonly(String),
    /// A subscript that names no element (`a[-5]=x` on a short array).
    #[error("{0}: bad array subscript")]
    BadSubscript(String),
    /// Assigning a whole array to an element, or similar misuse.
    #[error("{0}: cannot assign list to array member")]
    ListToMember(String),
    /// A nameref to an element (`declare -n r='a[0]'`) assigned as a whole
    /// array or subscripted (`r=(x)`, `r[1]=x`).
    #[error("`{0}': not a valid identifier")]
    NotIdentifier(String),
    /// A chain of namerefs that loops (`declare -n a=b b=a; a=1`).
    #[error("warning: {0}: circular name reference")]
    CircularRef(String),
    /// Arithmetic failed (`declare -i`); the message was already printed.
    #[error("arithmetic error")]
    Interrupted(Interrupt),
}

/// The FxHash function (rustc's): variable names are short, and lookups are
/// on the hot path of every loop, so a cheap non-cryptographic hash pays off.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            self.hash = (self.hash.rotate_left(5) ^ v).wrapping_mul(FX_SEED);
        }
        for &b in chunks.remainder() {
            self.hash = (self.hash.rotate_left(5) ^ b as u64).wrapping_mul(FX_SEED);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.hash = (self.hash.rotate_left(5) ^ i as u64).wrapping_mul(FX_SEED);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A map keyed by variable name with the fast hasher.
pub type FastMap<V> = HashMap<String, V, BuildHasherDefault<FxHasher>>;

/// How many nameref hops we follow before giving up (bash warns at a cycle).
const MAX_NAMEREF_DEPTH: usize = 16;

/// All variables of a shell: the global scope plus one scope per active
/// function call that declared locals.
#[derive(Clone, Debug)]
pub struct Vars {
    scopes: Vec<FastMap<Var>>,
    /// Indices of the scopes that hold a command's prefix bindings
    /// (`v=x f`, `v=x eval ...`): unsetting there removes the binding.
    temp_scopes: Vec<usize>,
}

impl Default for Vars {
    fn default() -> Self {
        Vars {
            scopes: vec![FastMap::default()],
            temp_scopes: Vec::new(),
        }
    }
}

/// Splits `name[sub]` into `("name", Some("sub"))`.
pub fn split_subscript(name: &str) -> (&str, Option<&str>) {
    if let Some(open) = name.find('[')
        && name.ends_with(']')
        && open > 0
    {
        return (&name[..open], Some(&name[open + 1..name.len() - 1]));
    }
    (name, None)
}

/// True for a valid shell variable name.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Applies the case attributes (`-l`, `-u`) to a value being stored.
fn apply_case(attrs: Attrs, s: String) -> String {
    if attrs.has(Attrs::LOWER) {
        s.to_lowercase()
    } else if attrs.has(Attrs::UPPER) {
        s.to_uppercase()
    } else {
        s
    }
}

fn apply_case_value(attrs: Attrs, v: Value) -> Value {
    if !attrs.has(Attrs::LOWER) && !attrs.has(Attrs::UPPER) {
        return v;
    }
    match v {
        Value::Str(s) => Value::Str(apply_case(attrs, s)),
        Value::Indexed(a) => Value::Indexed(
            a.into_iter()
                .map(|(k, s)| (k, apply_case(attrs, s)))
                .collect(),
        ),
        Value::Assoc(a) => Value::Assoc(
            a.into_iter()
                .map(|(k, s)| (k, apply_case(attrs, s)))
                .collect(),
        ),
    }
}

/// The bucket bash's hash table puts an associative-array key in: FNV-1
/// over the bytes, 1024 buckets (bash's `ASSOC_HASH_BUCKETS`).
fn assoc_bucket(key: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for b in key.bytes() {
        h = h.wrapping_mul(16_777_619);
        h ^= b as u32;
    }
    h & 1023
}

/// Inserts into an associative array keeping bash's iteration order
/// (bucket by bucket, newest first within a bucket), so `${!m[@]}` and
/// `declare -p` list keys exactly as bash does. An existing key keeps its place.
pub fn assoc_insert(m: &mut IndexMap<String, String>, key: String, value: String) {
    if let Some(v) = m.get_mut(&key) {
        *v = value;
        return;
    }
    let b = assoc_bucket(&key);
    let pos = m.partition_point(|k, _| assoc_bucket(k) < b);
    m.shift_insert(pos, key, value);
}

/// An element key: an index of an indexed array or a key of an associative one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElemKey {
    /// `a[N]` (negative counts from the end).
    Index(i64),
    /// `m[key]`
    Key(String),
}

impl Vars {
    /// The innermost visible variable called `name`, namerefs resolved.
    pub fn get(&self, name: &str) -> Option<&Var> {
        let var = self.get_raw(name)?;
        if var.attrs.has(Attrs::NAMEREF) {
            return self.get_through_ref(var, 0);
        }
        Some(var)
    }

    fn get_through_ref<'a>(&'a self, var: &'a Var, depth: usize) -> Option<&'a Var> {
        if !var.attrs.has(Attrs::NAMEREF) || depth > MAX_NAMEREF_DEPTH {
            return Some(var);
        }
        match &var.value {
            Some(Value::Str(target)) if !target.is_empty() && is_valid_name(target) => {
                let next = self.get_raw(target)?;
                self.get_through_ref(next, depth + 1)
            }
            // A reference to an array element (`declare -n r='a[1]'`) is read
            // through `get_str`; as a whole variable it reads as unset.
            Some(Value::Str(target)) if !target.is_empty() => None,
            _ => Some(var),
        }
    }

    /// The variable called `name` itself, without following a nameref.
    pub fn get_raw(&self, name: &str) -> Option<&Var> {
        // The common case is a global, or a local in the innermost scope.
        if self.scopes.len() == 1 {
            return self.scopes[0].get(name);
        }
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Mutable access to the variable itself, without following a nameref.
    pub fn get_raw_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.scopes.iter_mut().rev().find_map(|s| s.get_mut(name))
    }

    /// The name a nameref chain ends at (`name` itself when it is not a
    /// nameref). May be an element reference like `a[1]`.
    pub fn resolve_name(&self, name: &str) -> String {
        let mut current = name.to_string();
        for _ in 0..MAX_NAMEREF_DEPTH {
            match self.get_raw(&current) {
                Some(Var {
                    value: Some(Value::Str(t)),
                    attrs,
                }) if attrs.has(Attrs::NAMEREF) && !t.is_empty() => {
                    if t == &current {
                        break;
                    }
                    current = t.clone();
                    if !is_valid_name(&current) {
                        break;
                    }
                }
                _ => break,
            }
        }
        current
    }

    /// True when following namerefs from `name` loops back on itself.
    pub fn is_circular(&self, name: &str) -> bool {
        let mut seen: Vec<String> = vec![name.to_string()];
        let mut current = name.to_string();
        for _ in 0..MAX_NAMEREF_DEPTH {
            match self.get_raw(&current) {
                Some(Var {
                    value: Some(Value::Str(t)),
                    attrs,
                }) if attrs.has(Attrs::NAMEREF) && !t.is_empty() => {
                    if seen.contains(t) {
                        return true;
                    }
                    current = t.clone();
                    seen.push(current.clone());
                }
                _ => return false,
            }
        }
        true
    }

    fn needs_resolve(&self, name: &str) -> bool {
        matches!(self.get_raw(name), Some(v) if v.attrs.has(Attrs::NAMEREF))
    }

    /// Mutable access to the innermost visible variable called `name`.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        if self.needs_resolve(name) {
            let target = self.resolve_name(name);
            return self.get_raw_mut(&target);
        }
        self.get_raw_mut(name)
    }

    /// The scalar value of `name` (element 0 of an array), if set. Resolves
    /// namerefs, including references to an array element.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        let var = self.get_raw(name)?;
        if var.attrs.has(Attrs::NAMEREF) {
            let target = self.resolve_name(name);
            if let (base, Some(sub)) = split_subscript(&target) {
                return self.get_elem_literal(base, sub);
            }
            return self
                .get(&target)
                .and_then(|v| v.value.as_ref())
                .and_then(|v| v.as_scalar());
        }
        var.value.as_ref().and_then(|v| v.as_scalar())
    }

    /// An element by literal subscript (an integer for indexed arrays).
    fn get_elem_literal(&self, name: &str, sub: &str) -> Option<&str> {
        match self.get(name)?.value.as_ref()? {
            Value::Assoc(m) => m.get(sub).map(|s| s.as_str()),
            Value::Indexed(a) => {
                let i: i64 = sub.trim().parse().ok()?;
                let i = if i < 0 {
                    a.keys().next_back()? + 1 + i
                } else {
                    i
                };
                a.get(&i).map(|s| s.as_str())
            }
            Value::Str(s) => (sub.trim() == "0").then_some(s.as_str()),
        }
    }

    /// One element: `a[i]` of an indexed array (negative counts from the end),
    /// `m[key]` of an associative one; a scalar is element 0.
    pub fn get_elem(&self, name: &str, key: &ElemKey) -> Option<&str> {
        match (self.get(name)?.value.as_ref()?, key) {
            (Value::Assoc(m), ElemKey::Key(k)) => m.get(k).map(|s| s.as_str()),
            (Value::Assoc(m), ElemKey::Index(i)) => m.get(&i.to_string()).map(|s| s.as_str()),
            (Value::Indexed(a), ElemKey::Index(i)) => {
                let i = if *i < 0 {
                    a.keys().next_back()? + 1 + i
                } else {
                    *i
                };
                a.get(&i).map(|s| s.as_str())
            }
            (Value::Indexed(a), ElemKey::Key(k)) => {
                a.get(&k.trim().parse().ok()?).map(|s| s.as_str())
            }
            (Value::Str(s), ElemKey::Index(0 | -1)) => Some(s),
            (Value::Str(_), _) => None,
        }
    }

    /// Assigns a value to the innermost visible `name`, creating a global if
    /// none is visible. Refuses readonly variables. Follows namerefs, applies
    /// `-l`/`-u`, and stores a string into element 0 of an existing array
    /// (`a=x` on an array sets `a[0]`, as in bash).
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), VarError> {
        if self.needs_resolve(name) {
            let target = self.resolve_name(name);
            if let (base, Some(sub)) = split_subscript(&target) {
                let base = base.to_string();
                let key = self.literal_key(&base, sub)?;
                let s = match value {
                    Value::Str(s) => s,
                    other => other.as_scalar().unwrap_or_default().to_string(),
                };
                return self.set_elem(&base, key, s);
            }
            if target != name {
                return self.set(&target, value);
            }
        }
        match self.get_raw_mut(name) {
            Some(var) => store(name, var, value),
            None => {
                self.scopes[0].insert(
                    name.to_string(),
                    Var {
                        value: Some(value),
                        attrs: Attrs::default(),
                    },
                );
                Ok(())
            }
        }
    }

    fn literal_key(&self, base: &str, sub: &str) -> Result<ElemKey, VarError> {
        let assoc = matches!(self.get(base), Some(v) if v.attrs.has(Attrs::ASSOC) || matches!(v.value, Some(Value::Assoc(_))));
        if assoc {
            return Ok(ElemKey::Key(sub.to_string()));
        }
        sub.trim()
            .parse()
            .map(ElemKey::Index)
            .map_err(|_| VarError::BadSubscript(format!("{base}[{sub}]")))
    }

    /// Shorthand for `set(name, Value::Str(value))`.
    pub fn set_str(&mut self, name: &str, value: impl Into<String>) -> Result<(), VarError> {
        self.set(name, Value::Str(value.into()))
    }

    /// Assigns in the global scope, whatever locals are visible (`declare -g`).
    pub fn set_global(&mut self, name: &str, value: Value) -> Result<(), VarError> {
        match self.scopes[0].get_mut(name) {
            Some(var) => store(name, var, value),
            None => {
                self.scopes[0].insert(
                    name.to_string(),
                    Var {
                        value: Some(value),
                        attrs: Attrs::default(),
                    },
                );
                Ok(())
            }
        }
    }

    /// The global variable `name` itself, created unset if missing (`declare -g`).
    pub fn global_entry(&mut self, name: &str) -> &mut Var {
        self.scopes[0].entry(name.to_string()).or_default()
    }

    /// Sets one element, turning a missing or scalar variable into an array
    /// (a scalar becomes element 0). Negative indices count from the end.
    pub fn set_elem(&mut self, name: &str, key: ElemKey, value: String) -> Result<(), VarError> {
        let name = if self.needs_resolve(name) {
            self.resolve_name(name)
        } else {
            name.to_string()
        };
        if self.get_raw(&name).is_none() {
            self.scopes[0].insert(name.clone(), Var::default());
        }
        let var = self.get_raw_mut(&name).expect("just inserted");
        if var.attrs.has(Attrs::READONLY) {
            return Err(VarError::Readonly(name));
        }
        let value = apply_case(var.attrs, value);
        let want_assoc = var.attrs.has(Attrs::ASSOC);
        let current = var.value.take();
        let mut new = match current {
            None if want_assoc => Value::Assoc(IndexMap::new()),
            None => Value::Indexed(BTreeMap::new()),
            Some(Value::Str(s)) => {
                if want_assoc {
                    let mut m = IndexMap::new();
                    m.insert("0".to_string(), s);
                    Value::Assoc(m)
                } else {
                    Value::Indexed(BTreeMap::from([(0, s)]))
                }
            }
            Some(v) => v,
        };
        let res = match (&mut new, key) {
            (Value::Assoc(m), ElemKey::Key(k)) => {
                assoc_insert(m, k, value);
                Ok(())
            }
            (Value::Assoc(m), ElemKey::Index(i)) => {
                assoc_insert(m, i.to_string(), value);
                Ok(())
            }
            (Value::Indexed(a), key) => {
                let i = match key {
                    ElemKey::Index(i) => i,
                    ElemKey::Key(k) => k.trim().parse().unwrap_or(0),
                };
                let idx = if i < 0 {
                    a.keys().next_back().map_or(i, |m| m + 1 + i)
                } else {
                    i
                };
                if idx < 0 {
                    Err(VarError::BadSubscript(format!("{name}[{i}]")))
                } else {
                    a.insert(idx, value);
                    Ok(())
                }
            }
            (Value::Str(_), _) => unreachable!("converted above"),
        };
        var.value = Some(new);
        res
    }

    /// Removes one element (`unset 'a[1]'`). Missing elements are fine.
    pub fn unset_elem(&mut self, name: &str, key: &ElemKey) -> Result<(), VarError> {
        let Some(var) = self.get_mut(name) else {
            return Ok(());
        };
        if var.attrs.has(Attrs::READONLY) {
            return Err(VarError::Readonly(name.to_string()));
        }
        match (&mut var.value, key) {
            (Some(Value::Assoc(m)), ElemKey::Key(k)) => {
                m.shift_remove(k);
            }
            (Some(Value::Assoc(m)), ElemKey::Index(i)) => {
                m.shift_remove(&i.to_string());
            }
            (Some(Value::Indexed(a)), ElemKey::Index(i)) => {
                let idx = if *i < 0 {
                    a.keys().next_back().map_or(*i, |m| m + 1 + i)
                } else {
                    *i
                };
                if idx < 0 {
                    return Err(VarError::BadSubscript(format!("{name}[{i}]")));
                }
                a.remove(&idx);
            }
            (Some(Value::Indexed(a)), ElemKey::Key(k)) => {
                if let Ok(i) = k.trim().parse::<i64>() {
                    a.remove(&i);
                }
            }
            (Some(Value::Str(_)), ElemKey::Index(0 | -1)) => var.value = None,
            _ => {}
        }
        Ok(())
    }

    /// Declares `name` in the innermost function scope (`local`), unset, unless
    /// it is already local there. Returns the variable.
    pub fn declare_local(&mut self, name: &str) -> &mut Var {
        let i = self.function_scope();
        self.scopes[i].entry(name.to_string()).or_default()
    }

    /// True when `name` is declared in the innermost scope (a local of the
    /// running function, or a global at top level).
    pub fn is_in_current_scope(&self, name: &str) -> bool {
        self.scopes[self.function_scope()].contains_key(name)
    }

    /// The innermost scope that is not a command's prefix bindings: a
    /// `local` inside `v=x eval ...` belongs to the function.
    fn function_scope(&self) -> usize {
        let mut i = self.scopes.len() - 1;
        while i > 0 && self.temp_scopes.contains(&i) {
            i -= 1;
        }
        i
    }

    /// Declares `name` in the innermost scope, prefix bindings' included.
    pub fn declare_in_top_scope(&mut self, name: &str) -> &mut Var {
        let scope = self.scopes.last_mut().expect("global scope");
        scope.entry(name.to_string()).or_default()
    }

    /// True when `name` is declared in the innermost scope, prefix
    /// bindings' included.
    pub fn is_in_top_scope(&self, name: &str) -> bool {
        self.scopes.last().is_some_and(|s| s.contains_key(name))
    }

    /// Removes the innermost visible `name` (following namerefs). Refuses
    /// readonly variables. A local of the current function stays declared but
    /// unset, so it keeps hiding outer variables, as in bash.
    pub fn unset(&mut self, name: &str) -> Result<(), VarError> {
        let target = if self.needs_resolve(name) {
            self.resolve_name(name)
        } else {
            name.to_string()
        };
        if let (base, Some(sub)) = split_subscript(&target) {
            let base = base.to_string();
            let key = self.literal_key(&base, sub)?;
            return self.unset_elem(&base, &key);
        }
        self.unset_raw(&target)
    }

    /// Removes `name` itself, never following a nameref (`unset -n`).
    pub fn unset_raw(&mut self, name: &str) -> Result<(), VarError> {
        let depth = self.scopes.len();
        for (i, scope) in self.scopes.iter_mut().enumerate().rev() {
            if let Some(var) = scope.get_mut(name) {
                if var.attrs.has(Attrs::READONLY) {
                    return Err(VarError::Readonly(name.to_string()));
                }
                if i + 1 == depth && i > 0 && !self.temp_scopes.contains(&i) {
                    *var = Var::default();
                } else {
                    scope.remove(name);
                }
                return Ok(());
            }
        }
        Ok(())
    }

    /// Enters a function call.
    pub fn push_scope(&mut self) {
        self.scopes.push(FastMap::default());
    }

    /// Enters a scope for a command's prefix bindings (bash's tempenv):
    /// `unset` there uncovers the value underneath.
    pub fn push_temp_scope(&mut self) {
        self.temp_scopes.push(self.scopes.len());
        self.push_scope();
    }

    /// Leaves a function call, dropping its locals.
    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
        if self.temp_scopes.last() == Some(&self.scopes.len()) {
            self.temp_scopes.pop();
        }
    }

    /// Drops every scope but the global one (what a session keeps when a
    /// run ended inside a function or a prefix assignment).
    pub(crate) fn keep_global_scope(&mut self) {
        self.scopes.truncate(1);
        self.temp_scopes.clear();
    }

    /// Depth of function scopes (0 at top level).
    pub fn depth(&self) -> usize {
        self.scopes.len() - 1
    }

    /// Visible variable names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.scopes.iter().flat_map(|s| s.keys().cloned()).collect();
        names.sort();
        names.dedup();
        names
    }

    /// Every visible variable (innermost wins, namerefs not followed), sorted by name.
    pub fn visible(&self) -> Vec<(String, &Var)> {
        self.names()
            .into_iter()
            .filter_map(|n| {
                let v = self.get_raw(&n)?;
                Some((n, v))
            })
            .collect()
    }

    /// The variables of the innermost function scope (`local` with no args).
    pub fn current_locals(&self) -> Vec<(String, &Var)> {
        if self.scopes.len() == 1 {
            return Vec::new();
        }
        let mut v: Vec<(String, &Var)> = self
            .scopes
            .last()
            .expect("scope")
            .iter()
            .map(|(k, v)| (k.clone(), v))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// The exported variables with scalar values, sorted by name.
    pub fn exported(&self) -> Vec<(String, String)> {
        self.names()
            .into_iter()
            .filter_map(|n| {
                let v = self.get_raw(&n)?;
                if !v.attrs.has(Attrs::EXPORT) {
                    return None;
                }
                let s = match v.value.as_ref()? {
                    Value::Str(s) => s.clone(),
                    _ => return None,
                };
                Some((n, s))
            })
            .collect()
    }
}

/// Stores `value` into an existing variable, honouring readonly, case
/// attributes and array-ness.
fn store(name: &str, var: &mut Var, value: Value) -> Result<(), VarError> {
    if var.attrs.has(Attrs::READONLY) {
        return Err(VarError::Readonly(name.to_string()));
    }
    let value = apply_case_value(var.attrs, value);
    match (&mut var.value, value) {
        (Some(Value::Indexed(a)), Value::Str(s)) => {
            a.insert(0, s);
        }
        (Some(Value::Assoc(m)), Value::Str(s)) => {
            assoc_insert(m, "0".to_string(), s);
        }
        (slot @ None, Value::Str(s)) if var.attrs.has(Attrs::INDEXED) => {
            *slot = Some(Value::Indexed(BTreeMap::from([(0, s)])));
        }
        (slot @ None, Value::Str(s)) if var.attrs.has(Attrs::ASSOC) => {
            let mut m = IndexMap::new();
            m.insert("0".to_string(), s);
            *slot = Some(Value::Assoc(m));
        }
        (slot, v) => *slot = Some(v),
    }
    Ok(())
}

pub use super::array_literal::ArrayElem;

impl Interp {
    /// Assigns `name=value` or `name+=value` (with `append`) the way an
    /// assignment statement does: follows namerefs, evaluates arithmetic for
    /// `declare -i` variables, applies `-l`/`-u`, exports under `set -a`.
    /// `name` may be `name[subscript]` (subscript already expanded).
    pub fn assign(&mut self, name: &str, value: &str, append: bool) -> Result<(), VarError> {
        if name == "PATH" {
            // Any assignment to PATH, even of its own value, empties `hash`.
            self.command_hash.clear();
        }
        if name == "HISTSIZE" || name == "HISTFILESIZE" {
            self.limit_history(name, value);
        }
        // Fast path (the hot loop `x=$((x+i))`): a plain variable with no
        // attribute that changes the value is updated in place.
        if !name.ends_with(']') {
            let export = self.opts.allexport;
            const SLOW: u16 = Attrs::NAMEREF.0
                | Attrs::INTEGER.0
                | Attrs::READONLY.0
                | Attrs::LOWER.0
                | Attrs::UPPER.0
                | Attrs::INDEXED.0
                | Attrs::ASSOC.0;
            match self.vars.get_raw_mut(name) {
                Some(var) if var.attrs.0 & SLOW == 0 => match &mut var.value {
                    Some(Value::Str(s)) => {
                        if !append {
                            s.clear();
                        }
                        s.push_str(value);
                        if export {
                            var.attrs.insert(Attrs::EXPORT);
                        }
                        return Ok(());
                    }
                    slot @ None => {
                        *slot = Some(Value::Str(value.to_string()));
                        if export {
                            var.attrs.insert(Attrs::EXPORT);
                        }
                        return Ok(());
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    let mut attrs = Attrs::default();
                    if export {
                        attrs.insert(Attrs::EXPORT);
                    }
                    self.vars.scopes[0].insert(
                        name.to_string(),
                        Var {
                            value: Some(Value::Str(value.to_string())),
                            attrs,
                        },
                    );
                    return Ok(());
                }
            }
        }
        if let (base, Some(sub)) = split_subscript(name) {
            let sub = self.lvalue_key(base, sub)?;
            return self.assign_elem(base, &sub, value, append);
        }
        let target = if self.vars.needs_resolve(name) {
            if self.vars.is_circular(name) {
                return Err(VarError::CircularRef(name.to_string()));
            }
            self.vars.resolve_name(name)
        } else {
            name.to_string()
        };
        if let (base, Some(sub)) = split_subscript(&target) {
            let (base, sub) = (base.to_string(), sub.to_string());
            let sub = self.lvalue_key(&base, &sub)?;
            return self.assign_elem(&base, &sub, value, append);
        }
        let (attrs, current) = match self.vars.get_raw(&target) {
            Some(v) => (v.attrs, v.value.as_ref()),
            None => (Attrs::default(), None),
        };
        if attrs.has(Attrs::READONLY) {
            return Err(VarError::Readonly(target));
        }
        let new = if attrs.has(Attrs::INTEGER) {
            let mut n = self.eval_arith(value).map_err(VarError::Interrupted)?;
            if append {
                let cur = self.vars.get_str(&target).unwrap_or("").to_string();
                let c = if cur.is_empty() {
                    0
                } else {
                    self.eval_arith(&cur).map_err(VarError::Interrupted)?
                };
                n = c.wrapping_add(n);
            }
            n.to_string()
        } else if append {
            let cur = current.and_then(|v| v.as_scalar()).unwrap_or("");
            let mut s = String::with_capacity(cur.len() + value.len());
            s.push_str(cur);
            s.push_str(value);
            s
        } else {
            value.to_string()
        };
        self.vars.set(&target, Value::Str(new))?;
        if self.opts.allexport
            && let Some(v) = self.vars.get_raw_mut(&target)
        {
            v.attrs.insert(Attrs::EXPORT);
        }
        Ok(())
    }

    /// The key of `A[sub]` named by a string (`printf -v 'A["k"]'`, a
    /// nameref to `A[$key]`): bash expands it for an associative array
    /// (quotes removed, `$key` read); an indexed subscript is left to the
    /// arithmetic evaluation.
    fn lvalue_key<'s>(
        &mut self,
        base: &str,
        sub: &'s str,
    ) -> Result<std::borrow::Cow<'s, str>, VarError> {
        if sub.contains(['$', '\'', '"', '\\', '`']) && self.is_assoc(base) {
            let key = self.expand_string(sub).map_err(VarError::Interrupted)?;
            return Ok(std::borrow::Cow::Owned(key));
        }
        Ok(std::borrow::Cow::Borrowed(sub))
    }

    /// Assigns `name[subscript]=value` (or `+=`). The subscript is already
    /// expanded; for an indexed array it is evaluated arithmetically.
    pub fn assign_elem(
        &mut self,
        name: &str,
        sub: &str,
        value: &str,
        append: bool,
    ) -> Result<(), VarError> {
        let name = if self.vars.needs_resolve(name) {
            self.vars.resolve_name(name)
        } else {
            name.to_string()
        };
        if name.contains('[') {
            return Err(VarError::NotIdentifier(name));
        }
        let (attrs, is_assoc) = match self.vars.get_raw(&name) {
            Some(v) => (
                v.attrs,
                v.attrs.has(Attrs::ASSOC) || matches!(v.value, Some(Value::Assoc(_))),
            ),
            None => (Attrs::default(), false),
        };
        if attrs.has(Attrs::READONLY) {
            return Err(VarError::Readonly(name));
        }
        let key = if is_assoc {
            ElemKey::Key(sub.to_string())
        } else {
            ElemKey::Index(self.eval_arith(sub).map_err(VarError::Interrupted)?)
        };
        let mut new = if attrs.has(Attrs::INTEGER) {
            self.eval_arith(value)
                .map_err(VarError::Interrupted)?
                .to_string()
        } else {
            value.to_string()
        };
        if append {
            let cur = self.vars.get_elem(&name, &key).unwrap_or("").to_string();
            new = if attrs.has(Attrs::INTEGER) {
                let c = if cur.is_empty() {
                    0
                } else {
                    self.eval_arith(&cur).map_err(VarError::Interrupted)?
                };
                c.wrapping_add(new.parse::<i64>().unwrap_or(0)).to_string()
            } else {
                cur + &new
            };
        }
        let shown = match &key {
            ElemKey::Index(i) => format!("{name}[{i}]"),
            ElemKey::Key(k) => format!("{name}[{k}]"),
        };
        self.vars.set_elem(&name, key, new).map_err(|e| match e {
            VarError::BadSubscript(_) => VarError::BadSubscript(shown),
            e => e,
        })?;
        if self.opts.allexport
            && let Some(v) = self.vars.get_raw_mut(&name)
        {
            v.attrs.insert(Attrs::EXPORT);
        }
        Ok(())
    }

    /// Assigns a compound value `name=(...)` or `name+=(...)`. Elements with a
    /// subscript set that key; others take the next index (indexed arrays) or
    /// pair up as key/value (associative arrays, bash 5.1+).
    pub fn assign_array(
        &mut self,
        name: &str,
        elems: Vec<ArrayElem>,
        append: bool,
    ) -> Result<(), VarError> {
        let name = if self.vars.needs_resolve(name) {
            self.vars.resolve_name(name)
        } else {
            name.to_string()
        };
        if name.contains('[') {
            return Err(VarError::NotIdentifier(name));
        }
        // A nameref without a target becomes the array itself.
        if let Some(v) = self.vars.get_raw_mut(&name)
            && v.attrs.has(Attrs::NAMEREF)
            && v.value.as_ref().is_none_or(|t| t.as_scalar() == Some(""))
        {
            v.attrs.remove(Attrs::NAMEREF);
            v.value = None;
            self.shell_error(format_args!("warning: {name}: removing nameref attribute"));
        }
        let (attrs, is_assoc) = match self.vars.get_raw(&name) {
            Some(v) => (
                v.attrs,
                v.attrs.has(Attrs::ASSOC) || matches!(v.value, Some(Value::Assoc(_))),
            ),
            None => (Attrs::default(), false),
        };
        if attrs.has(Attrs::READONLY) {
            return Err(VarError::Readonly(name));
        }
        let int = attrs.has(Attrs::INTEGER);
        if is_assoc {
            let old_map = match self.vars.get_raw(&name).and_then(|v| v.value.clone()) {
                Some(Value::Assoc(m)) => m,
                _ => IndexMap::new(),
            };
            // `[k]+=v` appends to the element as it is so far with `+=(...)`,
            // but to the value from before the literal with `=(...)`.
            let (mut map, before) = if append {
                (old_map, None)
            } else {
                (IndexMap::new(), Some(old_map))
            };
            // With any `[key]=value` element, bare words are ignored with a
            // warning; without, the words pair up as key value (bash 5.1+).
            let keyed = elems.iter().any(|e| e.key.is_some());
            let mut pending_key: Option<String> = None;
            for ArrayElem {
                key,
                value: v,
                append: elem_append,
            } in elems
            {
                match key {
                    Some(k) => {
                        let old = before
                            .as_ref()
                            .unwrap_or(&map)
                            .get(&k)
                            .cloned()
                            .filter(|_| elem_append);
                        let v = self.element_value(old, v, int)?;
                        assoc_insert(&mut map, k, v);
                    }
                    None if keyed => {
                        self.shell_error(format_args!(
                            "{name}: {v}: must use subscript when assigning associative array"
                        ));
                    }
                    None => {
                        if let Some(key) = pending_key.take() {
                            assoc_insert(&mut map, key, v);
                        } else {
                            pending_key = Some(v);
                        }
                    }
                }
            }
            if let Some(k) = pending_key {
                assoc_insert(&mut map, k, String::new());
            }
            let v = self
                .vars
                .get_raw(&name)
                .map(|v| v.attrs)
                .unwrap_or_default();
            let stored = apply_case_value(v, Value::Assoc(map));
            self.put_whole(&name, stored);
            return Ok(());
        }
        let mut arr = match (
            append,
            self.vars.get_raw(&name).and_then(|v| v.value.clone()),
        ) {
            (true, Some(Value::Indexed(a))) => a,
            (true, Some(Value::Str(s))) => BTreeMap::from([(0, s)]),
            _ => BTreeMap::new(),
        };
        let mut next = arr.keys().next_back().map_or(0, |k| k + 1);
        for ArrayElem {
            key,
            value: v,
            append: elem_append,
        } in elems
        {
            let idx = match key {
                Some(k) => {
                    // A key naming the array sees (and may change) the
                    // elements stored so far.
                    let live = k.contains(name.as_str());
                    if live {
                        self.put_whole(&name, Value::Indexed(arr.clone()));
                    }
                    let i = self.eval_arith(&k).map_err(VarError::Interrupted)?;
                    if live
                        && let Some(Value::Indexed(now)) =
                            self.vars.get_raw(&name).and_then(|v| v.value.clone())
                    {
                        arr = now;
                    }
                    if i < 0 {
                        let last = arr.keys().next_back().map_or(-1, |m| *m);
                        if last + 1 + i < 0 {
                            return Err(VarError::BadSubscript(format!("{name}[{i}]")));
                        }
                        last + 1 + i
                    } else {
                        i
                    }
                }
                None => next,
            };
            let old = arr.get(&idx).cloned().filter(|_| elem_append);
            let v = self.element_value(old, v, int)?;
            arr.insert(idx, v);
            next = idx + 1;
        }
        let a = self
            .vars
            .get_raw(&name)
            .map(|v| v.attrs)
            .unwrap_or_default();
        let stored = apply_case_value(a, Value::Indexed(arr));
        self.put_whole(&name, stored);
        Ok(())
    }

    /// The value an array element gets: `value`, or appended to `old`
    /// (`[k]+=v`); for `declare -i` arrays evaluated (and added) as numbers.
    fn element_value(
        &mut self,
        old: Option<String>,
        value: String,
        int: bool,
    ) -> Result<String, VarError> {
        if !int {
            return Ok(match old {
                Some(o) => o + &value,
                None => value,
            });
        }
        let n = self.eval_arith(&value).map_err(VarError::Interrupted)?;
        let base = match old {
            Some(o) => self.eval_arith(&o).map_err(VarError::Interrupted)?,
            None => 0,
        };
        Ok(base.wrapping_add(n).to_string())
    }

    /// Replaces the whole value of `name` (readonly already checked).
    fn put_whole(&mut self, name: &str, value: Value) {
        let export = self.opts.allexport;
        match self.vars.get_raw_mut(name) {
            Some(var) => {
                var.value = Some(value);
                if export {
                    var.attrs.insert(Attrs::EXPORT);
                }
            }
            None => {
                let mut attrs = Attrs::default();
                if export {
                    attrs.insert(Attrs::EXPORT);
                }
                self.vars.scopes[0].insert(
                    name.to_string(),
                    Var {
                        value: Some(value),
                        attrs,
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_unset_keeps_hiding_outer() {
        let mut v = Vars::default();
        v.set_str("x", "g").unwrap();
        v.push_scope();
        v.declare_local("x").value = Some(Value::Str("1".into()));
        v.unset("x").unwrap();
        assert_eq!(v.get_str("x"), None);
        v.set_str("x", "2").unwrap();
        v.pop_scope();
        assert_eq!(v.get_str("x"), Some("g"));
    }

    #[test]
    fn unset_of_outer_local_reveals_global() {
        let mut v = Vars::default();
        v.set_str("x", "gl").unwrap();
        v.push_scope();
        v.declare_local("x").value = Some(Value::Str("1".into()));
        v.push_scope();
        v.unset("x").unwrap();
        assert_eq!(v.get_str("x"), Some("gl"));
    }

    #[test]
    fn nameref_reads_and_writes_target() {
        let mut v = Vars::default();
        v.set("r", Value::Str("x".into())).unwrap();
        v.get_raw_mut("r").unwrap().attrs.insert(Attrs::NAMEREF);
        v.set_str("r", "5").unwrap();
        assert_eq!(v.get_str("x"), Some("5"));
        assert_eq!(v.get_str("r"), Some("5"));
        v.set_elem("a", ElemKey::Index(1), "b".into()).unwrap();
        v.set_str("r", "a[1]").ok();
    }

    #[test]
    fn scalar_into_array_sets_element_zero() {
        let mut v = Vars::default();
        v.set(
            "a",
            Value::Indexed(BTreeMap::from([(0, "x".into()), (1, "y".into())])),
        )
        .unwrap();
        v.set_str("a", "z").unwrap();
        assert_eq!(v.get_elem("a", &ElemKey::Index(1)), Some("y"));
        assert_eq!(v.get_elem("a", &ElemKey::Index(-1)), Some("y"));
        assert_eq!(v.get_str("a"), Some("z"));
    }

    #[test]
    fn case_attributes_apply() {
        let mut v = Vars::default();
        v.global_entry("l").attrs.insert(Attrs::LOWER);
        v.set_str("l", "ABC").unwrap();
        assert_eq!(v.get_str("l"), Some("abc"));
    }
}
