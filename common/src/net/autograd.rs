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
/// order: zeros for a variable it does not depend on.
pub fn gradients(loss: &Tensor, vars: &[Var]) -> Result<Vec<Tensor>> {
    let grads = loss.backward()?;
    vars.iter()
        .map(|var| match grads.get(var.as_tensor()) {
            Some(grad) => Ok(grad.clone()),
            None => var.as_tensor().zeros_like(),
        })
        .collect()
}
