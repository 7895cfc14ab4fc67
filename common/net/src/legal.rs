//! The policy over the legal actions: a softmax of the logits masked to the
//! legal ones (dense rows) or over each row's legal cells
//! ([`crate::LegalCells`]), finite whatever the logits.

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

/// The legal policy and its log at every legal cell, from the cells'
/// logits and the rows' cell offsets ([`crate::LegalCells::offsets`]):
/// the same numbers as [`legal_policy`] and [`legal_log_policy`] at the
/// legal actions, without the illegal ones.
#[derive(Clone, Debug, PartialEq)]
pub struct CellPolicy {
    /// π at each cell.
    pub policy: Vec<f32>,
    /// ln π at each cell.
    pub log_policy: Vec<f32>,
}

impl CellPolicy {
    /// The softmax of each row's cell `logits` (each row has a cell).
    pub fn new(logits: &[f32], offsets: &[usize]) -> CellPolicy {
        let mut out = CellPolicy {
            policy: vec![0.0; logits.len()],
            log_policy: vec![0.0; logits.len()],
        };
        for row in offsets.windows(2) {
            let cells = row[0]..row[1];
            let limit = LOGIT_LIMIT as f32;
            let clamped = || logits[cells.clone()].iter().map(|l| l.clamp(-limit, limit));
            let max = clamped().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = clamped().map(|l| (l - max).exp()).sum();
            let log_sum = sum.ln();
            for (cell, l) in cells.clone().zip(clamped()) {
                let shifted = l - max;
                out.policy[cell] = shifted.exp() / sum;
                out.log_policy[cell] = shifted - log_sum;
            }
        }
        out
    }
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

        // The same rows as cells: the legal entries, nothing else.
        let mask_rows = mask.to_vec2::<f32>().unwrap();
        let logit_rows = logits.to_vec2::<f32>().unwrap();
        let (mut cell_logits, mut offsets) = (Vec::new(), vec![0]);
        for (row, legal) in logit_rows.iter().zip(&mask_rows) {
            cell_logits.extend(
                row.iter()
                    .zip(legal)
                    .filter(|(_, &m)| m > 0.0)
                    .map(|(l, _)| *l),
            );
            offsets.push(cell_logits.len());
        }
        let cells = CellPolicy::new(&cell_logits, &offsets);
        let legal_entries = |rows: &[Vec<f32>]| -> Vec<f32> {
            rows.iter()
                .zip(&mask_rows)
                .flat_map(|(row, legal)| {
                    row.iter()
                        .zip(legal)
                        .filter(|(_, &m)| m > 0.0)
                        .map(|(p, _)| *p)
                })
                .collect()
        };
        assert_eq!(cells.policy, legal_entries(&pi));
        for (ours, dense) in cells.log_policy.iter().zip(legal_entries(&log_pi)) {
            assert!((ours - dense).abs() < 1e-6, "{ours} vs {dense}");
        }
    }
}
