//! Safetensors files as the project writes them: named tensors (`f32`
//! parameters, `f64` sums) with JSON metadata under one key, written
//! atomically, and read back with that metadata checked for presence.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};

/// One tensor as it goes into a file: name, type, shape, little-endian
/// bytes.
pub struct RawTensor {
    name: String,
    dtype: safetensors::Dtype,
    dims: Vec<usize>,
    bytes: Vec<u8>,
}

impl RawTensor {
    /// An `f32` tensor's values.
    pub fn f32(name: String, tensor: &Tensor) -> candle_core::Result<RawTensor> {
        let values = tensor.flatten_all()?.to_vec1::<f32>()?;
        Ok(RawTensor {
            name,
            dtype: safetensors::Dtype::F32,
            dims: tensor.dims().to_vec(),
            bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        })
    }

    /// A vector of `f64`s.
    pub fn f64(name: String, values: &[f64]) -> RawTensor {
        RawTensor {
            name,
            dtype: safetensors::Dtype::F64,
            dims: vec![values.len()],
            bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }
}

/// Writes `tensors` (sorted by name) with `metadata` as JSON under `key`
/// to `path`, atomically.
pub fn write(
    path: &Path,
    mut tensors: Vec<RawTensor>,
    key: &str,
    metadata: String,
) -> std::io::Result<()> {
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    let views = tensors
        .iter()
        .map(|t| {
            safetensors::tensor::TensorView::new(t.dtype, t.dims.clone(), &t.bytes)
                .map(|v| (t.name.clone(), v))
                .map_err(|e| std::io::Error::other(e.to_string()))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let metadata = HashMap::from([(key.to_string(), metadata)]);
    let data = safetensors::serialize(views, Some(metadata))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    crate::files::write_atomically(path, &data)
}

/// A file's metadata under `key` and its tensors (on the CPU); the error
/// says what is wrong with the bytes, and that they are not `what` (say,
/// "an rnad checkpoint") when the key is missing.
pub fn read(
    bytes: &[u8],
    key: &str,
    what: &str,
) -> Result<(String, HashMap<String, Tensor>), String> {
    let (_, header) = safetensors::SafeTensors::read_metadata(bytes)
        .map_err(|e| format!("not a readable safetensors file ({e})"))?;
    let metadata = header
        .metadata()
        .as_ref()
        .and_then(|m| m.get(key))
        .ok_or_else(|| format!("no {key} metadata: not {what}"))?
        .clone();
    let tensors = candle_core::safetensors::load_buffer(bytes, &Device::Cpu)
        .map_err(|e| format!("tensors unreadable ({e})"))?;
    Ok((metadata, tensors))
}
