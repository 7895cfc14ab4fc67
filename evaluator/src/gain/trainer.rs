//! Seed 004's training: mean squared error between the network's gains
//! and the samples' targets, minimised by Adadelta over minibatches, with
//! dropout drawn from a seeded generator.

use crate::gain::adadelta::{Adadelta, AdadeltaSettings};
use crate::gain::network::GainCnn;
use candle_core::{Device, Result, Tensor};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rnad_net::{autograd, parameter_names, ParamSet, ParameterList};

use super::{planes, GainSample};

/// A gain network being trained.
pub struct GainTrainer {
    device: Device,
    params: Vec<Tensor>,
    optimizer: Adadelta,
    dropout: ChaCha8Rng,
}

impl GainTrainer {
    /// A fresh network drawn from `seed` (which also seeds the dropout),
    /// trained on `device`.
    pub fn new(seed: u64, device: &Device) -> Result<GainTrainer> {
        let names = parameter_names(GainCnn::build)?;
        let params = ParamSet::init_named(&names, seed)?
            .to_device(device)?
            .tensors()
            .to_vec();
        let optimizer = Adadelta::new(&params, AdadeltaSettings::default())?;
        Ok(GainTrainer {
            device: device.clone(),
            params,
            optimizer,
            dropout: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_0004),
        })
    }

    /// The parameters, in [`parameter_names`] order (on the training
    /// device).
    pub fn params(&self) -> &[Tensor] {
        &self.params
    }

    /// One Adadelta step on `batch`; the batch's mean squared error
    /// before it (with dropout).
    pub fn step(&mut self, batch: &[&GainSample]) -> Result<f64> {
        let (vars, tracked) = autograd::tracked(&self.params)?;
        let list = ParameterList::new(&tracked);
        let net = GainCnn::build(list.builder())?;
        let gains = net.forward_training(&self.planes(batch)?, &mut self.dropout)?;
        let loss = (gains - self.targets(batch)?)?.sqr()?.mean_all()?;
        let grads = autograd::gradients(&loss, &vars)?;
        self.params = self.optimizer.step(&self.params, &grads)?;
        loss.to_scalar::<f32>().map(f64::from)
    }

    /// The mean squared error on `samples` as a player would predict
    /// (no dropout).
    pub fn error(&self, samples: &[&GainSample]) -> Result<f64> {
        let list = ParameterList::new(&self.params);
        let net = GainCnn::build(list.builder())?;
        let gains = net.forward(&self.planes(samples)?)?;
        let loss = (gains - self.targets(samples)?)?.sqr()?.mean_all()?;
        loss.to_scalar::<f32>().map(f64::from)
    }

    /// The samples' planes, made on the CPU, on the training device.
    fn planes(&self, batch: &[&GainSample]) -> Result<Tensor> {
        planes(batch.iter().map(|s| (&s.state, s.player, s.action)))?.to_device(&self.device)
    }

    fn targets(&self, batch: &[&GainSample]) -> Result<Tensor> {
        let values: Vec<f32> = batch.iter().map(|s| s.target).collect();
        Tensor::from_vec(values, batch.len(), &self.device)
    }
}
