//! The check that keeps non-finite numbers from travelling on: no NaN or
//! infinity is published, checkpointed or evaluated.

use candle_core::{DType, Result, Tensor};

/// The index of the first of `tensors` that holds a NaN or an infinity.
///
/// One reduction per tensor: `t − t` is 0 wherever `t` is finite and NaN
/// wherever it is not, so its sum is 0 exactly when every value is finite
/// (a plain sum could overflow on large finite values, and a maximum could
/// skip a NaN).
pub fn first_nonfinite(tensors: &[Tensor]) -> Result<Option<usize>> {
    // t − t on purpose: 0 where finite, NaN where not.
    #[allow(clippy::eq_op)]
    let residues = tensors
        .iter()
        .map(|t| (t - t)?.sum_all()?.to_dtype(DType::F32))
        .collect::<Result<Vec<_>>>()?;
    // One read for all (a device waits for each read); only a failed
    // check reads them one by one to name the tensor.
    let Some(first) = residues.first() else {
        return Ok(None);
    };
    let total = residues[1..]
        .iter()
        .try_fold(first.clone(), |sum, r| sum + r)?;
    if total.to_scalar::<f32>()? == 0.0 {
        return Ok(None);
    }
    for (i, residue) in residues.iter().enumerate() {
        if residue.to_scalar::<f32>()? != 0.0 {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;
    #[test]
    fn finds_the_first_tensor_with_a_nan_or_an_infinity_but_not_large_values() {
        let t = |v: &[f32]| Tensor::from_slice(v, v.len(), &Device::Cpu).unwrap();
        let large = t(&[3.0e38, 3.0e38, -3.0e38]);
        assert_eq!(
            first_nonfinite(&[t(&[1.0, -2.0]), large.clone()]).unwrap(),
            None
        );
        assert_eq!(
            first_nonfinite(&[large.clone(), t(&[1.0, f32::NAN])]).unwrap(),
            Some(1)
        );
        assert_eq!(
            first_nonfinite(&[t(&[f32::NEG_INFINITY]), t(&[f32::NAN])]).unwrap(),
            Some(0)
        );
        assert_eq!(first_nonfinite(&[]).unwrap(), None);
    }
}
