//! NeuRD's force on the logits (docs/rnad-update.md, step 5): the clipped
//! advantage each centred logit is pushed by, held at the threshold β, and
//! how many logits the threshold holds.

/// What the NeuRD force needs per row (all row-major, `A` per row).
pub struct NeurdInputs<'a> {
    /// θ's logits (no gradient).
    pub logits: &'a [f32],
    /// Legal mask.
    pub legal: &'a [f32],
    /// θ's legal policy.
    pub policy: &'a [f32],
    /// The acting player's q-values from v-trace.
    pub q: &'a [f32],
    /// Per-row weight (1 / number of the acting player's rows).
    pub weights: &'a [f32],
    /// Actions per row.
    pub actions: usize,
}

/// The constant each centred logit is multiplied by in the NeuRD loss
/// (which is minus the sum of logit × coefficient): the advantage
/// `q − Σ π q`, clipped to ±clip, kept only where the threshold lets the
/// logit move that way (down while above −β, up while below β), on legal
/// actions, times the row weight.
pub fn neurd_coefficients(inputs: &NeurdInputs, beta: f32, clip: f32) -> Vec<f32> {
    let a = inputs.actions;
    let mut out = vec![0.0f32; inputs.weights.len() * a];
    for (row, &weight) in inputs.weights.iter().enumerate() {
        let cells = row * a..(row + 1) * a;
        let legal = &inputs.legal[cells.clone()];
        let logits = &inputs.logits[cells.clone()];
        let q = &inputs.q[cells.clone()];
        let baseline: f32 = inputs.policy[cells.clone()]
            .iter()
            .zip(q)
            .map(|(p, q)| p * q)
            .sum();
        let mean = legal_mean(logits, legal);
        for k in 0..a {
            if legal[k] == 0.0 {
                continue;
            }
            let advantage = (q[k] - baseline).clamp(-clip, clip);
            let centred = logits[k] - mean;
            let allowed =
                (advantage < 0.0 && centred > -beta) || (advantage > 0.0 && centred < beta);
            if allowed {
                out[row * a + k] = advantage * weight;
            }
        }
    }
    out
}

/// The mean of one row's legal logits (`legal` is its 0/1 mask): the
/// centre NeuRD measures logits from.
pub fn legal_mean(logits: &[f32], legal: &[f32]) -> f32 {
    let count: f32 = legal.iter().sum();
    logits.iter().zip(legal).map(|(l, m)| l * m).sum::<f32>() / count
}

/// The fraction of legal logits whose value centred on the row's legal
/// mean is at least `beta` in size: where the NeuRD threshold holds them.
pub fn pinned_fraction(logits: &[f32], legal: &[f32], actions: usize, beta: f32) -> f64 {
    let (mut pinned, mut total) = (0usize, 0usize);
    for (logits, legal) in logits.chunks(actions).zip(legal.chunks(actions)) {
        if legal.iter().all(|&m| m == 0.0) {
            continue;
        }
        let mean = legal_mean(logits, legal);
        for (l, &m) in logits.iter().zip(legal) {
            if m != 0.0 {
                total += 1;
                pinned += usize::from((l - mean).abs() >= beta);
            }
        }
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
        // Row 0: legal [1, 1, 1], logits [3, -1, -2], mean 0, β = 2: 3 and
        // -2 pinned. Row 1: legal [1, 0, 1], logits [1, 100, -1], mean 0:
        // neither legal logit reaches 2; the illegal 100 is not counted.
        let logits = [3.0, -1.0, -2.0, 1.0, 100.0, -1.0];
        let legal = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
        assert_eq!(pinned_fraction(&logits, &legal, 3, 2.0), 2.0 / 5.0);
        assert_eq!(pinned_fraction(&logits, &legal, 3, 100.0), 0.0);
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
            legal: &[1.0; 6],
            policy: &[0.5, 0.25, 0.25, 0.5, 0.25, 0.25],
            q: &[4.0, 0.0, -4.0, 4.0, 0.0, -4.0],
            weights: &[1.0, 0.5],
            actions: 3,
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(&c[..3], &[0.0, -1.0, 0.0]);
        assert_eq!(&c[3..], &[1.5, -0.5, -2.5]);
        // Clipping the advantage.
        let clipped = neurd_coefficients(&inputs, 2.0, 2.0);
        assert_eq!(&clipped[3..], &[1.0, -0.5, -1.0]);
    }

    #[test]
    fn neurd_ignores_illegal_actions_and_centres_on_legal_logits() {
        // Legal [1, 0, 1]; logits [1, 100, −1]: legal mean 0, centred ±1.
        let inputs = NeurdInputs {
            logits: &[1.0, 100.0, -1.0],
            legal: &[1.0, 0.0, 1.0],
            policy: &[0.5, 0.0, 0.5],
            q: &[1.0, 50.0, -1.0],
            weights: &[1.0],
            actions: 3,
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(c, vec![1.0, 0.0, -1.0]);
    }
}
