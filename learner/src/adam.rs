//! Adam as the reference configures it (b1 = 0, b2 = 0.999, eps = 1e-7),
//! followed by scaling with −lr and clipping each update, with its moments
//! held here so that checkpoints can save and restore them exactly, and an
//! optional decoupled weight decay (AdamW's, off in the reference).

use candle_core::{Device, Result, Tensor};
use rnad_net::ParamSet;
use rnad_run::config::RnadConfig;

/// Adam's fixed settings, all read from the run's config in one place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamSettings {
    /// Second-moment decay.
    pub b2: f64,
    /// Denominator epsilon.
    pub eps: f64,
    /// Each update is clipped to ±this.
    pub clip: f64,
    /// Decoupled weight decay λ: parameters shrink by `lr·λ` of themselves
    /// at each step (0: none).
    pub weight_decay: f64,
}

impl AdamSettings {
    /// `rnad.adam_b2`, `rnad.adam_eps`, `rnad.clip_gradient` and
    /// `rnad.weight_decay`.
    pub fn from_config(r: &RnadConfig) -> AdamSettings {
        AdamSettings {
            b2: r.adam_b2,
            eps: r.adam_eps,
            clip: r.clip_gradient,
            weight_decay: r.weight_decay,
        }
    }
}

/// Adam's state for one parameter set.
#[derive(Clone, Debug)]
pub struct Adam {
    /// The fixed settings.
    pub settings: AdamSettings,
    /// Second moments, one tensor per parameter tensor.
    pub nu: Vec<Tensor>,
    /// Updates applied so far.
    pub count: u64,
}

impl Adam {
    /// Zero moments shaped like `params`.
    pub fn new(params: &ParamSet, settings: AdamSettings) -> Result<Adam> {
        let nu = params
            .tensors()
            .iter()
            .map(Tensor::zeros_like)
            .collect::<Result<_>>()?;
        Ok(Adam {
            settings,
            nu,
            count: 0,
        })
    }

    /// The same state with its moments on `device`.
    pub fn into_device(self, device: &Device) -> Result<Adam> {
        let nu = self
            .nu
            .iter()
            .map(|t| t.to_device(device))
            .collect::<Result<_>>()?;
        Ok(Adam { nu, ..self })
    }

    /// The parameters after one step along `grads` (one per tensor) at
    /// `learning_rate` (the schedule's, so the rate is not Adam's state).
    ///
    /// With b1 = 0 the first moment is the gradient itself:
    /// `ν ← b2·ν + (1 − b2)·g²`, `Δ = −lr · g / (√(ν / (1 − b2^t)) + eps)`,
    /// clipped to ±clip, added to the parameters after they are scaled by
    /// `1 − lr·λ` (the decay is not clipped, so it holds the weights'
    /// size whatever the gradients).
    pub fn step(
        &mut self,
        params: &ParamSet,
        grads: &[Tensor],
        learning_rate: f64,
    ) -> Result<ParamSet> {
        let AdamSettings {
            b2,
            eps,
            clip,
            weight_decay,
        } = self.settings;
        self.count += 1;
        let correction = 1.0 - b2.powf(self.count as f64);
        let kept = 1.0 - learning_rate * weight_decay;
        let mut updated = Vec::with_capacity(grads.len());
        for ((param, grad), nu) in params.tensors().iter().zip(grads).zip(self.nu.iter_mut()) {
            *nu = ((&*nu * b2)? + (grad.sqr()? * (1.0 - b2))?)?;
            let denom = ((&*nu / correction)?.sqrt()? + eps)?;
            let delta = ((grad / denom)? * -learning_rate)?.clamp(-clip, clip)?;
            let decayed = if weight_decay > 0.0 {
                (param * kept)?
            } else {
                param.clone()
            };
            updated.push((decayed + delta)?);
        }
        Ok(ParamSet::from_tensors(updated))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(clip: f64, weight_decay: f64) -> AdamSettings {
        AdamSettings {
            b2: 0.999,
            eps: 1e-7,
            clip,
            weight_decay,
        }
    }

    #[test]
    fn first_step_moves_each_weight_by_lr_against_its_gradient_sign() {
        let params =
            ParamSet::from_tensors(vec![Tensor::new(&[1.0f32, 1.0, 1.0], &Device::Cpu).unwrap()]);
        let mut adam = Adam::new(&params, settings(1e4, 0.0)).unwrap();
        let grad = Tensor::new(&[2.0f32, -0.5, 0.0], &Device::Cpu).unwrap();
        let next = adam.step(&params, &[grad], 0.1).unwrap().to_vec().unwrap();
        // ν̂ = g² after bias correction, so Δ = −lr·g/(|g| + eps).
        assert!((next[0] - 0.9).abs() < 1e-6, "{next:?}");
        assert!((next[1] - 1.1).abs() < 1e-6, "{next:?}");
        assert_eq!(next[2], 1.0);
        assert_eq!(adam.count, 1);
    }

    #[test]
    fn updates_are_clipped() {
        let params =
            ParamSet::from_tensors(vec![Tensor::new(&[0.0f32, 0.0], &Device::Cpu).unwrap()]);
        let mut adam = Adam::new(&params, settings(0.25, 0.0)).unwrap();
        let grad = Tensor::new(&[1.0f32, -1.0], &Device::Cpu).unwrap();
        let next = adam.step(&params, &[grad], 10.0).unwrap().to_vec().unwrap();
        assert_eq!(next, vec![-0.25, 0.25]);
    }

    #[test]
    fn weight_decay_shrinks_each_parameter_by_lr_times_lambda_before_the_update() {
        let params = ParamSet::from_tensors(vec![
            Tensor::new(&[2.0f32, -4.0, 1.0], &Device::Cpu).unwrap()
        ]);
        let mut adam = Adam::new(&params, settings(1e4, 0.5)).unwrap();
        let grad = Tensor::new(&[1.0f32, 0.0, -3.0], &Device::Cpu).unwrap();
        let next = adam.step(&params, &[grad], 0.1).unwrap().to_vec().unwrap();
        // Kept fraction 1 − 0.1·0.5 = 0.95, then the first step's −lr·sign(g).
        let expected = [2.0 * 0.95 - 0.1, -4.0 * 0.95, 0.95 + 0.1];
        for (got, want) in next.iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{next:?} against {expected:?}");
        }
    }

    #[test]
    fn with_zero_gradients_weight_decay_alone_shrinks_geometrically() {
        let mut params =
            ParamSet::from_tensors(vec![Tensor::new(&[8.0f32], &Device::Cpu).unwrap()]);
        let mut adam = Adam::new(&params, settings(1e4, 0.25)).unwrap();
        let zero = Tensor::new(&[0.0f32], &Device::Cpu).unwrap();
        for _ in 0..3 {
            params = adam
                .step(&params, std::slice::from_ref(&zero), 2.0)
                .unwrap();
        }
        // Each step keeps 1 − 2·0.25 = 0.5 of the weight: 8 → 1.
        assert_eq!(params.to_vec().unwrap(), vec![1.0]);
    }
}
