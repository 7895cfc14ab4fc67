//! The policy over the legal actions: a softmax of the logits masked to the
//! legal ones, finite whatever the logits.

use candle_core::{Result, Tensor};

/// Logits are clamped to this magnitude before the legal softmax, so that
/// even infinite logits give finite probabilities.
const LOGIT_LIMIT: f64 = 1e20;

/// Softmax over the legal actions (`mask` 1 legal, 0 illegal; each row has a
/// legal action): finite whatever the logits, exactly 0 on illegal actions.
pub fn legal_policy(logits: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let (shifted, mask) = shifted_legal_logits(logits, mask)?;
    let exp = (shifted.exp()? * &mask)?;
    let sum = exp.sum_keepdim(1)?;
    exp.broadcast_div(&sum)
}

/// Log of [`legal_policy`], 0 on illegal actions; finite whatever the logits.
pub fn legal_log_policy(logits: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let (shifted, mask) = shifted_legal_logits(logits, mask)?;
    let log_sum = (shifted.exp()? * &mask)?.sum_keepdim(1)?.log()?;
    shifted.broadcast_sub(&log_sum)? * mask
}

/// Legal logits minus the row's largest legal logit (so ≤ 0, with a 0 at
/// the best legal action), zero on illegal actions.
fn shifted_legal_logits(logits: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
    let mask = mask.to_dtype(logits.dtype())?;
    let logits = logits.clamp(-LOGIT_LIMIT, LOGIT_LIMIT)?;
    let floor = logits.min_keepdim(1)?;
    let illegal = (1.0 - &mask)?;
    let masked = ((&logits * &mask)? + illegal.broadcast_mul(&floor)?)?;
    let max = masked.max_keepdim(1)?;
    let shifted = (masked.broadcast_sub(&max)? * &mask)?;
    Ok((shifted, mask))
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;
    fn t(rows: &[&[f32]]) -> Tensor {
        let cols = rows[0].len();
        let flat: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Tensor::from_vec(flat, (rows.len(), cols), &Device::Cpu).unwrap()
    }

    #[test]
    fn legal_softmax_is_finite_and_zero_on_illegal_actions() {
        let logits = t(&[
            &[1.0, 2.0, 3.0],
            &[f32::INFINITY, 0.0, -f32::INFINITY],
            &[1e30, -1e30, 5.0],
            &[-1e30, -1e30, -1e30],
            &[f32::NEG_INFINITY, 3.0, 3.0],
        ]);
        let mask = t(&[
            &[1.0, 1.0, 0.0],
            &[0.0, 1.0, 1.0],
            &[0.0, 1.0, 1.0],
            &[1.0, 0.0, 1.0],
            &[0.0, 1.0, 1.0],
        ]);
        let pi = legal_policy(&logits, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let log_pi = legal_log_policy(&logits, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let e = std::f32::consts::E;
        assert!((pi[0][0] - 1.0 / (1.0 + e)).abs() < 1e-6);
        assert!((pi[0][1] - e / (1.0 + e)).abs() < 1e-6);
        assert_eq!(pi[0][2], 0.0);
        assert_eq!(pi[1], vec![0.0, 1.0, 0.0]);
        assert_eq!(pi[2], vec![0.0, 0.0, 1.0]);
        assert_eq!(pi[3], vec![0.5, 0.0, 0.5]);
        assert_eq!(pi[4], vec![0.0, 0.5, 0.5]);
        for (p_row, l_row) in pi.iter().zip(&log_pi) {
            assert!((p_row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            for (p, l) in p_row.iter().zip(l_row) {
                assert!(p.is_finite() && l.is_finite(), "{pi:?} {log_pi:?}");
                if *p > 0.0 {
                    assert!((l - p.ln()).abs() < 1e-5, "{l} vs ln {p}");
                }
            }
        }
        assert_eq!(log_pi[0][2], 0.0);
    }
}
