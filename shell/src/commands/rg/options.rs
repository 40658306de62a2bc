//! `rg`'s options, declared once ([`RgOpt`]), and the settings they make
//! ([`Config`]): ripgrep 13's defaults for output that is not a terminal,
//! and its rule that a later flag overrides an earlier one of its pair
//! (`-n`/`-N`, `-i`/`-s`/`-S`, `--heading`/`--no-heading`).

use crate::commands::common::getopt::{ParseMode, Parsed};

declare_options! {
    /// ripgrep 13's flags, in the order of its `-h` listing.
    pub(crate) enum RgOpt {
        usage: "ripgrep 13.0.0
Andrew Gallant <jamslam@gmail.com>

ripgrep (rg) recursively searches the current directory for a regex pattern.
By default, ripgrep will respect gitignore rules and automatically skip hidden
files/directories and binary files.

USAGE:
    rg [OPTIONS] PATTERN [PATH ...]
    rg [OPTIONS] -e PATTERN ... [PATH ...]
    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]
    rg [OPTIONS] --files [PATH ...]
    rg [OPTIONS] --type-list
    command | rg [OPTIONS] PATTERN",
        about: "OPTIONS:",
        after: "In this sandbox rg searches the virtual filesystem: no colour, no PCRE2,
no compressed files, no preprocessors.",
        mode: ParseMode {
            stop_at_operand: false,
            digit_option: false,
            negative_numbers: false,
            no_long: false,
            exact_long: true,
        },
        rows: [
            AfterContext: 'A' "after-context" required "NUM" => "show NUM lines after each match",
            BeforeContext: 'B' "before-context" required "NUM" => "show NUM lines before each match",
            Binary: - "binary" none => "search binary files, reporting matches in them",
            NoBinary: - "no-binary" none => "",
            BlockBuffered: - "block-buffered" none => "accepted; output is block buffered",
            LineBuffered: - "line-buffered" none => "accepted; output is line buffered",
            ByteOffset: 'b' "byte-offset" none => "print the 0-based byte offset of each line",
            NoByteOffset: - "no-byte-offset" none => "",
            CaseSensitive: 's' "case-sensitive" none => "search case sensitively (default)",
            Color: - "color" required "WHEN" => "accepted; output is never coloured",
            Colors: - "colors" required "SPEC" => "accepted and ignored",
            Column: - "column" none => "show column numbers (1-based) of the first match",
            NoColumn: - "no-column" none => "",
            Context: 'C' "context" required "NUM" => "show NUM lines before and after each match",
            ContextSeparator: - "context-separator" required "SEP" => "the string between context groups (default --)",
            NoContextSeparator: - "no-context-separator" none => "print nothing between context groups",
            Count: 'c' "count" none => "print the number of matching lines per file",
            CountMatches: - "count-matches" none => "print the number of matches per file",
            Crlf: - "crlf" none => "treat CRLF as a line terminator",
            NoCrlf: - "no-crlf" none => "",
            Debug: - "debug" none => "accepted and ignored",
            Trace: - "trace" none => "",
            DfaSizeLimit: - "dfa-size-limit" required "NUM" => "accepted and ignored",
            Encoding: 'E' "encoding" required "ENCODING" => "the text encoding of files (utf-8 only here)",
            Engine: - "engine" required "ENGINE" => "default is the only engine here",
            FieldContextSeparator: - "field-context-separator" required "SEP" => "separator of context line fields (default -)",
            FieldMatchSeparator: - "field-match-separator" required "SEP" => "separator of match line fields (default :)",
            File: 'f' "file" required "PATTERNFILE" => "search for the patterns in PATTERNFILE, one a line",
            Files: - "files" none => "print each file that would be searched",
            FilesWithMatches: 'l' "files-with-matches" none => "print the paths with at least one match",
            FilesWithoutMatch: - "files-without-match" none => "print the paths with no match",
            FixedStrings: 'F' "fixed-strings" none => "treat the patterns as literal strings",
            NoFixedStrings: - "no-fixed-strings" none => "",
            Follow: 'L' "follow" none => "follow symbolic links",
            NoFollow: - "no-follow" none => "",
            Glob: 'g' "glob" required "GLOB" => "include or exclude (!GLOB) files and directories",
            GlobCaseInsensitive: - "glob-case-insensitive" none => "match every glob case insensitively",
            NoGlobCaseInsensitive: - "no-glob-case-insensitive" none => "",
            ShortHelp: 'h' - none => "print this help",
            Heading: - "heading" none => "print matches grouped under each file's path",
            NoHeading: - "no-heading" none => "",
            Hidden: '.' "hidden" none => "search hidden files and directories",
            NoHidden: - "no-hidden" none => "",
            Iglob: - "iglob" required "GLOB" => "as --glob, case insensitively",
            IgnoreCase: 'i' "ignore-case" none => "search case insensitively",
            IgnoreFile: - "ignore-file" required "PATH" => "read more ignore rules from PATH",
            IgnoreFileCaseInsensitive: - "ignore-file-case-insensitive" none => "accepted and ignored",
            IncludeZero: - "include-zero" none => "with -c, list files with zero matches too",
            InvertMatch: 'v' "invert-match" none => "print the lines that do not match",
            Json: - "json" none => "print results as JSON Lines",
            NoJson: - "no-json" none => "",
            LineNumber: 'n' "line-number" none => "show line numbers",
            LineRegexp: 'x' "line-regexp" none => "match only whole lines",
            MaxColumns: 'M' "max-columns" required "NUM" => "omit lines longer than NUM bytes",
            MaxColumnsPreview: - "max-columns-preview" none => "print a preview of omitted lines",
            MaxCount: 'm' "max-count" required "NUM" => "stop after NUM matching lines per file",
            MaxDepth: - "max-depth" required "NUM" => "descend at most NUM directories",
            Maxdepth: - "maxdepth" required "NUM" => "",
            MaxFilesize: - "max-filesize" required "NUM+SUFFIX?" => "skip files larger than this (K, M, G suffixes)",
            Mmap: - "mmap" none => "accepted and ignored",
            NoMmap: - "no-mmap" none => "",
            Multiline: 'U' "multiline" none => "let matches span lines",
            NoMultiline: - "no-multiline" none => "",
            MultilineDotall: - "multiline-dotall" none => "with -U, '.' matches a newline too",
            NoMultilineDotall: - "no-multiline-dotall" none => "",
            NoConfig: - "no-config" none => "never read configuration files (none are read here)",
            NoFilename: 'I' "no-filename" none => "never print the path with matching lines",
            NoIgnore: - "no-ignore" none => "don't respect ignore files",
            Ignore: - "ignore" none => "",
            NoIgnoreDot: - "no-ignore-dot" none => "don't respect .ignore files",
            IgnoreDot: - "ignore-dot" none => "",
            NoIgnoreExclude: - "no-ignore-exclude" none => "accepted (there are no exclusion files here)",
            NoIgnoreFiles: - "no-ignore-files" none => "don't respect --ignore-file",
            NoIgnoreGlobal: - "no-ignore-global" none => "accepted (there is no global ignore file here)",
            NoIgnoreMessages: - "no-ignore-messages" none => "accepted and ignored",
            NoIgnoreParent: - "no-ignore-parent" none => "don't respect ignore files in parent directories",
            IgnoreParent: - "ignore-parent" none => "",
            NoIgnoreVcs: - "no-ignore-vcs" none => "don't respect .gitignore files",
            IgnoreVcs: - "ignore-vcs" none => "",
            NoLineNumber: 'N' "no-line-number" none => "suppress line numbers",
            NoMessages: - "no-messages" none => "suppress error messages about files",
            Messages: - "messages" none => "",
            NoPcre2Unicode: - "no-pcre2-unicode" none => "accepted and ignored",
            NoRequireGit: - "no-require-git" none => "respect .gitignore files outside git repositories",
            RequireGit: - "require-git" none => "",
            NoUnicode: - "no-unicode" none => "disable Unicode mode of the regex",
            Unicode: - "unicode" none => "",
            Null: '0' "null" none => "print a NUL byte after each path",
            NullData: - "null-data" none => "use NUL as the line terminator",
            OneFileSystem: - "one-file-system" none => "accepted (there is one file system)",
            OnlyMatching: 'o' "only-matching" none => "print only the matched parts of lines",
            Passthru: - "passthru" none => "print matching and non-matching lines",
            Passthrough: - "passthrough" none => "",
            PathSeparator: - "path-separator" required "SEP" => "the path separator to print",
            Pcre2: 'P' "pcre2" none => "PCRE2 is not available here",
            NoPcre2: - "no-pcre2" none => "",
            Pcre2Version: - "pcre2-version" none => "",
            Pre: - "pre" required "COMMAND" => "not available here",
            PreGlob: - "pre-glob" required "GLOB" => "",
            Pretty: 'p' "pretty" none => "--heading --line-number (no colour here)",
            Quiet: 'q' "quiet" none => "print nothing; the status says whether there was a match",
            RegexSizeLimit: - "regex-size-limit" required "NUM" => "accepted and ignored",
            Regexp: 'e' "regexp" required "PATTERN" => "a pattern to search for (repeatable)",
            Replace: 'r' "replace" required "REPLACEMENT" => "print each match replaced ($1, $name for groups)",
            SearchZip: 'z' "search-zip" none => "compressed files are not searched here",
            NoSearchZip: - "no-search-zip" none => "",
            SmartCase: 'S' "smart-case" none => "case insensitive unless the pattern has an uppercase letter",
            Sort: - "sort" required "SORTBY" => "sort results: path, modified, accessed, created, none",
            Sortr: - "sortr" required "SORTBY" => "sort results in reverse order",
            SortFiles: - "sort-files" none => "",
            NoSortFiles: - "no-sort-files" none => "",
            Stats: - "stats" none => "print statistics after the results",
            NoStats: - "no-stats" none => "",
            Text: 'a' "text" none => "search binary files as if they were text",
            NoText: - "no-text" none => "",
            Threads: 'j' "threads" required "NUM" => "accepted; the search is single-threaded",
            Trim: - "trim" none => "trim leading ASCII whitespace from each line",
            NoTrim: - "no-trim" none => "",
            Type: 't' "type" required "TYPE" => "only search files of TYPE",
            TypeAdd: - "type-add" required "TYPE_SPEC" => "add a glob to a file type (name:glob)",
            TypeClear: - "type-clear" required "TYPE" => "clear a file type's globs",
            TypeList: - "type-list" none => "show every file type and its globs",
            TypeNot: 'T' "type-not" required "TYPE" => "don't search files of TYPE",
            Unrestricted: 'u' "unrestricted" none => "-u: --no-ignore, -uu: and --hidden, -uuu: and --text",
            Version: 'V' "version" none => "print the version",
            Vimgrep: - "vimgrep" none => "print every match as path:line:column:line",
            WithFilename: 'H' "with-filename" none => "print the path with each matching line",
            WordRegexp: 'w' "word-regexp" none => "match only whole words",
            AutoHybridRegex: - "auto-hybrid-regex" none => "",
            NoAutoHybridRegex: - "no-auto-hybrid-regex" none => "",
        ],
    }
}

/// What `--sort`/`--sortr` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SortBy {
    /// No sort (`none`, or no flag): our walk is in name order anyway.
    None,
    /// By path, siblings by name.
    Path,
    /// By modification time.
    Modified,
    /// By access time (ours: modification time).
    Accessed,
    /// By creation time (ours: modification time).
    Created,
}

/// What to print per file: lines, or one summary line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// Matching lines (the standard printer).
    Lines,
    /// `-c`.
    Count,
    /// `--count-matches`, or `-c -o`.
    CountMatches,
    /// `-l`.
    WithMatches,
    /// `--files-without-match`.
    WithoutMatch,
    /// `-q`.
    Quiet,
    /// `--json`.
    Json,
}

/// Case handling, last flag wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    Sensitive,
    Insensitive,
    Smart,
}

/// Every setting of one `rg` run.
#[derive(Debug)]
pub(crate) struct Config {
    pub patterns: Vec<String>,
    /// `-f` files (read by the command, `-` is stdin).
    pub pattern_files: Vec<String>,
    pub paths: Vec<String>,
    pub case: Case,
    pub word: bool,
    pub line: bool,
    pub fixed: bool,
    pub invert: bool,
    pub multiline: bool,
    pub dotall: bool,
    pub crlf: bool,
    pub null_data: bool,
    pub unicode: bool,
    pub line_number: Option<bool>,
    pub column: Option<bool>,
    pub byte_offset: bool,
    pub with_filename: Option<bool>,
    pub heading: bool,
    pub only_matching: bool,
    pub vimgrep: bool,
    pub trim: bool,
    pub passthru: bool,
    pub stats: bool,
    pub output: Output,
    pub include_zero: bool,
    pub max_count: Option<u64>,
    pub before: usize,
    pub after: usize,
    /// `-A`, `-B`, `-C` as given (see [`Config::from_parsed`]).
    after_only: Option<usize>,
    before_only: Option<usize>,
    context: Option<usize>,
    pub context_separator: Option<Vec<u8>>,
    pub field_match: Vec<u8>,
    pub field_context: Vec<u8>,
    pub path_separator: Option<u8>,
    pub null: bool,
    pub replace: Option<Vec<u8>>,
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    pub text: bool,
    pub binary: bool,
    pub files: bool,
    pub type_list: bool,
    pub hidden: bool,
    pub no_ignore_vcs: bool,
    pub no_ignore_dot: bool,
    pub no_ignore_parent: bool,
    pub no_ignore_files: bool,
    pub require_git: bool,
    pub ignore_files: Vec<String>,
    pub follow: bool,
    /// `-g` and `--iglob`, in order, with whether each is case insensitive.
    pub globs: Vec<(String, bool)>,
    pub glob_case_insensitive: bool,
    pub types: Vec<TypeRule>,
    pub max_depth: Option<usize>,
    pub max_filesize: Option<u64>,
    pub sort: SortBy,
    pub sort_reverse: bool,
    pub no_messages: bool,
    pub short_help: bool,
    pub version: bool,
    pub pcre2: bool,
    pub search_zip: bool,
    pub pre: bool,
}

/// A file-type rule, in command-line order.
#[derive(Clone, Debug)]
pub(crate) enum TypeRule {
    Select(String),
    Negate(String),
    Add(String),
    Clear(String),
}

/// Why the command line is refused, in clap's words (ripgrep 13 is built on
/// clap 2); the command adds the usage block.
#[derive(Debug)]
pub(crate) struct ArgError(pub String);

impl Config {
    /// The settings `p` asks for; positional words are split into the
    /// pattern and the paths here.
    pub(crate) fn from_parsed(p: &Parsed<RgOpt>) -> Result<Config, ArgError> {
        let mut c = Config::default_settings();
        let mut unrestricted = 0;
        for (opt, value) in &p.opts {
            let v = value.as_deref().unwrap_or("");
            c.apply(*opt, v, &mut unrestricted)?;
        }
        if unrestricted >= 1 {
            c.no_ignore_vcs = true;
            c.no_ignore_dot = true;
            c.no_ignore_parent = true;
            c.no_ignore_files = true;
        }
        if unrestricted >= 2 {
            c.hidden = true;
        }
        if unrestricted >= 3 {
            c.binary = true;
        }
        // -C gives both sides unless -A or -B came after it (clap's
        // overrides: each removes the other).
        match c.context {
            Some(n) if n > 0 => (c.before, c.after) = (n, n),
            _ => (c.before, c.after) = (c.before_only.unwrap_or(0), c.after_only.unwrap_or(0)),
        }
        let mut operands = p.operands.iter().cloned();
        if c.patterns.is_empty() && c.pattern_files.is_empty() && !c.files && !c.type_list {
            if c.short_help || c.version || c.pcre2 {
                return Ok(c);
            }
            match operands.next() {
                Some(pattern) => c.patterns.push(pattern),
                None => {
                    return Err(ArgError(
                        "The following required arguments were not provided:\n    <PATTERN>".into(),
                    ));
                }
            }
        }
        c.paths = operands.collect();
        if c.only_matching && c.output == Output::Count {
            c.output = Output::CountMatches;
        }
        Ok(c)
    }

    fn default_settings() -> Config {
        Config {
            patterns: Vec::new(),
            pattern_files: Vec::new(),
            paths: Vec::new(),
            case: Case::Sensitive,
            word: false,
            line: false,
            fixed: false,
            invert: false,
            multiline: false,
            dotall: false,
            crlf: false,
            null_data: false,
            unicode: true,
            line_number: None,
            column: None,
            byte_offset: false,
            with_filename: None,
            heading: false,
            only_matching: false,
            vimgrep: false,
            trim: false,
            passthru: false,
            stats: false,
            output: Output::Lines,
            include_zero: false,
            max_count: None,
            before: 0,
            after: 0,
            after_only: None,
            before_only: None,
            context: None,
            context_separator: Some(b"--".to_vec()),
            field_match: b":".to_vec(),
            field_context: b"-".to_vec(),
            path_separator: None,
            null: false,
            replace: None,
            max_columns: None,
            max_columns_preview: false,
            text: false,
            binary: false,
            files: false,
            type_list: false,
            hidden: false,
            no_ignore_vcs: false,
            no_ignore_dot: false,
            no_ignore_parent: false,
            no_ignore_files: false,
            require_git: true,
            ignore_files: Vec::new(),
            follow: false,
            globs: Vec::new(),
            glob_case_insensitive: false,
            types: Vec::new(),
            max_depth: None,
            max_filesize: None,
            sort: SortBy::None,
            sort_reverse: false,
            no_messages: false,
            short_help: false,
            version: false,
            pcre2: false,
            search_zip: false,
            pre: false,
        }
    }

    /// One flag, in command-line order.
    fn apply(&mut self, opt: RgOpt, v: &str, unrestricted: &mut u32) -> Result<(), ArgError> {
        use RgOpt as O;
        match opt {
            O::AfterContext => {
                self.after_only = Some(number(v, "--after-context <NUM>")?);
                self.context = None;
            }
            O::BeforeContext => {
                self.before_only = Some(number(v, "--before-context <NUM>")?);
                self.context = None;
            }
            O::Context => {
                self.context = Some(number(v, "--context <NUM>")?);
                self.before_only = None;
                self.after_only = None;
            }
            O::Binary => self.binary = true,
            O::NoBinary => self.binary = false,
            O::ByteOffset => self.byte_offset = true,
            O::NoByteOffset => self.byte_offset = false,
            O::CaseSensitive => self.case = Case::Sensitive,
            O::IgnoreCase => self.case = Case::Insensitive,
            O::SmartCase => self.case = Case::Smart,
            O::Color => {
                let valid = ["never", "auto", "always", "ansi"];
                if !valid.contains(&v) {
                    return Err(invalid_value(v, "--color <WHEN>", &valid));
                }
            }
            O::Column => self.column = Some(true),
            O::NoColumn => self.column = Some(false),
            O::ContextSeparator => self.context_separator = Some(unescape(v)),
            O::NoContextSeparator => self.context_separator = None,
            O::Count => self.output = Output::Count,
            O::CountMatches => self.output = Output::CountMatches,
            O::FilesWithMatches => self.output = Output::WithMatches,
            O::FilesWithoutMatch => self.output = Output::WithoutMatch,
            O::Quiet => self.output = Output::Quiet,
            O::Json => self.output = Output::Json,
            O::NoJson => {
                if self.output == Output::Json {
                    self.output = Output::Lines;
                }
            }
            O::Crlf => self.crlf = true,
            O::NoCrlf => self.crlf = false,
            O::FieldContextSeparator => self.field_context = unescape(v),
            O::FieldMatchSeparator => self.field_match = unescape(v),
            O::File => self.pattern_files.push(v.to_string()),
            O::Regexp => self.patterns.push(v.to_string()),
            O::Files => self.files = true,
            O::TypeList => self.type_list = true,
            O::FixedStrings => self.fixed = true,
            O::NoFixedStrings => self.fixed = false,
            O::Follow => self.follow = true,
            O::NoFollow => self.follow = false,
            O::Glob => self.globs.push((v.to_string(), false)),
            O::Iglob => self.globs.push((v.to_string(), true)),
            O::GlobCaseInsensitive => self.glob_case_insensitive = true,
            O::NoGlobCaseInsensitive => self.glob_case_insensitive = false,
            O::ShortHelp => self.short_help = true,
            O::Version => self.version = true,
            O::Heading => self.heading = true,
            O::NoHeading => self.heading = false,
            O::Hidden => self.hidden = true,
            O::NoHidden => self.hidden = false,
            O::IgnoreFile => self.ignore_files.push(v.to_string()),
            O::IncludeZero => self.include_zero = true,
            O::InvertMatch => self.invert = true,
            O::LineNumber => self.line_number = Some(true),
            O::NoLineNumber => self.line_number = Some(false),
            O::LineRegexp => self.line = true,
            O::WordRegexp => self.word = true,
            O::MaxColumns => self.max_columns = Some(number(v, "--max-columns <NUM>")? as u64),
            O::MaxColumnsPreview => self.max_columns_preview = true,
            O::MaxCount => self.max_count = Some(number(v, "--max-count <NUM>")? as u64),
            O::MaxDepth | O::Maxdepth => self.max_depth = Some(number(v, "--max-depth <NUM>")?),
            O::MaxFilesize => self.max_filesize = Some(size(v)?),
            O::Multiline => self.multiline = true,
            O::NoMultiline => self.multiline = false,
            O::MultilineDotall => self.dotall = true,
            O::NoMultilineDotall => self.dotall = false,
            O::NoFilename => self.with_filename = Some(false),
            O::WithFilename => self.with_filename = Some(true),
            O::Sort | O::Sortr => {
                self.sort = match v {
                    "path" => SortBy::Path,
                    "modified" => SortBy::Modified,
                    "accessed" => SortBy::Accessed,
                    "created" => SortBy::Created,
                    "none" => SortBy::None,
                    _ => {
                        let flag = if opt == O::Sort { "--sort" } else { "--sortr" };
                        return Err(invalid_value(
                            v,
                            &format!("{flag} <SORTBY>"),
                            &["accessed", "created", "modified", "none", "path"],
                        ));
                    }
                };
                self.sort_reverse = opt == O::Sortr;
            }
            O::SortFiles => self.sort = SortBy::Path,
            O::NoSortFiles => self.sort = SortBy::None,
            O::Unrestricted => *unrestricted += 1,
            // Walk, ignore and engine flags.
            other => self.apply_walk(other, v)?,
        }
        Ok(())
    }

    /// The flags of the walk, the ignore rules, sorting and the engine
    /// (the rest of [`Config::apply`]).
    fn apply_walk(&mut self, opt: RgOpt, v: &str) -> Result<(), ArgError> {
        use RgOpt as O;
        match opt {
            O::NoIgnore => {
                self.no_ignore_vcs = true;
                self.no_ignore_dot = true;
                self.no_ignore_parent = true;
                self.no_ignore_files = true;
            }
            O::Ignore => {
                self.no_ignore_vcs = false;
                self.no_ignore_dot = false;
                self.no_ignore_parent = false;
                self.no_ignore_files = false;
            }
            O::NoIgnoreDot => self.no_ignore_dot = true,
            O::IgnoreDot => self.no_ignore_dot = false,
            O::NoIgnoreFiles => self.no_ignore_files = true,
            O::NoIgnoreParent => self.no_ignore_parent = true,
            O::IgnoreParent => self.no_ignore_parent = false,
            O::NoIgnoreVcs => self.no_ignore_vcs = true,
            O::IgnoreVcs => self.no_ignore_vcs = false,
            O::NoMessages => self.no_messages = true,
            O::Messages => self.no_messages = false,
            O::NoRequireGit => self.require_git = false,
            O::RequireGit => self.require_git = true,
            O::NoUnicode => self.unicode = false,
            O::Unicode => self.unicode = true,
            O::Null => self.null = true,
            O::NullData => self.null_data = true,
            O::OnlyMatching => self.only_matching = true,
            O::Passthru | O::Passthrough => self.passthru = true,
            O::PathSeparator => {
                let sep = unescape(v);
                if sep.len() != 1 {
                    return Err(ArgError(format!(
                        "A path separator must be exactly one byte, but the given separator is {} bytes: {v}\nIn some shells on Windows '/' is automatically expanded. Use '//' instead.",
                        sep.len()
                    )));
                }
                self.path_separator = Some(sep[0]);
            }
            O::Pcre2 | O::Pcre2Version => self.pcre2 = true,
            O::NoPcre2 => self.pcre2 = false,
            O::Pre => self.pre = true,
            O::Pretty => {
                self.heading = true;
                self.line_number = Some(true);
            }
            O::Replace => self.replace = Some(v.as_bytes().to_vec()),
            O::SearchZip => self.search_zip = true,
            O::NoSearchZip => self.search_zip = false,
            O::Stats => self.stats = true,
            O::NoStats => self.stats = false,
            O::Text => self.text = true,
            O::NoText => self.text = false,
            O::Threads => {
                number(v, "--threads <NUM>")?;
            }
            O::Trim => self.trim = true,
            O::NoTrim => self.trim = false,
            O::Type => self.types.push(TypeRule::Select(v.to_string())),
            O::TypeNot => self.types.push(TypeRule::Negate(v.to_string())),
            O::TypeAdd => self.types.push(TypeRule::Add(v.to_string())),
            O::TypeClear => self.types.push(TypeRule::Clear(v.to_string())),
            O::Vimgrep => self.vimgrep = true,
            O::Encoding => {
                let known = ["utf-8", "utf8", "auto", "none"];
                if !known.contains(&v.to_ascii_lowercase().as_str()) {
                    return Err(ArgError(format!("unsupported encoding: {v}")));
                }
            }
            O::Engine => {
                let valid = ["default", "pcre2", "auto"];
                if !valid.contains(&v) {
                    return Err(invalid_value(v, "--engine <ENGINE>", &valid));
                }
                self.pcre2 = v == "pcre2";
            }
            // Tuning and terminal flags with nothing to tune here.
            O::BlockBuffered
            | O::LineBuffered
            | O::Colors
            | O::Debug
            | O::Trace
            | O::DfaSizeLimit
            | O::RegexSizeLimit
            | O::IgnoreFileCaseInsensitive
            | O::Mmap
            | O::NoMmap
            | O::NoConfig
            | O::NoIgnoreExclude
            | O::NoIgnoreGlobal
            | O::NoIgnoreMessages
            | O::NoPcre2Unicode
            | O::OneFileSystem
            | O::PreGlob
            | O::AutoHybridRegex
            | O::NoAutoHybridRegex => {}
            // The output and matching flags [`Config::apply`] handles.
            _ => {}
        }
        Ok(())
    }
}

/// A count argument, in clap's error words when it is not one.
fn number(v: &str, flag: &str) -> Result<usize, ArgError> {
    v.parse::<usize>().map_err(|e| {
        let why = match v.parse::<i128>() {
            Ok(_) => "number too large to fit in target type".to_string(),
            Err(_) if v.is_empty() => "cannot parse integer from empty string".to_string(),
            Err(_) => e.to_string(),
        };
        ArgError(format!("Invalid value for '{flag}': {why}"))
    })
}

/// `--max-filesize`: a number with an optional K, M or G suffix.
fn size(v: &str) -> Result<u64, ArgError> {
    let (digits, mult) = match v.chars().last() {
        Some('K' | 'k') => (&v[..v.len() - 1], 1 << 10),
        Some('M' | 'm') => (&v[..v.len() - 1], 1 << 20),
        Some('G' | 'g') => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| ArgError(format!("invalid format for size '{v}', which should be a sequence of digits followed by an optional 'K', 'M' or 'G' suffix")))
}

fn invalid_value(v: &str, flag: &str, valid: &[&str]) -> ArgError {
    ArgError(format!(
        "'{v}' isn't a valid value for '{flag}'\n\t[possible values: {}]\n",
        valid.join(", ")
    ))
}

/// ripgrep's escapes in separators: `\t`, `\n`, `\x7F`, `\\`, `\0`.
fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let (byte, used) = match b[i + 1] {
                b'n' => (Some(b'\n'), 2),
                b't' => (Some(b'\t'), 2),
                b'r' => (Some(b'\r'), 2),
                b'0' => (Some(0), 2),
                b'\\' => (Some(b'\\'), 2),
                b'x' if i + 4 <= b.len() => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).ok();
                    match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        Some(x) => (Some(x), 4),
                        None => (None, 1),
                    }
                }
                _ => (None, 1),
            };
            match byte {
                Some(x) => out.push(x),
                None => out.push(b'\\'),
            }
            i += used;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
