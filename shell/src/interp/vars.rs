//! Shell variables: scalars, indexed and associative arrays, attributes, and
//! the dynamic scopes that `local` creates.
//!
//! OWNER: builtins helper (declare/local/export/readonly/unset live on top of it).

use std::collections::{BTreeMap, HashMap};

use indexmap::IndexMap;

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
}

/// All variables of a shell: the global scope plus one scope per active
/// function call that declared locals.
#[derive(Clone, Debug)]
pub struct Vars {
    scopes: Vec<HashMap<String, Var>>,
}

impl Default for Vars {
    fn default() -> Self {
        Vars { scopes: vec![HashMap::new()] }
    }
}

impl Vars {
    /// The innermost visible variable called `name`.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Mutable access to the innermost visible variable called `name`.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.scopes.iter_mut().rev().find_map(|s| s.get_mut(name))
    }

    /// The scalar value of `name` (element 0 of an array), if set.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.value.as_ref()).and_then(|v| v.as_scalar())
    }

    /// Assigns a value to the innermost visible `name`, creating a global if
    /// none is visible. Refuses readonly variables.
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), VarError> {
        match self.get_mut(name) {
            Some(var) => {
                if var.attrs.has(Attrs::READONLY) {
                    return Err(VarError::Readonly(name.to_string()));
                }
                var.value = Some(value);
            }
            None => {
                self.scopes[0].insert(name.to_string(), Var { value: Some(value), attrs: Attrs::default() });
            }
        }
        Ok(())
    }

    /// Shorthand for `set(name, Value::Str(value))`.
    pub fn set_str(&mut self, name: &str, value: impl Into<String>) -> Result<(), VarError> {
        self.set(name, Value::Str(value.into()))
    }

    /// Declares `name` in the innermost function scope (`local`), unset, unless
    /// it is already local there. Returns the variable.
    pub fn declare_local(&mut self, name: &str) -> &mut Var {
        let scope = self.scopes.last_mut().expect("global scope");
        scope.entry(name.to_string()).or_default()
    }

    /// Removes the innermost visible `name`. Refuses readonly variables.
    pub fn unset(&mut self, name: &str) -> Result<(), VarError> {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(var) = scope.get(name) {
                if var.attrs.has(Attrs::READONLY) {
                    return Err(VarError::Readonly(name.to_string()));
                }
                scope.remove(name);
                return Ok(());
            }
        }
        Ok(())
    }

    /// Enters a function call.
    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Leaves a function call, dropping its locals.
    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
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

    /// The exported variables with scalar values, sorted by name.
    pub fn exported(&self) -> Vec<(String, String)> {
        self.names()
            .into_iter()
            .filter_map(|n| {
                let v = self.get(&n)?;
                if !v.attrs.has(Attrs::EXPORT) {
                    return None;
                }
                let s = v.value.as_ref()?.as_scalar()?.to_string();
                Some((n, s))
            })
            .collect()
    }
}
