//! One `rg` search: ripgrep's own matcher (`grep-regex`), searcher
//! (`grep-searcher`) and printers (`grep-printer`) set up as ripgrep 13
//! sets them for output that is not a terminal, over file contents read
//! from the VFS (never the host: every search is of an in-memory slice).

use grep_matcher::LineTerminator;
use grep_printer::{
    JSON, JSONBuilder, Standard, StandardBuilder, Stats, Summary, SummaryBuilder, SummaryKind,
};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use termcolor::NoColor;

use super::options::{Case, Config, Output};

/// The printer of a run, by output kind; each writes into a buffer that
/// the command hands to stdout after each file.
pub(crate) enum Printer {
    Standard(Standard<NoColor<Vec<u8>>>),
    Summary(Summary<NoColor<Vec<u8>>>),
    Json(JSON<Vec<u8>>),
}

/// What one file's search found.
pub(crate) struct Found {
    pub matched: bool,
}

/// The regex matcher for the patterns, or the error in ripgrep's words.
pub(crate) fn matcher(cfg: &Config, patterns: &[String]) -> Result<RegexMatcher, String> {
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(cfg.case == Case::Insensitive)
        .case_smart(cfg.case == Case::Smart)
        .word(cfg.word)
        .whole_line(cfg.line)
        .fixed_strings(cfg.fixed)
        .unicode(cfg.unicode)
        .octal(false)
        .multi_line(true)
        .dot_matches_new_line(cfg.multiline && cfg.dotall);
    if !cfg.multiline {
        b.line_terminator(Some(if cfg.null_data { b'\0' } else { b'\n' }));
    }
    // After the line terminator: CRLF mode sets its own.
    b.crlf(cfg.crlf);
    // ripgrep 13 refuses a line-oriented pattern that holds a newline
    // (newer matchers would split it into lines).
    if !cfg.multiline && !cfg.null_data && patterns.iter().any(|p| p.contains('\n')) {
        return Err("the literal '\"\\n\"' is not allowed in a regex\n\n\
                    Consider enabling multiline mode with the --multiline flag (or -U for short).\n\
                    When multiline mode is enabled, new line characters can be matched."
            .to_string());
    }
    // No pattern (an empty -f file) matches nothing, as in ripgrep.
    let built = if patterns.is_empty() {
        b.build(r"[^\s\S]")
    } else {
        b.build_many(patterns)
    };
    built.map_err(|e| e.to_string())
}

/// The searcher for one file (`explicit`: named on the command line, so a
/// binary file is searched with NULs replaced rather than skipped).
pub(crate) fn searcher(cfg: &Config, explicit: bool, line_number: bool) -> Searcher {
    let mut b = SearcherBuilder::new();
    let terminator = if cfg.null_data {
        LineTerminator::byte(b'\0')
    } else if cfg.crlf {
        LineTerminator::crlf()
    } else {
        LineTerminator::byte(b'\n')
    };
    let binary = if cfg.text || cfg.null_data {
        BinaryDetection::none()
    } else if cfg.binary || explicit {
        BinaryDetection::convert(b'\0')
    } else {
        BinaryDetection::quit(b'\0')
    };
    let contexts = matches!(cfg.output, Output::Lines | Output::Json);
    b.line_terminator(terminator)
        .invert_match(cfg.invert)
        .line_number(line_number)
        .multi_line(cfg.multiline)
        .before_context(if contexts { cfg.before } else { 0 })
        .after_context(if contexts { cfg.after } else { 0 })
        .passthru(cfg.passthru)
        .binary_detection(binary)
        .max_matches(cfg.max_count)
        .memory_map(grep_searcher::MmapChoice::never());
    b.build()
}

/// The printer for the run's output kind.
pub(crate) fn printer(cfg: &Config, with_filename: bool) -> Printer {
    let column = cfg.column.unwrap_or(cfg.vimgrep);
    match cfg.output {
        Output::Lines => {
            let mut b = StandardBuilder::new();
            b.heading(cfg.heading && !cfg.vimgrep)
                .path(with_filename)
                .only_matching(cfg.only_matching)
                .per_match(cfg.vimgrep)
                .replacement(cfg.replace.clone())
                .max_columns(cfg.max_columns.filter(|n| *n > 0))
                .max_columns_preview(cfg.max_columns_preview)
                .column(column)
                .byte_offset(cfg.byte_offset)
                .trim_ascii(cfg.trim)
                .stats(cfg.stats)
                .separator_search(file_separator(cfg))
                .separator_context(cfg.context_separator.clone())
                .separator_field_match(cfg.field_match.clone())
                .separator_field_context(cfg.field_context.clone())
                .separator_path(cfg.path_separator)
                .path_terminator(cfg.null.then_some(b'\0'));
            Printer::Standard(b.build_no_color(Vec::new()))
        }
        Output::Json => {
            let mut b = JSONBuilder::new();
            b.always_begin_end(false);
            Printer::Json(b.build(Vec::new()))
        }
        kind => {
            let kind = match kind {
                Output::Count => SummaryKind::Count,
                Output::CountMatches => SummaryKind::CountMatches,
                Output::WithMatches => SummaryKind::PathWithMatch,
                Output::WithoutMatch => SummaryKind::PathWithoutMatch,
                _ => SummaryKind::QuietWithMatch,
            };
            let mut b = SummaryBuilder::new();
            b.kind(kind)
                .path(with_filename)
                .exclude_zero(!cfg.include_zero)
                .stats(cfg.stats)
                .separator_field(cfg.field_match.clone())
                .separator_path(cfg.path_separator)
                .path_terminator(cfg.null.then_some(b'\0'));
            Printer::Summary(b.build_no_color(Vec::new()))
        }
    }
}

/// What ripgrep prints between the results of two files: a blank line
/// under `--heading`, the context separator when there is context.
fn file_separator(cfg: &Config) -> Option<Vec<u8>> {
    if cfg.heading && !cfg.vimgrep {
        Some(Vec::new())
    } else if cfg.before > 0 || cfg.after > 0 {
        cfg.context_separator.clone()
    } else {
        None
    }
}

impl Printer {
    /// Searches `data` (the contents of `shown`), printing into the buffer:
    /// as one slice (`slice`, what ripgrep does through a memory map for
    /// a few file operands) or as a stream (walks and stdin), which see
    /// binary data differently. The error is the searcher's, in its words.
    pub(crate) fn search(
        &mut self,
        searcher: &mut Searcher,
        matcher: &RegexMatcher,
        shown: &str,
        data: &[u8],
        slice: bool,
        stats: &mut Stats,
    ) -> Result<Found, String> {
        let path = std::path::Path::new(shown);
        macro_rules! run {
            ($sink:expr, $stats:ident => $add:expr) => {{
                let mut sink = $sink;
                let done = if slice {
                    searcher.search_slice(matcher, data, &mut sink)
                } else {
                    searcher.search_reader(matcher, data, &mut sink)
                };
                done.map_err(|e| e.to_string())?;
                let $stats = sink.stats();
                $add;
                Found {
                    matched: sink.has_match(),
                }
            }};
        }
        Ok(match self {
            Printer::Standard(p) => run!(p.sink_with_path(matcher, path), s => if let Some(s) = s {
                *stats += s;
            }),
            Printer::Summary(p) => run!(p.sink_with_path(matcher, path), s => if let Some(s) = s {
                *stats += s;
            }),
            Printer::Json(p) => run!(p.sink_with_path(matcher, path), s => *stats += s),
        })
    }

    /// The bytes printed so far, taken.
    pub(crate) fn take(&mut self) -> Vec<u8> {
        match self {
            Printer::Standard(p) => std::mem::take(p.get_mut().get_mut()),
            Printer::Summary(p) => std::mem::take(p.get_mut().get_mut()),
            Printer::Json(p) => std::mem::take(p.get_mut()),
        }
    }
}
