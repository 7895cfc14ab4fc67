//! NeuRD's force on the logits (docs/rnad-update.md, step 5): the clipped
//! advantage each centred logit is pushed by, held at the threshold β, and
//! how many logits the threshold holds.

/// What the NeuRD force needs at every legal cell
/// ([`rnad_net::LegalCells`]) and every row.
pub struct NeurdInputs<'a> {
    /// θ's logits (no gradient).
    pub logits: &'a [f32],
    /// θ's legal policy.
    pub policy: &'a [f32],
    /// The acting player's q-values from v-trace.
    pub q: &'a [f32],
    /// Per-row weight (1 / number of the acting player's rows).
    pub weights: &'a [f32],
    /// Where each row's cells start, then where the last row's end.
    pub cells: &'a [usize],
}

/// The constant each centred logit is multiplied by in the NeuRD loss
/// (which is minus the sum of logit × coefficient), at every cell: the
/// advantage `q − Σ π q`, clipped to ±clip, kept only where the threshold
/// lets the logit move that way (down while above −β, up while below β),
/// times the row weight.
pub fn neurd_coefficients(inputs: &NeurdInputs, beta: f32, clip: f32) -> Vec<f32> {
    let mut out = vec![0.0f32; inputs.logits.len()];
    for (row, &weight) in inputs.weights.iter().enumerate() {
        let cells = inputs.cells[row]..inputs.cells[row + 1];
        let logits = &inputs.logits[cells.clone()];
        let q = &inputs.q[cells.clone()];
        let baseline: f32 = inputs.policy[cells.clone()]
            .iter()
            .zip(q)
            .map(|(p, q)| p * q)
            .sum();
        let mean = legal_mean(logits);
        for (k, cell) in cells.enumerate() {
            let advantage = (q[k] - baseline).clamp(-clip, clip);
            let centred = logits[k] - mean;
            let allowed =
                (advantage < 0.0 && centred > -beta) || (advantage > 0.0 && centred < beta);
            if allowed {
                out[cell] = advantage * weight;
            }
        }
    }
    out
}

/// The mean of one row's legal logits: the centre NeuRD measures logits
/// from.
pub fn legal_mean(logits: &[f32]) -> f32 {
    logits.iter().sum::<f32>() / logits.len() as f32
}

/// The fraction of legal logits (the rows' `cells` of `logits`) whose
/// value centred on the row's legal mean is at least `beta` in size:
/// where the NeuRD threshold holds them.
pub fn pinned_fraction(logits: &[f32], cells: &[usize], beta: f32) -> f64 {
    let (mut pinned, mut total) = (0usize, 0usize);
    for row in cells.windows(2) {
        let logits = &logits[row[0]..row[1]];
        if logits.is_empty() {
            continue;
        }
        let mean = legal_mean(logits);
        total += logits.len();
        pinned += logits.iter().filter(|l| (*l - mean).abs() >= beta).count();
    }
    if total == 0 {
        0.0
    } else {
        pinned as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_logits_are_counted_on_legal_actions_against_the_legal_mean() {
        // Row 0: logits [3, -1, -2], mean 0, β = 2: 3 and -2 pinned.
        // Row 1: legal cells of actions 0 and 2, logits [1, -1], mean 0:
        // neither reaches 2.
        let logits = [3.0, -1.0, -2.0, 1.0, -1.0];
        assert_eq!(pinned_fraction(&logits, &[0, 3, 5], 2.0), 2.0 / 5.0);
        assert_eq!(pinned_fraction(&logits, &[0, 3, 5], 100.0), 0.0);
    }

    /// The NeuRD loss −Σ y'·c has gradient −c with respect to the centred
    /// logits: zero where the threshold blocks, and descending it raises a
    /// logit with positive advantage and lowers one with negative advantage.
    #[test]
    fn neurd_force_follows_the_advantage_and_stops_at_the_threshold() {
        // Row 0: logits centred [3, −1, −2] (mean 0), β = 2: action 0 is
        // above β (cannot rise), action 2 is at −β (cannot fall).
        // π = [0.5, 0.25, 0.25], q = [4, 0, −4] → baseline 1, adv [3, −1, −5].
        // Row 1: same q, logits all 0: every action may move.
        let inputs = NeurdInputs {
            logits: &[3.0, -1.0, -2.0, 0.0, 0.0, 0.0],
            policy: &[0.5, 0.25, 0.25, 0.5, 0.25, 0.25],
            q: &[4.0, 0.0, -4.0, 4.0, 0.0, -4.0],
            weights: &[1.0, 0.5],
            cells: &[0, 3, 6],
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(&c[..3], &[0.0, -1.0, 0.0]);
        assert_eq!(&c[3..], &[1.5, -0.5, -2.5]);
        // Clipping the advantage.
        let clipped = neurd_coefficients(&inputs, 2.0, 2.0);
        assert_eq!(&clipped[3..], &[1.0, -0.5, -1.0]);
    }

    #[test]
    fn neurd_centres_each_row_on_its_own_legal_logits() {
        // Row 0 has one legal action, row 1 two with logits [1, −1]: legal
        // mean 0, centred ±1; advantages ±1 around the baseline 0.
        let inputs = NeurdInputs {
            logits: &[100.0, 1.0, -1.0],
            policy: &[1.0, 0.5, 0.5],
            q: &[50.0, 1.0, -1.0],
            weights: &[1.0, 1.0],
            cells: &[0, 1, 3],
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(c, vec![0.0, 1.0, -1.0]);
    }
}
