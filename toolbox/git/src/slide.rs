//! git's hunk sliding (xdiff's `xdl_change_compact`) over a line diff,
//! ported from imara-diff 0.2's `postprocess.rs` and `util.rs`
//! (Apache-2.0) so that the run's cancel check reaches it: imara-diff's own
//! `Diff::postprocess_with` is one call, and over a 400,000-line change
//! it ran 1.4 s (finding each next hunk rescans the other side up to its
//! next change: quadratic when that side changed only at its end). Same moves, same order, same heuristic: the hunks come
//! out as imara-diff's would.

use std::ops::Range;

use imara_diff::{Hunk, SliderHeuristic, Token};

use crate::diff::Check;
use crate::error::Result;

/// Slides (or hunks listed) between two cancel checks: a slide rescans
/// the hunk it grows, up to the whole text.
const SLIDES_PER_CHECK: usize = 16;

/// The changed lines of both sides: `removed[i]` for line `i` of the old
/// text, `added[j]` for line `j` of the new one.
pub struct Changes {
    /// Old lines not in the new text.
    pub removed: Vec<bool>,
    /// New lines not in the old text.
    pub added: Vec<bool>,
}

impl Changes {
    /// Slides the hunks as imara-diff's `postprocess_with` does: the added
    /// side against the removed one, then the other way round.
    pub fn slide(
        &mut self,
        before: &[Token],
        after: &[Token],
        heuristic: &mut impl SliderHeuristic,
        check: Check<'_>,
    ) -> Result<()> {
        Slider::new(&mut self.added, &self.removed, after, heuristic, check).run()?;
        Slider::new(&mut self.removed, &self.added, before, heuristic, check).run()
    }

    /// The hunks, in order (imara-diff's `HunkIter`).
    pub fn hunks(&self, check: Check<'_>) -> Result<Vec<Hunk>> {
        let mut out = Vec::new();
        let mut removed = self.removed.iter();
        let mut added = self.added.iter();
        let (mut pos_before, mut pos_after) = (0u32, 0u32);
        for step in 0usize.. {
            if step.is_multiple_of(SLIDES_PER_CHECK << 10) {
                check()?;
            }
            let r = (&mut removed).take_while(|&&c| c).count() as u32;
            let a = (&mut added).take_while(|&&c| c).count() as u32;
            if r != 0 || a != 0 {
                out.push(Hunk {
                    before: pos_before..pos_before + r,
                    after: pos_after..pos_after + a,
                });
                pos_before += r + 1;
                pos_after += a + 1;
            } else if removed.len() == 0 && added.len() == 0 {
                break;
            } else {
                pos_before += 1;
                pos_after += 1;
            }
        }
        Ok(out)
    }
}

/// One pass: hunks of `added` (lines of `tokens`) slid, aligned with
/// `removed`.
struct Slider<'a, H> {
    added: &'a mut [bool],
    removed: &'a [bool],
    tokens: &'a [Token],
    hunk: Hunk,
    heuristic: &'a mut H,
    check: Check<'a>,
    slides: usize,
}

impl<'a, H: SliderHeuristic> Slider<'a, H> {
    fn new(
        added: &'a mut [bool],
        removed: &'a [bool],
        tokens: &'a [Token],
        heuristic: &'a mut H,
        check: Check<'a>,
    ) -> Self {
        Slider {
            added,
            removed,
            tokens,
            hunk: Hunk {
                before: 0..0,
                after: 0..0,
            },
            heuristic,
            check,
            slides: 0,
        }
    }

    fn run(mut self) -> Result<()> {
        // Finding the next hunk scans the other side's lines up to its next
        // change, up to the whole text when that side changed only at its
        // end: a check for each.
        while (self.check)().is_ok() && next_hunk(&mut self.hunk, self.removed, self.added) {
            let (earliest_end, is_modification) = self.slide_both_ways()?;
            if self.hunk.after.end == earliest_end {
                continue;
            }
            if is_modification {
                // Aligned with a removal nearby: one modified hunk, not an
                // added and a removed one.
                while self.hunk.before.start == self.hunk.before.end {
                    if !self.up()? {
                        break;
                    }
                }
            } else {
                let end = self.heuristic.best_slider_end(
                    self.tokens,
                    self.hunk.after.clone(),
                    earliest_end,
                );
                for _ in end..self.hunk.after.end {
                    self.up()?;
                }
            }
        }
        (self.check)()
    }

    /// Up as far as it goes, then down as far as it goes, again while it
    /// grows by merging: (the earliest end, whether it met a removal).
    fn slide_both_ways(&mut self) -> Result<(u32, bool)> {
        loop {
            while self.up()? {}
            let earliest_end = self.hunk.after.end;
            let mut is_modification = self.hunk.before.start != self.hunk.before.end;
            let size = self.hunk.after.len();
            while self.down()? {
                is_modification |= self.hunk.before.start != self.hunk.before.end;
            }
            if size == self.hunk.after.len() {
                return Ok((earliest_end, is_modification));
            }
        }
    }

    fn count_slide(&mut self) -> Result<()> {
        self.slides += 1;
        if self.slides.is_multiple_of(SLIDES_PER_CHECK) {
            (self.check)()?;
        }
        Ok(())
    }

    /// Slides the hunk down a line, maybe merging it with the next one.
    fn down(&mut self) -> Result<bool> {
        let Some(&next) = self.tokens.get(self.hunk.after.end as usize) else {
            return Ok(false);
        };
        if self.tokens[self.hunk.after.start as usize] != next {
            return Ok(false);
        }
        self.count_slide()?;
        self.added[self.hunk.after.start as usize] = false;
        self.added[self.hunk.after.end as usize] = true;
        self.hunk.after.start += 1;
        self.hunk.after.end = hunk_end(self.added, self.hunk.after.end);
        self.hunk.before.start = self.hunk.before.end + 1;
        self.hunk.before.end = hunk_end(self.removed, self.hunk.before.start);
        Ok(true)
    }

    /// Slides the hunk up a line, maybe merging it with the previous one.
    fn up(&mut self) -> Result<bool> {
        let Range { start, end } = self.hunk.after;
        if start == 0 || self.tokens[start as usize - 1] != self.tokens[end as usize - 1] {
            return Ok(false);
        }
        self.count_slide()?;
        self.added[start as usize - 1] = true;
        self.added[end as usize - 1] = false;
        self.hunk.after.end -= 1;
        self.hunk.after.start = hunk_start(self.added, start - 1);
        self.hunk.before.end = self.hunk.before.start - 1;
        self.hunk.before.start = hunk_start(self.removed, self.hunk.before.start - 1);
        Ok(true)
    }
}

/// Moves `hunk` to the next run of `added` lines (imara-diff's
/// `Hunk::next_hunk`); false when there is none.
fn next_hunk(hunk: &mut Hunk, removed: &[bool], added: &[bool]) -> bool {
    let Some(off) = next_change(added, hunk.after.end) else {
        return false;
    };
    let mut off_before = 0;
    loop {
        let unchanged =
            next_change(removed, hunk.before.end).unwrap_or(removed.len() as u32 - hunk.before.end);
        if off_before + unchanged > off {
            hunk.before.start = hunk.before.end + (off - off_before);
            hunk.before.end = hunk.before.start;
            break;
        }
        off_before += unchanged;
        hunk.before.start = hunk.before.end + unchanged;
        hunk.before.end = hunk_end(removed, hunk.before.end + unchanged);
        if off_before == off {
            break;
        }
    }
    hunk.after.start = hunk.after.end + off;
    hunk.after.end = hunk_end(added, hunk.after.start);
    true
}

fn next_change(changes: &[bool], pos: u32) -> Option<u32> {
    changes[pos as usize..]
        .iter()
        .position(|&c| c)
        .map(|off| off as u32)
}

fn hunk_end(changes: &[bool], pos: u32) -> u32 {
    pos + changes[pos as usize..].iter().take_while(|&&c| c).count() as u32
}

fn hunk_start(changes: &[bool], pos: u32) -> u32 {
    pos - changes[..pos as usize]
        .iter()
        .rev()
        .take_while(|&&c| c)
        .count() as u32
}
