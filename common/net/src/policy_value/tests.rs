use candle_core::{DType, Device, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::ParamSet;
use rnad_games::CardLayout;

fn random(rng: &mut ChaCha8Rng, dims: &[usize]) -> Tensor {
    let n = dims.iter().product();
    let values: Vec<f32> = (0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect();
    Tensor::from_vec(values, dims, &Device::Cpu).unwrap()
}

fn values(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

/// Parameters of `shape` with the biases moved off zero.
fn perturbed(shape: &NetShape, rng: &mut ChaCha8Rng) -> Vec<Tensor> {
    ParamSet::init(shape, 3)
        .unwrap()
        .tensors()
        .iter()
        .map(|t| (t + random(rng, t.dims()) * 0.1).unwrap())
        .collect()
}

fn shape(torso: TorsoKind, hidden: Vec<usize>) -> NetShape {
    NetShape {
        input: 5,
        torso,
        hidden,
        actions: 3,
        cards: None,
    }
}

/// The MLP's written-out backward against candle's autograd on the loss
/// Σ logits·g + Σ values·h, whose gradient with respect to the outputs is
/// (g, h): every parameter's gradient agrees, on nets of one, two and
/// three hidden layers.
#[test]
fn the_closed_form_gradient_agrees_with_autograd_on_every_mlp() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for hidden in [vec![8], vec![8, 6], vec![5, 7, 4]] {
        let shape = shape(TorsoKind::Mlp, hidden);
        let params = perturbed(&shape, &mut rng);
        let rows = 9;
        let obs = random(&mut rng, &[rows, shape.input]);
        let d_logits = random(&mut rng, &[rows, shape.actions]);
        let d_values = random(&mut rng, &[rows]);
        let gradients = |how| {
            RecordedForward::record_by(&shape, &params, &obs, how)
                .unwrap()
                .parameter_gradients(&d_logits, &d_values)
                .unwrap()
        };
        let autograd = gradients(Differentiation::Autograd);
        let closed_form = gradients(Differentiation::ClosedForm);
        assert_eq!(autograd.len(), closed_form.len());
        for ((expected, got), (name, dims)) in
            autograd.iter().zip(&closed_form).zip(shape.param_names())
        {
            assert_eq!(got.dims(), dims.as_slice(), "{name}");
            let (expected, got) = (values(expected), values(got));
            assert!(
                expected.iter().any(|g| g.abs() > 1e-3),
                "{name}: {expected:?}"
            );
            for (e, g) in expected.iter().zip(&got) {
                assert!((e - g).abs() <= 1e-5 + 1e-4 * e.abs(), "{name}: {e} vs {g}");
            }
        }
    }
}

/// Autograd through `shape`'s network against central finite
/// differences of the same loss, computed in f64, on every parameter.
fn assert_gradients_match_finite_differences(shape: &NetShape, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let params = perturbed(shape, &mut rng);
    let obs = random(&mut rng, &[6, shape.input]);
    let d_logits = random(&mut rng, &[6, shape.actions]);
    let d_values = random(&mut rng, &[6]);
    let loss = |params: &[Tensor]| -> f64 {
        let params: Vec<Tensor> = params
            .iter()
            .map(|t| t.to_dtype(DType::F64).unwrap())
            .collect();
        let net = PolicyValueNet::new(shape, &params).unwrap();
        let (logits, values) = net.forward(&obs.to_dtype(DType::F64).unwrap()).unwrap();
        let total = ((logits * d_logits.to_dtype(DType::F64).unwrap())
            .unwrap()
            .sum_all()
            .unwrap()
            + (values * d_values.to_dtype(DType::F64).unwrap())
                .unwrap()
                .sum_all()
                .unwrap())
        .unwrap();
        total.to_scalar::<f64>().unwrap()
    };
    let gradients = RecordedForward::record(shape, &params, &obs)
        .unwrap()
        .parameter_gradients(&d_logits, &d_values)
        .unwrap();
    let h = 1e-4;
    for (i, (name, _)) in shape.param_names().into_iter().enumerate() {
        let flat = values(&params[i]);
        let analytic = values(&gradients[i]);
        assert!(
            analytic.iter().any(|g| g.abs() > 1e-4),
            "{name}: {analytic:?}"
        );
        for (j, &x) in flat.iter().enumerate() {
            let nudged = |dx: f32| {
                let mut moved = flat.clone();
                moved[j] = x + dx;
                let mut set = params.clone();
                set[i] = Tensor::from_vec(moved, params[i].dims(), &Device::Cpu).unwrap();
                loss(&set)
            };
            let numeric = (nudged(h) - nudged(-h)) / (2.0 * h as f64);
            assert!(
                (numeric - analytic[j] as f64).abs() < 2e-3,
                "{name}[{j}]: autograd {} vs finite differences {numeric}",
                analytic[j]
            );
        }
    }
}

#[test]
fn the_residual_torsos_gradient_matches_finite_differences() {
    assert_gradients_match_finite_differences(&shape(TorsoKind::ResidualMlp, vec![4, 4]), 5);
}

/// A deck of 2 suits and 3 ranks in two blocks (hole card, board) of a
/// 16-wide input.
fn card_shape(hidden: Vec<usize>) -> NetShape {
    NetShape {
        input: 16,
        torso: TorsoKind::CardConv,
        hidden,
        actions: 3,
        cards: Some(CardLayout {
            suits: 2,
            ranks: 3,
            blocks: vec![2, 8],
        }),
    }
}

#[test]
fn the_card_torsos_gradient_matches_finite_differences() {
    assert_gradients_match_finite_differences(&card_shape(vec![2, 5]), 6);
}

/// The card torso's layers, and its planes: the blocks' entries laid out
/// suit by rank.
#[test]
fn the_card_torso_lays_each_block_out_as_suits_by_ranks() {
    let shape = card_shape(vec![1, 3]);
    let names = shape.param_names();
    let names: Vec<(&str, &[usize])> = names
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_slice()))
        .collect();
    assert_eq!(
        names,
        [
            ("torso.conv.0.weight", &[1, 2, 3, 3][..]),
            ("torso.conv.0.bias", &[1][..]),
            ("torso.conv.1.weight", &[1, 1, 3, 3][..]),
            ("torso.conv.1.bias", &[1][..]),
            // One filter over 2 × 3 cells, beside the 16 inputs.
            ("torso.layers.0.weight", &[3, 22][..]),
            ("torso.layers.0.bias", &[3][..]),
            ("policy.weight", &[3, 3][..]),
            ("policy.bias", &[3][..]),
            ("value.weight", &[1, 3][..]),
            ("value.bias", &[1][..]),
        ]
    );
    let Torso::CardConv(conv) =
        PolicyValueNet::new(&shape, ParamSet::init(&shape, 0).unwrap().tensors())
            .unwrap()
            .torso
    else {
        panic!("a card torso")
    };
    // Input column of each cell, block by block, suit by suit, rank by
    // rank: card rank·2 + suit of the block at 2, then at 8.
    assert_eq!(
        conv.gather().to_vec1::<u32>().unwrap(),
        [2, 4, 6, 3, 5, 7, 8, 10, 12, 9, 11, 13]
    );
}

#[test]
fn each_torso_lists_its_parameters_in_build_order() {
    let names = |torso, hidden| -> Vec<String> {
        shape(torso, hidden)
            .param_names()
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    };
    assert_eq!(
        names(TorsoKind::Mlp, vec![8, 6]),
        [
            "torso.0.weight",
            "torso.0.bias",
            "torso.1.weight",
            "torso.1.bias",
            "policy.weight",
            "policy.bias",
            "value.weight",
            "value.bias"
        ]
    );
    assert_eq!(
        names(TorsoKind::ResidualMlp, vec![8]),
        [
            "torso.stem.weight",
            "torso.stem.bias",
            "torso.blocks.0.0.weight",
            "torso.blocks.0.0.bias",
            "torso.blocks.0.1.weight",
            "torso.blocks.0.1.bias",
            "policy.weight",
            "policy.bias",
            "value.weight",
            "value.bias"
        ]
    );
    // 5·8+8 stem, two blocks of 2·(8·8+8), heads 8·3+3 and 8+1.
    assert_eq!(
        shape(TorsoKind::ResidualMlp, vec![8, 8]).num_params(),
        48 + 2 * 144 + 27 + 9
    );
}

#[test]
fn a_network_refuses_parameters_that_do_not_fit_it() {
    let mlp = shape(TorsoKind::Mlp, vec![8]);
    let params = ParamSet::init(&mlp, 0).unwrap();
    let residual = shape(TorsoKind::ResidualMlp, vec![8]);
    let err = PolicyValueNet::new(&residual, params.tensors()).unwrap_err();
    assert!(err.to_string().contains("torso.blocks.0.0.weight"), "{err}");
    let mut extra = params.tensors().to_vec();
    extra.push(extra[0].clone());
    let err = PolicyValueNet::new(&mlp, &extra).unwrap_err();
    assert!(
        err.to_string()
            .contains("has 6 parameter tensors, 7 were given"),
        "{err}"
    );
    let err = RecordedForward::record_by(
        &residual,
        ParamSet::init(&residual, 0).unwrap().tensors(),
        &Tensor::zeros((1, 5), DType::F32, &Device::Cpu).unwrap(),
        Differentiation::ClosedForm,
    )
    .unwrap_err();
    assert!(err.to_string().contains("needs autograd"), "{err}");
}

#[test]
fn a_residual_torso_needs_one_width() {
    assert!(TorsoKind::ResidualMlp.check_hidden(&[16, 16, 16]).is_ok());
    let err = TorsoKind::ResidualMlp.check_hidden(&[16, 8]).unwrap_err();
    assert!(err.contains("one width"), "{err}");
    assert!(TorsoKind::Mlp.check_hidden(&[16, 8]).is_ok());
}
