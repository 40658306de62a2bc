//! Parameter expansions bash accepts but brush-parser (pinned at 0.4.0)
//! rejects, parsed by substitution.
//!
//! brush's grammar commits to `${!name[@]` as the list of keys and to
//! `${#param` as a length, so `${!ref[@]:2}`, `${!ref[@]//a/b}`,
//! `${!ref[@]@Q}` (indirection through each element) and `${###}`,
//! `${##2}`, `${#%5}` (`$#` with a pattern removed) fail to parse. Each such
//! prefix is replaced by a placeholder name that parses, and in the parsed
//! pieces the placeholder is put back as the real parameter (with the
//! indirection flag for `${!`).

use brush_parser::word::{
    Parameter, ParameterExpr, SpecialParameter, WordPiece, WordPieceWithSource,
};

/// The placeholder names: `PLACEHOLDER` + a number.
const PLACEHOLDER: &str = "__sandkeep_reparse_";

/// What a placeholder stands for.
enum Original {
    /// `${!name[@]` or `${!name[*]`: indirection through each element.
    Indirect { name: String, concatenate: bool },
    /// `${#` followed by an operator: `$#`.
    ArgCount,
}

/// The length of an identifier at the start of `s`.
fn name_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.first()
        .is_none_or(|c| !(c.is_ascii_alphabetic() || *c == b'_'))
    {
        return 0;
    }
    b.iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count()
}

/// Rewrites the forms brush rejects; `None` when there is none.
fn substitute(word: &str) -> Option<(String, Vec<Original>)> {
    let mut out = String::with_capacity(word.len() + 32);
    let mut originals = Vec::new();
    let mut rest = word;
    while let Some(pos) = rest.find("${") {
        out.push_str(&rest[..pos + 2]);
        rest = &rest[pos + 2..];
        if let Some(after) = rest.strip_prefix('!') {
            let n = name_len(after);
            let tail = &after[n..];
            let all = tail.strip_prefix("[@]").map(|t| (t, false));
            let all = all.or_else(|| tail.strip_prefix("[*]").map(|t| (t, true)));
            if let Some((t, concatenate)) = all.filter(|(t, _)| n > 0 && !t.starts_with('}')) {
                let name = after[..n].to_string();
                out.push_str(&format!("{PLACEHOLDER}{}{}", originals.len(), &tail[..3]));
                originals.push(Original::Indirect { name, concatenate });
                rest = t;
            }
        } else if let Some(after) = rest.strip_prefix('#')
            && (after.starts_with('#') || after.starts_with('%'))
            && !after[1..].starts_with('}')
        {
            out.push_str(&format!("{PLACEHOLDER}{}", originals.len()));
            originals.push(Original::ArgCount);
            rest = after;
        }
    }
    out.push_str(rest);
    (!originals.is_empty()).then_some((out, originals))
}

/// The parameter and indirection flag of an expansion, when it has them.
fn parameter_of(e: &mut ParameterExpr) -> Option<(&mut Parameter, &mut bool)> {
    use ParameterExpr as P;
    match e {
        P::Parameter {
            parameter,
            indirect,
        }
        | P::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | P::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::Substring {
            parameter,
            indirect,
            ..
        }
        | P::Transform {
            parameter,
            indirect,
            ..
        }
        | P::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => Some((parameter, indirect)),
        _ => None,
    }
}

/// Which placeholder `p` is, if it is one.
fn placeholder_index(p: &Parameter) -> Option<usize> {
    let name = match p {
        Parameter::Named(n) | Parameter::NamedWithAllIndices { name: n, .. } => n,
        _ => return None,
    };
    name.strip_prefix(PLACEHOLDER)?.parse().ok()
}

/// Puts the original parameters back in place of the placeholders;
/// returns how many it put back.
fn restore(pieces: &mut [WordPieceWithSource], originals: &[Original]) -> usize {
    let mut restored = 0;
    for p in pieces {
        match &mut p.piece {
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                restored += restore(inner, originals)
            }
            WordPiece::ParameterExpansion(e) => {
                let Some((param, indirect)) = parameter_of(e) else {
                    continue;
                };
                match placeholder_index(param).and_then(|i| originals.get(i)) {
                    Some(Original::Indirect { name, concatenate }) => {
                        *param = Parameter::NamedWithAllIndices {
                            name: name.clone(),
                            concatenate: *concatenate,
                        };
                        *indirect = true;
                        restored += 1;
                    }
                    Some(Original::ArgCount) => {
                        *param = Parameter::Special(SpecialParameter::PositionalParameterCount);
                        restored += 1;
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }
    restored
}

/// Whether brush left a `${...}` unparsed: the text `$` followed by text
/// starting with `{` (it does so rather than fail on these forms).
pub(crate) fn has_unparsed(pieces: &[WordPieceWithSource]) -> bool {
    pieces.iter().enumerate().any(|(i, p)| match &p.piece {
        WordPiece::Text(t) => {
            t.ends_with('$')
                && matches!(pieces.get(i + 1).map(|n| &n.piece),
                    Some(WordPiece::Text(next)) if next.starts_with('{'))
        }
        WordPiece::DoubleQuotedSequence(inner) => has_unparsed(inner),
        _ => false,
    })
}

/// Parses `word` through placeholders; `None` when it has none of the
/// rewritten forms or still does not parse.
pub(crate) fn parse_rejected(
    word: &str,
    parse: impl Fn(&str) -> Option<Vec<WordPieceWithSource>>,
) -> Option<Vec<WordPieceWithSource>> {
    let (text, originals) = substitute(word)?;
    let mut pieces = parse(&text)?;
    // A placeholder left inside an operand word would read as a variable.
    let restored = restore(&mut pieces, &originals);
    (restored == originals.len() && !has_unparsed(&pieces)).then_some(pieces)
}
