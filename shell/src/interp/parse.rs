//! Parsing scripts the way bash reads them: one complete command at a time.
//!
//! bash runs the commands before a syntax error (then reports it with status
//! 2), and an alias defined on one line changes how later lines parse. We
//! tokenize once with brush-parser, then parse the token stream: the whole of
//! it when that succeeds and no alias can matter (the fast path), otherwise
//! the shortest prefix ending at a newline that forms complete commands, run
//! it, and continue with the rest.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use brush_parser::ast::{CompleteCommand, Program};
use brush_parser::{ParseError, ParserOptions, Token};

/// A syntax error, ready to print in bash's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line of the error within the parsed text.
    pub line: usize,
    /// The message after `line N: ` (e.g. ``syntax error near unexpected token `fi'``).
    pub message: String,
    /// The offending source line, quoted by bash on a second line.
    pub source_line: Option<String>,
}

/// Tokens of a script, consumed command by command.
pub struct Script {
    tokens: Vec<Token>,
    pos: usize,
    /// An error found while tokenizing, reported after the tokens before it ran.
    tail_error: Option<SyntaxError>,
    lines: Vec<String>,
    /// The rest of the tokens once failed to parse as a whole: the commands
    /// taken from its front since parsed alone, so the rest still fails,
    /// and trying it again at every step costs time quadratic in its length.
    rest_fails: bool,
}

/// What to do next.
pub enum Step {
    /// Run these commands, then ask again.
    Run(Vec<CompleteCommand>),
    /// Report this error (status 2) and stop.
    Error(SyntaxError),
    /// Report this error, give status 1 and go on after the line (bash's
    /// recovery from an array literal nested in another).
    Skip(SyntaxError),
    /// Nothing left.
    Done,
}

fn options() -> ParserOptions {
    ParserOptions {
        tilde_expansion_after_colon: true,
        ..ParserOptions::default()
    }
}

/// Parses a whole text at once (the fast path; also used for caching).
pub fn parse_whole(source: &str) -> Option<Program> {
    let tokens = merge_subscripts(tokenize(source).ok()?, source);
    parse_tokens(&tokens).ok()
}

/// bash reads `a[1 + 2]=x` as one assignment word although the subscript
/// has blanks; the tokenizer splits it. Rejoins such words (in command
/// position) from the source text.
fn merge_subscripts(tokens: Vec<Token>, source: &str) -> Vec<Token> {
    let needs = tokens
        .iter()
        .any(|t| matches!(t, Token::Word(w, _) if opens_subscript(w)));
    if !needs {
        return tokens;
    }
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    // In command position, or after assignments there (`a[1]= b[2 + 0]=x`).
    let mut cmd_pos = true;
    let mut after_redir = false;
    while i < tokens.len() {
        let here = cmd_pos && !after_redir;
        match &tokens[i] {
            Token::Operator(op, _) if is_redirect_op(op) => after_redir = true,
            Token::Operator(..) => cmd_pos = starts_command(Some(&tokens[i])),
            Token::Word(..) if after_redir => after_redir = false,
            Token::Word(w, _) => {
                cmd_pos = starts_command(Some(&tokens[i])) || (cmd_pos && is_assignment_word(w));
            }
        }
        if let Token::Word(w, loc) = &tokens[i]
            && opens_subscript(w)
            && here
        {
            // Find the word that balances the brackets and is followed by `=`.
            let mut depth = bracket_depth(w);
            let mut j = i + 1;
            let mut end = None;
            while j < tokens.len() {
                // Arithmetic operators inside the subscript (`a[5&3]=x`,
                // `a[(1+2)*3]=x`) come out as operator tokens.
                let next = match &tokens[j] {
                    Token::Word(w, _) => w,
                    Token::Operator(o, _)
                        if matches!(
                            o.as_str(),
                            "&" | "|" | "(" | ")" | "<" | ">" | "<<" | ">>"
                        ) =>
                    {
                        j += 1;
                        continue;
                    }
                    Token::Operator(..) => break,
                };
                let before = depth;
                depth += bracket_depth(next);
                if before > 0 && depth <= 0 {
                    let after = next.rsplit(']').next().unwrap_or("");
                    let whole_closed = next.contains(']');
                    if whole_closed && (after.starts_with('=') || after.starts_with("+=")) {
                        end = Some(j);
                    }
                    break;
                }
                j += 1;
            }
            if let Some(j) = end
                && let Token::Word(_, last) = &tokens[j]
                && last.end.index <= chars.len()
                && loc.start.index <= last.end.index
            {
                let text: String = chars[loc.start.index..last.end.index].iter().collect();
                let span = brush_parser::SourceSpan {
                    start: loc.start.clone(),
                    end: last.end.clone(),
                };
                out.push(Token::Word(text, span));
                i = j + 1;
                cmd_pos = true;
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// `name[` with the bracket still open.
fn opens_subscript(w: &str) -> bool {
    let Some(open) = w.find('[') else {
        return false;
    };
    super::vars::is_valid_name(&w[..open]) && bracket_depth(w) > 0
}

fn bracket_depth(w: &str) -> i32 {
    w.chars()
        .map(|c| match c {
            '[' => 1,
            ']' => -1,
            _ => 0,
        })
        .sum()
}

fn tokenize(source: &str) -> Result<Vec<Token>, String> {
    // A backslash ending the text (`eval 'echo a\'`) is a literal one to
    // bash; the tokenizer would wait for the line it continues.
    let escaped;
    let source = if ends_in_lone_backslash(source) {
        escaped = format!("{source}\\");
        escaped.as_str()
    } else {
        source
    };
    match catch_unwind(|| brush_parser::tokenize_str(source)) {
        Ok(Ok(t)) => Ok(unreserve_after_assignments(mark_loop_headers(
            split_extglob_function_names(split_arith_for_semicolons(split_negated_subshells(
                restore_braced_text(t, source),
                source,
            ))),
        ))),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("tokenizer failure".to_string()),
    }
}

/// Whether `text` ends in an odd number of backslashes.
pub(crate) fn ends_in_lone_backslash(text: &str) -> bool {
    let n = text.len() - text.trim_end_matches('\\').len();
    n % 2 == 1
}

/// The tokenizer rebuilds the inside of `${...}` from sub-tokens, dropping
/// blanks after operators and newlines (`${x#*> }` became `${x#*>}`). A word
/// token is its source text, so a word with `${` takes its text back from
/// the source when the two differ only in blanks (a here-doc body's span
/// also covers its end tag; line continuations are removed from the token).
fn restore_braced_text(mut tokens: Vec<Token>, source: &str) -> Vec<Token> {
    if !source.contains("${") {
        return tokens;
    }
    let chars: Vec<char> = source.chars().collect();
    for t in &mut tokens {
        let Token::Word(w, span) = t else { continue };
        if !w.contains("${") {
            continue;
        }
        let (start, end) = (span.start.index, span.end.index);
        if start > end || end > chars.len() {
            continue;
        }
        let text: String = chars[start..end].iter().collect();
        let squeezed = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        if text != *w && !text.contains("\\\n") && squeezed(&text) == squeezed(w) {
            *w = text;
        }
    }
    tokens
}

/// `if !(a && b); then` negates a subshell (without extglob, bash's reading
/// of a command); the tokenizer makes one extglob word of it. Splits such a
/// word in command position into `!` and the tokens of the subshell.
fn split_negated_subshells(tokens: Vec<Token>, source: &str) -> Vec<Token> {
    let negated = |w: &str| w.starts_with("!(") && w.ends_with(')');
    if !tokens
        .iter()
        .any(|t| matches!(t, Token::Word(w, _) if negated(w)))
    {
        return tokens;
    }
    let chars: Vec<char> = source.chars().collect();
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len() + 4);
    for t in tokens {
        if let Token::Word(w, span) = &t
            && negated(w)
            && starts_command(out.last())
            && span.start.index < span.end.index
            && span.end.index <= chars.len()
        {
            let inner: String = chars[span.start.index + 1..span.end.index].iter().collect();
            if let Ok(sub) = brush_parser::tokenize_str(&inner)
                && matches!(sub.first(), Some(Token::Operator(o, _)) if o == "(")
            {
                let base = brush_parser::SourcePosition {
                    index: span.start.index + 1,
                    line: span.start.line,
                    column: span.start.column + 1,
                };
                let bang = brush_parser::SourceSpan {
                    start: span.start.clone(),
                    end: Arc::new(base.clone()),
                };
                out.push(Token::Word("!".to_string(), bang));
                out.extend(sub.into_iter().map(|t| shift_token(t, &base)));
                continue;
            }
        }
        out.push(t);
    }
    out
}

/// A token of a text that starts at `base` in the source, placed there.
fn shift_token(t: Token, base: &brush_parser::SourcePosition) -> Token {
    let shift = |p: &brush_parser::SourcePosition| {
        Arc::new(brush_parser::SourcePosition {
            index: p.index + base.index,
            line: p.line + base.line - 1,
            column: if p.line == 1 {
                p.column + base.column - 1
            } else {
                p.column
            },
        })
    };
    let span = |s: &brush_parser::SourceSpan| brush_parser::SourceSpan {
        start: shift(&s.start),
        end: shift(&s.end),
    };
    match t {
        Token::Operator(o, s) => Token::Operator(o, span(&s)),
        Token::Word(w, s) => Token::Word(w, span(&s)),
    }
}

/// The tokenizer reads the `;;` of `for ((;;))` as a case terminator; the
/// arithmetic-for grammar needs two `;`. Splits it between `for ((` and `))`.
fn split_arith_for_semicolons(tokens: Vec<Token>) -> Vec<Token> {
    let is_op = |t: Option<&Token>, s: &str| matches!(t, Some(Token::Operator(o, _)) if o == s);
    let mut out = Vec::with_capacity(tokens.len());
    let mut in_header = false;
    for (i, t) in tokens.iter().enumerate() {
        if let Token::Word(w, _) = t
            && w == "for"
            && is_op(tokens.get(i + 1), "(")
            && is_op(tokens.get(i + 2), "(")
        {
            in_header = true;
        }
        match t {
            Token::Operator(o, span) if in_header && o == ";;" => {
                let mid = Arc::new(brush_parser::SourcePosition {
                    index: span.start.index + 1,
                    line: span.start.line,
                    column: span.start.column + 1,
                });
                let first = brush_parser::SourceSpan {
                    start: span.start.clone(),
                    end: mid.clone(),
                };
                let second = brush_parser::SourceSpan {
                    start: mid,
                    end: span.end.clone(),
                };
                out.push(Token::Operator(";".to_string(), first));
                out.push(Token::Operator(";".to_string(), second));
                continue;
            }
            Token::Operator(o, _) if in_header && o == ")" && is_op(tokens.get(i + 1), ")") => {
                in_header = false;
            }
            _ => {}
        }
        out.push(t.clone());
    }
    out
}

/// `@() { ...; }` and `+() ...` define functions named `@` and `+`; the
/// tokenizer reads `@()` as an empty extglob group. Splits such a word in
/// command position, before a function body, into name, `(` and `)`.
fn split_extglob_function_names(tokens: Vec<Token>) -> Vec<Token> {
    // The tokenizer also glues a `{` right after the group to it: `@(){`.
    let is_group = |w: &str| {
        matches!(w.get(..3), Some("@()" | "+()" | "*()" | "?()" | "!()"))
            && matches!(&w[3..], "" | "{")
    };
    let needs = tokens
        .iter()
        .any(|t| matches!(t, Token::Word(w, _) if is_group(w)));
    if !needs {
        return tokens;
    }
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len() + 2);
    for (i, t) in tokens.iter().enumerate() {
        let glued = matches!(t, Token::Word(w, _) if w.len() > 3);
        let body_follows = glued
            || match tokens.get(i + 1) {
                Some(Token::Word(w, _)) => w == "{",
                Some(Token::Operator(o, _)) => o == "(" || o == "\n",
                None => false,
            };
        match t {
            Token::Word(w, span) if is_group(w) && body_follows && starts_command(out.last()) => {
                let at = |k: usize| {
                    Arc::new(brush_parser::SourcePosition {
                        index: span.start.index + k,
                        line: span.start.line,
                        column: span.start.column + k,
                    })
                };
                let piece = |a: usize, b: usize| brush_parser::SourceSpan {
                    start: at(a),
                    end: at(b),
                };
                out.push(Token::Word(w[..1].to_string(), piece(0, 1)));
                out.push(Token::Operator("(".to_string(), piece(1, 2)));
                out.push(Token::Operator(")".to_string(), piece(2, 3)));
                if glued {
                    out.push(Token::Word("{".to_string(), piece(3, 4)));
                }
            }
            _ => out.push(t.clone()),
        }
    }
    out
}

/// Put before the variable name of a `for` clause that was a `select`:
/// brush-parser has no `select`, whose grammar is that of `for`.
pub(crate) const SELECT_MARK: &str = "\u{1}select\u{1}";
/// Put before the variable name of `for NAME in ;` (an empty list): the
/// parser gives it no list at all, like `for NAME;`, which loops over `"$@"`.
pub(crate) const EMPTY_IN_MARK: &str = "\u{1}in\u{1}";

/// The variable name of a `for` clause without the marks of
/// [`mark_loop_headers`], and whether it was a `select` and had an empty
/// `in` list.
pub(crate) fn loop_header_name(name: &str) -> (&str, bool, bool) {
    let (name, select) = match name.strip_prefix(SELECT_MARK) {
        Some(n) => (n, true),
        None => (name, false),
    };
    match name.strip_prefix(EMPTY_IN_MARK) {
        Some(n) => (n, select, true),
        None => (name, select, false),
    }
}

/// How bash numbers the lines of a `$(...)` text: it runs the text as its
/// parser printed it back, without blank lines, comment lines and line
/// continuations. Entry `i` is the number bash gives line `i + 1`.
pub(crate) fn comsub_line_map(source: &str) -> Arc<[u32]> {
    let mut map = Vec::new();
    let mut printed = 0u32;
    let mut continued = false;
    for line in source.split('\n') {
        let text = line.trim();
        if !continued && !text.is_empty() && !text.starts_with('#') {
            printed += 1;
        }
        map.push(printed.max(1));
        let backslashes = line.len() - line.trim_end_matches('\\').len();
        continued = backslashes % 2 == 1;
    }
    map.into()
}

/// A function's text as `declare -f` shows it, without the marks of
/// [`mark_loop_headers`].
pub(crate) fn function_text(def: &brush_parser::ast::FunctionDefinition) -> String {
    format!("{def}")
        .replace(&format!("for {SELECT_MARK}"), "select ")
        .replace(EMPTY_IN_MARK, "")
}

/// Rewrites `select NAME` in command position into `for` with a marked
/// name, and marks the name of `for NAME in` followed by a separator (see
/// [`loop_header_name`]).
fn mark_loop_headers(mut tokens: Vec<Token>) -> Vec<Token> {
    let word = |t: Option<&Token>| match t {
        Some(Token::Word(w, _)) => Some(w.clone()),
        _ => None,
    };
    let mut i = 0;
    while i < tokens.len() {
        let head = word(tokens.get(i));
        let in_command_position = i == 0 || starts_command(tokens.get(i - 1));
        let (Some(head), true, Some(name)) = (head, in_command_position, word(tokens.get(i + 1)))
        else {
            i += 1;
            continue;
        };
        if head != "select" && head != "for" {
            i += 1;
            continue;
        }
        let mut marked = String::new();
        if head == "select" {
            marked.push_str(SELECT_MARK);
            if let Token::Word(w, _) = &mut tokens[i] {
                *w = "for".to_string();
            }
        }
        let empty_in = word(tokens.get(i + 2)).as_deref() == Some("in")
            && matches!(tokens.get(i + 3), Some(Token::Operator(o, _)) if o == ";" || o == "\n");
        if empty_in {
            marked.push_str(EMPTY_IN_MARK);
        }
        if !marked.is_empty()
            && let Token::Word(w, _) = &mut tokens[i + 1]
        {
            *w = format!("{marked}{name}");
        }
        i += 2;
    }
    tokens
}

/// Why a token stream did not parse.
enum Unparsed {
    /// A syntax error, as brush-parser found it.
    Syntax(ParseError),
    /// The parser's step budget ran out (see [`within_parse_budget`]).
    TooComplex,
}

impl From<ParseError> for Unparsed {
    fn from(e: ParseError) -> Self {
        Unparsed::Syntax(e)
    }
}

/// The message for input the parser gave up on (status 2, like a syntax error).
pub(crate) const TOO_COMPLEX: &str =
    "too complex to parse: the parser's backtracking passed its step limit";

/// Runs one brush-parser call on `input_len` bytes (or tokens) of input
/// under a step budget; `None` when the budget, not the input's syntax,
/// ended it. brush-parser's grammars backtrack; the nestings known to cost
/// more per level are memoized in our copy, and the budget bounds the ones
/// not found yet, which would otherwise hold a core past any deadline
/// (vendor/brush-parser/SANDKEEP.md). It grows with the input, far above
/// what scripts use (the Oils cases: at most 14 steps per unit).
pub(crate) fn within_parse_budget<R>(input_len: usize, parse: impl FnOnce() -> R) -> Option<R> {
    const BASE_STEPS: u64 = 200_000;
    const STEPS_PER_UNIT: u64 = 256;
    let steps = BASE_STEPS.saturating_add(STEPS_PER_UNIT.saturating_mul(input_len as u64));
    // The run's deadline reaches a parse too: some are slow without many
    // steps (each copying a large subtree: 1,000 nested `if`s).
    match brush_parser::budget::with_interruptible_step_limit(
        steps,
        crate::cancel::requested,
        parse,
    ) {
        (_, true) => None,
        (result, false) => Some(result),
    }
}

fn parse_tokens(tokens: &[Token]) -> Result<Program, Unparsed> {
    // brush-parser reads each `((` as arithmetic and then as two subshells,
    // so unclosed ones cost it 2^n attempts (24 took seconds, with no point
    // to stop it). A `(` that no `)` after it can close never parses.
    // So it does for each `case`, `if` and loop left open: many of them
    // cannot parse either.
    if has_unclosed_paren(tokens) || unclosed_keywords(tokens) > MAX_UNCLOSED_KEYWORDS {
        return Err(ParseError::ParsingAtEndOfInput.into());
    }
    let opts = options();
    let parsed = within_parse_budget(tokens.len(), || {
        catch_unwind(AssertUnwindSafe(|| {
            brush_parser::parse_tokens(tokens, &opts)
        }))
    });
    let program = match parsed {
        None => return Err(Unparsed::TooComplex),
        Some(Ok(r)) => r?,
        Some(Err(_)) => return Err(ParseError::ParsingAtEndOfInput.into()),
    };
    if let Some(Token::Operator(_, at)) = misplaced_array_literal(tokens).map(|(i, _)| &tokens[i]) {
        return Err(ParseError::ParsingNear((*at.start).clone()).into());
    }
    Ok(program)
}

/// Words brush-parser always takes as reserved in command position.
fn is_reserved(w: &str) -> bool {
    matches!(
        w,
        "!" | "{"
            | "}"
            | "case"
            | "do"
            | "done"
            | "elif"
            | "else"
            | "esac"
            | "fi"
            | "for"
            | "if"
            | "in"
            | "then"
            | "until"
            | "while"
            | "[["
            | "]]"
            | "function"
            | "select"
            | "coproc"
    )
}

/// After an assignment word (`FOO=bar for`, `X=1 [[ a ]]`) bash reads a
/// reserved word as a command name (not found, status 127). Escapes such a
/// word (`\for`), so the parser takes it as an ordinary one.
fn unreserve_after_assignments(mut tokens: Vec<Token>) -> Vec<Token> {
    let mut cmd_pos = true;
    let mut after_assign = false;
    let mut after_redir = false;
    for t in &mut tokens {
        match t {
            Token::Operator(op, _) if is_redirect_op(op) => after_redir = true,
            Token::Operator(op, _) => {
                cmd_pos = op_starts_command(op);
                after_assign = false;
            }
            Token::Word(..) if after_redir => after_redir = false,
            Token::Word(w, _) if cmd_pos => {
                if is_assignment_word(w) {
                    after_assign = true;
                    continue;
                }
                if after_assign && is_reserved(w) {
                    w.insert(0, '\\');
                    cmd_pos = false;
                } else {
                    cmd_pos = word_starts_command(w);
                }
                after_assign = false;
            }
            Token::Word(..) => {}
        }
    }
    tokens
}

/// Builtins after which bash's parser accepts `name=(...)` arguments.
fn takes_array_literals(name: &str) -> bool {
    matches!(
        name,
        "alias" | "declare" | "eval" | "export" | "let" | "local" | "readonly" | "typeset"
    )
}

/// The `(` of an array literal bash refuses and brush-parser takes: after a
/// command name other than a declaration builtin (`builtin declare a=(1)`,
/// `echo a=(1)`), after a redirection of such a builtin, with a blank
/// before it (`a= (1)`), or nested in another literal (`a=(b=())`, the
/// flag: bash reports that one and goes on with the next line).
fn misplaced_array_literal(tokens: &[Token]) -> Option<(usize, bool)> {
    let mut cmd_pos = true;
    let mut assign_ok = false;
    let mut after_redir = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Operator(op, at) if op == "(" && i > 0 => {
                if let Token::Word(w, wat) = &tokens[i - 1]
                    && w.ends_with('=')
                    && is_assignment_word(w)
                    && (cmd_pos || assign_ok)
                {
                    if wat.end.index != at.start.index {
                        return Some((i, false));
                    }
                    // Skip the literal; a `(` inside it is an error.
                    i += 1;
                    while i < tokens.len()
                        && !matches!(&tokens[i], Token::Operator(o, _) if o == ")")
                    {
                        if matches!(&tokens[i], Token::Operator(o, _) if o == "(") {
                            return Some((i, true));
                        }
                        i += 1;
                    }
                } else if let Token::Word(w, _) = &tokens[i - 1]
                    && w.ends_with('=')
                    && is_assignment_word(w)
                    && !after_redir
                {
                    return Some((i, false));
                } else {
                    cmd_pos = true;
                    assign_ok = false;
                }
            }
            Token::Operator(op, _) if is_redirect_op(op) => {
                after_redir = true;
                assign_ok = false;
            }
            Token::Operator(op, _) => {
                // After `f()` and a case pattern's `)` comes a command.
                cmd_pos = starts_command(Some(&tokens[i])) || op == ")";
                assign_ok = false;
            }
            Token::Word(..) if after_redir => after_redir = false,
            Token::Word(w, _) if w == "[[" && cmd_pos => {
                // `[[ x =~ a=(b) ]]` is a pattern, not a literal.
                while i < tokens.len() && !matches!(&tokens[i], Token::Word(w, _) if w == "]]") {
                    i += 1;
                }
                cmd_pos = false;
            }
            Token::Word(w, _) if cmd_pos => {
                if !is_assignment_word(w) && !starts_command(Some(&tokens[i])) {
                    cmd_pos = false;
                    assign_ok = takes_array_literals(w);
                }
            }
            Token::Word(..) => {}
        }
        i += 1;
    }
    None
}

/// Whether some `(` operator of `tokens` has no `)` operator after it left
/// to close it (`((` and `))` count twice; parentheses inside words, as in
/// `$(...)` or `@(...)`, are the words' own).
fn has_unclosed_paren(tokens: &[Token]) -> bool {
    let mut open = 0usize;
    for t in tokens {
        if let Token::Operator(op, _) = t {
            for c in op.chars() {
                match c {
                    '(' => open += 1,
                    ')' => open = open.saturating_sub(1),
                    _ => {}
                }
            }
        }
    }
    open > 0
}

/// Compound commands left open (by [`unclosed_keywords`]'s count) past
/// which a text is refused before brush-parser tries it: past what real
/// scripts have open at a line's end, below where its backtracking shows.
const MAX_UNCLOSED_KEYWORDS: usize = 12;

/// How many compound commands `tokens` open (`if`, `case`, loops, `{` in
/// command position) that no closing word after them (`fi`, `esac`,
/// `done`, `}`) closes. A keyword in an odd place may go uncounted, which
/// only lets the parser see the text.
fn unclosed_keywords(tokens: &[Token]) -> usize {
    let mut open = 0usize;
    let mut prev: Option<&Token> = None;
    for t in tokens {
        if let Token::Word(w, _) = t {
            let after_close = matches!(
                prev.map(Token::to_str),
                Some(")" | "}" | "fi" | "done" | "esac")
            );
            // A `case` pattern's `)` (and a function's `()`) starts a command too.
            let after_paren = matches!(prev, Some(Token::Operator(op, _)) if op == ")");
            match w.as_str() {
                "if" | "case" | "while" | "until" | "for" | "select" | "{"
                    if starts_command(prev) || after_paren =>
                {
                    open += 1
                }
                "fi" | "esac" | "done" | "}" if starts_command(prev) || after_close => {
                    open = open.saturating_sub(1)
                }
                _ => {}
            }
        }
        prev = Some(t);
    }
    open
}

fn is_newline(t: &Token) -> bool {
    matches!(t, Token::Operator(s, _) if s == "\n")
}

fn token_line(t: &Token) -> usize {
    match t {
        Token::Operator(_, l) | Token::Word(_, l) => l.start.line,
    }
}

/// Message for an unterminated construct found by the tokenizer.
fn tokenizer_message(err: &str) -> String {
    let quote = if err.contains("single quote") || err.contains("ANSI C") {
        Some("'")
    } else if err.contains("double quote") {
        Some("\"")
    } else if err.contains("backquote") {
        Some("`")
    } else if err.contains("command substitution") || err.contains("extglob") {
        Some(")")
    } else if err.contains("variable expression") {
        Some("}")
    } else {
        None
    };
    match quote {
        Some(q) => format!("unexpected EOF while looking for matching `{q}'"),
        None => "syntax error: unexpected end of file".to_string(),
    }
}

impl Script {
    /// Tokenizes `source`. A tokenizer error (an unterminated quote) keeps the
    /// complete lines before it runnable and is reported after them.
    pub fn new(source: &str) -> Script {
        let lines: Vec<String> = source.lines().map(str::to_string).collect();
        match tokenize(source) {
            Ok(tokens) => Script {
                tokens,
                pos: 0,
                tail_error: None,
                lines,
                rest_fails: false,
            },
            Err(e) => {
                // Find the longest run of whole lines that tokenizes.
                let mut cut = source.len();
                let mut tokens = Vec::new();
                while let Some(nl) = source[..cut].rfind('\n') {
                    cut = nl;
                    if let Ok(t) = tokenize(&source[..=nl]) {
                        tokens = t;
                        break;
                    }
                }
                let line = source.matches('\n').count() + usize::from(!source.ends_with('\n'));
                let message = tokenizer_message(&e);
                let err = SyntaxError {
                    line: line.max(1),
                    message,
                    source_line: None,
                };
                Script {
                    tokens,
                    pos: 0,
                    tail_error: Some(err),
                    lines,
                    rest_fails: false,
                }
            }
        }
    }

    /// How many tokens the steps so far consumed.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The span (char indices of the source) of the tokens from token `from`
    /// up to the current position, without leading and trailing newlines:
    /// the text of the last step, as an interactive shell records it.
    pub fn span_since(&self, from: usize) -> Option<(usize, usize)> {
        let tokens = self.tokens.get(from..self.pos)?;
        let location = |t: &Token| match t {
            Token::Operator(_, l) | Token::Word(_, l) => (l.start.index, l.end.index),
        };
        let first = tokens.iter().find(|t| !is_newline(t))?;
        let last = tokens.iter().rev().find(|t| !is_newline(t))?;
        Some((location(first).0, location(last).1))
    }

    /// The text of the commands since `from` ([`Self::span_since`]), cut
    /// from `chars`, the source's characters.
    pub fn text_since(&self, from: usize, chars: &[char]) -> Option<String> {
        let (a, b) = self.span_since(from)?;
        Some(chars.get(a..b).unwrap_or_default().iter().collect())
    }

    /// The next step. `aliases` (when `expand_aliases` is on) are expanded in
    /// command position; `incremental` forces command-by-command parsing
    /// (an alias defined now must affect the next line).
    pub fn next(&mut self, aliases: Option<&HashMap<String, String>>, incremental: bool) -> Step {
        // Skip blank lines.
        while self.pos < self.tokens.len() && is_newline(&self.tokens[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= self.tokens.len() {
            return match self.tail_error.take() {
                Some(e) => Step::Error(e),
                None => Step::Done,
            };
        }
        let aliases = aliases.filter(|a| !a.is_empty());
        let rest = &self.tokens[self.pos..];
        if aliases.is_none() && !incremental && !self.rest_fails {
            match parse_tokens(rest) {
                Ok(p) => {
                    self.pos = self.tokens.len();
                    return Step::Run(p.complete_commands);
                }
                Err(_) => self.rest_fails = true,
            }
        }
        // The shortest prefix ending at a newline (or the end) that parses.
        let mut end = self.pos;
        loop {
            while end < self.tokens.len() && !is_newline(&self.tokens[end]) {
                end += 1;
            }
            let slice = &self.tokens[self.pos..end];
            let expanded;
            let slice = match aliases {
                Some(a) => {
                    expanded = expand_aliases(slice, a);
                    &expanded[..]
                }
                None => slice,
            };
            match parse_tokens(slice) {
                Ok(p) if !p.complete_commands.is_empty() => {
                    self.pos = end;
                    return Step::Run(p.complete_commands);
                }
                Ok(_) => {}
                Err(Unparsed::TooComplex) => {
                    self.pos = self.tokens.len();
                    self.tail_error = None;
                    if crate::cancel::requested() {
                        // Not the input's fault: the run's deadline (or
                        // another limit) stopped the parse; the run reports it.
                        return Step::Done;
                    }
                    return Step::Error(SyntaxError {
                        line: slice.iter().find(|t| !is_newline(t)).map_or(1, token_line),
                        message: TOO_COMPLEX.to_string(),
                        source_line: None,
                    });
                }
                Err(Unparsed::Syntax(e)) => {
                    if let Some((i, true)) = misplaced_array_literal(slice) {
                        let at = match &slice[i] {
                            Token::Operator(_, l) | Token::Word(_, l) => (*l.start).clone(),
                        };
                        let err = self.describe(ParseError::ParsingNear(at), slice);
                        self.pos = end;
                        return Step::Skip(err);
                    }
                    if end >= self.tokens.len() {
                        self.pos = self.tokens.len();
                        self.tail_error = None;
                        return Step::Error(self.describe(e, slice));
                    }
                }
            }
            if end >= self.tokens.len() {
                self.pos = end;
                return Step::Done;
            }
            end += 1;
        }
    }

    fn describe(&self, err: ParseError, tokens: &[Token]) -> SyntaxError {
        match err {
            ParseError::ParsingNear(pos) => {
                let at = tokens.iter().position(|t| match t {
                    Token::Operator(_, l) | Token::Word(_, l) => l.start.index == pos.index,
                });
                // The parser often notices a stray closing word only at the
                // newline after it; bash names the word itself.
                let at = match at {
                    Some(i) if i > 0 && is_newline(&tokens[i]) && is_closer(&tokens[i - 1]) => {
                        Some(i - 1)
                    }
                    other => other,
                };
                let tok = at.map(|i| tokens[i].to_str().to_string());
                match tok {
                    Some(t) if t == "\n" => SyntaxError {
                        line: pos.line,
                        message: "syntax error near unexpected token `newline'".to_string(),
                        source_line: self.lines.get(pos.line.wrapping_sub(1)).cloned(),
                    },
                    Some(t) => SyntaxError {
                        line: pos.line,
                        message: format!("syntax error near unexpected token `{t}'"),
                        source_line: self.lines.get(pos.line.wrapping_sub(1)).cloned(),
                    },
                    None => self.eof_error(tokens),
                }
            }
            ParseError::ParsingAtEndOfInput => self.eof_error(tokens),
            ParseError::Tokenizing { inner, position } => SyntaxError {
                line: position.map(|p| p.line).unwrap_or(1),
                message: tokenizer_message(&inner.to_string()),
                source_line: None,
            },
        }
    }

    fn eof_error(&self, tokens: &[Token]) -> SyntaxError {
        if let Some(Token::Operator(op, l)) = tokens.last()
            && is_redirect_op(op)
        {
            return SyntaxError {
                line: l.start.line,
                message: "syntax error near unexpected token `newline'".to_string(),
                source_line: self.lines.get(l.start.line.wrapping_sub(1)).cloned(),
            };
        }
        if let Some(t) = tokens.last()
            && matches!(t.to_str(), "fi" | "done" | "esac" | "}" | ")" | ";;")
        {
            let line = token_line(t);
            return SyntaxError {
                line,
                message: format!("syntax error near unexpected token `{}'", t.to_str()),
                source_line: self.lines.get(line.wrapping_sub(1)).cloned(),
            };
        }
        let line = tokens
            .last()
            .map(token_line)
            .unwrap_or(1)
            .max(self.lines.len());
        SyntaxError {
            line: line.max(1),
            message: "syntax error: unexpected end of file".to_string(),
            source_line: None,
        }
    }
}

/// Words that close a construct: a syntax error when nothing is open.
fn is_closer(t: &Token) -> bool {
    matches!(
        t.to_str(),
        "fi" | "done" | "esac" | "then" | "else" | "elif" | "do" | "}" | ")" | ";;" | "in"
    )
}

/// Words after which the next word is in command position.
fn starts_command(prev: Option<&Token>) -> bool {
    match prev {
        None => true,
        Some(Token::Operator(op, _)) => op_starts_command(op),
        Some(Token::Word(w, _)) => word_starts_command(w),
    }
}

/// Operators after which the next word is in command position.
fn op_starts_command(op: &str) -> bool {
    matches!(
        op,
        ";" | "&" | "&&" | "||" | "|" | "|&" | "(" | "\n" | ";;" | ";&" | ";;&"
    )
}

/// Reserved words after which the next word is in command position.
fn word_starts_command(w: &str) -> bool {
    matches!(
        w,
        "then" | "else" | "elif" | "do" | "while" | "until" | "if" | "!" | "{" | "time"
    )
}

fn is_redirect_op(op: &str) -> bool {
    matches!(
        op,
        "<" | ">" | ">>" | "<<" | "<<-" | "<<<" | "<&" | ">&" | "<>" | ">|" | "&>" | "&>>"
    )
}

fn is_assignment_word(w: &str) -> bool {
    match w.find('=') {
        Some(i) if i > 0 => {
            let name = w[..i].trim_end_matches('+');
            let name = name.split('[').next().unwrap_or("");
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    }
}

/// Replaces aliased words in command position by their tokenized values
/// (recursively, never re-expanding an alias inside its own expansion).
fn expand_aliases(tokens: &[Token], aliases: &HashMap<String, String>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut cmd_pos = true;
    let mut after_redir = false;
    for t in tokens {
        match t {
            Token::Operator(op, _) => {
                if is_redirect_op(op) {
                    after_redir = true;
                } else {
                    cmd_pos = starts_command(Some(t));
                }
                out.push(t.clone());
            }
            Token::Word(w, _) => {
                if after_redir {
                    after_redir = false;
                    out.push(t.clone());
                    continue;
                }
                if cmd_pos {
                    if is_assignment_word(w) {
                        out.push(t.clone());
                        continue;
                    }
                    if let Some(v) = aliases.get(w.as_str())
                        && let Ok(sub) = tokenize(v)
                    {
                        let mut rest = aliases.clone();
                        rest.remove(w.as_str());
                        out.extend(expand_aliases(&sub, &rest));
                        cmd_pos = v.ends_with(' ') || v.ends_with('\t');
                        continue;
                    }
                }
                cmd_pos = starts_command(Some(t));
                out.push(t.clone());
            }
        }
    }
    out
}

/// Parsed programs by source text, so loops that run the same `$(...)` or
/// `eval` string parse it once.
#[derive(Clone, Default)]
pub struct ParseCache {
    map: Arc<std::sync::Mutex<HashMap<String, Arc<Program>>>>,
}

impl ParseCache {
    /// The parsed program of `source`, when it parses whole.
    pub fn get(&self, source: &str) -> Option<Arc<Program>> {
        if let Some(p) = self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(source)
        {
            return Some(p.clone());
        }
        let p = Arc::new(parse_whole(source)?);
        let mut m = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() > 512 {
            m.clear();
        }
        m.insert(source.to_string(), p.clone());
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_that_spends_its_step_budget_is_too_complex_not_a_syntax_error() {
        let script = "if true; then echo a; fi\n".repeat(50);
        // The budget of an enclosing call caps the parses inside it.
        let (out, exhausted) = brush_parser::budget::with_step_limit(20, || steps(&script));
        assert!(exhausted);
        assert_eq!(out, vec![format!("err 1 {TOO_COMPLEX}")]);
        // With the budget this input gets on its own, it parses.
        assert_eq!(steps(&script), vec!["run 50"]);
    }

    #[test]
    fn an_inner_step_budget_counts_against_the_outer_one() {
        // Each expansion is a word piece: one step or more apiece.
        let word = "$a$b$c$d$e$f$g$h$i$j${k}${l}";
        let opts = ParserOptions::default();
        let ((inner, inner_exhausted), outer_exhausted) =
            brush_parser::budget::with_step_limit(5, || {
                brush_parser::budget::with_step_limit(1_000_000, || {
                    brush_parser::word::parse(word, &opts).is_ok()
                })
            });
        assert!(!inner && inner_exhausted && outer_exhausted);
        let (parsed, exhausted) = brush_parser::budget::with_step_limit(1_000_000, || {
            brush_parser::word::parse(word, &opts).is_ok()
        });
        assert!(parsed && !exhausted);
    }

    fn steps(src: &str) -> Vec<String> {
        let mut s = Script::new(src);
        let mut out = Vec::new();
        loop {
            match s.next(None, false) {
                Step::Run(c) => out.push(format!("run {}", c.len())),
                Step::Error(e) => {
                    out.push(format!("err {} {}", e.line, e.message));
                    break;
                }
                Step::Skip(e) => out.push(format!("skip {} {}", e.line, e.message)),
                Step::Done => break,
            }
        }
        out
    }

    #[test]
    fn commands_before_an_error_run() {
        assert_eq!(
            steps("echo a\necho b\nfi\necho c"),
            vec![
                "run 1",
                "run 1",
                "err 3 syntax error near unexpected token `fi'"
            ]
        );
    }

    #[test]
    fn whole_programs_parse_at_once() {
        assert_eq!(steps("echo a\nif true; then\n echo b\nfi\n"), vec!["run 2"]);
    }

    #[test]
    fn unterminated_constructs() {
        assert_eq!(
            steps("echo a\nif true; then"),
            vec!["run 1", "err 2 syntax error: unexpected end of file"]
        );
        let s = steps("echo a\necho 'x");
        assert_eq!(s[0], "run 1");
        assert!(
            s[1].contains("unexpected EOF while looking for matching"),
            "{s:?}"
        );
    }

    #[test]
    fn nested_array_literal_skips_its_line() {
        assert_eq!(
            steps("a=( x=() ); echo no\necho b\n"),
            vec!["skip 1 syntax error near unexpected token `('", "run 1"]
        );
        assert_eq!(
            steps("echo a=(1)\necho b\n"),
            vec!["err 1 syntax error near unexpected token `('"]
        );
    }

    #[test]
    fn comsub_lines_skip_blanks_comments_and_continuations() {
        let map = comsub_line_map("\n\necho a\n# c\n\necho b \\\n c\necho d");
        assert_eq!(&map[..], &[1, 1, 1, 1, 1, 2, 2, 3]);
    }

    #[test]
    fn aliases_apply_to_later_lines() {
        let mut a = HashMap::new();
        a.insert("ll".to_string(), "echo hi ".to_string());
        let toks = brush_parser::tokenize_str("ll ll x").unwrap();
        let e = expand_aliases(&toks, &a);
        let words: Vec<_> = e.iter().map(|t| t.to_str().to_string()).collect();
        assert_eq!(words, vec!["echo", "hi", "echo", "hi", "x"]);
    }
}
