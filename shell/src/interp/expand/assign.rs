//! Assignments made by expansions and arithmetic: `${x:=v}`, `((x += 1))`,
//! `((a[i] = v))`. They go through the variable layer's `Interp::assign` /
//! `Interp::assign_elem` (namerefs, `readonly`, `declare -i/-l/-u`, `set -a`,
//! arrays), with a fast path for the plain scalars of arithmetic loops.

use crate::interp::arith::ArithFail;
use crate::interp::vars::{Value, VarError};
use crate::interp::{Attrs, Interp, Interrupt};

/// Why an expansion's assignment failed.
pub(crate) enum AssignFail {
    /// Bash's message (not yet printed), e.g. `x: readonly variable`.
    Message(String),
    /// Already reported; stop with this interruption.
    Interrupt(Interrupt),
}

impl From<VarError> for AssignFail {
    fn from(e: VarError) -> Self {
        match e {
            VarError::Interrupted(i) => AssignFail::Interrupt(i),
            other => AssignFail::Message(other.to_string()),
        }
    }
}

impl Interp {
    /// `${name:=value}` for a plain name.
    pub(crate) fn expansion_assign(&mut self, name: &str, value: &str) -> Result<(), AssignFail> {
        Ok(self.assign(name, value, false)?)
    }

    /// `${name[sub]:=value}`; `sub` as written (expanded here for an
    /// associative array, evaluated arithmetically otherwise).
    pub(crate) fn expansion_assign_elem(
        &mut self,
        name: &str,
        sub: &str,
        value: &str,
    ) -> Result<(), AssignFail> {
        let sub = if self.is_assoc(name) {
            self.expand_string(sub).map_err(AssignFail::Interrupt)?
        } else {
            sub.to_string()
        };
        Ok(self.assign_elem(name, &sub, value, false)?)
    }

    /// `((name = value))`.
    pub(crate) fn arith_assign(&mut self, name: &str, value: i64) -> Result<(), ArithFail> {
        // Fast path: an existing plain scalar without attributes.
        if let Some(var) = self.vars.get_raw_mut(name)
            && var.attrs == Attrs::default()
            && matches!(var.value, Some(Value::Str(_)) | None)
        {
            var.value = Some(Value::Str(value.to_string()));
            if self.opts.allexport {
                var.attrs.insert(Attrs::EXPORT);
            }
            return Ok(());
        }
        let r = self.assign(name, &value.to_string(), false);
        r.map_err(|e| self.fatal_assign(e.into()))
    }

    /// `((name[sub] = value))`; `sub` is already expanded.
    pub(crate) fn arith_assign_element(
        &mut self,
        name: &str,
        sub: &str,
        value: i64,
    ) -> Result<(), ArithFail> {
        // `A["$unset"]` is `A[]` once quotes are removed: no element.
        if super::special::unquote_key(sub).is_empty() {
            self.expansion_error(&format!("((: `{name}[]': not a valid identifier"));
            return Ok(());
        }
        let sub = if self.is_assoc(name) {
            super::special::unquote_key(sub)
        } else {
            sub
        };
        let r = self.assign_elem(name, sub, &value.to_string(), false);
        r.map_err(|e| self.fatal_assign(e.into()))
    }

    fn fatal_assign(&mut self, f: AssignFail) -> ArithFail {
        match f {
            AssignFail::Message(m) => {
                self.expansion_error(&m);
                ArithFail::Interrupt(self.expansion_abort())
            }
            AssignFail::Interrupt(i) => ArithFail::Interrupt(i),
        }
    }
}
