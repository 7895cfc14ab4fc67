//! A batch's legal cells: one per legal action of every row, row after
//! row, each naming the state the network ran on and the action id. The
//! learner and the actors ask the network for these cells' logits only,
//! so everything downstream of the network (the legal softmax, v-trace,
//! NeuRD, the loss) costs what is legal, whatever the game's action count.

use std::ops::Range;
use std::sync::Arc;

use candle_core::{Device, Result, Tensor};

/// The legal cells of a batch's rows, on the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LegalCells {
    /// Where each row's cells start, then where the last row's end
    /// (`rows + 1` entries).
    offsets: Vec<usize>,
    /// Each cell's state: the row of the network's input it reads.
    state: Vec<u32>,
    /// Each cell's action id.
    action: Vec<u32>,
}

impl LegalCells {
    /// No rows yet.
    pub fn new() -> LegalCells {
        LegalCells {
            offsets: vec![0],
            ..LegalCells::default()
        }
    }

    /// Adds a row at the network's input row `state` whose legal actions
    /// are `ids`.
    pub fn push_row(&mut self, state: u32, ids: impl IntoIterator<Item = u16>) {
        for id in ids {
            self.state.push(state);
            self.action.push(u32::from(id));
        }
        self.offsets.push(self.state.len());
    }

    /// The cells of rows whose legal actions are the 1s of `mask` rows of
    /// `actions` entries, row `r` reading input row `r`.
    pub fn from_masks(mask: &[f32], actions: usize) -> LegalCells {
        let mut cells = LegalCells::new();
        for (row, legal) in mask.chunks_exact(actions).enumerate() {
            let ids = (0..actions).filter(|&a| legal[a] != 0.0);
            cells.push_row(row as u32, ids.map(|a| a as u16));
        }
        cells
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.state.len()
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    /// Row `row`'s cells.
    pub fn row(&self, row: usize) -> Range<usize> {
        self.offsets[row]..self.offsets[row + 1]
    }

    /// The row offsets (`rows + 1` entries, the last the cell count).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Each cell's action id.
    pub fn actions(&self) -> &[u32] {
        &self.action
    }

    /// The cell of `row` whose action is `action`, if it is legal there.
    pub fn cell_of(&self, row: usize, action: u16) -> Option<usize> {
        let cells = self.row(row);
        let ids = &self.action[cells.clone()];
        ids.iter()
            .position(|&a| a == u32::from(action))
            .map(|k| cells.start + k)
    }

    /// The rows' legal masks, `actions` entries a row: the inverse of
    /// [`LegalCells::from_masks`].
    pub fn masks(&self, actions: usize) -> Vec<f32> {
        self.spread(&vec![1.0; self.len()], actions)
    }

    /// Dense rows of `actions` entries read at each row's cells: the
    /// inverse of [`LegalCells::spread`] on the legal entries.
    pub fn gather(&self, dense: &[f32], actions: usize) -> Vec<f32> {
        (0..self.rows())
            .flat_map(|row| {
                self.row(row)
                    .map(move |cell| dense[row * actions + self.action[cell] as usize])
            })
            .collect()
    }

    /// Values per cell spread into rows of `actions` entries (0 where a
    /// row has no cell): what a consumer of dense rows reads.
    pub fn spread(&self, per_cell: &[f32], actions: usize) -> Vec<f32> {
        let mut dense = vec![0.0; self.rows() * actions];
        for row in 0..self.rows() {
            for cell in self.row(row) {
                dense[row * actions + self.action[cell] as usize] = per_cell[cell];
            }
        }
        dense
    }

    /// The cells' indices as tensors on `device`, for a network of
    /// `actions` actions.
    pub fn on(&self, device: &Device, actions: usize) -> Result<DeviceCells> {
        let flat: Vec<u32> = self
            .state
            .iter()
            .zip(&self.action)
            .map(|(&s, &a)| s * actions as u32 + a)
            .collect();
        let n = self.len();
        Ok(DeviceCells {
            state: Tensor::from_slice(&self.state, n, device)?,
            action: Tensor::from_slice(&self.action, n, device)?,
            flat: Tensor::from_vec(flat, n, device)?,
            host: Arc::new((self.state.clone(), self.action.clone())),
        })
    }
}

/// [`LegalCells`] as index tensors where the network runs.
#[derive(Clone, Debug)]
pub struct DeviceCells {
    /// Each cell's input row (`u32`, `[cells]`).
    pub state: Tensor,
    /// Each cell's action (`u32`, `[cells]`).
    pub action: Tensor,
    /// Each cell's place in a dense `[states, actions]` logit matrix.
    pub flat: Tensor,
    /// Each cell's state and action on the host, for the CPU's loops.
    pub(crate) host: Arc<(Vec<u32>, Vec<u32>)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_their_rows() {
        let mut cells = LegalCells::new();
        cells.push_row(0, [1, 4]);
        cells.push_row(2, [0]);
        cells.push_row(0, [1, 4]);
        assert_eq!((cells.rows(), cells.len()), (3, 5));
        assert_eq!(cells.offsets(), &[0, 2, 3, 5]);
        assert_eq!(cells.row(2), 3..5);
        assert_eq!(cells.cell_of(2, 4), Some(4));
        assert_eq!(cells.cell_of(1, 4), None);
        let dense = cells.spread(&[1.0, 2.0, 3.0, 4.0, 5.0], 5);
        assert_eq!(&dense[..5], &[0.0, 1.0, 0.0, 0.0, 2.0]);
        assert_eq!(&dense[5..10], &[3.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(cells.gather(&dense, 5), [1.0, 2.0, 3.0, 4.0, 5.0]);
        let masks = cells.masks(5);
        assert_eq!(&masks[..5], &[0.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(LegalCells::from_masks(&masks, 5).actions(), cells.actions());
        let on = cells.on(&Device::Cpu, 5).unwrap();
        // State 2's action 0 sits at 2·5 + 0 of a dense matrix.
        assert_eq!(on.flat.to_vec1::<u32>().unwrap(), vec![1, 4, 10, 1, 4]);
        assert_eq!(
            LegalCells::from_masks(&[0.0, 1.0, 1.0, 1.0, 0.0, 0.0], 3).offsets(),
            &[0, 2, 3]
        );
    }
}
