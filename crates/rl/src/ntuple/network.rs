//! The n-tuple network: lookup tables in one flat buffer, each read at
//! one or more placements (tuples of cells) of a board.

use super::SparseWeights;
use crate::{Check, Result, RlError, state::StateSource};

/// The most cells one tuple reads.
pub const MAX_TUPLE_LENGTH: usize = 8;

/// The most entries one table may have (`levels ^ tuple length`): 2^28
/// `f32`s, 1 GiB.
pub const MAX_TABLE_ENTRIES: usize = 1 << 28;

/// One placement of a table: where its entries start and the cells it reads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Feature {
    offset: usize,
    len: usize,
    cells: [u8; MAX_TUPLE_LENGTH],
}

/// `V(board) = sum over placements p of table(p)[index(board, p)]`, where
/// the index reads the placement's cells as the digits of a number in base
/// `levels`. Cells must be below `levels`.
///
/// A network may have several stages (multi-stage weights, Yeh and Wu
/// 2016): each its own copy of every table, one after another, chosen by
/// the caller per board (by the game's progress). One stage is the plain
/// network.
#[derive(Clone, Debug, PartialEq)]
pub struct NTupleNetwork {
    cells: usize,
    levels: usize,
    features: Vec<Feature>,
    /// Entries of one stage's tables.
    stage_len: usize,
    weights: Vec<f32>,
}

fn invalid(field: &'static str, expected: &'static str, found: u64) -> RlError {
    Check("ntuple").count(field, expected, found).into()
}

impl NTupleNetwork {
    /// A network over boards of `cells` cells with values `0..levels`;
    /// `tables[t]` lists the placements that read table `t` (all of one
    /// length, no cell twice in one placement). All weights start at 0.
    pub fn new(cells: usize, levels: usize, tables: &[Vec<Vec<usize>>]) -> Result<Self> {
        Self::staged(cells, levels, tables, 1)
    }

    /// [`NTupleNetwork::new`] with `stages` copies of the tables (1..=16).
    pub fn staged(cells: usize, levels: usize, tables: &[Vec<Vec<usize>>], stages: usize) -> Result<Self> {
        if !(1..=16).contains(&stages) {
            return Err(invalid("stages", "1..=16 stages", stages as u64));
        }
        if !(1..=256).contains(&cells) {
            return Err(invalid("cells", "1..=256 cells", cells as u64));
        }
        if !(2..=256).contains(&levels) {
            return Err(invalid("levels", "2..=256 values per cell", levels as u64));
        }
        if tables.is_empty() {
            return Err(invalid("tables", "at least one table", 0));
        }
        let mut features = Vec::new();
        let mut offset = 0;
        for placements in tables {
            let len = placements.first().map_or(0, Vec::len);
            if placements.is_empty() || !(1..=MAX_TUPLE_LENGTH).contains(&len) {
                return Err(invalid("tables", "placements of 1..=8 cells in every table", len as u64));
            }
            let entries = (0..len).try_fold(1usize, |n, _| n.checked_mul(levels).filter(|&n| n <= MAX_TABLE_ENTRIES));
            let Some(entries) = entries else {
                return Err(invalid("tables", "levels ^ tuple length <= 2^28 entries per table", len as u64));
            };
            for placement in placements {
                if placement.len() != len {
                    return Err(invalid("tables", "placements of one length within a table", placement.len() as u64));
                }
                let mut read = [0u8; MAX_TUPLE_LENGTH];
                for (k, &cell) in placement.iter().enumerate() {
                    if cell >= cells {
                        return Err(invalid("tables", "cells inside the board", cell as u64));
                    }
                    if placement[..k].contains(&cell) {
                        return Err(invalid("tables", "each cell at most once in a placement", cell as u64));
                    }
                    read[k] = cell as u8;
                }
                features.push(Feature { offset, len, cells: read });
            }
            offset += entries;
        }
        let Some(total) = offset.checked_mul(stages) else {
            return Err(invalid("stages", "stages x tables that fit in memory", stages as u64));
        };
        Ok(Self { cells, levels, features, stage_len: offset, weights: vec![0.0; total] })
    }

    /// Cells per board.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Values a cell can take.
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Placements summed per value (the number of entries a board reads).
    pub fn features(&self) -> usize {
        self.features.len()
    }

    /// Stages (copies of the tables).
    pub fn stages(&self) -> usize {
        self.weights.len() / self.stage_len
    }

    /// Every table's entries, one after another, stage after stage.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Sets every entry to `value` (optimistic initialisation: a board no
    /// update has touched is worth `value * features`).
    pub fn fill(&mut self, value: f32) {
        self.weights.fill(value);
    }

    #[inline]
    fn index(&self, feature: &Feature, board: &[u8]) -> usize {
        let cells = &feature.cells[..feature.len];
        feature.offset + cells.iter().fold(0, |index, &c| index * self.levels + board[c as usize] as usize)
    }

    #[track_caller]
    fn check(&self, board: &[u8]) {
        assert_eq!(board.len(), self.cells, "ntuple: board length");
        assert!(board.iter().all(|&c| (c as usize) < self.levels), "ntuple: a cell is >= levels ({})", self.levels);
    }

    /// The board's value: the sum of the entries its placements read.
    #[track_caller]
    pub fn value(&self, board: &[u8]) -> f32 {
        self.staged_value(0, board)
    }

    /// The board's value in stage `stage`'s tables.
    #[track_caller]
    pub fn staged_value(&self, stage: usize, board: &[u8]) -> f32 {
        self.check(board);
        let tables = &self.weights[stage * self.stage_len..(stage + 1) * self.stage_len];
        self.features.iter().map(|f| tables[self.index(f, board)]).sum()
    }

    /// Changes the board's value by about `delta`: each entry it reads
    /// moves by `delta / features` (exactly `delta` when no two placements
    /// read the same entry). Touches nothing else.
    #[track_caller]
    pub fn update(&mut self, board: &[u8], delta: f32) {
        let share = delta / self.features.len() as f32;
        self.update_each(0, board, |_, w| *w += share);
    }

    /// Calls `f` with the flat index (into [`NTupleNetwork::weights`]) and
    /// the entry of each placement stage `stage` reads for `board`, in
    /// placement order: an update with a rule of its own (per-entry step
    /// sizes).
    #[track_caller]
    pub fn update_each(&mut self, stage: usize, board: &[u8], mut f: impl FnMut(usize, &mut f32)) {
        self.check(board);
        assert!(stage < self.stages(), "ntuple: stage {stage} of {}", self.stages());
        let base = stage * self.stage_len;
        for k in 0..self.features.len() {
            let i = base + self.index(&self.features[k], board);
            f(i, &mut self.weights[i]);
        }
    }

    /// Copies the weights from `source`'s array `name` (same length, all finite).
    pub fn restore(&mut self, source: &dyn StateSource, name: &str) -> Result<()> {
        let fail = |detail: String| RlError::State { name: name.to_string(), detail };
        let saved = source.array(name).ok_or_else(|| fail("missing".into()))?;
        if saved.len() != self.weights.len() {
            return Err(fail(format!("{} weights, this network has {}", saved.len(), self.weights.len())));
        }
        if let Some(bad) = saved.iter().find(|w| !w.is_finite()) {
            return Err(fail(format!("a weight is {bad}, expected finite values")));
        }
        self.weights.copy_from_slice(saved);
        Ok(())
    }

    /// The weights in sparse form (the entries that are not `+0.0`).
    pub fn sparse(&self) -> SparseWeights {
        SparseWeights::encode(&self.weights)
    }

    /// Sets the weights from their sparse form, `gaps` and `values` (saved
    /// as `name`, for the error), bit for bit as they were encoded; every
    /// entry the form does not name is 0. A form that does not fit this
    /// network is an error and changes nothing.
    pub fn restore_sparse(&mut self, name: &str, gaps: &[u8], values: &[f32]) -> Result<()> {
        SparseWeights::decode(gaps, values, &mut self.weights)
            .map_err(|detail| RlError::State { name: name.to_string(), detail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SavedState;

    /// The value by the definition, one table at a time.
    fn naive_value(net: &NTupleNetwork, tables: &[Vec<Vec<usize>>], board: &[u8]) -> f32 {
        let mut offset = 0;
        let mut sum = 0.0;
        for placements in tables {
            for p in placements {
                let index = p.iter().fold(0, |i, &c| i * net.levels() + board[c] as usize);
                sum += net.weights()[offset + index];
            }
            offset += net.levels().pow(placements[0].len() as u32);
        }
        sum
    }

    #[test]
    fn value_is_the_sum_of_the_entries_each_placement_reads() {
        let tables = vec![vec![vec![0, 1, 2], vec![5, 4, 3]], vec![vec![2, 5]], vec![vec![4]]];
        let mut net = NTupleNetwork::new(6, 3, &tables).unwrap();
        assert_eq!(net.weights().len(), 27 + 9 + 3);
        assert_eq!(net.features(), 4);
        for (k, w) in net.weights.iter_mut().enumerate() {
            *w = (k as f32 * 0.37).sin();
        }
        let mut x = 7u32;
        for _ in 0..200 {
            let board: Vec<u8> = (0..6)
                .map(|_| {
                    x = x.wrapping_mul(1664525).wrapping_add(1013904223);
                    (x >> 24) as u8 % 3
                })
                .collect();
            let (got, want) = (net.value(&board), naive_value(&net, &tables, &board));
            assert!((got - want).abs() < 1e-5, "{board:?}: {got} vs {want}");
        }
        // Base 3, first cell most significant: [2, 0, 1] reads entry 19.
        let mut zero = NTupleNetwork::new(3, 3, &[vec![vec![0, 1, 2]]]).unwrap();
        zero.update(&[2, 0, 1], 1.0);
        assert_eq!(zero.weights().iter().position(|&w| w == 1.0), Some(19));
    }

    #[test]
    fn an_update_moves_the_value_by_delta_and_touches_only_its_entries() {
        let tables = vec![vec![vec![0, 1], vec![2, 3]], vec![vec![1, 2, 3]]];
        let mut net = NTupleNetwork::new(4, 4, &tables).unwrap();
        let board = [1, 2, 3, 0];
        let before = net.weights().to_vec();
        net.update(&board, 1.5);
        assert!((net.value(&board) - 1.5).abs() < 1e-6);
        let changed = net.weights().iter().zip(&before).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 3, "one entry per placement");
        // Two placements reading the same entry: it moves twice.
        let mut shared = NTupleNetwork::new(4, 4, &[vec![vec![0, 1], vec![2, 3]]]).unwrap();
        shared.update(&[1, 2, 1, 2], 1.0);
        assert_eq!(shared.value(&[1, 2, 1, 2]), 2.0);
    }

    #[test]
    fn bad_layouts_are_errors_naming_the_problem() {
        let err = |cells, levels, tables: &[Vec<Vec<usize>>]| NTupleNetwork::new(cells, levels, tables).unwrap_err();
        assert!(err(4, 1, &[vec![vec![0]]]).to_string().contains("levels"));
        assert!(err(4, 4, &[]).to_string().contains("at least one table"));
        assert!(err(4, 4, &[vec![vec![0, 4]]]).to_string().contains("cells inside the board"));
        assert!(err(4, 4, &[vec![vec![1, 1]]]).to_string().contains("at most once"));
        assert!(err(4, 4, &[vec![vec![0, 1], vec![2]]]).to_string().contains("one length"));
        assert!(err(4, 4, &[vec![]]).to_string().contains("1..=8 cells"));
        assert!(err(16, 16, &[vec![(0..8).collect()]]).to_string().contains("2^28"));
        let msg = err(4, 4, &[vec![vec![0, 9]]]).to_string();
        assert_eq!(msg, "ntuple.tables: expected cells inside the board, found 9");
    }

    #[test]
    #[should_panic(expected = "ntuple: a cell is >= levels (4)")]
    fn a_cell_above_the_levels_is_refused() {
        let net = NTupleNetwork::new(2, 4, &[vec![vec![0, 1]]]).unwrap();
        net.value(&[0, 4]);
    }

    #[test]
    fn restore_checks_length_and_finiteness() {
        let mut net = NTupleNetwork::new(2, 4, &[vec![vec![0, 1]]]).unwrap();
        let mut state = SavedState::new();
        state.push_array("w".into(), &[16], (0..16).map(|k| k as f32).collect());
        state.push_array("short".into(), &[3], vec![0.0; 3]);
        state.push_array("nan".into(), &[16], vec![f32::NAN; 16]);
        net.restore(&state, "w").unwrap();
        assert_eq!(net.value(&[1, 2]), 6.0);
        assert!(net.restore(&state, "short").unwrap_err().to_string().contains("3 weights"));
        assert!(net.restore(&state, "nan").unwrap_err().to_string().contains("finite"));
        assert!(net.restore(&state, "missing").is_err());
        assert_eq!(net.value(&[1, 2]), 6.0, "a failed restore changes nothing");
    }

    #[test]
    fn the_sparse_form_restores_the_same_network() {
        let mut net = NTupleNetwork::new(4, 4, &[vec![vec![0, 1, 2]], vec![vec![1, 3]]]).unwrap();
        let mut td = crate::ntuple::TdLearner::new(0.5);
        for (k, board) in [[1, 2, 3, 0], [0, 2, 1, 3], [3, 3, 0, 1]].iter().enumerate() {
            td.step(&mut net, board, k as f32);
        }
        td.finish(&mut net);
        let sparse = net.sparse();
        assert!(!sparse.values.is_empty() && sparse.values.len() < net.weights().len() / 4);
        let mut back = NTupleNetwork::new(4, 4, &[vec![vec![0, 1, 2]], vec![vec![1, 3]]]).unwrap();
        back.restore_sparse("w", &sparse.gaps, &sparse.values).unwrap();
        assert_eq!(back, net);
        let err = back.restore_sparse("w", &sparse.gaps, &sparse.values[1..]).unwrap_err().to_string();
        assert!(err.starts_with("restore 'w': ") && err.ends_with("values"), "{err}");
        assert_eq!(back, net, "a failed restore changes nothing");
    }
}
