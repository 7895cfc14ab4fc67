//! A gain network's file: a safetensors file of the network's tensors
//! (named as [`rnad_net::parameter_names`] lists them for
//! [`GainCnn`]: `conv.0.weight` … `output.bias`, all f32) with JSON
//! metadata under the key `rnad_gain`: `format`, `game`, `generation`,
//! `hands`, `samples`, `steps`, `batch`, `seed` and `error` (the mean
//! squared error on the training samples at the end).

use std::path::Path;

use crate::gain::network::GainCnn;
use candle_core::Tensor;
use rnad_games::GameSpec;
use rnad_net::{first_nonfinite, parameter_names};
use rnad_run::tensor_file::{self, RawTensor};
use serde::{Deserialize, Serialize};

use crate::error::EvaluatorError;

/// The format tag a gain network file carries.
pub const FORMAT: &str = "rnad-gain-cnn-1";
const KEY: &str = "rnad_gain";

/// What a gain network was trained on and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GainMeta {
    /// [`FORMAT`].
    pub format: String,
    /// The game it plays.
    pub game: GameSpec,
    /// Seed 004's generation (1: learnt from the heuristic player's hands).
    pub generation: u32,
    /// Hands in its training logs.
    pub hands: u64,
    /// Decisions in them.
    pub samples: u64,
    /// Adadelta steps.
    pub steps: u64,
    /// Samples a step.
    pub batch: usize,
    /// Seed of the initial weights, the batches and the dropout.
    pub seed: u64,
    /// Mean squared error on the training samples at the end.
    pub error: f64,
}

/// Writes `params` with `meta` to `path`, atomically.
pub fn save(path: &Path, params: &[Tensor], meta: &GainMeta) -> Result<(), EvaluatorError> {
    let names = parameter_names(GainCnn::build)?;
    let raw = names
        .into_iter()
        .zip(params)
        .map(|((name, _), tensor)| RawTensor::f32(name, tensor))
        .collect::<candle_core::Result<Vec<_>>>()?;
    let metadata = serde_json::to_string(meta).expect("metadata serialises");
    tensor_file::write(path, raw, KEY, metadata).map_err(|source| EvaluatorError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The parameters (in [`parameter_names`] order) and metadata of the gain
/// network at `path`; refused, saying why, unless every tensor is there
/// with its shape and finite.
pub fn load(path: &Path) -> Result<(Vec<Tensor>, GainMeta), EvaluatorError> {
    let refuse = |message: String| EvaluatorError::GainNetwork {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|source| EvaluatorError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (meta, mut tensors) = tensor_file::read(
        &bytes,
        KEY,
        "a gain network (rnad-evaluator gain-train writes them)",
    )
    .map_err(refuse)?;
    let meta: GainMeta =
        serde_json::from_str(&meta).map_err(|e| refuse(format!("bad metadata ({e})")))?;
    if meta.format != FORMAT {
        return Err(refuse(format!(
            "format `{}`, expected `{FORMAT}`",
            meta.format
        )));
    }
    let names = parameter_names(GainCnn::build)?;
    let mut params = Vec::new();
    for (name, dims) in &names {
        let tensor = tensors
            .remove(name)
            .ok_or_else(|| refuse(format!("tensor `{name}` is missing")))?;
        if tensor.dims() != dims.as_slice() || tensor.dtype() != candle_core::DType::F32 {
            return Err(refuse(format!(
                "tensor `{name}` is {:?} {:?}, the network needs f32 {dims:?}",
                tensor.dtype(),
                tensor.dims()
            )));
        }
        params.push(tensor);
    }
    if let Some(i) = first_nonfinite(&params)? {
        return Err(refuse(format!(
            "tensor `{}` holds a value that is not finite",
            names[i].0
        )));
    }
    Ok((params, meta))
}
