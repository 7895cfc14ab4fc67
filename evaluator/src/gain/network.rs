//! Seed 004's convolutional network (after Poker-CNN): from a decision and
//! a candidate action as planes (`rnad_games::encodings::card_planes`,
//! 33 × 17 × 17), the chip gain the action is expected to bring, divided
//! by the buy-in, in [−1, 1].
//!
//! Two 5×5 convolutions of 32 filters, a 2×2 max-pool, two 5×5
//! convolutions of 64 filters, a 2×2 max-pool, a fully connected layer of
//! 1,024 and dropout 0.5, every layer with a ReLU; the convolutions keep
//! the plane's size (padding 2), so the pools give 8×8 and then 4×4, and
//! the fully connected layer reads 4·4·64 = 1,024 values. The output is a
//! linear unit squashed by tanh, so that it stays in the target's range.

use candle_core::{Module, Result, Tensor};
use candle_nn::{linear, Linear, VarBuilder};
use rand::{Rng, RngExt};

use rnad_net::conv::Conv;

/// Planes of the input.
pub const INPUT_PLANES: usize = 33;
/// Side of each input plane.
pub const INPUT_SIDE: usize = 17;
/// The dropout rate before the output.
pub const DROPOUT: f32 = 0.5;

/// Seed 004's network.
#[derive(Clone, Debug)]
pub struct GainCnn {
    convolutions: [Conv; 4],
    hidden: Linear,
    output: Linear,
}

impl GainCnn {
    /// The network with its tensors from `vb` (`conv.0` … `conv.3`,
    /// `hidden`, `output`).
    pub fn build(vb: VarBuilder) -> Result<GainCnn> {
        let conv = vb.pp("conv");
        let convolutions = [
            Conv::build(INPUT_PLANES, 32, 5, conv.pp(0))?,
            Conv::build(32, 32, 5, conv.pp(1))?,
            Conv::build(32, 64, 5, conv.pp(2))?,
            Conv::build(64, 64, 5, conv.pp(3))?,
        ];
        Ok(GainCnn {
            convolutions,
            hidden: linear(4 * 4 * 64, 1024, vb.pp("hidden"))?,
            output: linear(1024, 1, vb.pp("output"))?,
        })
    }

    /// The fully connected layer's activations (`[N, 1024]`) for planes
    /// `[N, 33, 17, 17]`.
    fn features(&self, planes: &Tensor) -> Result<Tensor> {
        let [c0, c1, c2, c3] = &self.convolutions;
        let h = c1.forward(&c0.forward(planes)?.relu()?)?.relu()?;
        let h = h.max_pool2d(2)?;
        let h = c3.forward(&c2.forward(&h)?.relu()?)?.relu()?;
        let h = h.max_pool2d(2)?.flatten_from(1)?;
        weight_first(&self.hidden, &h)?.relu()
    }

    /// Predicted gains `[N]` for planes `[N, 33, 17, 17]`, as a player
    /// uses them (no dropout).
    pub fn forward(&self, planes: &Tensor) -> Result<Tensor> {
        self.gain(&self.features(planes)?)
    }

    /// Predicted gains in training: each of the fully connected layer's
    /// activations dropped with probability [`DROPOUT`] (the rest scaled
    /// up to keep their expectation), by a mask drawn from `rng`.
    pub fn forward_training(&self, planes: &Tensor, rng: &mut impl Rng) -> Result<Tensor> {
        let features = self.features(planes)?;
        let keep = 1.0 - DROPOUT;
        let mask: Vec<f32> = (0..features.elem_count())
            .map(|_| {
                if rng.random::<f32>() < keep {
                    1.0 / keep
                } else {
                    0.0
                }
            })
            .collect();
        let mask = Tensor::from_vec(mask, features.shape(), features.device())?;
        self.gain(&(features * mask)?)
    }

    fn gain(&self, features: &Tensor) -> Result<Tensor> {
        self.output.forward(features)?.tanh()?.squeeze(1)
    }
}

/// `layer` on rows `[N, in]`, multiplied as `(W · xᵀ)ᵀ` rather than as
/// candle-nn's `x · Wᵀ`: the same values, but the `gemm` crate's AVX-512
/// kernels multiply this 1,024 × 1,024 layer in candle's order far more
/// slowly than in this one when the rows are few, as at a player's
/// decisions (4 rows), enough to make a match slower than with AVX2
/// (`docs/results/networks/README.md`, "AVX-512"). The product comes out
/// as a transposed view, which the bias's addition reads once into a
/// plain tensor; on the narrower layers of the other networks that read
/// costs more than the order saves. On a GPU (cuBLAS) the order is not
/// known to matter either way and was not measured.
fn weight_first(layer: &Linear, rows: &Tensor) -> Result<Tensor> {
    let product = layer.weight().matmul(&rows.t()?)?.t()?;
    match layer.bias() {
        Some(bias) => product.broadcast_add(bias),
        None => Ok(product),
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Var};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use rnad_net::{parameter_names, ParamSet, ParameterList};

    fn network(seed: u64) -> (GainCnn, Vec<(String, Vec<usize>)>) {
        let names = parameter_names(GainCnn::build).unwrap();
        let params = ParamSet::init_named(&names, seed).unwrap();
        let list = ParameterList::new(params.tensors());
        let net = GainCnn::build(list.builder()).unwrap();
        list.all_taken().unwrap();
        (net, names)
    }

    /// The layers seed 004 names, with their sizes: 5×5 filters over 33,
    /// 32, 32 and 64 planes, 1,024 = 4·4·64 inputs to the fully connected
    /// layer, one output.
    #[test]
    fn the_layers_and_their_sizes() {
        let (_, names) = network(0);
        let shapes: Vec<(&str, &[usize])> = names
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_slice()))
            .collect();
        assert_eq!(
            shapes,
            [
                ("conv.0.weight", &[32, 33, 5, 5][..]),
                ("conv.0.bias", &[32][..]),
                ("conv.1.weight", &[32, 32, 5, 5][..]),
                ("conv.1.bias", &[32][..]),
                ("conv.2.weight", &[64, 32, 5, 5][..]),
                ("conv.2.bias", &[64][..]),
                ("conv.3.weight", &[64, 64, 5, 5][..]),
                ("conv.3.bias", &[64][..]),
                ("hidden.weight", &[1024, 1024][..]),
                ("hidden.bias", &[1024][..]),
                ("output.weight", &[1, 1024][..]),
                ("output.bias", &[1][..]),
            ]
        );
        let total: usize = names.iter().map(|(_, s)| s.iter().product::<usize>()).sum();
        assert_eq!(
            total,
            26_432 + 25_632 + 51_264 + 102_464 + 1_049_600 + 1_025
        );
    }

    /// The hidden layer multiplied weight first gives what candle-nn's
    /// layer gives, and the same gradients for its tensors and input, at
    /// one row, a decision's few and an odd count, with a bias that is
    /// not zero (a fresh network's are).
    #[test]
    fn weight_first_is_the_layer() {
        let (net, _) = network(2);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut random = |shape: &[usize]| {
            let n = shape.iter().product();
            let values = (0..n).map(|_| rng.random::<f32>() - 0.5).collect();
            Tensor::from_vec(values, shape, &Device::Cpu).unwrap()
        };
        let tracked = |t: &Tensor| Var::from_tensor(t).unwrap().as_tensor().clone();
        let layer = Linear::new(
            tracked(net.hidden.weight()),
            Some(tracked(&random(&[1024]))),
        );
        let gap = |a: &Tensor, b: &Tensor| {
            let scale = b.abs().unwrap().max_all().unwrap();
            let gap = (a - b).unwrap().abs().unwrap().max_all().unwrap();
            gap.to_scalar::<f32>().unwrap() / scale.to_scalar::<f32>().unwrap().max(1e-12)
        };
        for rows in [1, 3, 4] {
            let input = tracked(&random(&[rows, 1024]));
            let ours = weight_first(&layer, &input).unwrap();
            let theirs = layer.forward(&input).unwrap();
            assert_eq!(ours.dims(), &[rows, 1024]);
            assert!(gap(&ours, &theirs) < 1e-5, "{rows} rows");
            // A loss that weighs each output differently, so that a
            // transposed gradient would show.
            let weights = random(&[rows, 1024]);
            let loss = |y: Tensor| (y.sqr().unwrap() * &weights).unwrap().sum_all().unwrap();
            let ours = loss(ours).backward().unwrap();
            let theirs = loss(theirs).backward().unwrap();
            for tensor in [layer.weight(), layer.bias().unwrap(), &input] {
                let (a, b) = (ours.get(tensor).unwrap(), theirs.get(tensor).unwrap());
                assert!(gap(a, b) < 1e-5, "{rows} rows: {:?}", tensor.dims());
            }
        }
    }

    /// A gain per input row, in [−1, 1]; without dropout the same input
    /// gives the same gain, with it the seeded masks decide.
    #[test]
    fn one_gain_per_row_and_dropout_only_in_training() {
        let (net, _) = network(1);
        let planes = Tensor::rand(
            0f32,
            1f32,
            (3, INPUT_PLANES, INPUT_SIDE, INPUT_SIDE),
            &Device::Cpu,
        )
        .unwrap();
        let gains = net.forward(&planes).unwrap();
        assert_eq!(gains.dims(), &[3]);
        let values = gains.to_vec1::<f32>().unwrap();
        assert!(values.iter().all(|g| g.abs() <= 1.0), "{values:?}");
        assert_eq!(
            net.forward(&planes).unwrap().to_vec1::<f32>().unwrap(),
            values
        );
        let trained = |seed| {
            net.forward_training(&planes, &mut ChaCha8Rng::seed_from_u64(seed))
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        assert_eq!(trained(7), trained(7));
        assert_ne!(trained(7), trained(8));
        assert_ne!(trained(7), values);
    }
}
