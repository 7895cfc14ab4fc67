//! A learner batch: trajectories compacted to their valid decisions.
//!
//! Padding carries no information, so the learner computes only on real
//! decisions: each trajectory's decisions become consecutive rows, and
//! `spans` remembers where each trajectory's rows are (v-trace runs per
//! span). Observations are kept once per information state: networks run
//! once per distinct one, and rows gather the result. A row's actions are
//! its legal cells ([`LegalCells`]), as they came on the wire: nothing in
//! a batch grows with the game's action count.

use std::ops::Range;

use rnad_net::distinct::distinct_rows_of;
use rnad_net::LegalCells;
use rnad_wire::trajectory::Trajectory;

/// Row-major arrays over every decision of a batch (observations once
/// per distinct one).
#[derive(Debug, Default)]
pub struct Batch {
    /// Number of rows (decisions).
    pub rows: usize,
    /// The distinct observations, row-major in order of first appearance
    /// (a Leduc batch of about 2,200 decisions holds about 450).
    pub distinct_obs: Vec<f32>,
    /// Each row's observation: its index among `distinct_obs`.
    pub obs_index: Vec<u32>,
    /// Each row's legal actions, reading its row of `distinct_obs`.
    pub cells: LegalCells,
    /// Acting player per row.
    pub player: Vec<u8>,
    /// Action taken per row.
    pub action: Vec<u16>,
    /// The cell of the action taken per row.
    pub taken: Vec<usize>,
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
        let rows: usize = trajectories.iter().map(Trajectory::len).sum();
        // Every trajectory of a batch comes from one game: one width each.
        let obs_size = trajectories
            .iter()
            .find(|t| !t.is_empty())
            .map_or(0, |t| t.obs.len() / t.len());
        let (distinct_obs, obs_index) = distinct_rows_of(
            trajectories
                .iter()
                .flat_map(|t| t.obs.chunks_exact(obs_size.max(1))),
            obs_size,
            rows,
        );
        let mut batch = Batch {
            distinct_obs,
            cells: LegalCells::new(),
            player: Vec::with_capacity(rows),
            action: Vec::with_capacity(rows),
            taken: Vec::with_capacity(rows),
            behaviour: Vec::with_capacity(rows),
            spans: Vec::with_capacity(trajectories.len()),
            ..Batch::default()
        };
        for trajectory in trajectories {
            let start = batch.rows;
            for (t, decision) in trajectory.decisions().enumerate() {
                let first = batch.cells.len();
                batch
                    .cells
                    .push_row(obs_index[start + t], decision.legal.iter().copied());
                let k = decision
                    .taken()
                    .expect("a validated decision's action is among its legal ones");
                batch.taken.push(first + k);
                batch.behaviour.push(decision.behaviour[k]);
            }
            batch.player.extend_from_slice(&trajectory.player);
            batch.action.extend_from_slice(&trajectory.action);
            batch.rows += trajectory.len();
            batch.spans.push(start..batch.rows);
        }
        batch.rewards.reserve_exact(rows * players);
        for p in 0..players {
            batch.rewards.extend(
                trajectories
                    .iter()
                    .flat_map(|t| t.rewards.iter().skip(p).step_by(players)),
            );
        }
        batch.obs_index = obs_index;
        debug_assert_eq!(batch.obs_index.len(), batch.rows, "one observation a row");
        batch
    }

    /// Multiplies every reward by `scale` (`rnad.reward_scale`).
    pub fn scale_rewards(&mut self, scale: f32) {
        if scale != 1.0 {
            self.rewards.iter_mut().for_each(|r| *r *= scale);
        }
    }

    /// Each row's log reach by the players other than the one acting
    /// there: the sum of `ln μ(a_t)` over the earlier rows of its
    /// trajectory where another player acted. Chance is left out: it is
    /// the same whatever the players' policies.
    pub fn others_log_reach(&self) -> Vec<f32> {
        let players = self.player.iter().max().map_or(0, |&p| usize::from(p) + 1);
        let mut others = Vec::with_capacity(self.rows);
        let mut own = vec![0.0f64; players];
        for span in &self.spans {
            own.fill(0.0);
            let mut everyone = 0.0f64;
            for row in span.clone() {
                let player = usize::from(self.player[row]);
                others.push((everyone - own[player]) as f32);
                // An action the actor sampled had μ > 0; the floor keeps a
                // rounded-away μ from making an infinity.
                let log_mu = f64::from(self.behaviour[row].max(f32::MIN_POSITIVE)).ln();
                everyone += log_mu;
                own[player] += log_mu;
            }
        }
        others
    }

    /// The rewards of `player` for every row.
    pub fn rewards_of(&self, player: usize) -> &[f32] {
        &self.rewards[player * self.rows..(player + 1) * self.rows]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_wire::trajectory::Decision;

    /// A game of two-action decisions (obs, player, action, rewards), each
    /// played with μ = (0.25, 0.75).
    fn game(steps: &[([f32; 2], u8, u16, [f32; 2])]) -> Trajectory {
        let mut game = Trajectory::new(0);
        for (obs, player, action, rewards) in steps {
            game.push(Decision {
                obs,
                legal: &[0, 1],
                player: *player,
                action: *action,
                behaviour: &[0.25, 0.75],
                rewards,
            });
        }
        game
    }

    #[test]
    fn rows_spans_rewards_and_distinct_observations() {
        let trajectories = [
            game(&[
                ([1.0, 0.0], 0, 1, [0.0, 0.0]),
                ([0.0, 1.0], 1, 0, [-1.0, 1.0]),
            ]),
            game(&[([1.0, 0.0], 0, 1, [2.0, -2.0])]),
        ];
        let mut batch = Batch::new(&trajectories, 2);
        assert_eq!(batch.rows, 3);
        assert_eq!(batch.spans, vec![0..2, 2..3]);
        assert_eq!(batch.player, vec![0, 1, 0]);
        assert_eq!(batch.action, vec![1, 0, 1]);
        assert_eq!(batch.cells.offsets(), &[0, 2, 4, 6]);
        assert_eq!(batch.cells.actions(), &[0, 1, 0, 1, 0, 1]);
        assert_eq!(batch.taken, vec![1, 2, 5]);
        assert_eq!(batch.behaviour, vec![0.75, 0.25, 0.75]);
        assert_eq!(batch.rewards_of(0), &[0.0, -1.0, 2.0]);
        assert_eq!(batch.rewards_of(1), &[0.0, 1.0, -2.0]);
        assert_eq!(batch.distinct_obs, vec![1.0, 0.0, 0.0, 1.0]);
        assert_eq!(batch.obs_index, vec![0, 1, 0]);
        batch.scale_rewards(0.5);
        assert_eq!(batch.rewards_of(0), &[0.0, -0.5, 1.0]);
        assert_eq!(batch.rewards_of(1), &[0.0, 0.5, -1.0]);
    }

    /// Each row's others' reach is the product of the other players' μ
    /// before it in its own trajectory: hand-worked on two games.
    #[test]
    fn the_others_reach_of_each_row() {
        let trajectories = [
            // Players 0, 1, 0, 1 taking actions 1, 0, 1, 1 (μ 0.75, 0.25, 0.75, 0.75).
            game(&[
                ([1.0, 0.0], 0, 1, [0.0, 0.0]),
                ([0.0, 1.0], 1, 0, [0.0, 0.0]),
                ([1.0, 1.0], 0, 1, [0.0, 0.0]),
                ([0.0, 0.0], 1, 1, [1.0, -1.0]),
            ]),
            // Player 1 twice in a row: its own actions are not the others'.
            game(&[
                ([1.0, 0.0], 1, 0, [0.0, 0.0]),
                ([0.0, 1.0], 1, 0, [0.0, 0.0]),
                ([1.0, 1.0], 0, 1, [1.0, -1.0]),
            ]),
        ];
        let reach: Vec<f32> = Batch::new(&trajectories, 2)
            .others_log_reach()
            .iter()
            .map(|r| r.exp())
            .collect();
        let want = [1.0, 0.75, 0.25, 0.75 * 0.75, 1.0, 1.0, 0.25 * 0.25];
        assert_eq!(reach.len(), want.len());
        for (got, want) in reach.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{reach:?}");
        }
    }

    /// Games with no decisions, first or between others, add no rows: the
    /// observations' width comes from a game that has some, and every row
    /// keeps its observation. An empty batch is empty.
    #[test]
    fn games_without_decisions_add_no_rows() {
        let batch = Batch::new(
            &[
                Trajectory::new(0),
                game(&[
                    ([1.0, 0.0], 0, 1, [0.0, 0.0]),
                    ([0.0, 1.0], 1, 0, [-1.0, 1.0]),
                ]),
                Trajectory::new(0),
                game(&[([0.0, 1.0], 1, 1, [2.0, -2.0])]),
            ],
            2,
        );
        assert_eq!(batch.rows, 3);
        assert_eq!(batch.spans, vec![0..0, 0..2, 2..2, 2..3]);
        assert_eq!(batch.distinct_obs, vec![1.0, 0.0, 0.0, 1.0]);
        assert_eq!(batch.obs_index, vec![0, 1, 1]);
        assert_eq!(batch.rewards_of(1), &[0.0, 1.0, -2.0]);
        let empty = Batch::new(&[], 2);
        assert_eq!((empty.rows, empty.distinct_obs.len()), (0, 0));
        assert!(empty.obs_index.is_empty() && empty.rewards.is_empty());
    }

    /// Rewards are gathered per player from each decision's row of the
    /// rewards column, for any number of players.
    #[test]
    fn three_players_rewards() {
        let mut game = Trajectory::new(0);
        for rewards in [[0.0, 0.0, 0.0], [1.0, 2.0, -3.0]] {
            game.push(Decision {
                obs: &[1.0],
                legal: &[0, 1],
                player: 2,
                action: 0,
                behaviour: &[0.5, 0.5],
                rewards: &rewards,
            });
        }
        let batch = Batch::new(&[game], 3);
        assert_eq!(batch.rewards_of(0), &[0.0, 1.0]);
        assert_eq!(batch.rewards_of(1), &[0.0, 2.0]);
        assert_eq!(batch.rewards_of(2), &[0.0, -3.0]);
    }

    /// Decisions travel sparse (legal ids, μ over them); the batch keeps
    /// them as cells and μ of the action taken. On games self-play
    /// recorded with a network, on Leduc (3 actions) and Daihinmin
    /// (2,660): each row's cells are exactly its decision's ids, at its
    /// observation, its taken cell is the action's, and its μ is the
    /// recorded probability of the action, which is legal.
    #[test]
    fn a_batch_keeps_each_decisions_legal_cells() {
        use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
        use rnad_games::GameSpec;
        use rnad_net::{NetShape, ParamSet, TorsoKind};
        for spec in ["leduc_poker", "daihinmin"] {
            let game = spec.parse::<GameSpec>().unwrap().load();
            let shape = NetShape::for_game(&*game, TorsoKind::Mlp, &[16]);
            let (players, actions) = (game.num_players(), shape.actions);
            let snapshot = PolicySnapshot {
                version: 0,
                params: ParamSet::init(&shape, 9).unwrap(),
            };
            let mut play = SelfPlay::new(game, shape, 4, RngStream::of(2));
            let games = play.play_fresh(&snapshot, 4).unwrap();
            let batch = Batch::new(&games, players);
            let decisions: Vec<Decision> = games.iter().flat_map(Trajectory::decisions).collect();
            assert_eq!(batch.rows, decisions.len());
            assert!(batch.rows > 8, "{spec}");
            for (row, decision) in decisions.iter().enumerate() {
                let cells = batch.cells.row(row);
                let ids: Vec<u16> = batch.cells.actions()[cells.clone()]
                    .iter()
                    .map(|&a| a as u16)
                    .collect();
                assert_eq!(ids, decision.legal, "{spec} row {row}");
                assert!(ids.iter().all(|&a| usize::from(a) < actions));
                assert_eq!(
                    batch.cells.cell_of(row, decision.action),
                    Some(batch.taken[row])
                );
                assert_eq!(batch.behaviour[row], decision.behaviour_of_action());
                assert!(batch.behaviour[row] > 0.0, "{spec} row {row}");
                assert_eq!(batch.action[row], decision.action);
                let mass: f32 = decision.behaviour.iter().sum();
                assert!((mass - 1.0).abs() < 1e-4, "{spec} row {row}: {mass}");
            }
        }
    }
}
