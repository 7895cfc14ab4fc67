//! Parameter gradients by candle's autograd, for any module: the
//! parameters as tracked variables, and a loss's gradient with respect to
//! each of them.

use candle_core::{Result, Tensor, Var};

/// `params` as tracked variables, with the tensors a module is built
/// from so that a loss computed through it reaches them.
pub fn tracked(params: &[Tensor]) -> Result<(Vec<Var>, Vec<Tensor>)> {
    let vars = params
        .iter()
        .map(Var::from_tensor)
        .collect::<Result<Vec<_>>>()?;
    let tensors = vars.iter().map(|v| v.as_tensor().clone()).collect();
    Ok((vars, tensors))
}

/// The gradient of `loss` (a scalar) with respect to each of `vars`, in
/// order: zeros for a variable it does not depend on. Detached: candle
/// leaves a variable's gradient tied to the forward graph it came from
/// (`W`'s gradient is built from the layer's input), and parameters
/// updated from it would drag every earlier step's graph along, a few
/// megabytes a step.
pub fn gradients(loss: &Tensor, vars: &[Var]) -> Result<Vec<Tensor>> {
    let grads = loss.backward()?;
    vars.iter()
        .map(|var| match grads.get(var.as_tensor()) {
            Some(grad) => Ok(grad.detach()),
            None => var.as_tensor().zeros_like(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    /// Gradients through two layers carry no graph, so parameters updated
    /// from them start the next step free of this one's.
    #[test]
    fn gradients_are_detached_from_the_forward_graph() -> Result<()> {
        let device = Device::Cpu;
        let w1 = Tensor::new(&[[0.5f32, -1.0], [2.0, 0.25]], &device)?;
        let w2 = Tensor::new(&[[1.5f32], [-0.5]], &device)?;
        let (vars, tracked) = tracked(&[w1, w2])?;
        let x = Tensor::new(&[[1.0f32, 2.0]], &device)?;
        let loss = x
            .matmul(&tracked[0])?
            .relu()?
            .matmul(&tracked[1])?
            .sqr()?
            .sum_all()?;
        let grads = gradients(&loss, &vars)?;
        for (i, grad) in grads.iter().enumerate() {
            assert!(!grad.track_op(), "gradient {i} is tied to the graph");
        }
        // x·W1 = [4.5, -0.5], relu [4.5, 0], y = 6.75, dL/dy = 13.5:
        // dL/dW2 = 13.5·[4.5, 0]ᵀ.
        assert_eq!(grads[1].flatten_all()?.to_vec1::<f32>()?, [60.75, 0.0]);
        let updated = (&tracked[1] - &grads[1])?;
        assert!(updated.track_op(), "an op on a variable is tracked");
        let updated = (vars[1].as_tensor().detach() - &grads[1])?;
        assert!(!updated.track_op());
        Ok(())
    }
}
