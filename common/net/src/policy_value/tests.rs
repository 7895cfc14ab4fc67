use candle_core::{DType, Device, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::{LegalCells, NetInput, ParamSet};
use rnad_games::CardLayout;

fn random(rng: &mut ChaCha8Rng, dims: &[usize]) -> Tensor {
    let n = dims.iter().product();
    let values: Vec<f32> = (0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect();
    Tensor::from_vec(values, dims, &Device::Cpu).unwrap()
}

fn values(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

/// `rows` rows over `states` input rows (so some states are read by
/// several rows), each with a random non-empty set of legal actions.
fn random_cells(rng: &mut ChaCha8Rng, rows: usize, states: usize, actions: usize) -> LegalCells {
    let mut cells = LegalCells::new();
    for row in 0..rows {
        let always = rng.random_range(0..actions);
        let ids = (0..actions).filter(|&a| a == always || rng.random::<bool>());
        cells.push_row(
            (row % states) as u32,
            ids.map(|a| a as u16).collect::<Vec<_>>(),
        );
    }
    cells
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
        actions: 7,
        head: crate::HeadKind::Dense,
        grouped: false,
        cards: None,
    }
}

const HEADS: [HeadKind; 2] = [HeadKind::Dense, HeadKind::Gathered];

/// The MLP's written-out backward against candle's autograd on the loss
/// Σ cell logits·g + Σ values·h, whose gradient with respect to the
/// outputs is (g, h): every parameter's gradient agrees, on nets of one,
/// two and three hidden layers under either head, on dense observations
/// and on mostly-zero ones (which the closed form's first layer reads by
/// their nonzeros, autograd's as a matrix product).
#[test]
fn the_closed_form_gradient_agrees_with_autograd_on_every_mlp() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for ((hidden, head), sparse) in [vec![8], vec![8, 6], vec![5, 7, 4]]
        .into_iter()
        .flat_map(|hidden| HEADS.map(|head| (hidden.clone(), head)))
        .flat_map(|case| [(case.clone(), false), (case, true)])
    {
        let mut shape = shape(TorsoKind::Mlp, hidden).with_head(head);
        if sparse {
            // Wide enough for the first layer to read nonzeros.
            shape.input = 130;
        }
        let params = perturbed(&shape, &mut rng);
        let states = 6;
        let mut obs = random(&mut rng, &[states, shape.input]);
        if sparse {
            // One entry a row, large enough to reach the heads.
            let keep: Vec<f32> = (0..states * shape.input)
                .map(|i| f32::from(u8::from(i % shape.input == (i / shape.input) % shape.input)))
                .collect();
            let keep = Tensor::from_vec(keep, obs.dims(), &Device::Cpu).unwrap();
            obs = ((obs * keep).unwrap() * 4.0).unwrap();
            assert!(crate::sparse_input::SparseRows::of(&obs).unwrap().is_some());
        }
        let cells = random_cells(&mut rng, 9, states, shape.actions);
        let on_cpu = cells.on(&Device::Cpu, shape.actions).unwrap();
        let d_logits = random(&mut rng, &[cells.len()]);
        let d_values = random(&mut rng, &[states]);
        let gradients = |how| {
            RecordedForward::record_by(&shape, &params, &NetInput::new(obs.clone()), &on_cpu, how)
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

/// The recorded gradient through `shape`'s network (at random legal
/// cells) against central finite differences of the same loss, computed
/// in f64, on every parameter.
fn assert_gradients_match_finite_differences(shape: &NetShape, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let params = perturbed(shape, &mut rng);
    let states = 6;
    let obs = random(&mut rng, &[states, shape.input]);
    let cells = random_cells(&mut rng, 8, states, shape.actions);
    let cells = cells.on(&Device::Cpu, shape.actions).unwrap();
    let d_logits = random(&mut rng, &[cells.state.dim(0).unwrap()]);
    let d_values = random(&mut rng, &[states]);
    let loss = |params: &[Tensor]| -> f64 {
        let params: Vec<Tensor> = params
            .iter()
            .map(|t| t.to_dtype(DType::F64).unwrap())
            .collect();
        let net = PolicyValueNet::new(shape, &params).unwrap();
        let obs = obs.to_dtype(DType::F64).unwrap();
        let (logits, values) = net.forward_cells(&NetInput::new(obs), &cells).unwrap();
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
    let gradients = RecordedForward::record(shape, &params, &NetInput::new(obs.clone()), &cells)
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

/// The gathered head's written-out scatter (under the MLP's closed form)
/// and its autograd (under the residual torso) against finite
/// differences; the dense head under the MLP too.
#[test]
fn every_heads_gradient_matches_finite_differences() {
    for head in HEADS {
        assert_gradients_match_finite_differences(
            &shape(TorsoKind::Mlp, vec![6, 5]).with_head(head),
            8,
        );
    }
    assert_gradients_match_finite_differences(
        &shape(TorsoKind::ResidualMlp, vec![4]).with_head(HeadKind::Gathered),
        9,
    );
}

/// Both heads compute the same logits from the same parameters: the
/// gathered head's cells are the dense head's logits at those cells.
#[test]
fn the_gathered_head_computes_the_dense_heads_logits_at_the_legal_cells() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let dense = shape(TorsoKind::Mlp, vec![8]);
    let params = perturbed(&dense, &mut rng);
    let obs = random(&mut rng, &[4, dense.input]);
    let cells = random_cells(&mut rng, 7, 4, dense.actions);
    let on_cpu = cells.on(&Device::Cpu, dense.actions).unwrap();
    let (all, values) = PolicyValueNet::new(&dense, &params)
        .unwrap()
        .forward(&obs)
        .unwrap();
    let all = all.to_vec2::<f32>().unwrap();
    let gathered = dense.clone().with_head(HeadKind::Gathered);
    let (at_cells, gathered_values) = PolicyValueNet::new(&gathered, &params)
        .unwrap()
        .forward_cells(&NetInput::new(obs), &on_cpu)
        .unwrap();
    let at_cells = at_cells.to_vec1::<f32>().unwrap();
    assert_eq!(at_cells.len(), cells.len());
    let states = on_cpu.state.to_vec1::<u32>().unwrap();
    for (cell, (&state, &action)) in states.iter().zip(cells.actions()).enumerate() {
        let expected = all[state as usize][action as usize];
        assert!(
            (at_cells[cell] - expected).abs() < 1e-5,
            "{cell}: {} vs {expected}",
            at_cells[cell]
        );
    }
    assert_eq!(
        values.to_vec1::<f32>().unwrap(),
        gathered_values.to_vec1::<f32>().unwrap()
    );
}

/// A deck of 2 suits and 3 ranks in two blocks (hole card, board) of a
/// 16-wide input.
fn card_shape(hidden: Vec<usize>) -> NetShape {
    NetShape {
        input: 16,
        torso: TorsoKind::CardConv,
        hidden,
        actions: 3,
        head: crate::HeadKind::Dense,
        grouped: false,
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
    // 5·8+8 stem, two blocks of 2·(8·8+8), heads 8·7+7 and 8+1.
    assert_eq!(
        shape(TorsoKind::ResidualMlp, vec![8, 8]).num_params(),
        48 + 2 * 144 + 63 + 9
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
        &NetInput::new(Tensor::zeros((1, 5), DType::F32, &Device::Cpu).unwrap()),
        &LegalCells::from_masks(&[1.0; 7], 7)
            .on(&Device::Cpu, 7)
            .unwrap(),
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
