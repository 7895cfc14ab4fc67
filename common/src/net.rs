//! The policy-value network (a torso chosen by the config under policy and
//! value heads, in candle-nn), its parameter sets, legal (masked) softmax,
//! and the devices it runs on.
//!
//! A [`ParamSet`] is an immutable list of tensors in the order
//! [`NetShape::param_names`] gives. Parameter updates build new sets rather
//! than mutate, so a set published to actors or an evaluator never changes
//! under them.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use candle_core::{DType, Device, Result, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

pub mod adadelta;
pub mod autograd;
mod builder;
mod card_conv;
pub mod conv;
pub mod gain_cnn;
mod mlp;
mod policy_value;
mod residual_mlp;
mod torso;

pub use builder::{parameter_names, ParameterList};
pub use policy_value::{NetShape, PolicyValueNet, RecordedForward};
pub use torso::TorsoKind;

/// Logits are clamped to this magnitude before the legal softmax, so that
/// even infinite logits give finite probabilities.
const LOGIT_LIMIT: f64 = 1e20;

/// One of the parameter sets the learner publishes (θ_reg', the
/// regularisation before the last roll, never leaves it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PublishedSet {
    /// θ, what actors play.
    Online,
    /// θ_target.
    Target,
    /// θ_reg.
    Reg,
}

impl PublishedSet {
    /// Every published set.
    pub const ALL: [PublishedSet; 3] = [
        PublishedSet::Online,
        PublishedSet::Target,
        PublishedSet::Reg,
    ];

    /// The name checkpoints give its tensors (`online.layers.0.weight`).
    pub fn name(self) -> &'static str {
        match self {
            PublishedSet::Online => "online",
            PublishedSet::Target => "target",
            PublishedSet::Reg => "reg",
        }
    }
}

/// The published sets of one parameter version, borrowed: what the
/// evaluator judges.
#[derive(Clone, Copy, Debug)]
pub struct PublishedSets<'a> {
    /// θ.
    pub online: &'a ParamSet,
    /// θ_target.
    pub target: &'a ParamSet,
    /// θ_reg.
    pub reg: &'a ParamSet,
}

impl<'a> PublishedSets<'a> {
    /// The set named `name`.
    pub fn get(&self, name: PublishedSet) -> &'a ParamSet {
        match name {
            PublishedSet::Online => self.online,
            PublishedSet::Target => self.target,
            PublishedSet::Reg => self.reg,
        }
    }
}

/// One set of network parameters (θ, θ_target, θ_reg or θ_reg').
#[derive(Clone, Debug)]
pub struct ParamSet {
    tensors: Vec<Tensor>,
}

impl ParamSet {
    /// Fresh parameters: weights uniform in ±1/√fan_in (a weight's fan-in
    /// is the product of its dimensions after the first), biases zero, drawn
    /// from a generator seeded with `seed` (candle's own initialisers are
    /// not seedable).
    pub fn init(shape: &NetShape, seed: u64) -> Result<ParamSet> {
        ParamSet::init_named(&shape.param_names(), seed)
    }

    /// [`ParamSet::init`] for any module's `names` (as
    /// [`parameter_names`] lists them).
    pub fn init_named(names: &[(String, Vec<usize>)], seed: u64) -> Result<ParamSet> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let tensors = names
            .iter()
            .map(|(name, dims)| {
                let n: usize = dims.iter().product();
                let values: Vec<f32> = if name.ends_with(".bias") {
                    vec![0.0; n]
                } else {
                    let fan_in: usize = dims[1..].iter().product();
                    let bound = 1.0 / (fan_in as f32).sqrt();
                    (0..n)
                        .map(|_| (rng.random::<f32>() * 2.0 - 1.0) * bound)
                        .collect()
                };
                Tensor::from_vec(values, dims.as_slice(), &Device::Cpu)
            })
            .collect::<Result<_>>()?;
        Ok(ParamSet { tensors })
    }

    /// A set from tensors in [`NetShape::param_names`] order.
    pub fn from_tensors(tensors: Vec<Tensor>) -> ParamSet {
        ParamSet { tensors }
    }

    /// The tensors, in [`NetShape::param_names`] order.
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }

    /// The same parameters on `device`.
    pub fn to_device(&self, device: &Device) -> Result<ParamSet> {
        let tensors = self
            .tensors
            .iter()
            .map(|t| t.to_device(device))
            .collect::<Result<_>>()?;
        Ok(ParamSet { tensors })
    }

    /// `self + rate · (towards − self)`, tensor by tensor.
    pub fn lerp(&self, towards: &ParamSet, rate: f64) -> Result<ParamSet> {
        let tensors = self
            .tensors
            .iter()
            .zip(&towards.tensors)
            .map(|(a, b)| a + ((b - a)? * rate)?)
            .collect::<Result<_>>()?;
        Ok(ParamSet { tensors })
    }

    /// All values flattened, in order (for comparisons and hashing).
    pub fn to_vec(&self) -> Result<Vec<f32>> {
        let mut out = Vec::new();
        for t in &self.tensors {
            out.extend(t.flatten_all()?.to_vec1::<f32>()?);
        }
        Ok(out)
    }

    /// The tensors by name, with `prefix` before each name.
    pub fn named(&self, shape: &NetShape, prefix: &str) -> HashMap<String, Tensor> {
        shape
            .param_names()
            .into_iter()
            .zip(&self.tensors)
            .map(|((name, _), t)| (format!("{prefix}{name}"), t.clone()))
            .collect()
    }

    /// Takes the tensors named `prefix + name` out of `tensors`, checking
    /// each shape against `shape`.
    pub fn from_named(
        shape: &NetShape,
        prefix: &str,
        tensors: &HashMap<String, Tensor>,
    ) -> std::result::Result<ParamSet, ShapeMismatch> {
        let mut out = Vec::new();
        for (name, dims) in shape.param_names() {
            let key = format!("{prefix}{name}");
            let t = tensors
                .get(&key)
                .ok_or_else(|| ShapeMismatch(format!("tensor `{key}` is missing")))?;
            if t.dims() != dims.as_slice() {
                return Err(ShapeMismatch(format!(
                    "tensor `{key}` has shape {:?}, the network needs {dims:?}",
                    t.dims()
                )));
            }
            if t.dtype() != DType::F32 {
                return Err(ShapeMismatch(format!(
                    "tensor `{key}` is {:?}, not f32",
                    t.dtype()
                )));
            }
            out.push(t.clone());
        }
        Ok(ParamSet { tensors: out })
    }
}

/// The index of the first of `tensors` that holds a NaN or an infinity.
///
/// One reduction per tensor: `t − t` is 0 wherever `t` is finite and NaN
/// wherever it is not, so its sum is 0 exactly when every value is finite
/// (a plain sum could overflow on large finite values, and a maximum could
/// skip a NaN).
pub fn first_nonfinite(tensors: &[Tensor]) -> Result<Option<usize>> {
    // t − t on purpose: 0 where finite, NaN where not.
    #[allow(clippy::eq_op)]
    let residues = tensors
        .iter()
        .map(|t| (t - t)?.sum_all()?.to_dtype(DType::F32))
        .collect::<Result<Vec<_>>>()?;
    // One read for all (a device waits for each read); only a failed
    // check reads them one by one to name the tensor.
    let Some(first) = residues.first() else {
        return Ok(None);
    };
    let total = residues[1..]
        .iter()
        .try_fold(first.clone(), |sum, r| sum + r)?;
    if total.to_scalar::<f32>()? == 0.0 {
        return Ok(None);
    }
    for (i, residue) in residues.iter().enumerate() {
        if residue.to_scalar::<f32>()? != 0.0 {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Parameters that do not fit the network they are meant for: which tensor
/// and how.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeMismatch(pub String);

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

/// Softmax over the legal actions (`mask` 1 legal, 0 illegal; each row has a
/// legal action): finite whatever the logits, exactly 0 on illegal actions.
pub fn legal_policy(logits: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let (shifted, mask) = shifted_legal_logits(logits, mask)?;
    let exp = (shifted.exp()? * &mask)?;
    let sum = exp.sum_keepdim(1)?;
    exp.broadcast_div(&sum)
}

/// Log of [`legal_policy`], 0 on illegal actions; finite whatever the logits.
pub fn legal_log_policy(logits: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let (shifted, mask) = shifted_legal_logits(logits, mask)?;
    let log_sum = (shifted.exp()? * &mask)?.sum_keepdim(1)?.log()?;
    shifted.broadcast_sub(&log_sum)? * mask
}

/// Legal logits minus the row's largest legal logit (so ≤ 0, with a 0 at
/// the best legal action), zero on illegal actions.
fn shifted_legal_logits(logits: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
    let mask = mask.to_dtype(logits.dtype())?;
    let logits = logits.clamp(-LOGIT_LIMIT, LOGIT_LIMIT)?;
    let floor = logits.min_keepdim(1)?;
    let illegal = (1.0 - &mask)?;
    let masked = ((&logits * &mask)? + illegal.broadcast_mul(&floor)?)?;
    let max = masked.max_keepdim(1)?;
    let shifted = (masked.broadcast_sub(&max)? * &mask)?;
    Ok((shifted, mask))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_tensor_with_a_nan_or_an_infinity_but_not_large_values() {
        let t = |v: &[f32]| Tensor::from_slice(v, v.len(), &Device::Cpu).unwrap();
        let large = t(&[3.0e38, 3.0e38, -3.0e38]);
        assert_eq!(
            first_nonfinite(&[t(&[1.0, -2.0]), large.clone()]).unwrap(),
            None
        );
        assert_eq!(
            first_nonfinite(&[large.clone(), t(&[1.0, f32::NAN])]).unwrap(),
            Some(1)
        );
        assert_eq!(
            first_nonfinite(&[t(&[f32::NEG_INFINITY]), t(&[f32::NAN])]).unwrap(),
            Some(0)
        );
        assert_eq!(first_nonfinite(&[]).unwrap(), None);
    }

    fn t(rows: &[&[f32]]) -> Tensor {
        let cols = rows[0].len();
        let flat: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Tensor::from_vec(flat, (rows.len(), cols), &Device::Cpu).unwrap()
    }

    #[test]
    fn legal_softmax_is_finite_and_zero_on_illegal_actions() {
        let logits = t(&[
            &[1.0, 2.0, 3.0],
            &[f32::INFINITY, 0.0, -f32::INFINITY],
            &[1e30, -1e30, 5.0],
            &[-1e30, -1e30, -1e30],
            &[f32::NEG_INFINITY, 3.0, 3.0],
        ]);
        let mask = t(&[
            &[1.0, 1.0, 0.0],
            &[0.0, 1.0, 1.0],
            &[0.0, 1.0, 1.0],
            &[1.0, 0.0, 1.0],
            &[0.0, 1.0, 1.0],
        ]);
        let pi = legal_policy(&logits, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let log_pi = legal_log_policy(&logits, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let e = std::f32::consts::E;
        assert!((pi[0][0] - 1.0 / (1.0 + e)).abs() < 1e-6);
        assert!((pi[0][1] - e / (1.0 + e)).abs() < 1e-6);
        assert_eq!(pi[0][2], 0.0);
        assert_eq!(pi[1], vec![0.0, 1.0, 0.0]);
        assert_eq!(pi[2], vec![0.0, 0.0, 1.0]);
        assert_eq!(pi[3], vec![0.5, 0.0, 0.5]);
        assert_eq!(pi[4], vec![0.0, 0.5, 0.5]);
        for (p_row, l_row) in pi.iter().zip(&log_pi) {
            assert!((p_row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            for (p, l) in p_row.iter().zip(l_row) {
                assert!(p.is_finite() && l.is_finite(), "{pi:?} {log_pi:?}");
                if *p > 0.0 {
                    assert!((l - p.ln()).abs() < 1e-5, "{l} vs ln {p}");
                }
            }
        }
        assert_eq!(log_pi[0][2], 0.0);
    }

    #[test]
    fn forward_shapes_and_named_round_trip() {
        let shape = NetShape {
            input: 4,
            torso: TorsoKind::Mlp,
            hidden: vec![8, 6],
            actions: 3,
            cards: None,
        };
        let params = ParamSet::init(&shape, 7).unwrap();
        assert_eq!(params.to_vec().unwrap().len(), shape.num_params());
        let net = PolicyValueNet::new(&shape, params.tensors()).unwrap();
        let obs = Tensor::zeros((5, 4), DType::F32, &Device::Cpu).unwrap();
        let (logits, value) = net.forward(&obs).unwrap();
        assert_eq!(logits.dims(), &[5, 3]);
        assert_eq!(value.dims(), &[5]);

        let named = params.named(&shape, "online.");
        let back = ParamSet::from_named(&shape, "online.", &named).unwrap();
        assert_eq!(back.to_vec().unwrap(), params.to_vec().unwrap());
        let wider = NetShape {
            hidden: vec![9, 6],
            ..shape.clone()
        };
        let err = ParamSet::from_named(&wider, "online.", &named).unwrap_err();
        assert!(err.to_string().contains("torso.0.weight"), "{err}");
        assert_eq!(
            ParamSet::init(&shape, 7).unwrap().to_vec().unwrap(),
            params.to_vec().unwrap()
        );
    }
}
