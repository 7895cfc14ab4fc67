//! The actions NeuRD holds at its threshold. NeuRD stops pushing a logit
//! once it is `beta` below the legal mean, so an action the learner would
//! push lower still keeps a few percent of probability there, which an
//! equilibrium does not play. Both averages of the target policy (the
//! evaluator's `target_average` table and the learner's averaged network)
//! drop such actions from what they average, by the one rule here.

/// An action whose centred log-probability is at or below `−β` plus this
/// counts as held at NeuRD's threshold: the learner's logits sit at the
/// threshold up to the small moves of the shared weights, and the target's
/// are an average of those.
pub const HELD_MARGIN: f64 = 0.05;

/// `row`, one information state's policy over its legal actions, without
/// the actions held at NeuRD threshold `beta`: an action whose centred
/// log-probability (its log-probability minus the mean over the row, which
/// is its centred logit) is at or below `−beta + HELD_MARGIN` gets
/// probability zero, and the rest are renormalised.
pub fn drop_held_row(row: &mut [f64], beta: f64) {
    let logs: Vec<f64> = row.iter().map(|p| p.max(f64::MIN_POSITIVE).ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let held = |log: f64| log - mean <= -beta + HELD_MARGIN;
    let kept: f64 = row
        .iter()
        .zip(&logs)
        .filter(|(_, &log)| !held(log))
        .map(|(p, _)| p)
        .sum();
    if kept <= 0.0 {
        // Only a threshold below HELD_MARGIN can mark every action held.
        return;
    }
    for (p, &log) in row.iter_mut().zip(&logs) {
        *p = if held(log) { 0.0 } else { *p / kept };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_at_the_threshold_are_dropped_and_the_rest_renormalised() {
        // Two actions with centred logits −2 and +2: the first is held at
        // β = 2 and goes; at β = 2.5 it is 0.5 above the threshold and stays.
        let held = 1.0 / (1.0 + 4f64.exp());
        let mut row = [held, 1.0 - held];
        drop_held_row(&mut row, 2.0);
        assert_eq!(row, [0.0, 1.0]);
        let mut row = [held, 1.0 - held];
        drop_held_row(&mut row, 2.5);
        assert_eq!(row, [held, 1.0 - held]);
        // Three actions, logits −2, 0.5, 1.5 (mean 0): only the first goes,
        // the others keep their ratio e^0.5 : e^1.5.
        let z = (-2f64).exp() + 0.5f64.exp() + 1.5f64.exp();
        let mut row = [(-2f64).exp() / z, 0.5f64.exp() / z, 1.5f64.exp() / z];
        drop_held_row(&mut row, 2.0);
        let kept = 0.5f64.exp() + 1.5f64.exp();
        assert_eq!(row[0], 0.0);
        assert!((row[1] - 0.5f64.exp() / kept).abs() < 1e-12, "{row:?}");
        assert!((row[2] - 1.5f64.exp() / kept).abs() < 1e-12, "{row:?}");
        // Uniform rows have nothing held at a threshold above the margin;
        // below it every action counts as held, and the row is left as it
        // is rather than emptied.
        let mut row = [0.5, 0.5];
        drop_held_row(&mut row, 2.0);
        assert_eq!(row, [0.5, 0.5]);
        drop_held_row(&mut row, 0.01);
        assert_eq!(row, [0.5, 0.5]);
    }
}
