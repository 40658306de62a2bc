//! The `sandkeep` command line: arguments (clap) and dispatch. The commands
//! themselves are thin layers over the library: [`run`] (one-shot runs and
//! the REPL), [`stores`] (mindlog and archive inspection).

mod logging;
mod mcp;
mod run;
mod schedule;
#[cfg(feature = "server")]
mod serve;
mod stores;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use sandkeep::BackendChoice;

/// Exit status when sandkeep itself fails (not the script), as `docker run` does.
pub const EXIT_SANDKEEP_ERROR: u8 = 125;

/// A sandbox runtime for AI agents: bash in a sandbox rooted at /workspace,
/// in-process (local) or in a container (docker), with what an agent keeps
/// across sessions (its workspace archive and its mindlog) on the host.
#[derive(Debug, Parser)]
#[command(name = "sandkeep", version, propagate_version = true)]
#[command(after_help = "\
Examples:
  sandkeep run -c 'echo hello > note.txt; cat note.txt'      # ephemeral: nothing kept
  sandkeep run --agent demo -c 'echo fire >> fires.txt; wc -l < fires.txt'
  sandkeep shell --agent demo                                 # one turn per line
  sandkeep mindlog append --agent demo --kind note 'remember the milk'
  sandkeep mindlog search --agent demo milk
  sandkeep archive ls --agent demo
  sandkeep schedule schedules/                                # fire every schedule, forever
  sandkeep schedule --list                                    # next fire times

Logs go to stderr: the [workspace-sync] lines show by default, -q hides them,
RUST_LOG (e.g. RUST_LOG=debug) tunes the rest.")]
pub struct Cli {
    /// Hide the [workspace-sync] lines (warnings and errors still show).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Where agents' state is kept: DIR/agents/NAME/{store/,mindlog.jsonl,sessions/}.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "SANDKEEP_DATA",
        default_value = ".data"
    )]
    pub data: PathBuf,

    /// Keep the agent's generations in FILE.generations/ (importing FILE, a
    /// workspace .tgz, when they are empty) instead of DIR/agents/NAME/store/.
    #[arg(long, global = true, value_name = "FILE", env = "WORKSPACE_ARCHIVE")]
    pub workspace_archive: Option<PathBuf>,

    /// Use this file as the mindlog instead of DIR/agents/NAME/mindlog.jsonl.
    #[arg(long, global = true, value_name = "FILE", env = "MINDLOG_FILE")]
    pub mindlog_file: Option<PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
// `defer`, here and on the nested subcommand enums: a subcommand's arguments
// are built only when it is the one run or its help is shown (building all
// of them was 7% of every `sandkeep run -c 'echo hi'`). The argument
// structs (`RunArgs`, and `BackendArgs` ... flattened into them) carry plain
// comments, not doc comments: a deferred struct's doc would replace the
// subcommand's help text.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run a script in a sandbox, streaming its output and exiting with its status.
    ///
    /// With --agent, the run is one session of that agent: the workspace is
    /// restored from the agent's archive, the script runs as one turn, and the
    /// workspace is kept again. Without --agent the sandbox is ephemeral:
    /// nothing is restored or kept.
    Run(RunArgs),
    /// An interactive session of an agent: each line read from stdin is a turn
    /// (the workspace is kept after each); end-of-file completes the session.
    Shell(ShellArgs),
    /// Append to, read or search an agent's mindlog.
    #[command(subcommand)]
    Mindlog(MindlogCommand),
    /// Inspect an agent's workspace archive.
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Fire markdown schedules: each fire is a new session of the schedule's
    /// agent that restores the workspace the last fire kept.
    Schedule(ScheduleArgs),
    /// Serve MCP over stdio: the server's life is one session of the agent,
    /// each tool call a turn (snapshotted), end of input completes it.
    Mcp(McpArgs),
    /// Serve agents over HTTP: REST under /v1 (runs also streamed as SSE),
    /// MCP Streamable HTTP at /mcp/{agent}, bearer tokens from --tokens.
    /// Idle sessions park and resume on their next call; SIGTERM parks all.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
    /// (internal) Serve one local sandbox on stdin/stdout for a session in
    /// worker-process mode (`--isolation process`).
    #[command(hide = true)]
    Worker(WorkerArgs),
}

// Arguments of the internal `sandkeep worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The worker's address-space limit in bytes (RLIMIT_AS).
    #[arg(long, value_name = "BYTES")]
    pub address_space: u64,
    /// The worker's CPU-time limit in seconds (RLIMIT_CPU).
    #[arg(long, value_name = "SECONDS")]
    pub cpu_seconds: u64,
}

/// How local sandboxes are isolated from the process that serves them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolation {
    /// In this process, on threads (the default).
    #[default]
    Thread,
    /// A worker process per session, with rlimits on memory and CPU.
    Process,
}

// Arguments of `sandkeep serve`.
#[cfg(feature = "server")]
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Anything but loopback requires --tokens.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// The token file: a JSON object mapping each token to a list of agent
    /// names, or to "*" (every agent).
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,

    /// Where workspaces' generations are kept: file://DIR (default: under
    /// --data) or s3://BUCKET/PREFIX (endpoint, region and credentials from
    /// the AWS_* environment variables), shared by every worker.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,

    /// How long a request to an s3:// store is retried (on a 5xx or a
    /// connection that fails) before a park gives up on it and is kept in
    /// the spool under --data instead, uploaded when the store answers.
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub store_retry_timeout: String,

    /// Park a session idle this long (`30s`, `5m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub idle: String,

    /// Complete a session this old (`24h`).
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub max_session: String,

    /// Keep a live session's workspace as a generation at least this often
    /// once it ran something (its sandbox keeps running), so a worker that
    /// dies loses at most this much; `off` keeps only at idle parks.
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub checkpoint: String,

    /// Open sessions on this server at most (429 past it).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_sessions: usize,

    /// Open sessions per token at most (429 past it).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_sessions_per_token: usize,

    /// Keep N docker containers created and started ahead of the sessions
    /// (each used by one session, then removed; refilled in the background;
    /// the waiting ones removed at shutdown). Needs the docker backend.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub docker_pool: usize,

    /// Shell variables never written to the store with a parked session's
    /// shell state: globs over names (`AWS_*`), repeatable or
    /// comma-separated. The live session keeps them; a resume from the
    /// store (another worker, a restart) does not have them.
    #[arg(long = "no-persist-var", value_name = "GLOB", value_delimiter = ',')]
    pub no_persist_var: Vec<String>,

    #[command(flatten)]
    pub backend: BackendArgs,
}

// Arguments of `sandkeep mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The agent whose sandbox and mindlog the tools use.
    #[arg(long, value_name = "NAME")]
    pub agent: String,

    #[command(flatten)]
    pub backend: BackendArgs,
}

// Arguments of `sandkeep schedule`.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// The folder of schedule files (`*.md`). Default: `schedules`.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Fire the schedule called NAME (the file's stem) once, now, and exit
    /// with its status.
    #[arg(long, value_name = "NAME", conflicts_with = "list")]
    pub once: Option<String>,

    /// Print each schedule and its next three fire times (UTC), then exit.
    #[arg(long)]
    pub list: bool,

    #[command(flatten)]
    pub backend: BackendArgs,
}

// Backend choice, shared by `run` and `shell`.
#[derive(Debug, Args)]
pub struct BackendArgs {
    /// Where sandboxes run: the in-process shell (local), a docker container
    /// (docker), or docker when a daemon answers, else local (auto).
    /// Default: $SANDKEEP_BACKEND, else auto.
    #[arg(long, value_name = "BACKEND")]
    pub backend: Option<BackendChoice>,

    /// Let the sandbox reach RULE over HTTP(S): HOST, HOST:PORT, *.DOMAIN,
    /// an IP or CIDR, optionally after a METHOD and with a path prefix
    /// ("GET api.example.com/v1/"). Repeatable; everything else is denied.
    /// Default: $SANDKEEP_ALLOW_NET (a comma list).
    #[arg(
        long = "allow-net",
        value_name = "RULE",
        env = "SANDKEEP_ALLOW_NET",
        value_delimiter = ','
    )]
    pub allow_net: Vec<String>,

    /// Add a header to requests for HOST, on the host side:
    /// 'HOST[:PORT]=Header-Name: VALUE', ${NAME} in VALUE read from this
    /// process's environment at start. The sandbox never sees the value.
    #[arg(long = "net-header", value_name = "HOST=HEADER")]
    pub net_header: Vec<String>,

    /// How a local sandbox is isolated: `thread` (in this process) or
    /// `process` (a worker process per session, with rlimits on its memory
    /// and CPU: a crash ends that worker only). Default: $SANDKEEP_ISOLATION,
    /// else thread.
    #[arg(
        long,
        value_name = "MODE",
        env = "SANDKEEP_ISOLATION",
        value_enum,
        default_value_t = Isolation::Thread
    )]
    pub isolation: Isolation,

    /// How many bytes of files a sandbox may hold (`512M`, `2G`, `1.5GiB`;
    /// K, M, G are powers of 1024): the local filesystem's limit (default
    /// 512M) or the docker container's writable layer (default 1G). A
    /// workspace bigger than the limit cannot be restored. Default:
    /// $SANDKEEP_STORAGE.
    #[arg(long, value_name = "SIZE", env = "SANDKEEP_STORAGE", value_parser = parse_storage)]
    pub storage: Option<u64>,
}

/// A byte size with binary units, for `--storage`.
fn parse_storage(text: &str) -> Result<u64, String> {
    parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| format!("{e} (a size like 512M or 2G)"))
}

/// A byte size for `--max-output` (`unlimited` for none).
fn parse_output_size(text: &str) -> Result<OutputCap, String> {
    if text.trim().eq_ignore_ascii_case("unlimited") {
        return Ok(OutputCap::Unlimited);
    }
    let bytes = parse_storage(text)?;
    usize::try_from(bytes)
        .map(OutputCap::Bytes)
        .map_err(|_| format!("{text} is too large"))
}

/// How much of each of a script's streams `run` and `shell` write out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputCap {
    /// All of it, streamed as it comes and never held in memory (a person
    /// running a script expects its whole output).
    #[default]
    Unlimited,
    /// This many bytes; past it the run ends with status 141 and a message.
    Bytes(usize),
}

impl OutputCap {
    /// The backends' `max_output_bytes` for this cap.
    pub fn bytes(self) -> usize {
        match self {
            OutputCap::Unlimited => usize::MAX,
            OutputCap::Bytes(n) => n,
        }
    }
}

// `--max-output`, shared by `run` and `shell` (MCP and `serve` keep the
// backends' 1 MiB cap: their output goes into a reply).
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Stop a script once it wrote SIZE bytes to stdout or to stderr
    /// (`64K`, `10M`), ending it with status 141 and a message. Default:
    /// $SANDKEEP_MAX_OUTPUT, else unlimited (streamed, never held in memory).
    #[arg(
        long,
        value_name = "SIZE",
        env = "SANDKEEP_MAX_OUTPUT",
        value_parser = parse_output_size,
        default_value = "unlimited",
        hide_default_value = true
    )]
    pub max_output: OutputCap,
}

// Arguments of `sandkeep run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Run as a session of this agent (restore before, keep after).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,

    #[command(flatten)]
    pub backend: BackendArgs,

    /// The script to run, as for `bash -c`.
    #[arg(
        short = 'c',
        value_name = "SCRIPT",
        conflicts_with = "file",
        required_unless_present = "file"
    )]
    pub script: Option<String>,

    /// A host file holding the script ('-' reads it from stdin).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Wall-clock limit of the script, in seconds (default: the backend's, 30 s).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    #[command(flatten)]
    pub output: OutputArgs,
}

// Arguments of `sandkeep shell`.
#[derive(Debug, Args)]
pub struct ShellArgs {
    /// The agent whose session this is.
    #[arg(long, value_name = "NAME")]
    pub agent: String,

    #[command(flatten)]
    pub backend: BackendArgs,

    /// Wall-clock limit of each line, in seconds (default: the backend's, 30 s).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    #[command(flatten)]
    pub output: OutputArgs,
}

/// `sandkeep mindlog ...`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum MindlogCommand {
    /// Append an entry (blank text is dropped). Prints the new entry's id.
    Append {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The entry's kind: woke, heard, thought, said, did or note.
        #[arg(long, default_value = "note")]
        kind: String,
        /// The session the entry belongs to, if any.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// The text (several words are joined with spaces).
        #[arg(required = true, num_args = 1.., value_name = "TEXT")]
        text: Vec<String>,
    },
    /// Print the newest entries, oldest first.
    Read {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// How many entries.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Only entries older than the entry with this id (paging back).
        #[arg(long, value_name = "ID")]
        before: Option<String>,
        /// Print the raw JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// Print the newest entries whose text contains QUERY (ignoring case), oldest first.
    Search {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The text to look for.
        query: String,
        /// How many entries.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print the raw JSON lines.
        #[arg(long)]
        json: bool,
    },
}

/// `sandkeep archive ...`: the agent's workspace generations. GEN is a full
/// id, a unique prefix of one, `HEAD` or `HEAD~N`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ArchiveCommand {
    /// Generations, newest first: id, UTC time, session, +added ~modified
    /// -deleted, bytes new.
    Log {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// How many generations.
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
    },
    /// What changed between two generations, as `A|M|D<TAB>path` lines
    /// (default `HEAD~1 HEAD`).
    Diff {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The older generation.
        #[arg(value_name = "FROM")]
        from: Option<String>,
        /// The newer generation.
        #[arg(value_name = "TO")]
        to: Option<String>,
        /// Print sizes too (`A<TAB>path<TAB>bytes`) and a total line.
        #[arg(long)]
        stat: bool,
    },
    /// Print one file as a generation holds it.
    Show {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// GEN:PATH, e.g. `HEAD~1:src/main.rs`.
        #[arg(value_name = "GEN:PATH")]
        spec: String,
    },
    /// List what a generation holds (like `tar tv`; default HEAD).
    Ls {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The generation.
        #[arg(value_name = "GEN")]
        generation: Option<String>,
    },
    /// Make a new head whose tree is GEN's (a rollback that keeps history).
    Checkout {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The generation to bring back.
        #[arg(value_name = "GEN")]
        generation: String,
    },
    /// Start agent B from one of A's generations (default HEAD).
    Fork {
        /// The agent forked from.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The new agent.
        #[arg(long, value_name = "NAME")]
        to: String,
        /// The generation.
        #[arg(value_name = "GEN")]
        generation: Option<String>,
    },
    /// Write a generation (default HEAD) as a .tgz that GNU tar reads.
    Export {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The generation.
        #[arg(value_name = "GEN")]
        generation: Option<String>,
        /// Where to write it ('-' for stdout).
        #[arg(short = 'o', long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Import a .tgz of a workspace as a new head generation.
    Import {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// The archive.
        #[arg(value_name = "FILE.tgz")]
        file: PathBuf,
    },
    /// Check every kept generation: records, manifests and every blob's hash.
    /// Exit 1 naming each damaged path.
    Verify {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
    },
    /// Re-point a head whose generation cannot be read whole (its record or a
    /// blob missing, e.g. after a storage fault) to the newest generation that
    /// can. Says what it did; exit 1 when nothing reads whole.
    Repair {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
    },
    /// Remove old generations and the blobs only they held (default: keep 50,
    /// and all of the last 24 hours up to 1,000).
    Gc {
        /// The agent.
        #[arg(long, value_name = "NAME")]
        agent: String,
        /// Keep this many of the newest generations.
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        /// Also keep every generation younger than this (`30m`, `24h`, `7d`).
        #[arg(long, value_name = "DURATION")]
        keep_within: Option<String>,
    },
}

/// Parses the arguments, sets up logging and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.quiet);
    if cli.data.exists() && !cli.data.is_dir() {
        eprintln!(
            "sandkeep: error: --data {} is not a directory (agents' state is kept in a directory)",
            cli.data.display()
        );
        return ExitCode::from(EXIT_SANDKEEP_ERROR);
    }
    let result = match &cli.command {
        // One run needs no worker threads: a current-thread runtime starts
        // in a fraction of the time (no CPU count, no threads to spawn).
        Command::Run(args) => with_tokio_current_thread(run::run(&cli, args)),
        Command::Shell(args) => with_tokio(run::shell(&cli, args)),
        Command::Mindlog(cmd) => stores::mindlog(&cli, cmd),
        Command::Archive(cmd) => stores::archive(&cli, cmd),
        Command::Schedule(args) => with_tokio(schedule::schedule(&cli, args)),
        Command::Mcp(args) => with_tokio(mcp::mcp(&cli, args)),
        #[cfg(feature = "server")]
        Command::Serve(args) => with_tokio(serve::serve(&cli, args)),
        Command::Worker(args) => Ok(run::worker(args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sandkeep: error: {e:#}");
            ExitCode::from(EXIT_SANDKEEP_ERROR)
        }
    }
}

fn with_tokio(
    fut: impl std::future::Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    block_on_and_stop(rt, fut)
}

/// [`with_tokio`] on a current-thread runtime (for `run`).
fn with_tokio_current_thread(
    fut: impl std::future::Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    block_on_and_stop(rt, fut)
}

fn block_on_and_stop(
    rt: tokio::runtime::Runtime,
    fut: impl std::future::Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let result = rt.block_on(fut);
    // Dropping a runtime waits for its blocking threads, and the one that
    // reads stdin never returns while the client keeps its end open: after
    // SIGTERM (or a run's timeout) the process must still exit.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}
