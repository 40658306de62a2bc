//! `envsubst` (GNU gettext 0.21): copies stdin to stdout with `$NAME` and
//! `${NAME}` replaced by the environment's values (empty when unset); with
//! a SHELL-FORMAT operand, only the variables it names are replaced, and
//! `-v` lists those names instead.

use super::common::GnuError;
use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("envsubst", EnvsubstOpt::HELP, envsubst)];

declare_options! {
    /// gettext's envsubst options.
    pub(crate) enum EnvsubstOpt {
        usage: "Usage: envsubst [OPTION] [SHELL-FORMAT]",
        about: "Substitutes the values of environment variables.

Operation mode:",
        after: "In normal operation mode, standard input is copied to standard output,
with references to environment variables of the form $VARIABLE or ${VARIABLE}
being replaced with the corresponding values.  If a SHELL-FORMAT is given,
only those environment variables that are referenced in SHELL-FORMAT are
substituted; otherwise all environment variables references occurring in
standard input are substituted.",
        rows: [
            Variables: 'v' "variables" none => "output the variables occurring in SHELL-FORMAT",
            Version: 'V' "version" none => "output version information and exit",
        ],
    }
}

/// A reference found in text: its byte range and the variable's name.
struct Reference {
    start: usize,
    end: usize,
    name: String,
}

/// Every `$NAME` and `${NAME}` of `text`, in order (`${` without a valid
/// name and a closing brace is no reference).
fn references(text: &[u8]) -> Vec<Reference> {
    let is_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'$' {
            i += 1;
            continue;
        }
        let braced = text.get(i + 1) == Some(&b'{');
        let name_at = if braced { i + 2 } else { i + 1 };
        if !text.get(name_at).is_some_and(|b| is_start(*b)) {
            i += 1;
            continue;
        }
        let mut j = name_at;
        while j < text.len() && is_name(text[j]) {
            j += 1;
        }
        if braced {
            if text.get(j) != Some(&b'}') {
                i += 1;
                continue;
            }
            j += 1;
        }
        let name_end = if braced { j - 1 } else { j };
        out.push(Reference {
            start: i,
            end: j,
            name: String::from_utf8_lossy(&text[name_at..name_end]).into_owned(),
        });
        i = j;
    }
    out
}

/// `envsubst [OPTION] [SHELL-FORMAT]`
pub fn envsubst(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = EnvsubstOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut list_variables = false;
    for (opt, _) in &p.opts {
        match opt {
            EnvsubstOpt::Variables => list_variables = true,
            EnvsubstOpt::Version => {
                let _ = ctx
                    .stdout
                    .write_all(b"envsubst (GNU gettext-runtime) 0.21\n");
                return 0;
            }
        }
    }
    if p.operands.len() > 1 {
        ctx.gnu_error("too many arguments");
        return 1;
    }
    let format = p.operands.first();
    if list_variables {
        let Some(format) = format else {
            ctx.gnu_error("missing arguments");
            return 1;
        };
        let mut text = String::new();
        for r in references(format.as_bytes()) {
            text.push_str(&r.name);
            text.push('\n');
        }
        let _ = ctx.stdout.write_all(text.as_bytes());
        return 0;
    }
    let only: Option<Vec<String>> = format.map(|f| {
        references(f.as_bytes())
            .into_iter()
            .map(|r| r.name)
            .collect()
    });
    let mut input = Vec::new();
    let _ = ctx.stdin.read_to_end(&mut input);
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    for r in references(&input) {
        if only.as_ref().is_some_and(|names| !names.contains(&r.name)) {
            continue;
        }
        out.extend_from_slice(&input[at..r.start]);
        out.extend_from_slice(ctx.getenv(&r.name).unwrap_or_default().as_bytes());
        at = r.end;
    }
    out.extend_from_slice(&input[at..]);
    let _ = ctx.stdout.write_all(&out);
    0
}
