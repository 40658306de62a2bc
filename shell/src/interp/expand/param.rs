//! `${...}` parameter expansion: every operator bash has (defaults,
//! assignment, errors, alternatives, length, substrings, pattern removal and
//! replacement, case changes, `@` transformations, indirection, name and key
//! lists), applied to scalars and, element by element, to `$@` / `${a[@]}`.

use brush_parser::word::{
    Parameter, ParameterExpr, ParameterTestType, ParameterTransformOp, SpecialParameter,
    SubstringMatchKind,
};

use super::word::Acc;
use super::{ParseMode, quote};
use crate::interp::arith::ArithFail;
use crate::interp::parse::within_parse_budget;
use crate::interp::pattern::{MatchOptions, compiled};
use crate::interp::vars::Value;
use crate::interp::{Attrs, Interp, Interrupt};

/// A parameter's value before an operator is applied.
#[derive(Clone, Debug)]
enum PVal {
    Unset,
    Str(String),
    /// `$@`/`${a[@]}` (`false`) or `$*`/`${a[*]}` (`true`).
    List(Vec<String>, bool),
}

impl PVal {
    fn is_unset(&self) -> bool {
        match self {
            PVal::Unset => true,
            PVal::List(v, _) => v.is_empty(),
            PVal::Str(_) => false,
        }
    }

    fn is_null(&self) -> bool {
        match self {
            PVal::Unset => true,
            PVal::Str(s) => s.is_empty(),
            PVal::List(v, _) => v.iter().all(|s| s.is_empty()) && v.len() <= 1,
        }
    }

    fn map(self, mut f: impl FnMut(&str) -> String) -> PVal {
        match self {
            PVal::Unset => PVal::Unset,
            PVal::Str(s) => PVal::Str(f(&s)),
            PVal::List(v, c) => PVal::List(v.iter().map(|s| f(s)).collect(), c),
        }
    }
}

fn param_of(e: &ParameterExpr) -> (&Parameter, bool) {
    match e {
        ParameterExpr::Parameter {
            parameter,
            indirect,
        }
        | ParameterExpr::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ParameterLength {
            parameter,
            indirect,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Substring {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Transform {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => (parameter, *indirect),
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
            unreachable!("handled before")
        }
    }
}

/// The name bash prints in messages about `p`.
fn display_name(p: &Parameter) -> String {
    match p {
        Parameter::Positional(n) => n.to_string(),
        Parameter::Special(s) => s.to_string(),
        Parameter::Named(n) => n.clone(),
        Parameter::NamedWithIndex { name, index } => format!("{name}[{index}]"),
        Parameter::NamedWithAllIndices { name, concatenate } => {
            format!("{name}[{}]", if *concatenate { '*' } else { '@' })
        }
    }
}

fn is_list_param(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::Special(SpecialParameter::AllPositionalParameters { .. })
            | Parameter::NamedWithAllIndices { .. }
    )
}

/// `$*` or `${a[*]}`: a list joined into one word when quoted.
fn is_star_param(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: true })
            | Parameter::NamedWithAllIndices {
                concatenate: true,
                ..
            }
    )
}

impl Interp {
    /// Expands one `${...}` / `$x` into `acc`.
    pub(crate) fn expand_param(
        &mut self,
        e: &ParameterExpr,
        quoted: bool,
        acc: &mut Acc,
    ) -> Result<(), Interrupt> {
        // Fast path: `$x` / `${x}` of a plain variable.
        if let ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        } = e
            && !self
                .vars
                .get_raw(name)
                .is_some_and(|v| v.attrs.has(Attrs::NAMEREF))
        {
            match self.var_scalar(name) {
                Some(v) => acc.push_expansion(&v, quoted),
                None => {
                    if self.opts.nounset {
                        return self.unbound(name);
                    }
                    if quoted {
                        acc.push_literal("", true);
                    }
                }
            }
            return Ok(());
        }
        let val = match e {
            ParameterExpr::VariableNames {
                prefix,
                concatenate,
            } => {
                let names: Vec<String> = self
                    .vars
                    .names()
                    .into_iter()
                    .filter(|n| n.starts_with(prefix.as_str()))
                    .collect();
                // Unquoted `${!pre*}` with IFS='' is one word (bash quirk).
                if *concatenate && !quoted && self.vars.get_str("IFS") == Some("") {
                    PVal::Str(names.concat())
                } else {
                    PVal::List(names, *concatenate)
                }
            }
            ParameterExpr::MemberKeys {
                variable_name,
                concatenate,
            } => {
                let keys = self.var_keys(variable_name);
                // Unquoted `${!a[*]}` with IFS='' is one word joined by spaces.
                if *concatenate && !quoted && self.vars.get_str("IFS") == Some("") {
                    PVal::Str(keys.join(" "))
                } else {
                    PVal::List(keys, *concatenate)
                }
            }
            _ => match self.apply_op(e, quoted, acc)? {
                Some(v) => v,
                None => return Ok(()),
            },
        };
        self.emit(val, quoted, acc);
        Ok(())
    }

    fn unbound(&mut self, name: &str) -> Result<(), Interrupt> {
        self.expansion_error(&format!("{name}: unbound variable"));
        Err(self.fatal_expansion())
    }

    fn emit(&mut self, val: PVal, quoted: bool, acc: &mut Acc) {
        match val {
            PVal::Unset => {
                if quoted {
                    acc.push_literal("", true);
                }
            }
            PVal::Str(s) => acc.push_expansion(&s, quoted),
            PVal::List(v, concat) => {
                if !acc.split || (quoted && concat) {
                    let sep = if concat {
                        match self.vars.get_str("IFS") {
                            None => " ".to_string(),
                            Some(ifs) => ifs.chars().next().map(String::from).unwrap_or_default(),
                        }
                    } else {
                        " ".to_string()
                    };
                    acc.push_expansion(&v.join(&sep), quoted);
                    return;
                }
                // Unquoted with a non-empty IFS, bash joins the elements with
                // IFS's first character and splits the result: with IFS=x,
                // `set -- a "" b; $@` gives a, "", b. With an empty IFS (or
                // quoted) every element is its own field.
                let sep = if quoted {
                    None
                } else {
                    self.vars
                        .get_str("IFS")
                        .map_or(Some(' '), |s| s.chars().next())
                };
                for (i, s) in v.iter().enumerate() {
                    if i > 0 {
                        match sep {
                            Some(c) => acc.push_expansion(c.encode_utf8(&mut [0; 4]), false),
                            None => acc.field_break(),
                        }
                    }
                    acc.push_expansion(s, quoted);
                }
            }
        }
    }

    /// The parameter that `${!p}` refers to, when `p`'s value names one.
    fn indirect_target(&mut self, p: &Parameter) -> Result<Option<Parameter>, Interrupt> {
        let target = match self.fetch(p, false)? {
            PVal::Str(s) => s,
            PVal::List(v, _) => v.join(" "),
            PVal::Unset => return Ok(None),
        };
        let options = brush_parser::ParserOptions::default();
        let parsed = within_parse_budget(target.len(), || {
            brush_parser::word::parse_parameter(&target, &options).ok()
        });
        Ok(parsed.flatten())
    }

    /// Fetches the value of a parameter (following `${!x}` indirection).
    fn fetch(&mut self, p: &Parameter, indirect: bool) -> Result<PVal, Interrupt> {
        if indirect {
            if let Parameter::Named(n) = p
                && let Some(t) = self.nameref_target(n)
            {
                return Ok(PVal::Str(t));
            }
            let target = match self.fetch(p, false)? {
                PVal::Str(s) => s,
                PVal::List(v, _) => v.join(" "),
                // `${!1}`, `${!@}` without parameters: empty, no error
                // (but an unset `${!a[@]}` is an error, as for a name).
                PVal::Unset
                    if !matches!(
                        p,
                        Parameter::Named(_) | Parameter::NamedWithAllIndices { .. }
                    ) =>
                {
                    return Ok(PVal::Str(String::new()));
                }
                // An array without element 0 (`${!A}` of an associative
                // array) refers to nothing, without an error.
                PVal::Unset if matches!(p, Parameter::Named(n) if self.is_array_var(n)) => {
                    return Ok(PVal::Str(String::new()));
                }
                PVal::Unset => {
                    self.expansion_error(&format!(
                        "{}: invalid indirect expansion",
                        display_name(p)
                    ));
                    return Err(self.expansion_abort());
                }
            };
            if let Parameter::NamedWithAllIndices { name, .. } = p
                && target.is_empty()
            {
                // `${!a[@]}`: an empty array refers to nothing (unset), an
                // unset one is an error.
                if self.vars.get(name).is_some() {
                    return Ok(PVal::Unset);
                }
                self.expansion_error(&format!("{}: invalid indirect expansion", display_name(p)));
                return Err(self.expansion_abort());
            }
            if target.is_empty() && !matches!(p, Parameter::Named(_)) {
                return Ok(PVal::Str(String::new()));
            }
            let parsed = within_parse_budget(target.len(), || {
                brush_parser::word::parse_parameter(
                    &target,
                    &brush_parser::ParserOptions::default(),
                )
                .ok()
            });
            return match parsed.flatten() {
                Some(tp) => self.fetch(&tp, false),
                None => {
                    self.expansion_error(&format!("{target}: invalid variable name"));
                    Err(self.expansion_abort())
                }
            };
        }
        Ok(match p {
            Parameter::Positional(n) => match self.positional.get(*n as usize - 1) {
                Some(s) => PVal::Str(s.clone()),
                None => PVal::Unset,
            },
            Parameter::Special(s) => match s {
                SpecialParameter::AllPositionalParameters { concatenate } => {
                    PVal::List(self.positional.clone(), *concatenate)
                }
                SpecialParameter::PositionalParameterCount => {
                    PVal::Str(self.positional.len().to_string())
                }
                SpecialParameter::LastExitStatus => PVal::Str(self.last_status.to_string()),
                SpecialParameter::CurrentOptionFlags => PVal::Str(self.option_flags()),
                SpecialParameter::ProcessId => PVal::Str(self.pid.to_string()),
                SpecialParameter::LastBackgroundProcessId => match self.last_bg_pid {
                    Some(pid) => PVal::Str(pid.to_string()),
                    None => PVal::Unset,
                },
                SpecialParameter::ShellName => PVal::Str(self.arg0.clone()),
            },
            Parameter::Named(n)
                if let Some(t) = self.nameref_target(n)
                    && let Some((base, sub @ ("@" | "*"))) =
                        super::special::split_subscript(&t) =>
            {
                PVal::List(self.var_values(base).unwrap_or_default(), sub == "*")
            }
            Parameter::Named(n) => match self.var_scalar(n) {
                Some(v) => PVal::Str(v),
                None => PVal::Unset,
            },
            Parameter::NamedWithIndex { name, index } if index.is_empty() => {
                self.expansion_error(&format!("${{{name}[]}}: bad substitution"));
                return Err(self.expansion_abort());
            }
            Parameter::NamedWithIndex { name, index } => match self.var_element(name, index)? {
                Some(v) => PVal::Str(v),
                None => PVal::Unset,
            },
            Parameter::NamedWithAllIndices { name, concatenate } => {
                PVal::List(self.var_values(name).unwrap_or_default(), *concatenate)
            }
        })
    }

    /// Expands an operand word to a string (no splitting).
    fn operand_string(&mut self, word: &str) -> Result<String, Interrupt> {
        self.expand_nosplit(word, ParseMode::Word, false)
    }

    fn pattern_opts(&self) -> MatchOptions {
        MatchOptions {
            extglob: self.opts.extglob,
            nocase: false,
        }
    }

    /// Applies the operator of `e`; `None` when the operator already wrote
    /// its result into `acc` (`${x:-word}` with the word expanded in place).
    fn apply_op(
        &mut self,
        e: &ParameterExpr,
        quoted: bool,
        acc: &mut Acc,
    ) -> Result<Option<PVal>, Interrupt> {
        let (p, indirect) = param_of(e);
        let val = self.fetch(p, indirect)?;
        // Quoted, `"${a[*]:-x}"` and `"${*:-x}"` test the elements joined
        // by IFS's first character: with IFS='', several empty elements are
        // null too. (Unquoted, or through `${!ref}`, bash tests them unjoined.)
        let empty_ifs = quoted
            && !indirect
            && matches!(&val, PVal::List(v, true) if v.len() > 1)
            && self.vars.get_str("IFS") == Some("");
        let test = |val: &PVal, t: &ParameterTestType| match t {
            ParameterTestType::UnsetOrNull => match val {
                PVal::List(v, true) if empty_ifs => v.iter().all(|s| s.is_empty()),
                // Through `${!ref}` (ref='a[@]'), only an empty list is null.
                PVal::List(v, _) if indirect => v.is_empty(),
                _ => val.is_null(),
            },
            ParameterTestType::Unset => val.is_unset(),
        };
        match e {
            ParameterExpr::UseDefaultValues {
                test_type,
                default_value,
                ..
            } => {
                if test(&val, test_type) {
                    if quoted {
                        acc.push_literal("", true);
                    }
                    if let Some(w) = default_value {
                        self.expand_operand_into(w, quoted, acc)?;
                    }
                    return Ok(None);
                }
                return Ok(Some(val));
            }
            ParameterExpr::UseAlternativeValue {
                test_type,
                alternative_value,
                ..
            } => {
                if !test(&val, test_type) {
                    if quoted {
                        acc.push_literal("", true);
                    }
                    if let Some(w) = alternative_value {
                        self.expand_operand_into(w, quoted, acc)?;
                    }
                } else if quoted && (indirect || !is_list_param(p) || is_star_param(p)) {
                    // `"${a[*]:+x}"` is one (empty) word, `"${a[@]:+x}"` none;
                    // `"${!a[@]:+x}"` names one variable, so one word.
                    acc.push_literal("", true);
                }
                return Ok(None);
            }
            ParameterExpr::AssignDefaultValues {
                test_type,
                default_value,
                ..
            } => {
                if !test(&val, test_type) {
                    return Ok(Some(val));
                }
                let v = match default_value {
                    Some(w) => self.operand_string(w)?,
                    None => String::new(),
                };
                let target = if indirect {
                    match self.fetch(p, false)? {
                        PVal::Str(s) => Some(s),
                        PVal::List(v, _) => Some(v.join(" ")),
                        PVal::Unset => None,
                    }
                } else {
                    None
                };
                let res = match p {
                    _ if target.as_deref().is_some_and(|t| !t.contains('[')) => {
                        self.expansion_assign(target.as_deref().unwrap_or_default(), &v)
                    }
                    Parameter::Named(n) if !indirect => self.expansion_assign(n, &v),
                    Parameter::NamedWithIndex { name, index } if !indirect => {
                        self.expansion_assign_elem(name, index, &v)
                    }
                    _ => {
                        self.expansion_error(&format!(
                            "${}: cannot assign in this way",
                            display_name(p)
                        ));
                        return Err(self.expansion_abort());
                    }
                };
                match res {
                    Ok(()) => {}
                    Err(super::assign::AssignFail::Message(m)) => {
                        self.expansion_error(&m);
                        return Err(self.expansion_abort());
                    }
                    Err(super::assign::AssignFail::Interrupt(i)) => return Err(i),
                }
                return Ok(Some(PVal::Str(v)));
            }
            ParameterExpr::IndicateErrorIfNullOrUnset {
                test_type,
                error_message,
                ..
            } => {
                if !test(&val, test_type) {
                    return Ok(Some(val));
                }
                let msg = match error_message {
                    Some(w) if !w.is_empty() => self.operand_string(w)?,
                    _ => match test_type {
                        ParameterTestType::UnsetOrNull => "parameter null or not set".to_string(),
                        ParameterTestType::Unset => "parameter not set".to_string(),
                    },
                };
                self.expansion_error(&format!("{}: {msg}", display_name(p)));
                return Err(self.fatal_expansion());
            }
            _ => {}
        }
        // Every other operator reads the value: `set -u` applies.
        if self.opts.nounset && matches!(val, PVal::Unset) && !is_list_param(p) {
            let shown = match p {
                Parameter::Positional(n) => format!("${n}"),
                _ => display_name(p),
            };
            self.unbound(&shown)?;
        }
        let out = match e {
            ParameterExpr::Parameter { .. } => val,
            ParameterExpr::ParameterLength { .. } => match (&val, p) {
                (PVal::List(v, _), _) => PVal::Str(v.len().to_string()),
                (PVal::Str(s), _) => PVal::Str(s.chars().count().to_string()),
                (PVal::Unset, _) => PVal::Str("0".to_string()),
            },
            ParameterExpr::RemoveSmallestSuffixPattern { pattern, .. }
            | ParameterExpr::RemoveLargestSuffixPattern { pattern, .. }
            | ParameterExpr::RemoveSmallestPrefixPattern { pattern, .. }
            | ParameterExpr::RemoveLargestPrefixPattern { pattern, .. } => {
                let pat = match pattern {
                    Some(w) => self.expand_pattern(w)?,
                    None => String::new(),
                };
                let (suffix, longest) = match e {
                    ParameterExpr::RemoveSmallestSuffixPattern { .. } => (true, false),
                    ParameterExpr::RemoveLargestSuffixPattern { .. } => (true, true),
                    ParameterExpr::RemoveSmallestPrefixPattern { .. } => (false, false),
                    _ => (false, true),
                };
                let cp = compiled(&pat, self.pattern_opts());
                val.map(|s| {
                    let chars: Vec<char> = s.chars().collect();
                    if suffix {
                        match cp.strip_suffix_len(&chars, longest) {
                            Some(n) => chars[..chars.len() - n].iter().collect(),
                            None => s.to_string(),
                        }
                    } else {
                        match cp.strip_prefix_len(&chars, longest) {
                            Some(n) => chars[n..].iter().collect(),
                            None => s.to_string(),
                        }
                    }
                })
            }
            ParameterExpr::ReplaceSubstring {
                pattern,
                replacement,
                match_kind,
                ..
            } => {
                // `${x////c}`: the parser reads an empty pattern and `/c`;
                // bash reads the pattern `/` and the replacement `c`.
                let (pattern, replacement) = match replacement {
                    Some(r) if pattern.is_empty() && r.starts_with('/') => {
                        ("/".to_string(), Some(r[1..].to_string()))
                    }
                    // `${x///}`: delete every `/`.
                    Some(r) if pattern.is_empty() && r.is_empty() => ("/".to_string(), None),
                    _ => (pattern.clone(), replacement.clone()),
                };
                let pat = self.expand_pattern(&pattern)?;
                let rep = match &replacement {
                    Some(w) => self.expand_pattern(w)?,
                    None => String::new(),
                };
                let cp = compiled(&pat, self.pattern_opts());
                let anchored = matches!(
                    match_kind,
                    SubstringMatchKind::Prefix | SubstringMatchKind::Suffix
                );
                if pat.is_empty() && !anchored {
                    val
                } else {
                    val.map(|s| replace(&cp, s, &rep, match_kind))
                }
            }
            ParameterExpr::Substring { offset, length, .. } => {
                // `${s:}` has no offset at all (`${s: }` is offset 0).
                if offset.value.is_empty() && length.is_none() {
                    self.expansion_error(&format!("${{{}:}}: bad substitution", display_name(p)));
                    return Err(self.expansion_abort());
                }
                let off = self.arith_operand(&offset.value)?;
                let len = match length {
                    Some(l) => Some(self.arith_operand(&l.value)?),
                    None => None,
                };
                // `${!r:1}` slices the parameter `r` names, with its indices.
                let target = match indirect {
                    true => self.indirect_target(p)?,
                    false => None,
                };
                self.substring(target.as_ref().unwrap_or(p), val, off, len)?
            }
            ParameterExpr::Transform { op, .. } => {
                if indirect && matches!(op, ParameterTransformOp::ToAttributeFlags) {
                    let target = match self.fetch(p, false)? {
                        PVal::Str(s) => s,
                        PVal::List(v, _) => v.join(" "),
                        PVal::Unset => String::new(),
                    };
                    let name = target.split('[').next().unwrap_or_default().to_string();
                    let flags = self.attr_flags(&name);
                    match val {
                        // `${!r@a}` with r='a[@]': the flags once per element.
                        PVal::List(v, c) => {
                            PVal::List(v.iter().map(|_| flags.clone()).collect(), c)
                        }
                        _ => PVal::Str(flags),
                    }
                } else {
                    self.transform(p, val, op)?
                }
            }
            ParameterExpr::UppercaseFirstChar { pattern, .. }
            | ParameterExpr::UppercasePattern { pattern, .. }
            | ParameterExpr::LowercaseFirstChar { pattern, .. }
            | ParameterExpr::LowercasePattern { pattern, .. } => {
                let pat = match pattern {
                    Some(w) => self.expand_pattern(w)?,
                    None => String::new(),
                };
                let pat = if pat.is_empty() { "?".to_string() } else { pat };
                let cp = compiled(&pat, self.pattern_opts());
                let upper = matches!(
                    e,
                    ParameterExpr::UppercaseFirstChar { .. }
                        | ParameterExpr::UppercasePattern { .. }
                );
                let all = matches!(
                    e,
                    ParameterExpr::UppercasePattern { .. } | ParameterExpr::LowercasePattern { .. }
                );
                val.map(|s| {
                    let mut out = String::with_capacity(s.len());
                    for (i, c) in s.chars().enumerate() {
                        if (all || i == 0) && cp.matches(c.encode_utf8(&mut [0; 4])) {
                            out.push(if upper {
                                to_upper_char(c)
                            } else {
                                to_lower_char(c)
                            });
                        } else {
                            out.push(c);
                        }
                    }
                    out
                })
            }
            _ => val,
        };
        Ok(Some(out))
    }

    /// Evaluates a substring offset or length (an arithmetic error is fatal).
    fn arith_operand(&mut self, text: &str) -> Result<i64, Interrupt> {
        match self.try_eval_arith(text) {
            Ok(v) => Ok(v),
            Err(ArithFail::Error(m)) => {
                self.expansion_error(&m);
                Err(Interrupt::Discard(1))
            }
            Err(ArithFail::Interrupt(i)) => Err(i),
        }
    }

    fn substring(
        &mut self,
        p: &Parameter,
        val: PVal,
        off: i64,
        len: Option<i64>,
    ) -> Result<PVal, Interrupt> {
        match val {
            PVal::Unset => Ok(PVal::Unset),
            PVal::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                let n = chars.len() as i64;
                let start = if off < 0 { n + off } else { off };
                if start < 0 || start > n {
                    return Ok(PVal::Str(String::new()));
                }
                let end = match len {
                    None => n,
                    Some(l) if l < 0 => {
                        let e = n + l;
                        if e < start {
                            self.expansion_error(&format!("{l}: substring expression < 0"));
                            return Err(Interrupt::Discard(1));
                        }
                        e
                    }
                    Some(l) => (start + l).min(n),
                };
                Ok(PVal::Str(
                    chars[start as usize..end as usize].iter().collect(),
                ))
            }
            PVal::List(values, concat) => {
                // Pairs of (position, value): positional parameters count
                // from $0, arrays use their (sparse) indices.
                let pairs: Vec<(i64, String)> = match p {
                    Parameter::NamedWithAllIndices { name, .. } => {
                        let keys = self.var_keys(name);
                        if self.is_assoc(name) {
                            values
                                .into_iter()
                                .enumerate()
                                .map(|(i, v)| (i as i64, v))
                                .collect()
                        } else {
                            keys.iter()
                                .map(|k| k.parse().unwrap_or(0))
                                .zip(values)
                                .collect()
                        }
                    }
                    _ => std::iter::once(self.arg0.clone())
                        .chain(values)
                        .enumerate()
                        .map(|(i, v)| (i as i64, v))
                        .collect(),
                };
                // An index of i64::MAX has no successor: saturate.
                let top = pairs.last().map(|(k, _)| k.saturating_add(1)).unwrap_or(0);
                let start = if off < 0 {
                    top.saturating_add(off)
                } else {
                    off
                };
                if start < 0 {
                    return Ok(PVal::List(Vec::new(), concat));
                }
                if let Some(l) = len
                    && l < 0
                {
                    self.expansion_error(&format!("{l}: substring expression < 0"));
                    return Err(Interrupt::Discard(1));
                }
                let take = len.map(|l| l as usize).unwrap_or(usize::MAX);
                let out = pairs
                    .into_iter()
                    .filter(|(k, _)| *k >= start)
                    .take(take)
                    .map(|(_, v)| v)
                    .collect();
                Ok(PVal::List(out, concat))
            }
        }
    }

    fn transform(
        &mut self,
        p: &Parameter,
        val: PVal,
        op: &ParameterTransformOp,
    ) -> Result<PVal, Interrupt> {
        Ok(match op {
            ParameterTransformOp::Quoted => {
                if matches!(val, PVal::Unset) {
                    return Ok(PVal::Unset);
                }
                val.map(quote::quote_for_reuse)
            }
            ParameterTransformOp::ExpandEscapeSequences => val.map(super::decode_ansi_c),
            ParameterTransformOp::ToUpperCase => {
                val.map(|s| s.chars().map(to_upper_char).collect())
            }
            ParameterTransformOp::ToLowerCase => {
                val.map(|s| s.chars().map(to_lower_char).collect())
            }
            ParameterTransformOp::CapitalizeInitial => val.map(|s| {
                let mut c = s.chars();
                match c.next() {
                    Some(f) => std::iter::once(to_upper_char(f)).chain(c).collect(),
                    None => String::new(),
                }
            }),
            ParameterTransformOp::PromptExpand => match val {
                PVal::Unset => PVal::Unset,
                PVal::Str(s) => PVal::Str(self.prompt_expand(&s)?),
                PVal::List(v, c) => PVal::List(
                    v.iter()
                        .map(|s| self.prompt_expand(s))
                        .collect::<Result<_, _>>()?,
                    c,
                ),
            },
            ParameterTransformOp::ToAttributeFlags => {
                let name = match p {
                    Parameter::Named(n) | Parameter::NamedWithAllIndices { name: n, .. } => {
                        n.clone()
                    }
                    Parameter::NamedWithIndex { name, .. } => name.clone(),
                    _ => return Ok(PVal::Str(String::new())),
                };
                let flags = self.attr_flags(&name);
                match val {
                    PVal::List(v, c) => PVal::List(v.iter().map(|_| flags.clone()).collect(), c),
                    _ => PVal::Str(flags),
                }
            }
            ParameterTransformOp::ToAssignmentLogic => {
                let name = match p {
                    Parameter::Named(n) | Parameter::NamedWithAllIndices { name: n, .. } => {
                        n.clone()
                    }
                    _ => return Ok(val),
                };
                if matches!(val, PVal::Unset) {
                    return Ok(PVal::Unset);
                }
                let flags = self.attr_flags(&name);
                let whole = matches!(p, Parameter::NamedWithAllIndices { .. });
                let value = self.vars.get(&name).and_then(|v| v.value.clone());
                PVal::Str(match value {
                    Some(Value::Indexed(m)) if whole => {
                        let items: Vec<String> = m
                            .iter()
                            .map(|(k, v)| format!("[{k}]={}", quote::quote_double(v)))
                            .collect();
                        format!("declare -{flags} {name}=({})", items.join(" "))
                    }
                    Some(Value::Assoc(m)) if whole => {
                        let items: Vec<String> = m
                            .iter()
                            .map(|(k, v)| format!("[{k}]={}", quote::quote_double(v)))
                            .collect();
                        format!("declare -{flags} {name}=({})", items.join(" "))
                    }
                    _ => {
                        let v = match &val {
                            PVal::Str(s) => s.clone(),
                            PVal::List(v, _) => v.join(" "),
                            PVal::Unset => String::new(),
                        };
                        if flags.is_empty() {
                            format!("{name}={}", quote::quote_for_reuse(&v))
                        } else {
                            format!("declare -{flags} {name}={}", quote::quote_for_reuse(&v))
                        }
                    }
                })
            }
            ParameterTransformOp::PossiblyQuoteWithArraysExpanded { separate_words } => {
                let name = match p {
                    Parameter::NamedWithAllIndices { name, .. } => name.clone(),
                    _ => return Ok(val.map(quote::quote_for_reuse)),
                };
                let keys = self.var_keys(&name);
                let values = self.var_values(&name).unwrap_or_default();
                let mut out = Vec::new();
                for (k, v) in keys.into_iter().zip(values) {
                    if *separate_words {
                        out.push(k);
                        out.push(v);
                    } else {
                        out.push(format!("{k} {}", quote::quote_double(&v)));
                    }
                }
                if *separate_words {
                    PVal::List(out, false)
                } else {
                    PVal::Str(out.join(" "))
                }
            }
        })
    }

    /// `${x@a}`: the attribute letters of `name`, in bash's order.
    pub fn attr_flags(&self, name: &str) -> String {
        let Some(v) = self.vars.get(name) else {
            return String::new();
        };
        let a = v.attrs;
        let mut s = String::new();
        let is_indexed = a.has(Attrs::INDEXED) || matches!(v.value, Some(Value::Indexed(_)));
        let is_assoc = a.has(Attrs::ASSOC) || matches!(v.value, Some(Value::Assoc(_)));
        for (on, c) in [
            (is_indexed, 'a'),
            (is_assoc, 'A'),
            (a.has(Attrs::INTEGER), 'i'),
            (a.has(Attrs::NAMEREF), 'n'),
            (a.has(Attrs::READONLY), 'r'),
            (a.has(Attrs::TRACE), 't'),
            (a.has(Attrs::EXPORT), 'x'),
            (a.has(Attrs::LOWER), 'l'),
            (a.has(Attrs::UPPER), 'u'),
        ] {
            if on {
                s.push(c);
            }
        }
        s
    }
}

/// Upper-cases one character to one character, like C's `towupper` (`ß`
/// stays `ß`).
fn to_upper_char(c: char) -> char {
    let mut u = c.to_uppercase();
    match (u.next(), u.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Lower-cases one character to one character (`towlower`).
fn to_lower_char(c: char) -> char {
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Applies `${x/pat/rep}` (and `//`, `/#`, `/%`) to `s`. `rep` is in pattern
/// form: an unquoted `&` stands for the matched text (bash 5.2's
/// `patsub_replacement`), backslash-escaped characters are literal.
fn replace(
    cp: &crate::interp::pattern::Pattern,
    s: &str,
    rep: &str,
    kind: &SubstringMatchKind,
) -> String {
    let chars: Vec<char> = s.chars().collect();
    let render = |m: &[char]| -> String {
        let mut out = String::new();
        let mut it = rep.chars();
        while let Some(c) = it.next() {
            match c {
                '\\' => {
                    if let Some(n) = it.next() {
                        out.push(n);
                    }
                }
                '&' => out.extend(m.iter()),
                c => out.push(c),
            }
        }
        out
    };
    match kind {
        SubstringMatchKind::Prefix => match cp.strip_prefix_len(&chars, true) {
            Some(n) => {
                let mut out = render(&chars[..n]);
                out.extend(chars[n..].iter());
                out
            }
            None => s.to_string(),
        },
        SubstringMatchKind::Suffix => match cp.strip_suffix_len(&chars, true) {
            Some(n) => {
                let cut = chars.len() - n;
                let mut out: String = chars[..cut].iter().collect();
                out.push_str(&render(&chars[cut..]));
                out
            }
            None => s.to_string(),
        },
        SubstringMatchKind::FirstOccurrence | SubstringMatchKind::Anywhere => {
            let all = matches!(kind, SubstringMatchKind::Anywhere);
            let mut out = String::new();
            let mut from = 0;
            while from <= chars.len() {
                let Some((a, b)) = cp.find(&chars, from) else {
                    break;
                };
                out.extend(chars[from..a].iter());
                out.push_str(&render(&chars[a..b]));
                if b == a {
                    if a < chars.len() {
                        out.push(chars[a]);
                    }
                    from = a + 1;
                } else {
                    from = b;
                }
                if !all || from >= chars.len() {
                    break;
                }
            }
            if from <= chars.len() {
                out.extend(chars[from..].iter());
            }
            out
        }
    }
}
