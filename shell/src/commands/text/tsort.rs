//! `tsort`: a total order consistent with the pairs of tokens in FILE, in
//! GNU coreutils 9.1's exact order. GNU runs Knuth's algorithm T over its
//! items kept sorted by `strcmp`: each round queues the items with no
//! predecessor in that sorted order, and an item output releases its
//! successors latest-recorded first. When items remain, the input holds a
//! loop: GNU names one loop's members on stderr, drops one of its relations
//! and goes on; the status is then 1.

use std::collections::HashMap;
use std::io::Write;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: tsort [OPTION] [FILE]
Write totally ordered list consistent with the partial ordering in FILE.

With no FILE, or when FILE is -, read standard input.

      --help        display this help and exit
      --version     output version information and exit
";

const SPEC: &[OptSpec] = &[opt("version", None, Some("version"), Arg::None)];

/// One token of the input.
struct Item {
    name: Vec<u8>,
    /// Relations pointing at it not yet erased.
    count: usize,
    /// Its successors in the order recorded (GNU prepends each to its
    /// list, so it walks them from the end).
    successors: Vec<usize>,
    /// GNU's queue link, reused to retrace a loop.
    qlink: Option<usize>,
    printed: bool,
}

/// `tsort`
pub fn tsort(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("version") {
        let _ = writeln!(ctx.stdout, "tsort (GNU coreutils) 9.1");
        return 0;
    }
    if let Some(extra) = p.operands.get(1) {
        let msg = format!("extra operand {}", common::quote_locale(extra));
        common::usage_error(ctx, &msg);
        return 1;
    }
    let file = p.operands.first().map_or("-", String::as_str).to_string();
    let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, &file) {
        Ok(d) => d,
        Err(e) => {
            common::err(
                ctx.stderr,
                "tsort",
                format_args!("{}: {e}", common::quotef(&file)),
            );
            return 1;
        }
    };
    let tokens: Vec<&[u8]> = data
        .split(|b| matches!(b, b' ' | b'\t' | b'\n'))
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() % 2 == 1 {
        common::err(
            ctx.stderr,
            "tsort",
            format_args!("{file}: input contains an odd number of tokens"),
        );
        return 1;
    }
    let mut graph = Graph::new(&tokens);
    let ok = graph.sort(ctx.stdout, ctx.stderr, &file);
    i32::from(!ok)
}

/// The items and, in `strcmp` order, their indexes (GNU's tree walk).
struct Graph {
    items: Vec<Item>,
    sorted: Vec<usize>,
}

impl Graph {
    fn new(tokens: &[&[u8]]) -> Graph {
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut items: Vec<Item> = Vec::new();
        let mut id = |t: &[u8], items: &mut Vec<Item>| {
            if let Some(&i) = index.get(t) {
                return i;
            }
            items.push(Item {
                name: t.to_vec(),
                count: 0,
                successors: Vec::new(),
                qlink: None,
                printed: false,
            });
            index.insert(t.to_vec(), items.len() - 1);
            items.len() - 1
        };
        for pair in tokens.chunks(2) {
            let j = id(pair[0], &mut items);
            let k = id(pair[1], &mut items);
            if j != k {
                items[k].count += 1;
                items[j].successors.push(k);
            }
        }
        let mut sorted: Vec<usize> = (0..items.len()).collect();
        sorted.sort_by(|&a, &b| items[a].name.cmp(&items[b].name));
        Graph { items, sorted }
    }

    /// Algorithm T, writing the order to `stdout` and the loops' report to
    /// `stderr`, stdout flushed before each report (as GNU's `error()`
    /// does). False when the input held a loop.
    fn sort(&mut self, stdout: &mut dyn Write, stderr: &mut dyn Write, file: &str) -> bool {
        let mut out = Vec::new();
        let ok = self.rounds(&mut out, stdout, stderr, file);
        let _ = stdout.write_all(&out);
        ok
    }

    fn rounds(
        &mut self,
        out: &mut Vec<u8>,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
        file: &str,
    ) -> bool {
        let mut left = self.items.len();
        let mut ok = true;
        while left > 0 {
            crate::cancel::point();
            let mut queue: std::collections::VecDeque<usize> = self
                .sorted
                .iter()
                .copied()
                .filter(|&i| self.items[i].count == 0 && !self.items[i].printed)
                .collect();
            while let Some(i) = queue.pop_front() {
                crate::cancel::sometimes();
                out.extend_from_slice(&self.items[i].name);
                out.push(b'\n');
                self.items[i].printed = true;
                left -= 1;
                for n in (0..self.items[i].successors.len()).rev() {
                    let s = self.items[i].successors[n];
                    self.items[s].count -= 1;
                    if self.items[s].count == 0 {
                        queue.push_back(s);
                    }
                }
            }
            if left > 0 {
                let _ = stdout.write_all(out);
                let _ = stdout.flush();
                out.clear();
                let mut loops = Vec::new();
                let _ = writeln!(loops, "tsort: {file}: input contains a loop:");
                ok = false;
                let mut walk = None;
                while !self.detect_loop(&mut walk, &mut loops) {
                    crate::cancel::point();
                }
                let _ = stderr.write_all(&loops);
            }
        }
        ok
    }

    /// One walk of GNU's `detect_loop` over the items in order; true when
    /// it found a loop (reported, one relation removed).
    fn detect_loop(&mut self, walk: &mut Option<usize>, loops: &mut Vec<u8>) -> bool {
        for idx in 0..self.sorted.len() {
            let k = self.sorted[idx];
            if self.items[k].count == 0 {
                continue;
            }
            let Some(start) = *walk else {
                *walk = Some(k);
                continue;
            };
            let Some(pos) = self.items[k].successors.iter().rposition(|&s| s == start) else {
                continue;
            };
            if self.items[k].qlink.is_none() {
                self.items[k].qlink = Some(start);
                *walk = Some(k);
                continue;
            }
            // Retrace the path back to `k`, naming each member.
            let mut cur = Some(start);
            while let Some(l) = cur {
                let next = self.items[l].qlink;
                let _ = writeln!(
                    loops,
                    "tsort: {}",
                    String::from_utf8_lossy(&self.items[l].name)
                );
                if l == k {
                    let s = self.items[k].successors.remove(pos);
                    self.items[s].count -= 1;
                    break;
                }
                self.items[l].qlink = None;
                cur = next;
            }
            while let Some(l) = cur {
                cur = self.items[l].qlink.take();
            }
            *walk = None;
            return true;
        }
        false
    }
}
