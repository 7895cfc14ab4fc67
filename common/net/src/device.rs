//! The devices a network runs on, by the names the command lines take.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use candle_core::{Device, Result};

/// A device that cannot be used: an unknown name, or CUDA without it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnusableDevice(pub String);

/// The device named `cpu`, `cuda` or `cuda:N`. CUDA needs a build with the
/// `cuda` feature (`.ci/cuda-build.sh` makes one); without it the error
/// says so. Every name of one GPU in a process gives the same device: one
/// CUDA context.
pub fn parse_device(name: &str) -> std::result::Result<Device, UnusableDevice> {
    let ordinal = match name {
        "cpu" => return Ok(Device::Cpu),
        "cuda" => 0,
        other => match other
            .strip_prefix("cuda:")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) => n,
            None => {
                return Err(UnusableDevice(format!(
                    "unknown device {other:?}: use cpu, cuda or cuda:N"
                )))
            }
        },
    };
    if cfg!(feature = "cuda") {
        cuda_device(ordinal).map_err(|e| {
            UnusableDevice(format!(
                "cannot open CUDA device {ordinal} (no NVIDIA driver or GPU visible? in a \
                 container the NVIDIA container toolkit provides them: `docker run --gpus all`, \
                 or a `nvidia.com/gpu` limit on Kubernetes): {e}"
            ))
        })
    } else {
        Err(UnusableDevice(format!(
            "device {name:?}: this build has no CUDA support; build one with `bash .ci/cuda-build.sh --workspace` (target/cuda/release/)"
        )))
    }
}

/// CUDA device `ordinal`, opened once a process: candle makes a new
/// context at each opening, and a GPU named twice (a learner's `--device`
/// and its actors' `--actor-device`) wants one context, whose tensors then
/// count as on the same device.
fn cuda_device(ordinal: usize) -> Result<Device> {
    static OPENED: OnceLock<Mutex<HashMap<usize, Device>>> = OnceLock::new();
    let mut opened = OPENED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(device) = opened.get(&ordinal) {
        return Ok(device.clone());
    }
    let device = Device::new_cuda(ordinal)?;
    opened.insert(ordinal, device.clone());
    Ok(device)
}
