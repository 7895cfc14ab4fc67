//! A learner batch: trajectories compacted to their valid decisions.
//!
//! Padding carries no information, so the learner computes only on real
//! decisions: each trajectory's steps become consecutive rows, and
//! `spans` remembers where each trajectory's rows are (v-trace runs per
//! span).

use std::collections::HashMap;
use std::ops::Range;

use rnad_common::trajectory::Trajectory;

/// Row-major arrays over every decision of a batch.
#[derive(Debug, Default)]
pub struct Batch {
    /// Number of rows (decisions).
    pub rows: usize,
    /// Observations, `rows × obs_size`.
    pub obs: Vec<f32>,
    /// Legal-action masks, `rows × actions`.
    pub legal: Vec<f32>,
    /// Acting player per row.
    pub player: Vec<u8>,
    /// Action taken per row.
    pub action: Vec<u8>,
    /// `μ(a_t)` per row.
    pub behaviour: Vec<f32>,
    /// Rewards after each row, `players × rows` (one row-long run per player).
    pub rewards: Vec<f32>,
    /// Each trajectory's rows.
    pub spans: Vec<Range<usize>>,
}

impl Batch {
    /// Compacts `trajectories` for a game with `players` players.
    pub fn new(trajectories: &[Trajectory], players: usize) -> Batch {
        let mut batch = Batch::default();
        for trajectory in trajectories {
            let start = batch.rows;
            for step in &trajectory.steps {
                batch.obs.extend_from_slice(&step.obs);
                batch.legal.extend_from_slice(&step.legal);
                batch.player.push(step.player);
                batch.action.push(step.action);
                batch
                    .behaviour
                    .push(step.behaviour[usize::from(step.action)]);
                batch.rows += 1;
            }
            batch.spans.push(start..batch.rows);
        }
        batch.rewards = (0..players)
            .flat_map(|p| {
                trajectories
                    .iter()
                    .flat_map(move |t| t.steps.iter().map(move |s| s.rewards[p]))
            })
            .collect();
        batch
    }

    /// The distinct observations (row-major, in order of first appearance)
    /// and, for each row, the index of its observation among them: networks
    /// run once per distinct information state, and rows gather the result.
    pub fn distinct_obs(&self) -> (Vec<f32>, Vec<u32>) {
        let size = self.obs.len() / self.rows.max(1);
        distinct_rows(&self.obs, size, |row| {
            row.iter().fold(0xcbf2_9ce4_8422_2325, |h, v| {
                (h ^ u64::from(v.to_bits())).wrapping_mul(0x0100_0000_01b3)
            })
        })
    }

    /// The rewards of `player` for every row.
    pub fn rewards_of(&self, player: usize) -> &[f32] {
        &self.rewards[player * self.rows..(player + 1) * self.rows]
    }
}

/// The distinct `size`-long rows of `values` (equal meaning bit for bit)
/// in order of first appearance, and each row's index among them. Rows are
/// found by `hash` and confirmed by comparing them, so no key is allocated
/// per row; `next` chains the distinct rows whose hashes are equal.
fn distinct_rows(
    values: &[f32],
    size: usize,
    hash: impl Fn(&[f32]) -> u64,
) -> (Vec<f32>, Vec<u32>) {
    let size = size.max(1);
    let mut first: HashMap<u64, u32> = HashMap::with_capacity(values.len() / size);
    let mut next: Vec<Option<u32>> = Vec::new();
    let mut distinct: Vec<f32> = Vec::new();
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
    let index = values
        .chunks_exact(size)
        .map(|row| {
            let new = (distinct.len() / size) as u32;
            let mut candidate = *first.entry(hash(row)).or_insert(new);
            loop {
                if candidate == new {
                    distinct.extend_from_slice(row);
                    next.push(None);
                    return new;
                }
                let at = candidate as usize * size;
                if same(&distinct[at..at + size], row) {
                    return candidate;
                }
                candidate = *next[candidate as usize].get_or_insert(new);
            }
        })
        .collect();
    (distinct, index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_common::trajectory::Step;

    fn step(obs: [f32; 2], player: u8, rewards: [f32; 2]) -> Step {
        Step {
            obs: obs.to_vec(),
            legal: vec![1.0, 1.0],
            player,
            action: 1,
            behaviour: vec![0.25, 0.75],
            rewards: rewards.to_vec(),
        }
    }

    #[test]
    fn rows_spans_rewards_and_distinct_observations() {
        let trajectories = [
            Trajectory {
                param_version: 0,
                steps: vec![
                    step([1.0, 0.0], 0, [0.0, 0.0]),
                    step([0.0, 1.0], 1, [-1.0, 1.0]),
                ],
            },
            Trajectory {
                param_version: 0,
                steps: vec![step([1.0, 0.0], 0, [2.0, -2.0])],
            },
        ];
        let batch = Batch::new(&trajectories, 2);
        assert_eq!(batch.rows, 3);
        assert_eq!(batch.spans, vec![0..2, 2..3]);
        assert_eq!(batch.behaviour, vec![0.75; 3]);
        assert_eq!(batch.rewards_of(0), &[0.0, -1.0, 2.0]);
        assert_eq!(batch.rewards_of(1), &[0.0, 1.0, -2.0]);
        let (distinct, index) = batch.distinct_obs();
        assert_eq!(distinct, vec![1.0, 0.0, 0.0, 1.0]);
        assert_eq!(index, vec![0, 1, 0]);
    }

    /// Against comparing every row with every earlier one: rows drawn from
    /// a few values, so that most repeat, with -0.0 and 0.0 told apart;
    /// once with the real hash and once with every row's hash equal, which
    /// puts every row on one chain.
    #[test]
    fn distinct_rows_agree_with_pairwise_comparison_even_when_every_hash_collides() {
        let pool = [0.0f32, -0.0, 1.0, 0.5];
        let size = 3;
        let values: Vec<f32> = (0..40 * size).map(|i| pool[(i * i + i / 5) % 4]).collect();
        let mut expected_distinct: Vec<&[f32]> = Vec::new();
        let expected_index: Vec<u32> = values
            .chunks_exact(size)
            .map(|row| {
                let bits = |r: &[f32]| r.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                match expected_distinct.iter().position(|d| bits(d) == bits(row)) {
                    Some(i) => i as u32,
                    None => {
                        expected_distinct.push(row);
                        (expected_distinct.len() - 1) as u32
                    }
                }
            })
            .collect();
        assert!(expected_distinct.len() > 3 && expected_distinct.len() < 30);
        let flat: Vec<f32> = expected_distinct.concat();
        let batch = Batch {
            rows: values.len() / size,
            obs: values.clone(),
            ..Batch::default()
        };
        assert_eq!(batch.distinct_obs(), (flat.clone(), expected_index.clone()));
        assert_eq!(distinct_rows(&values, size, |_| 7), (flat, expected_index));
    }
}
