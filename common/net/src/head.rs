//! The policy head, chosen by the config's `network.head`: one linear
//! layer from the torso's features to a logit per distinct action, asked
//! either for every action of every state (dense) or only for the legal
//! actions of each state (gathered: the layer's rows for those ids). Both
//! compute the same logits from the same parameters, so a network trained
//! with one head plays, and resumes, with the other; the choice is what a
//! learner step and an actor's inference cost. Where a game has thousands
//! of actions and a state a handful of legal ones (Daihinmin), the dense
//! head spends most of a step on logits nobody reads. On the CPU the
//! gathered head's products are loops over the cells that read the rows
//! in place; elsewhere (and under autograd) they are candle's gathers,
//! which copy a row per cell.

use candle_core::{Device, Module, Result, Tensor};
use candle_nn::Linear;
use serde::{Deserialize, Serialize};

use super::cells::DeviceCells;

/// Which policy head (config `network.head`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadKind {
    /// One matrix product over every action: the fastest where a game has
    /// few actions.
    #[default]
    Dense,
    /// Each legal cell's logit from its own row of the output layer: a
    /// step costs what is legal, not what exists.
    Gathered,
}

impl std::fmt::Display for HeadKind {
    /// The config's name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HeadKind::Dense => "dense",
            HeadKind::Gathered => "gathered",
        })
    }
}

/// The policy head over its output layer.
#[derive(Clone, Debug)]
pub(crate) struct PolicyHead {
    kind: HeadKind,
    layer: Linear,
}

impl PolicyHead {
    /// The head of `kind` reading through `layer`.
    pub(crate) fn new(kind: HeadKind, layer: Linear) -> PolicyHead {
        PolicyHead { kind, layer }
    }

    /// Every action's logit `[N, actions]` at features `[N, width]`,
    /// whatever the head (what the evaluator and matches ask).
    pub(crate) fn logits(&self, features: &Tensor) -> Result<Tensor> {
        self.layer.forward(features)
    }

    /// The logit of every cell `[cells]`: cell `c` is state
    /// `cells.state[c]`'s action `cells.action[c]`.
    pub(crate) fn cell_logits(&self, features: &Tensor, cells: &DeviceCells) -> Result<Tensor> {
        match self.kind {
            HeadKind::Dense => self
                .logits(features)?
                .flatten_all()?
                .index_select(&cells.flat, 0),
            HeadKind::Gathered if on_host(features, self.layer.weight()) => {
                let (states, actions) = &*cells.host;
                let features = Rows::of(features)?;
                let weight = Rows::of(self.layer.weight())?;
                let bias = self.bias()?.to_vec1::<f32>()?;
                let logits: Vec<f32> = states
                    .iter()
                    .zip(actions)
                    .map(|(&s, &a)| {
                        let (s, a) = (s as usize, a as usize);
                        dot(features.row(s), weight.row(a)) + bias[a]
                    })
                    .collect();
                Tensor::from_vec(logits, states.len(), &Device::Cpu)
            }
            HeadKind::Gathered => {
                let rows = self.layer.weight().index_select(&cells.action, 0)?;
                let seen = features.index_select(&cells.state, 0)?;
                let bias = self.bias()?.index_select(&cells.action, 0)?;
                (rows * seen)?.sum(1)? + bias
            }
        }
    }

    /// From the loss's gradient at every cell's logit (`d_cells`,
    /// `[cells]`) and the features the logits were computed from: the
    /// gradient at the features and the layer's weight and bias
    /// gradients. Written out for each head: the gathered head's scatter
    /// back into the rows it read.
    pub(crate) fn gradients(
        &self,
        features: &Tensor,
        cells: &DeviceCells,
        d_cells: &Tensor,
    ) -> Result<(Tensor, [Tensor; 2])> {
        let weight = self.layer.weight();
        let (states, width) = features.dims2()?;
        let actions = weight.dim(0)?;
        let zeros = |dims: &[usize]| Tensor::zeros(dims, features.dtype(), features.device());
        match self.kind {
            HeadKind::Dense => {
                let d_logits = zeros(&[states * actions])?
                    .index_add(&cells.flat, d_cells, 0)?
                    .reshape((states, actions))?;
                let d_features = d_logits.matmul(weight)?;
                let d_weight = d_logits.t()?.matmul(features)?;
                Ok((d_features, [d_weight, d_logits.sum(0)?]))
            }
            HeadKind::Gathered if on_host(features, weight) => {
                let (cell_states, cell_actions) = &*cells.host;
                let seen = Rows::of(features)?;
                let rows = Rows::of(weight)?;
                let d_cells = d_cells.to_vec1::<f32>()?;
                let mut d_features = vec![0.0f32; states * width];
                let mut d_weight = vec![0.0f32; actions * width];
                let mut d_bias = vec![0.0f32; actions];
                for ((&s, &a), &d) in cell_states.iter().zip(cell_actions).zip(&d_cells) {
                    let (s, a) = (s as usize, a as usize);
                    add_scaled(&mut d_features[s * width..(s + 1) * width], d, rows.row(a));
                    add_scaled(&mut d_weight[a * width..(a + 1) * width], d, seen.row(s));
                    d_bias[a] += d;
                }
                let cpu = &Device::Cpu;
                Ok((
                    Tensor::from_vec(d_features, (states, width), cpu)?,
                    [
                        Tensor::from_vec(d_weight, (actions, width), cpu)?,
                        Tensor::from_vec(d_bias, actions, cpu)?,
                    ],
                ))
            }
            HeadKind::Gathered => {
                let d = d_cells.unsqueeze(1)?;
                let rows = weight.index_select(&cells.action, 0)?;
                let seen = features.index_select(&cells.state, 0)?;
                let d_features = zeros(&[states, width])?.index_add(
                    &cells.state,
                    &rows.broadcast_mul(&d)?,
                    0,
                )?;
                let d_weight = zeros(&[actions, width])?.index_add(
                    &cells.action,
                    &seen.broadcast_mul(&d)?,
                    0,
                )?;
                let d_bias = zeros(&[actions])?.index_add(&cells.action, d_cells, 0)?;
                Ok((d_features, [d_weight, d_bias]))
            }
        }
    }

    fn bias(&self) -> Result<&Tensor> {
        match self.layer.bias() {
            Some(bias) => Ok(bias),
            None => candle_core::bail!("the policy layer is built with a bias"),
        }
    }
}

/// Whether the head's products can be the CPU's loops: f32 on the CPU,
/// outside autograd (whose graph the loops would bypass).
fn on_host(features: &Tensor, weight: &Tensor) -> bool {
    [features, weight].iter().all(|t| {
        matches!(t.device(), Device::Cpu) && t.dtype() == candle_core::DType::F32 && !t.track_op()
    })
}

/// A matrix's rows on the host.
struct Rows {
    values: Vec<f32>,
    width: usize,
}

impl Rows {
    fn of(matrix: &Tensor) -> Result<Rows> {
        let (_, width) = matrix.dims2()?;
        Ok(Rows {
            values: matrix.flatten_all()?.to_vec1::<f32>()?,
            width,
        })
    }

    fn row(&self, row: usize) -> &[f32] {
        let start = row * self.width;
        &self.values[start..start + self.width]
    }
}

/// `Σ a·b`, in eight running sums so that the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// `target += scale · source`.
fn add_scaled(target: &mut [f32], scale: f32, source: &[f32]) {
    for (t, s) in target.iter_mut().zip(source) {
        *t += scale * s;
    }
}
