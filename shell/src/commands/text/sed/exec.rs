//! The sed executor: reads input line by line (one line of lookahead, to
//! know `$`), runs the compiled program over the pattern space, and writes
//! output the GNU way (a missing final newline stays missing).

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::rc::Rc;

use super::super::common::{self, LineSource};
use super::super::posix_regex::{Regex, Slots};
use super::parse::{Addr, Addr2, CaseMode, Cmd, Kind, Re, Repl, Subst};
use crate::control::RunControl;
use crate::fs::Fs;

/// Run-time settings.
pub struct Settings {
    /// `-n`
    pub quiet: bool,
    /// `-z`: lines end in NUL.
    pub sep: u8,
    /// `-s` or `-i`: each file is its own stream.
    pub separate: bool,
    /// `-i[SUFFIX]`
    pub in_place: Option<String>,
    /// `--debug`-less; line wrap of `l` (`-l N`).
    pub line_wrap: usize,
}

/// Why the run stopped.
pub enum End {
    /// All input consumed.
    Done,
    /// `q`/`Q` with an exit code.
    Quit(i32),
    /// A fatal error (message already printed), with its status.
    Fatal(i32),
}

#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    end: u64,
    /// The range has begun once: a line-number first address (`N,...`,
    /// `0,/re/`) starts it on the first line at or past N that reaches the
    /// command (GNU: a `d` before it may skip line N), but only once.
    started: bool,
}

enum Queued {
    Text(Vec<u8>),
    File(String),
}

/// A destination of output: stdout, or an in-place file's new content.
struct Sink<'o> {
    w: &'o mut dyn Write,
    missing_nl: bool,
}

impl Sink<'_> {
    fn put(&mut self, data: &[u8], nl: bool, sep: u8) -> std::io::Result<()> {
        if self.missing_nl {
            self.w.write_all(&[sep])?;
            self.missing_nl = false;
        }
        self.w.write_all(data)?;
        if nl {
            self.w.write_all(&[sep])?;
        } else {
            self.missing_nl = true;
        }
        Ok(())
    }
}

/// The state of one sed run.
pub struct Machine<'a> {
    cmds: &'a [Cmd],
    set: &'a Settings,
    fs: &'a Fs,
    cwd: &'a str,
    control: &'a RunControl,
    ranges: Vec<Range>,
    hold: Vec<u8>,
    /// Whether the hold space "ends in a newline" (GNU moves this flag
    /// along with the text: `x` swaps it, `g`/`G`/`h`/`H` copy it).
    hold_nl: bool,
    line_no: u64,
    last_re: Option<Rc<Regex>>,
    slots: HashMap<*const Regex, Slots>,
    wfiles: HashMap<String, Vec<u8>>,
    /// The `w` files (and `w /dev/stdout`, which GNU keeps as an output of
    /// its own) whose last line went out without its newline: the next
    /// write to them adds it first.
    wfiles_missing_nl: HashSet<String>,
    rfiles: HashMap<String, (Rc<Vec<u8>>, usize)>,
    queue: Vec<Queued>,
    /// Errors that do not stop the run (unreadable input files).
    pub status: i32,
    file_name: String,
}

/// One input stream: files read one after another (or stdin).
pub struct Input<'i> {
    names: Vec<String>,
    idx: usize,
    cur: Option<LineSource<'i>>,
    stdin: Option<&'i mut dyn Read>,
    ahead: Option<(Vec<u8>, bool, String)>,
    sep: u8,
}

impl<'i> Input<'i> {
    /// An input over `names` (`-` is stdin).
    pub fn new(names: Vec<String>, stdin: &'i mut dyn Read, sep: u8) -> Input<'i> {
        Input {
            names,
            idx: 0,
            cur: None,
            stdin: Some(stdin),
            ahead: None,
            sep,
        }
    }

    fn fill(&mut self, m: &mut Machine<'_>, err: &mut dyn Write) {
        if self.ahead.is_some() {
            return;
        }
        loop {
            if self.cur.is_none() {
                if self.idx >= self.names.len() {
                    return;
                }
                let name = self.names[self.idx].clone();
                self.idx += 1;
                if name == "-" {
                    match self.stdin.take() {
                        Some(s) => self.cur = Some(LineSource::stream(s)),
                        None => continue,
                    }
                } else {
                    match common::read_file(m.fs, m.cwd, &name) {
                        Ok(d) => self.cur = Some(LineSource::buf(d)),
                        // A directory opens and fails its read, which
                        // ends all input as for stdin below.
                        Err(e @ crate::fs::FsError::IsADirectory) => {
                            common::err(err, "sed", format!("read error on {name}: {e}"));
                            m.status = 4;
                            self.idx = self.names.len();
                            continue;
                        }
                        Err(e) => {
                            common::err(err, "sed", format!("can't read {name}: {e}"));
                            m.status = 2;
                            continue;
                        }
                    }
                }
                m.file_name = name;
            }
            let mut line = Vec::new();
            if self.cur.as_mut().unwrap().next_record(self.sep, &mut line) {
                let nl = line.last() == Some(&self.sep);
                if nl {
                    line.pop();
                }
                self.ahead = Some((line, nl, m.file_name.clone()));
                return;
            }
            if let Some(e) = self.cur.as_ref().and_then(LineSource::read_error) {
                // GNU sed gives up on all input here (its `panic`, status 4).
                common::err(err, "sed", format!("read error on stdin: {e}"));
                m.status = 4;
                self.idx = self.names.len();
            }
            self.cur = None;
        }
    }

    fn next(
        &mut self,
        m: &mut Machine<'_>,
        err: &mut dyn Write,
    ) -> Option<(Vec<u8>, bool, String)> {
        self.fill(m, err);
        self.ahead.take()
    }

    fn is_last(&mut self, m: &mut Machine<'_>, err: &mut dyn Write) -> bool {
        self.fill(m, err);
        self.ahead.is_none()
    }
}

/// Pattern-space state of the current cycle.
struct Space {
    ps: Vec<u8>,
    nl: bool,
    replaced: bool,
    name: String,
}

type Flow = Result<(), End>;

impl<'a> Machine<'a> {
    /// A machine for `cmds`.
    pub fn new(
        cmds: &'a [Cmd],
        set: &'a Settings,
        fs: &'a Fs,
        cwd: &'a str,
        control: &'a RunControl,
    ) -> Self {
        let mut wfiles = HashMap::new();
        for c in cmds {
            let f = match &c.kind {
                Kind::Write(f) | Kind::WriteFirst(f) => Some(f.clone()),
                Kind::Subst(s) => s.wfile.clone(),
                _ => None,
            };
            if let Some(f) = f {
                wfiles.insert(f, Vec::new());
            }
        }
        Machine {
            cmds,
            set,
            fs,
            cwd,
            control,
            ranges: vec![Range::default(); cmds.len()],
            hold: Vec::new(),
            hold_nl: true,
            line_no: 0,
            last_re: None,
            slots: HashMap::new(),
            wfiles,
            wfiles_missing_nl: HashSet::new(),
            rfiles: HashMap::new(),
            queue: Vec::new(),
            status: 0,
            file_name: String::new(),
        }
    }

    /// Creates the `w` files up front (GNU truncates them before reading input).
    pub fn open_wfiles(&mut self, err: &mut dyn Write) -> bool {
        for name in self.wfiles.keys() {
            if name == "/dev/stdout" || name == "/dev/stderr" {
                continue;
            }
            if let Err(e) = self.fs.write(&Fs::resolve(self.cwd, name), b"") {
                common::err(err, "sed", format!("couldn't open file {name}: {e}"));
                return false;
            }
        }
        true
    }

    /// Writes the `w` files' content.
    pub fn close_wfiles(&mut self) {
        for (name, data) in &self.wfiles {
            if name == "/dev/stdout" || name == "/dev/stderr" || data.is_empty() {
                continue;
            }
            let _ = self.fs.write(&Fs::resolve(self.cwd, name), data);
        }
    }

    /// Resets per-stream state between `-s`/`-i` files.
    pub fn new_stream(&mut self) {
        self.line_no = 0;
        for r in &mut self.ranges {
            *r = Range::default();
        }
    }

    /// Runs the program over `input`, writing to `out`.
    pub fn run(&mut self, input: &mut Input<'_>, out: &mut dyn Write, err: &mut dyn Write) -> End {
        let mut sink = Sink {
            w: out,
            missing_nl: false,
        };
        let mut sp = Space {
            ps: Vec::new(),
            nl: true,
            replaced: false,
            name: String::new(),
        };
        let mut restart = false;
        loop {
            if self.control.check().is_err() {
                return End::Fatal(1);
            }
            if !restart {
                let Some((line, nl, name)) = input.next(self, err) else {
                    break;
                };
                sp.ps = line;
                sp.nl = nl;
                sp.name = name;
                sp.replaced = false;
                self.line_no += 1;
            }
            restart = false;
            match self.cycle(&mut sp, input, &mut sink, err) {
                Ok(Next::Continue) => {}
                Ok(Next::Restart) => restart = true,
                Ok(Next::Stop) => break,
                Err(End::Quit(code)) => return End::Quit(code),
                Err(e) => return e,
            }
        }
        End::Done
    }

    fn write_out(&mut self, sink: &mut Sink<'_>, data: &[u8], nl: bool) -> Flow {
        sink.put(data, nl, self.set.sep).map_err(|_| End::Fatal(4))
    }

    fn dump_queue(&mut self, sink: &mut Sink<'_>) -> Flow {
        for q in std::mem::take(&mut self.queue) {
            match q {
                Queued::Text(t) => self.write_raw(sink, &t)?,
                Queued::File(f) => {
                    if let Ok(d) = common::read_file(self.fs, self.cwd, &f) {
                        // Written as is: GNU adds no newline after a file lacking one.
                        self.write_raw(sink, &d)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn end_cycle(&mut self, sp: &Space, sink: &mut Sink<'_>) -> Flow {
        if !self.set.quiet {
            self.write_out(sink, &sp.ps, sp.nl)?;
        }
        self.dump_queue(sink)
    }

    fn regex(&mut self, re: &Re, err: &mut dyn Write) -> Result<Rc<Regex>, End> {
        match re {
            Some(r) => {
                self.last_re = Some(r.clone());
                Ok(r.clone())
            }
            None => match &self.last_re {
                Some(r) => Ok(r.clone()),
                None => {
                    common::err(err, "sed", "no previous regular expression");
                    Err(End::Fatal(1))
                }
            },
        }
    }

    fn re_match(&mut self, re: &Re, ps: &[u8], err: &mut dyn Write) -> Result<bool, End> {
        Ok(self.regex(re, err)?.is_match(ps))
    }

    fn matches(
        &mut self,
        pc: usize,
        sp: &Space,
        input: &mut Input<'_>,
        err: &mut dyn Write,
    ) -> Result<bool, End> {
        let cmd = &self.cmds[pc];
        let Some(a1) = &cmd.a1 else { return Ok(true) };
        let l = self.line_no;
        let hit1 =
            |m: &mut Self, input: &mut Input<'_>, err: &mut dyn Write| -> Result<bool, End> {
                Ok(match a1 {
                    Addr::Line(n) => l == *n,
                    Addr::Last => input.is_last(m, err),
                    Addr::Re(re) => m.re_match(re, &sp.ps, err)?,
                    Addr::Step(first, step) => {
                        if *step == 0 {
                            l == *first
                        } else {
                            l >= *first && (l - first).is_multiple_of(*step)
                        }
                    }
                    Addr::Zero => false,
                })
            };
        let Some(a2) = &cmd.a2 else {
            return hit1(self, input, err);
        };
        let mut r = self.ranges[pc];
        let res = if !r.active {
            let zero = matches!(a1, Addr::Zero);
            let numbered = match a1 {
                Addr::Zero => Some(0),
                Addr::Line(n) => Some(*n),
                _ => None,
            };
            let hit = match numbered {
                Some(first) => !r.started && l >= first,
                None => hit1(self, input, err)?,
            };
            if !hit {
                return Ok(false);
            }
            r.started = true;
            if let (Some(first), Addr2::Line(last)) = (numbered, a2)
                && l > first
                && l > *last
            {
                // Started late, already past the end: nothing to select.
                self.ranges[pc] = r;
                return Ok(false);
            }
            match a2 {
                Addr2::Line(n) => {
                    if *n > l {
                        r.active = true;
                        r.end = *n;
                    }
                }
                Addr2::Plus(n) => {
                    if *n > 0 {
                        r.active = true;
                        r.end = l + n;
                    }
                }
                Addr2::Tilde(n) => {
                    // GNU ends at the next multiple after this line, even
                    // when this line is one (`3,~3` is 3-6).
                    if *n > 0 {
                        r.active = true;
                        r.end = (l / n + 1) * n;
                    }
                }
                Addr2::Last => {
                    if !input.is_last(self, err) {
                        r.active = true;
                        r.end = 0;
                    }
                }
                Addr2::Re(re) => {
                    r.active = true;
                    r.end = 0;
                    if zero && self.re_match(re, &sp.ps, err)? {
                        r.active = false;
                    }
                }
            }
            true
        } else {
            match a2 {
                Addr2::Line(_) | Addr2::Plus(_) | Addr2::Tilde(_) => {
                    if l >= r.end {
                        r.active = false;
                    }
                    l <= r.end
                }
                Addr2::Last => {
                    if input.is_last(self, err) {
                        r.active = false;
                    }
                    true
                }
                Addr2::Re(re) => {
                    if self.re_match(re, &sp.ps, err)? {
                        r.active = false;
                    }
                    true
                }
            }
        };
        self.ranges[pc] = r;
        Ok(res)
    }

    fn cycle(
        &mut self,
        sp: &mut Space,
        input: &mut Input<'_>,
        sink: &mut Sink<'_>,
        err: &mut dyn Write,
    ) -> Result<Next, End> {
        let cmds = self.cmds;
        let mut pc = 0;
        let mut steps: u32 = 0;
        while pc < cmds.len() {
            steps = steps.wrapping_add(1);
            // Branches can loop within one cycle (`:a;ba`): keep the deadline in sight.
            if self.control.check_fast().is_err()
                || (steps.is_multiple_of(4096) && self.control.check().is_err())
            {
                return Err(End::Fatal(1));
            }
            let cmd = &cmds[pc];
            let hit = self.matches(pc, sp, input, err)? != cmd.negate;
            if !hit {
                pc = match cmd.kind {
                    Kind::Block(end) => end + 1,
                    _ => pc + 1,
                };
                continue;
            }
            pc += 1;
            match &cmd.kind {
                Kind::Block(_) | Kind::EndBlock | Kind::Label => {}
                Kind::LineNo => {
                    let s = format!("{}\n", self.line_no);
                    self.write_raw(sink, s.as_bytes())?;
                }
                Kind::Append(t) => self.queue.push(Queued::Text(t.clone())),
                Kind::Insert(t) => self.write_raw(sink, t)?,
                Kind::Change(t) => {
                    if cmd.negate || cmd.a2.is_none() || !self.ranges[pc - 1].active {
                        self.write_raw(sink, t)?;
                    }
                    self.dump_queue(sink)?;
                    return Ok(Next::Continue);
                }
                Kind::Branch(t) => pc = t.unwrap_or(cmds.len()),
                Kind::BranchIf(t) => {
                    if sp.replaced {
                        sp.replaced = false;
                        pc = t.unwrap_or(cmds.len());
                    }
                }
                Kind::BranchUnless(t) => {
                    if !sp.replaced {
                        pc = t.unwrap_or(cmds.len());
                    } else {
                        sp.replaced = false;
                    }
                }
                Kind::Delete => {
                    self.dump_queue(sink)?;
                    return Ok(Next::Continue);
                }
                Kind::DeleteFirst => return self.delete_first(sp, sink),
                Kind::Print => self.write_out(sink, &sp.ps, sp.nl)?,
                Kind::PrintFirst => match memchr::memchr(b'\n', &sp.ps) {
                    Some(end) => self.write_out(sink, &sp.ps[..end], true)?,
                    // One line only: as `p` (a missing newline stays missing).
                    None => self.write_out(sink, &sp.ps, sp.nl)?,
                },
                Kind::Next | Kind::NextAppend => {
                    let append = matches!(cmd.kind, Kind::NextAppend);
                    if let Some(next) = self.next_line(append, sp, input, sink, err)? {
                        return Ok(next);
                    }
                }
                Kind::Get | Kind::GetAppend | Kind::Hold | Kind::HoldAppend | Kind::Exchange => {
                    self.hold_space(&cmd.kind, sp)
                }
                Kind::List(n) => {
                    let text = list(&sp.ps, n.unwrap_or(self.set.line_wrap));
                    self.write_raw(sink, &text)?;
                }
                Kind::Quit(code) => {
                    self.end_cycle(sp, sink)?;
                    return Err(End::Quit(*code));
                }
                Kind::QuitSilent(code) => return Err(End::Quit(*code)),
                Kind::ReadFile(f) => self.queue.push(Queued::File(f.clone())),
                Kind::ReadLine(f) => {
                    if let Some(l) = self.read_line_of(f) {
                        self.queue.push(Queued::Text(l));
                    }
                }
                Kind::Write(f) => self.write_file(f, &sp.ps, sp.nl, sink)?,
                Kind::WriteFirst(f) => {
                    let end = memchr::memchr(b'\n', &sp.ps).unwrap_or(sp.ps.len());
                    self.write_file(f, &sp.ps[..end], true, sink)?;
                }
                Kind::Subst(s) => self.subst_command(s, sp, sink, err)?,
                Kind::Translate(map) => {
                    for b in sp.ps.iter_mut() {
                        *b = map[*b as usize];
                    }
                }
                Kind::Zap => sp.ps.clear(),
                Kind::FileName => {
                    let n = if sp.name == "-" {
                        "-".to_string()
                    } else {
                        sp.name.clone()
                    };
                    self.write_raw(sink, format!("{n}\n").as_bytes())?;
                }
            }
        }
        self.end_cycle(sp, sink)?;
        Ok(Next::Continue)
    }

    /// `D`: deletes up to the first newline and restarts the cycle without
    /// reading (or, with no newline, acts as `d`).
    fn delete_first(&mut self, sp: &mut Space, sink: &mut Sink<'_>) -> Result<Next, End> {
        match memchr::memchr(b'\n', &sp.ps) {
            None => {
                self.dump_queue(sink)?;
                Ok(Next::Continue)
            }
            Some(i) => {
                sp.ps.drain(..=i);
                self.dump_queue(sink)?;
                Ok(Next::Restart)
            }
        }
    }

    /// `s///`, then its `p` and `w` flags when it replaced.
    fn subst_command(
        &mut self,
        s: &Subst,
        sp: &mut Space,
        sink: &mut Sink<'_>,
        err: &mut dyn Write,
    ) -> Flow {
        if self.subst(s, sp, err)? {
            sp.replaced = true;
            for _ in 0..s.print {
                self.write_out(sink, &sp.ps, sp.nl)?;
            }
            if let Some(f) = &s.wfile {
                self.write_file(f, &sp.ps, sp.nl, sink)?;
            }
        }
        Ok(())
    }

    /// `n` (or with `append`, `N`): prints (`n` only, unless `-n`) and reads
    /// the next line into the pattern space. `Some` ends the cycle: with no
    /// next line GNU ends the script, printing as usual.
    fn next_line(
        &mut self,
        append: bool,
        sp: &mut Space,
        input: &mut Input<'_>,
        sink: &mut Sink<'_>,
        err: &mut dyn Write,
    ) -> Result<Option<Next>, End> {
        if input.is_last(self, err) {
            self.end_cycle(sp, sink)?;
            return Ok(Some(Next::Stop));
        }
        if !append && !self.set.quiet {
            self.write_out(sink, &sp.ps, sp.nl)?;
        }
        self.dump_queue(sink)?;
        let (line, nl, name) = input.next(self, err).unwrap();
        self.line_no += 1;
        if append {
            sp.ps.push(b'\n');
            sp.ps.extend_from_slice(&line);
        } else {
            sp.ps = line;
        }
        sp.nl = nl;
        sp.name = name;
        Ok(None)
    }

    /// `g G h H x`: the moves between the pattern and hold spaces.
    fn hold_space(&mut self, kind: &Kind, sp: &mut Space) {
        match kind {
            Kind::Get => {
                sp.ps = self.hold.clone();
                sp.nl = self.hold_nl;
            }
            Kind::GetAppend => {
                sp.ps.push(b'\n');
                sp.ps.extend_from_slice(&self.hold);
                sp.nl = self.hold_nl;
            }
            Kind::Hold => {
                self.hold = sp.ps.clone();
                self.hold_nl = sp.nl;
            }
            Kind::HoldAppend => {
                self.hold.push(b'\n');
                self.hold.extend_from_slice(&sp.ps);
                self.hold_nl = sp.nl;
            }
            Kind::Exchange => {
                std::mem::swap(&mut self.hold, &mut sp.ps);
                std::mem::swap(&mut self.hold_nl, &mut sp.nl);
            }
            _ => {}
        }
    }

    fn write_raw(&mut self, sink: &mut Sink<'_>, data: &[u8]) -> Flow {
        if sink.missing_nl {
            sink.w
                .write_all(&[self.set.sep])
                .map_err(|_| End::Fatal(4))?;
            sink.missing_nl = false;
        }
        sink.w.write_all(data).map_err(|_| End::Fatal(4))
    }

    /// `w`/`W`/`s///w`: appends `data` to the file's content (a line that
    /// lacked its newline in the input goes out without it, as with `p`).
    fn write_file(&mut self, f: &str, data: &[u8], nl: bool, sink: &mut Sink<'_>) -> Flow {
        let sep = self.set.sep;
        let missing = if nl {
            self.wfiles_missing_nl.remove(f)
        } else {
            !self.wfiles_missing_nl.insert(f.to_string())
        };
        if f == "/dev/stdout" {
            let w = &mut sink.w;
            let put = |w: &mut &mut dyn Write, b: &[u8]| w.write_all(b).map_err(|_| End::Fatal(4));
            if missing {
                put(w, &[sep])?;
            }
            put(w, data)?;
            if nl {
                put(w, &[sep])?;
            }
            return Ok(());
        }
        let buf = self.wfiles.entry(f.to_string()).or_default();
        if missing {
            buf.push(sep);
        }
        buf.extend_from_slice(data);
        if nl {
            buf.push(sep);
        }
        Ok(())
    }

    fn read_line_of(&mut self, f: &str) -> Option<Vec<u8>> {
        if !self.rfiles.contains_key(f) {
            let d = common::read_file(self.fs, self.cwd, f).ok()?;
            self.rfiles.insert(f.to_string(), (Rc::new(d.to_vec()), 0));
        }
        let (d, pos) = self.rfiles.get_mut(f)?;
        if *pos >= d.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &d[*pos..])
            .map(|i| *pos + i + 1)
            .unwrap_or(d.len());
        let l = d[*pos..end].to_vec();
        *pos = end;
        Some(l)
    }

    /// Runs `s`; returns whether a replacement was made.
    fn subst(&mut self, s: &Subst, sp: &mut Space, err: &mut dyn Write) -> Result<bool, End> {
        let re = self.regex(&s.re, err)?;
        let key = Rc::as_ptr(&re);
        let slots = self.slots.entry(key).or_insert_with(|| re.capture_slots());
        let ps = &sp.ps;
        let mut out = Vec::with_capacity(ps.len() + 16);
        let mut pos = 0;
        let mut copied = 0;
        let mut count = 0u64;
        let mut any = false;
        let mut last_end: Option<usize> = None;
        while pos <= ps.len() {
            if !re.captures_at(ps, pos, slots) {
                break;
            }
            let (ms, me) = slots.caps[0].unwrap();
            if ms == me && last_end == Some(ms) {
                // An empty match right after the previous match does not count.
                if ms >= ps.len() {
                    break;
                }
                pos = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                out.extend_from_slice(&ps[copied..ms]);
                expand(&s.repl, ps, &slots.caps, &mut out);
                copied = me;
                any = true;
                if !s.global {
                    break;
                }
            }
            last_end = Some(me);
            pos = if ms == me { me + 1 } else { me };
        }
        if !any {
            return Ok(false);
        }
        out.extend_from_slice(&ps[copied..]);
        sp.ps = out;
        Ok(true)
    }
}

/// What to do after a cycle.
enum Next {
    /// Read the next line.
    Continue,
    /// `D`: run the script again on what is left, without reading.
    Restart,
    /// No more input will be read.
    Stop,
}

/// Appends the replacement for one match to `out`.
fn expand(repl: &[Repl], ps: &[u8], caps: &[Option<(usize, usize)>], out: &mut Vec<u8>) {
    let mut mode = CaseMode::None;
    let mut one: Option<bool> = None;
    let push = |bytes: &[u8], mode: CaseMode, one: &mut Option<bool>, out: &mut Vec<u8>| {
        for &b in bytes {
            let mut c = match mode {
                CaseMode::Upper => b.to_ascii_uppercase(),
                CaseMode::Lower => b.to_ascii_lowercase(),
                CaseMode::None => b,
            };
            if let Some(up) = one.take() {
                c = if up {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
            }
            out.push(c);
        }
    };
    for r in repl {
        match r {
            Repl::Lit(l) => push(l, mode, &mut one, out),
            Repl::Group(g) => {
                if let Some(Some((s, e))) = caps.get(*g) {
                    push(&ps[*s..*e], mode, &mut one, out);
                }
            }
            Repl::Case(m) => {
                mode = *m;
                one = None;
            }
            Repl::One(up) => one = Some(*up),
        }
    }
}

/// The `l` rendering: C escapes, octal for other non-printables, `$` at the
/// end, lines folded with `\` at `wrap` columns (0: never).
pub fn list(ps: &[u8], wrap: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut col = 0;
    for &b in ps {
        let piece: Vec<u8> = match b {
            b'\\' => b"\\\\".to_vec(),
            0x07 => b"\\a".to_vec(),
            0x08 => b"\\b".to_vec(),
            0x0c => b"\\f".to_vec(),
            b'\n' => b"\\n".to_vec(),
            b'\r' => b"\\r".to_vec(),
            b'\t' => b"\\t".to_vec(),
            0x0b => b"\\v".to_vec(),
            0x20..=0x7e => vec![b],
            _ => format!("\\{b:03o}").into_bytes(),
        };
        if wrap > 1 && col + piece.len() > wrap - 1 {
            out.extend_from_slice(b"\\\n");
            col = 0;
        }
        col += piece.len();
        out.extend_from_slice(&piece);
    }
    out.extend_from_slice(b"$\n");
    out
}
