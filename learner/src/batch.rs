//! A learner batch: trajectories compacted to their valid decisions.
//!
//! Padding carries no information, so the learner computes only on real
//! decisions: each trajectory's steps become consecutive rows, and
//! `spans` remembers where each trajectory's rows are (v-trace runs per
//! span).

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

    /// The rewards of `player` for every row.
    pub fn rewards_of(&self, player: usize) -> &[f32] {
        &self.rewards[player * self.rows..(player + 1) * self.rows]
    }
}
