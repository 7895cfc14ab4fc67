//! Adadelta (Zeiler 2012), seed 004's optimizer for its gain network, as
//! Keras applies it: per parameter, running averages of squared gradients
//! and squared updates,
//! `E[g²] ← ρ·E[g²] + (1 − ρ)·g²`,
//! `Δ = −√(E[Δ²] + ε) / √(E[g²] + ε) · g`,
//! `E[Δ²] ← ρ·E[Δ²] + (1 − ρ)·Δ²`, and `x ← x + α·Δ`.

use candle_core::{Result, Tensor};

/// Adadelta's settings (seed 004's: α = 1.0, ρ = 0.95, ε = 1e-8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdadeltaSettings {
    /// α, the factor on each update.
    pub learning_rate: f64,
    /// ρ, the decay of both running averages.
    pub rho: f64,
    /// ε.
    pub eps: f64,
}

impl Default for AdadeltaSettings {
    fn default() -> AdadeltaSettings {
        AdadeltaSettings {
            learning_rate: 1.0,
            rho: 0.95,
            eps: 1e-8,
        }
    }
}

/// Adadelta's state for one list of parameter tensors.
#[derive(Clone, Debug)]
pub struct Adadelta {
    settings: AdadeltaSettings,
    /// E[g²], one tensor per parameter tensor.
    squared_gradients: Vec<Tensor>,
    /// E[Δ²], likewise.
    squared_updates: Vec<Tensor>,
}

impl Adadelta {
    /// Zero averages shaped like `params`.
    pub fn new(params: &[Tensor], settings: AdadeltaSettings) -> Result<Adadelta> {
        let zeros = || {
            params
                .iter()
                .map(Tensor::zeros_like)
                .collect::<Result<Vec<_>>>()
        };
        Ok(Adadelta {
            settings,
            squared_gradients: zeros()?,
            squared_updates: zeros()?,
        })
    }

    /// The parameters after one step along `grads` (one per tensor).
    pub fn step(&mut self, params: &[Tensor], grads: &[Tensor]) -> Result<Vec<Tensor>> {
        let AdadeltaSettings {
            learning_rate,
            rho,
            eps,
        } = self.settings;
        let mut updated = Vec::with_capacity(params.len());
        for (i, (x, g)) in params.iter().zip(grads).enumerate() {
            let e_g = ((&self.squared_gradients[i] * rho)? + (g.sqr()? * (1.0 - rho))?)?;
            let ratio = ((&self.squared_updates[i] + eps)?.sqrt()? / (&e_g + eps)?.sqrt()?)?;
            let delta = (ratio * g)?.neg()?;
            self.squared_updates[i] =
                ((&self.squared_updates[i] * rho)? + (delta.sqr()? * (1.0 - rho))?)?;
            self.squared_gradients[i] = e_g;
            updated.push((x + (delta * learning_rate)?)?);
        }
        Ok(updated)
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{DType, Device};

    use super::*;

    /// Two steps on two parameters worked by hand (ρ = 0.95, ε = 1e-8):
    /// x = 1 with g = 0.5: E[g²] = 0.05·0.25 = 0.0125,
    /// Δ = −√1e-8/√0.01250001·0.5 = −4.4721e-4, E[Δ²] = 0.05·Δ² ≈ 1e-8;
    /// then g = −0.2: E[g²] = 0.95·0.0125 + 0.05·0.04 = 0.013875,
    /// Δ = √(E[Δ²] + 1e-8)/√(0.013875 + 1e-8)·0.2 = +2.4012e-4.
    /// x = −2 with g = 0, then 3: no move, then
    /// Δ = −√1e-8/√(0.45 + 1e-8)·3 = −4.4721e-4.
    #[test]
    fn two_steps_agree_with_the_hand_worked_values() {
        let tensor = |v: &[f64]| Tensor::from_slice(v, 2, &Device::Cpu).unwrap();
        let mut params = vec![tensor(&[1.0, -2.0])];
        let mut adadelta = Adadelta::new(&params, AdadeltaSettings::default()).unwrap();
        let mut expected_after = [
            [0.999_552_786_583_385_4, -2.0],
            [0.999_792_906_538_906_8, -2.000_447_213_590_531],
        ]
        .into_iter();
        for grads in [[0.5, 0.0], [-0.2, 3.0]] {
            params = adadelta.step(&params, &[tensor(&grads)]).unwrap();
            let got = params[0]
                .to_dtype(DType::F64)
                .unwrap()
                .to_vec1::<f64>()
                .unwrap();
            let expected = expected_after.next().unwrap();
            for (g, e) in got.iter().zip(expected) {
                assert!((g - e).abs() < 1e-12, "{got:?} vs {expected:?}");
            }
        }
    }
}
