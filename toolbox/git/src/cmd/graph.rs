//! `log --graph`: git's history graph drawn beside each commit (one column
//! per line of history, `*` for the commit, `|\` after a merge, `|/` when
//! lines join), in git's topological order. The state machine follows
//! git's own: a commit row, the row after a merge, collapsing rows until
//! every line sits in its column, and padding rows for the commit's other
//! output lines. Octopus merges (three or more parents) are drawn as two-
//! parent merges with the extra lines collapsing afterwards.

use std::collections::HashMap;

use gix_hash::ObjectId;

use crate::error::Result;
use crate::repo::Repo;

/// git's topological order for `--graph`: a commit only after all its
/// children, walking a stack (the last parent found first), starting from
/// the tips in the order the date walk found them.
pub fn topo_order(
    repo: &Repo<'_>,
    ids: &[ObjectId],
    check: &dyn Fn() -> Result<()>,
) -> Result<Vec<ObjectId>> {
    let mut indegree: HashMap<ObjectId, usize> = ids.iter().map(|id| (*id, 1)).collect();
    let mut parents: HashMap<ObjectId, Vec<ObjectId>> = HashMap::new();
    for id in ids {
        check()?;
        let ps = repo.commit(id)?.parents.to_vec();
        for p in &ps {
            if let Some(n) = indegree.get_mut(p) {
                *n += 1;
            }
        }
        parents.insert(*id, ps);
    }
    let mut stack: Vec<ObjectId> = ids
        .iter()
        .filter(|id| indegree[*id] == 1)
        .copied()
        .collect();
    stack.reverse();
    let mut out = Vec::with_capacity(ids.len());
    while let Some(id) = stack.pop() {
        for p in &parents[&id] {
            let Some(n) = indegree.get_mut(p) else {
                continue;
            };
            if *n == 0 {
                continue;
            }
            *n -= 1;
            if *n == 1 {
                stack.push(*p);
            }
        }
        indegree.insert(id, 0);
        out.push(id);
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Padding,
    Skip,
    Commit,
    PostMerge,
    Collapsing,
}

/// The graph's state between commits.
pub struct Graph {
    commit: Option<ObjectId>,
    parents: Vec<ObjectId>,
    width: usize,
    state: State,
    prev_state: State,
    commit_index: usize,
    prev_commit_index: usize,
    merge_layout: i64,
    edges_added: i64,
    prev_edges_added: i64,
    columns: Vec<ObjectId>,
    new_columns: Vec<ObjectId>,
    mapping: Vec<i64>,
    old_mapping: Vec<i64>,
    mark: u8,
    /// Whether the last commit's output ended with a newline.
    terminated: bool,
}

impl Default for Graph {
    fn default() -> Self {
        Self::new()
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph {
            commit: None,
            parents: Vec::new(),
            width: 0,
            state: State::Padding,
            prev_state: State::Padding,
            commit_index: 0,
            prev_commit_index: 0,
            merge_layout: 0,
            edges_added: 0,
            prev_edges_added: 0,
            columns: Vec::new(),
            new_columns: Vec::new(),
            mapping: Vec::new(),
            old_mapping: Vec::new(),
            mark: b'*',
            terminated: true,
        }
    }

    fn set_state(&mut self, s: State) {
        self.prev_state = self.state;
        self.state = s;
    }

    /// Moves on to `commit`, whose shown parents are `parents`; `mark` is
    /// its character in the commit row (`*`, or `<`/`>` with --left-right).
    pub fn update(&mut self, commit: ObjectId, parents: Vec<ObjectId>, mark: u8) {
        self.commit = Some(commit);
        self.parents = parents;
        self.mark = mark;
        self.prev_commit_index = self.commit_index;
        self.update_columns();
        self.state = if self.state != State::Padding {
            State::Skip
        } else {
            State::Commit
        };
    }

    fn find_new_column(&self, id: &ObjectId) -> Option<usize> {
        self.new_columns.iter().position(|c| c == id)
    }

    fn insert_into_new_columns(&mut self, id: ObjectId, idx: Option<usize>) {
        let i = match self.find_new_column(&id) {
            Some(i) => i,
            None => {
                self.new_columns.push(id);
                self.new_columns.len() - 1
            }
        };
        let mapping_idx;
        if self.parents.len() > 1 && idx.is_some() && self.merge_layout == -1 {
            // The first parent of a merge: the merge leans left when that
            // parent already sits to the left of the commit.
            let dist = idx.unwrap_or(0) as i64 - i as i64;
            let shift = if dist > 1 { 2 * dist - 3 } else { 1 };
            self.merge_layout = if dist > 0 { 0 } else { 1 };
            self.edges_added = self.parents.len() as i64 + self.merge_layout - 2;
            mapping_idx = self.width as i64 + (self.merge_layout - 1) * shift;
            self.width += 2 * self.merge_layout as usize;
        } else if self.edges_added > 0
            && self.width >= 2
            && self.mapping[self.width - 2] == i as i64
        {
            mapping_idx = self.width as i64 - 2;
            self.edges_added = -1;
        } else {
            mapping_idx = self.width as i64;
            self.width += 2;
        }
        if mapping_idx >= 0 && (mapping_idx as usize) < self.mapping.len() {
            self.mapping[mapping_idx as usize] = i as i64;
        }
    }

    fn update_columns(&mut self) {
        std::mem::swap(&mut self.columns, &mut self.new_columns);
        self.new_columns.clear();
        let max_new = self.columns.len() + self.parents.len();
        self.mapping = vec![-1; 2 * max_new.max(1)];
        self.width = 0;
        self.prev_edges_added = self.edges_added;
        self.edges_added = 0;
        let commit = self
            .commit
            .unwrap_or_else(|| ObjectId::null(gix_hash::Kind::Sha1));
        let mut seen_this = false;
        let mut in_columns = true;
        let n = self.columns.len();
        for i in 0..=n {
            let col = if i == n {
                if seen_this {
                    break;
                }
                in_columns = false;
                commit
            } else {
                self.columns[i]
            };
            if col == commit {
                seen_this = true;
                self.commit_index = i;
                self.merge_layout = -1;
                for p in self.parents.clone() {
                    self.insert_into_new_columns(p, Some(i));
                }
                if self.parents.is_empty() {
                    self.width += 2;
                }
            } else {
                self.insert_into_new_columns(col, None);
            }
        }
        let _ = in_columns;
        while self.mapping.len() > 1 && self.mapping[self.mapping.len() - 1] < 0 {
            self.mapping.pop();
        }
    }

    fn mapping_correct(&self) -> bool {
        self.mapping
            .iter()
            .enumerate()
            .all(|(i, &t)| t < 0 || t == (i / 2) as i64)
    }

    fn pad(&self, line: &mut Vec<u8>) {
        while line.len() < self.width {
            line.push(b' ');
        }
    }

    /// The next row of the graph (no newline); whether it was the commit row.
    fn next_line(&mut self) -> (Vec<u8>, bool) {
        let mut line = Vec::new();
        let mut commit_row = false;
        match self.state {
            State::Padding => {
                for _ in 0..self.new_columns.len() {
                    line.extend_from_slice(b"| ");
                }
            }
            State::Skip => {
                line.extend_from_slice(b"...");
                self.set_state(State::Commit);
            }
            State::Commit => {
                self.commit_row(&mut line);
                commit_row = true;
            }
            State::PostMerge => self.post_merge_row(&mut line),
            State::Collapsing => self.collapsing_row(&mut line),
        }
        self.pad(&mut line);
        (line, commit_row)
    }

    fn commit_row(&mut self, line: &mut Vec<u8>) {
        let commit = self.commit;
        let n = self.columns.len();
        let mut seen_this = false;
        for i in 0..=n {
            let col = if i == n {
                if seen_this {
                    break;
                }
                commit
            } else {
                Some(self.columns[i])
            };
            if col == commit {
                seen_this = true;
                line.push(self.mark);
            } else if seen_this && self.edges_added > 1 {
                line.push(b'\\');
            } else if seen_this && self.edges_added == 1 {
                if self.prev_state == State::PostMerge
                    && self.prev_edges_added > 0
                    && self.prev_commit_index < i
                {
                    line.push(b'\\');
                } else {
                    line.push(b'|');
                }
            } else if self.prev_state == State::Collapsing
                && self.old_mapping.get(2 * i + 1).copied() == Some(i as i64)
                && self.mapping.get(2 * i).is_some_and(|&m| m < i as i64)
            {
                line.push(b'/');
            } else {
                line.push(b'|');
            }
            line.push(b' ');
        }
        if self.parents.len() > 1 {
            self.set_state(State::PostMerge);
        } else if self.mapping_correct() {
            self.set_state(State::Padding);
        } else {
            self.set_state(State::Collapsing);
        }
    }

    fn post_merge_row(&mut self, line: &mut Vec<u8>) {
        const MERGE_CHARS: [u8; 3] = [b'/', b'|', b'\\'];
        let commit = self.commit;
        let n = self.columns.len();
        let first_parent = self.parents.first().copied();
        let mut parent_col_seen = false;
        let mut seen_this = false;
        for i in 0..=n {
            let col = if i == n {
                if seen_this {
                    break;
                }
                commit
            } else {
                Some(self.columns[i])
            };
            if col == commit {
                seen_this = true;
                let mut idx = self.merge_layout.max(0) as usize;
                let np = self.parents.len();
                for j in 0..np {
                    line.push(MERGE_CHARS[idx.min(2)]);
                    if idx == 2 {
                        if self.edges_added > 0 || j < np - 1 {
                            line.push(b' ');
                        }
                    } else {
                        idx += 1;
                    }
                }
                if self.edges_added == 0 {
                    line.push(b' ');
                }
            } else if seen_this {
                line.push(if self.edges_added > 0 { b'\\' } else { b'|' });
                line.push(b' ');
            } else {
                line.push(b'|');
                if self.merge_layout != 0 || i + 1 != self.commit_index {
                    line.push(if parent_col_seen { b'_' } else { b' ' });
                }
            }
            if col.is_some() && col == first_parent {
                parent_col_seen = true;
            }
        }
        if self.mapping_correct() {
            self.set_state(State::Padding);
        } else {
            self.set_state(State::Collapsing);
        }
    }

    fn collapsing_row(&mut self, line: &mut Vec<u8>) {
        let size = self.mapping.len();
        std::mem::swap(&mut self.mapping, &mut self.old_mapping);
        self.mapping = vec![-1; size];
        let mut horizontal_edge: i64 = -1;
        let mut horizontal_target: i64 = -1;
        for i in 0..size {
            let target = self.old_mapping.get(i).copied().unwrap_or(-1);
            if target < 0 {
                continue;
            }
            if (target * 2) as usize == i {
                self.mapping[i] = target;
            } else if i >= 1 && self.mapping[i - 1] < 0 {
                self.mapping[i - 1] = target;
                if horizontal_edge == -1 {
                    horizontal_edge = i as i64;
                    horizontal_target = target;
                    let mut j = (target * 2 + 3) as usize;
                    while j + 2 < i {
                        self.mapping[j] = target;
                        j += 2;
                    }
                }
            } else if i >= 1 && self.mapping[i - 1] == target {
                // Joins the line to its left: same parent.
            } else if i >= 2 {
                self.mapping[i - 2] = target;
                if horizontal_edge == -1 {
                    horizontal_target = target;
                    horizontal_edge = i as i64 - 1;
                    let mut j = (target * 2 + 3) as usize;
                    while j + 2 < i {
                        self.mapping[j] = target;
                        j += 2;
                    }
                }
            }
        }
        self.old_mapping = self.mapping.clone();
        if self.mapping.last().is_some_and(|&m| m < 0) {
            self.mapping.pop();
        }
        let mut used_horizontal = false;
        for i in 0..self.mapping.len() {
            let target = self.mapping[i];
            if target < 0 {
                line.push(b' ');
            } else if (target * 2) as usize == i {
                line.push(b'|');
            } else if target == horizontal_target && i as i64 != horizontal_edge - 1 {
                if i as i64 != target * 2 + 3 {
                    self.mapping[i] = -1;
                }
                used_horizontal = true;
                line.push(b'_');
            } else {
                if used_horizontal && (i as i64) < horizontal_edge {
                    self.mapping[i] = -1;
                }
                line.push(b'/');
            }
        }
        if self.mapping_correct() {
            self.set_state(State::Padding);
        }
    }

    /// The prefix of a line of a commit's other output (its diff): a
    /// padding row, or the next row of a merge or collapse.
    fn padding_line(&mut self) -> Vec<u8> {
        if self.state != State::Commit {
            return self.next_line().0;
        }
        let mut line = Vec::new();
        for _ in 0..self.columns.len() {
            line.extend_from_slice(b"| ");
        }
        self.pad(&mut line);
        self.prev_state = State::Padding;
        line
    }

    fn finished(&self) -> bool {
        self.state == State::Padding
    }

    /// Writes one commit: `message` (its header and message, as log prints
    /// it), then `diff` after a separator row when `diff_separator`.
    /// `separator_before`: the blank line that separates commits in the
    /// formats that separate rather than terminate.
    pub fn write_commit(
        &mut self,
        message: &[u8],
        diff: &[u8],
        diff_separator: bool,
        separator_before: bool,
        out: &mut Vec<u8>,
    ) {
        if separator_before {
            // After output without a final newline, git adds only the newline.
            if self.terminated {
                let pad = self.padding_line();
                out.extend_from_slice(&pad);
            }
            out.push(b'\n');
        }
        self.terminated = message.ends_with(b"\n") || !diff.is_empty();
        loop {
            let (row, commit_row) = self.next_line();
            out.extend_from_slice(&row);
            if commit_row {
                break;
            }
            out.push(b'\n');
        }
        let mut rest = message;
        while !rest.is_empty() {
            let (line, after) = match rest.iter().position(|&b| b == b'\n') {
                Some(p) => rest.split_at(p + 1),
                None => (rest, &rest[rest.len()..]),
            };
            out.extend_from_slice(line);
            if !after.is_empty() {
                let (row, _) = self.next_line();
                out.extend_from_slice(&row);
            }
            rest = after;
        }
        if !self.finished() {
            let terminated = message.ends_with(b"\n");
            if !terminated {
                out.push(b'\n');
            }
            loop {
                let (row, _) = self.next_line();
                out.extend_from_slice(&row);
                if self.finished() {
                    break;
                }
                out.push(b'\n');
            }
            if terminated {
                out.push(b'\n');
            }
        }
        if diff_separator {
            let pad = self.padding_line();
            out.extend_from_slice(&pad);
            out.push(b'\n');
        }
        for line in diff.split_inclusive(|&b| b == b'\n') {
            let pad = self.padding_line();
            out.extend_from_slice(&pad);
            out.extend_from_slice(line);
        }
    }
}
