//! A [`ParamSet`] is an immutable list of tensors in the order
//! [`NetShape::param_names`] gives. Parameter updates build new sets rather
//! than mutate, so a set published to actors or an evaluator never changes
//! under them.

use std::collections::HashMap;

use candle_core::{DType, Device, Result, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::NetShape;

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
    /// [`crate::parameter_names`] lists them).
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

/// Parameters that do not fit the network they are meant for: which tensor
/// and how.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeMismatch(pub String);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PolicyValueNet, TorsoKind};
    #[test]
    fn forward_shapes_and_named_round_trip() {
        let shape = NetShape {
            input: 4,
            torso: TorsoKind::Mlp,
            hidden: vec![8, 6],
            actions: 3,
            head: crate::HeadKind::Dense,
            grouped: false,
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
