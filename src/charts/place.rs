//! Where the notes beside a line chart's points go: each where it covers
//! no marker, other note or leader line, tried beside its point first,
//! then nudged away with a thin leader line back to it.
//!
//! The room taken is a bitmap of the plot's pixels ([`Taken`]), so that
//! checking a place costs the note's area, not a comparison with every
//! note placed before: placing n notes costs n × [`candidates`] (at most
//! 6 + 14 × [`NUDGES`]) × a note's rows, never n².

use super::layout::Rect;

/// How many steps of [`NUDGE_STEP`] pixels a note may move from its
/// point, in each direction: 240 px at most, a panel's height, so that
/// a leader line stays short enough to follow.
pub(super) const NUDGES: i32 = 60;
const NUDGE_STEP: i32 = 4;
/// The most places tried for the notes of one plot: past it, a note is
/// tried only beside its point. However crowded (many thread counts in a
/// narrow panel), a plot's notes cost at most this many checks of a
/// note's rows, plus six a note.
pub(super) const PLACES_TRIED: usize = 60_000;
/// A note this far from its point (or farther) gets a leader line.
const LEADER_FROM: i32 = 10;

/// The pixels of `area` taken, a bit each.
pub(super) struct Taken {
    area: Rect,
    words_per_row: usize,
    bits: Vec<u64>,
}

impl Taken {
    /// `area` with nothing taken yet.
    pub(super) fn new(area: Rect) -> Self {
        let words_per_row = (area.width() as usize).div_ceil(64);
        Taken {
            area,
            words_per_row,
            bits: vec![0; words_per_row * area.height() as usize],
        }
    }

    /// The row's words and the bit range `[from, to)` of columns
    /// `left..right`, clipped to the area; `None` when nothing is left.
    fn span(&self, left: i32, right: i32) -> Option<(usize, usize)> {
        let from = (left.max(self.area.left) - self.area.left) as usize;
        let to = (right.min(self.area.right) - self.area.left) as usize;
        (from < to).then_some((from, to))
    }

    fn rows(&self, top: i32, bottom: i32) -> std::ops::Range<usize> {
        let from = (top.max(self.area.top) - self.area.top).max(0) as usize;
        let to = (bottom.min(self.area.bottom) - self.area.top).max(0) as usize;
        from..to.max(from)
    }

    /// The mask of bits `[from, to)` within word `word` of a row.
    fn mask(word: usize, from: usize, to: usize) -> u64 {
        let start = from.max(word * 64) - word * 64;
        let end = to.min(word * 64 + 64) - word * 64;
        if end - start == 64 {
            u64::MAX
        } else {
            ((1u64 << (end - start)) - 1) << start
        }
    }

    /// Marks `rect` (clipped to the area) taken.
    pub(super) fn mark(&mut self, rect: Rect) {
        let Some((from, to)) = self.span(rect.left, rect.right) else {
            return;
        };
        for row in self.rows(rect.top, rect.bottom) {
            let base = row * self.words_per_row;
            for word in from / 64..=(to - 1) / 64 {
                self.bits[base + word] |= Self::mask(word, from, to);
            }
        }
    }

    /// Whether `rect` lies inside the area with none of its pixels taken.
    pub(super) fn is_free(&self, rect: Rect) -> bool {
        let area = self.area;
        if rect.left < area.left
            || rect.top < area.top
            || rect.right > area.right
            || rect.bottom > area.bottom
            || rect.right <= rect.left
        {
            return false;
        }
        let Some((from, to)) = self.span(rect.left, rect.right) else {
            return false;
        };
        self.rows(rect.top, rect.bottom).all(|row| {
            let base = row * self.words_per_row;
            (from / 64..=(to - 1) / 64)
                .all(|word| self.bits[base + word] & Self::mask(word, from, to) == 0)
        })
    }

    /// The pixels of the segment `from`-`to`, one a step.
    fn line(from: (i32, i32), to: (i32, i32)) -> impl Iterator<Item = (i32, i32)> {
        let steps = (to.0 - from.0).abs().max((to.1 - from.1).abs()).max(1);
        (0..=steps).map(move |step| {
            let along =
                |a: i32, b: i32| a + ((b - a) * step + steps / 2 * (b - a).signum()) / steps;
            (along(from.0, to.0), along(from.1, to.1))
        })
    }

    /// Marks the segment's pixels taken.
    pub(super) fn mark_line(&mut self, from: (i32, i32), to: (i32, i32)) {
        for (x, y) in Self::line(from, to) {
            self.mark(Rect {
                left: x,
                top: y,
                right: x + 1,
                bottom: y + 1,
            });
        }
    }

    /// Whether none of the segment's pixels inside the area is taken,
    /// short of its last two (which touch the note it leads to, and may
    /// touch a note stacked against that one).
    pub(super) fn line_is_free(&self, from: (i32, i32), to: (i32, i32)) -> bool {
        let pixels = Self::line(from, to).count();
        Self::line(from, to)
            .take(pixels.saturating_sub(2))
            .all(|(x, y)| {
                let inside = x >= self.area.left
                    && x < self.area.right
                    && y >= self.area.top
                    && y < self.area.bottom;
                if !inside {
                    return true;
                }
                let (column, row) = ((x - self.area.left) as usize, (y - self.area.top) as usize);
                self.bits[row * self.words_per_row + column / 64] & (1u64 << (column % 64)) == 0
            })
    }
}

/// The room kept around each thread count's compared points: a note
/// of one thread count first looks for a place that leaves the others'
/// free, so that theirs are not walled in (a note is wider than the gap
/// between two thread counts of a narrow panel).
pub(super) struct Corridors {
    /// `(column, top, bottom)`, by column: a column's points' rows
    /// and [`CORRIDOR`] pixels above and below them.
    columns: Vec<(i32, i32, i32)>,
}

/// How far above and below its points a thread count's room reaches.
const CORRIDOR: i32 = 40;

impl Corridors {
    /// The room around `points` (pixel column and row of each).
    pub(super) fn new(points: impl Iterator<Item = (i32, i32)>) -> Self {
        let mut columns: Vec<(i32, i32, i32)> = Vec::new();
        let mut sorted: Vec<(i32, i32)> = points.collect();
        sorted.sort_unstable();
        for (x, y) in sorted {
            match columns.last_mut() {
                Some(last) if last.0 == x => last.2 = y + CORRIDOR,
                _ => columns.push((x, y - CORRIDOR, y + CORRIDOR)),
            }
        }
        Corridors { columns }
    }

    /// Whether `rect` covers the room of a thread count other than the
    /// one at column `own`. Costs the columns under the note (a few: at
    /// most its width in pixels), found by binary search.
    pub(super) fn crosses(&self, rect: Rect, own: i32) -> bool {
        let first = self.columns.partition_point(|c| c.0 < rect.left);
        self.columns[first..]
            .iter()
            .take_while(|c| c.0 < rect.right)
            .any(|&(x, top, bottom)| x != own && rect.top < bottom && top < rect.bottom)
    }
}

/// The room of one plot's notes, as they are placed one by one: every
/// pixel drawn on, the notes' alone (which no leader line crosses), the
/// compared points' [`Corridors`], and how many places have been tried,
/// which [`PLACES_TRIED`] bounds.
pub(super) struct NoteRoom {
    taken: Taken,
    notes: Taken,
    corridors: Corridors,
    tried: usize,
}

impl NoteRoom {
    /// The room of `area` with the `markers` drawn, around the compared
    /// points at `verdict_points` (pixel column and row of each).
    pub(super) fn new(
        area: Rect,
        markers: Vec<Rect>,
        verdict_points: impl Iterator<Item = (i32, i32)>,
    ) -> Self {
        let mut taken = Taken::new(area);
        for rect in markers {
            taken.mark(rect);
        }
        NoteRoom {
            taken,
            notes: Taken::new(area),
            corridors: Corridors::new(verdict_points),
            tried: 0,
        }
    }

    /// The first free place for a note of `size` beside the point `at`,
    /// if any. A verdict is tried first where it leaves the other thread
    /// counts' room free, then anywhere, each time beside its point and
    /// then, while fewer than [`PLACES_TRIED`] places have been tried,
    /// nudged away; n= only right or left of its point, above. A place
    /// is free where it covers nothing drawn and its leader line crosses
    /// no note.
    pub(super) fn find(
        &mut self,
        at: (i32, i32),
        size: (i32, i32),
        is_verdict: bool,
    ) -> Option<Place> {
        let passes: &[bool] = if is_verdict { &[true, false] } else { &[false] };
        passes.iter().find_map(|&spare_others| {
            candidates(at, size, is_verdict && self.tried < PLACES_TRIED)
                .take(if is_verdict { usize::MAX } else { 2 })
                .find(|place| {
                    self.tried += 1;
                    !(spare_others && self.corridors.crosses(place.rect, at.0))
                        && self.taken.is_free(place.rect)
                        && place
                            .leader
                            .is_none_or(|(from, to)| self.notes.line_is_free(from, to))
                })
        })
    }

    /// Takes the room of a note drawn at `place`, and of its leader line.
    pub(super) fn take(&mut self, Place { rect, leader }: Place) {
        if let Some((from, to)) = leader {
            self.taken.mark_line(from, to);
        }
        self.taken.mark(rect);
        self.notes.mark(rect);
    }
}

/// A place for a note: its rectangle, and where its leader line runs
/// (from the point's marker to the note's nearest edge) when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) rect: Rect,
    pub(super) leader: Option<((i32, i32), (i32, i32))>,
}

/// The places tried for a note `w` × `h` beside the point at `(x, y)`,
/// in order: right of the point and left of it (above, then below),
/// centred above and below; with `nudge`, then the same places moved
/// away step by step (up or down, further out sideways, or both),
/// nearest first, each with its leader line.
pub(super) fn candidates(
    (x, y): (i32, i32),
    (w, h): (i32, i32),
    nudge: bool,
) -> impl Iterator<Item = Place> {
    let rect = move |left: i32, top: i32| Rect {
        left,
        top,
        right: left + w,
        bottom: top + h,
    };
    let (right, left) = (x + 9, x - 9 - w);
    let (above, below) = (y - 2 - h, y + 3);
    let direct = [
        rect(right, above),
        rect(left, above),
        rect(right, below),
        rect(left, below),
        rect(x - w / 2, y - 10 - h),
        rect(x - w / 2, y + 10),
    ];
    let steps = if nudge { NUDGES } else { 0 };
    let nudged = (1..=steps).flat_map(move |step| {
        let d = step * NUDGE_STEP;
        // Up or down beside the point, further out sideways, centred
        // over or under it, then both up or down and out.
        vec![
            rect(right, above - d),
            rect(left, above - d),
            rect(right, below + d),
            rect(left, below + d),
            rect(right + d, above),
            rect(left - d, above),
            rect(right + d, below),
            rect(left - d, below),
            rect(x - w / 2, y - 10 - h - d),
            rect(x - w / 2, y + 10 + d),
            rect(right + d, above - d),
            rect(left - d, above - d),
            rect(right + d, below + d),
            rect(left - d, below + d),
        ]
    });
    let direct_count = direct.len();
    direct
        .into_iter()
        .chain(nudged)
        .enumerate()
        .map(move |(number, rect)| {
            let near = (
                x.clamp(rect.left, rect.right - 1),
                y.clamp(rect.top, rect.bottom - 1),
            );
            let (dx, dy) = (near.0 - x, near.1 - y);
            let far = number >= direct_count && dx.abs().max(dy.abs()) >= LEADER_FROM;
            Place {
                rect,
                // From the marker's edge, not its centre.
                leader: far.then(|| {
                    let length = f64::from(dx * dx + dy * dy).sqrt().max(1.0);
                    let start = (
                        x + (f64::from(dx) * 6.0 / length).round() as i32,
                        y + (f64::from(dy) * 6.0 / length).round() as i32,
                    );
                    (start, near)
                }),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(left: i32, top: i32, right: i32, bottom: i32) -> Rect {
        Rect {
            left,
            top,
            right,
            bottom,
        }
    }

    #[test]
    fn taken_pixels_are_found_across_words() {
        let mut taken = Taken::new(rect(10, 20, 210, 120));
        assert!(taken.is_free(rect(10, 20, 210, 120)));
        assert!(!taken.is_free(rect(9, 20, 50, 30)), "outside the area");
        taken.mark(rect(70, 50, 140, 60));
        assert!(!taken.is_free(rect(139, 59, 150, 70)), "one pixel shared");
        assert!(taken.is_free(rect(140, 50, 200, 60)), "right is exclusive");
        assert!(taken.is_free(rect(70, 60, 140, 70)), "bottom is exclusive");
        assert!(!taken.is_free(rect(20, 40, 200, 55)), "spans the words");
        taken.mark_line((15, 100), (205, 110));
        assert!(!taken.is_free(rect(100, 95, 110, 115)));
        assert!(!taken.line_is_free((100, 40), (100, 70)));
        assert!(taken.line_is_free((100, 21), (100, 45)));
    }

    #[test]
    fn corridors_keep_the_other_thread_counts_room() {
        let corridors = Corridors::new([(100, 100), (200, 90), (200, 110)].into_iter());
        // Over the column at 200, within 40 px of its points.
        assert!(corridors.crosses(rect(150, 140, 250, 150), 100));
        assert!(!corridors.crosses(rect(150, 150, 250, 160), 100));
        assert!(!corridors.crosses(rect(150, 40, 199, 60), 100));
        // Its own column is no obstacle.
        assert!(!corridors.crosses(rect(150, 140, 250, 150), 200));
        assert!(corridors.crosses(rect(50, 100, 250, 110), 200));
    }

    #[test]
    fn candidates_start_beside_the_point_and_lead_back_when_far() {
        let places: Vec<Place> = candidates((100, 100), (40, 13), true).collect();
        assert_eq!(places[0].rect, rect(109, 85, 149, 98));
        assert!(places[..6].iter().all(|p| p.leader.is_none()));
        assert!(places[6..].iter().any(|p| p.leader.is_some()));
        // Centred under the point, the farthest down, leads up to it.
        let far = places
            .iter()
            .find(|p| {
                p.rect
                    == rect(
                        80,
                        110 + NUDGES * NUDGE_STEP,
                        120,
                        123 + NUDGES * NUDGE_STEP,
                    )
            })
            .unwrap();
        assert_eq!(far.leader, Some(((100, 106), (100, far.rect.top))));
        // Every place is tried once.
        let unique: std::collections::HashSet<_> =
            places.iter().map(|p| (p.rect.left, p.rect.top)).collect();
        assert_eq!(unique.len(), places.len());
        assert_eq!(candidates((100, 100), (40, 13), false).count(), 6);
    }
}
