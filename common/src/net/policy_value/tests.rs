use candle_core::{DType, Device, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::net::ParamSet;

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

/// Autograd through the residual torso against central finite
/// differences of the same loss, in f64 by hand on every parameter of a
/// small net.
#[test]
fn the_residual_torsos_gradient_matches_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let shape = shape(TorsoKind::ResidualMlp, vec![4, 4]);
    let params = perturbed(&shape, &mut rng);
    let obs = random(&mut rng, &[6, shape.input]);
    let d_logits = random(&mut rng, &[6, shape.actions]);
    let d_values = random(&mut rng, &[6]);
    let loss = |params: &[Tensor]| -> f64 {
        let params: Vec<Tensor> = params
            .iter()
            .map(|t| t.to_dtype(DType::F64).unwrap())
            .collect();
        let net = PolicyValueNet::new(&shape, &params).unwrap();
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
    let gradients = RecordedForward::record(&shape, &params, &obs)
        .unwrap()
        .parameter_gradients(&d_logits, &d_values)
        .unwrap();
    let h = 1e-4;
    for (i, (name, _)) in shape.param_names().into_iter().enumerate() {
        let flat = values(&params[i]);
        let analytic = values(&gradients[i]);
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
