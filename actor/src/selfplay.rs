//! Batched self-play with the latest parameters.
//!
//! An actor holds `n` games. Each step it advances every game through chance
//! moves, stacks the acting players' information-state tensors, runs one
//! forward pass, samples each game's action from the legal softmax, and
//! records the decision. Where the network scores the game's action groups
//! ([`NetShape::grouped`]), the softmax is over the legal groups, the
//! decision records the group, and the action played is one of the
//! group's, drawn evenly. A game that ends becomes a trajectory (its last
//! decision carries the returns) and the next takes its place: the next
//! of its series where the game plays series ([`State::next_episode`],
//! Daihinmin's UECda matches), else a fresh one. The
//! forward pass runs on the actor's device (the CPU unless
//! [`SelfPlay::on_device`] names a GPU); the games stay on the CPU.

use std::sync::Arc;

use candle_core::{Device, Result, TensorId};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::sampling::inverse_cdf;
use rnad_games::{ActionGroup, Game, State, Turn};
use rnad_net::distinct::distinct_rows;
use rnad_net::{CellPolicy, LegalCells, NetInput, NetShape, ParamSet, PolicyValueNet};
use rnad_wire::trajectory::{Decision, Trajectory};

/// Where a [`SelfPlay`]'s random numbers come from: a ChaCha8 generator
/// keyed by `seed`, on stream `stream`. Streams of one key are independent
/// sequences (ChaCha's stream id is part of its input block), so sessions
/// and actors that share a seed but not a stream never replay each other's
/// numbers, which `seed + k` schemes do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngStream {
    /// The generator's key.
    pub seed: u64,
    /// The stream of that key.
    pub stream: u64,
}

impl RngStream {
    /// Stream 0 of `seed`.
    pub fn of(seed: u64) -> RngStream {
        RngStream { seed, stream: 0 }
    }

    fn generator(self) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(self.stream);
        rng
    }
}

/// Parameters an actor plays with, and their version.
#[derive(Clone, Debug)]
pub struct PolicySnapshot {
    /// The learner step that produced them.
    pub version: u64,
    /// θ.
    pub params: ParamSet,
}

struct Slot {
    state: Box<dyn State>,
    /// The decisions so far; its version is set when the game ends.
    record: Trajectory,
}

/// A set of concurrent self-play games.
pub struct SelfPlay {
    game: Arc<dyn Game>,
    shape: NetShape,
    slots: Vec<Slot>,
    /// Where games play series and a lockstep set finished some, the
    /// states their next episodes start from, for the next set.
    sequels: std::collections::VecDeque<Box<dyn State>>,
    rng: ChaCha8Rng,
    source: RngStream,
    decisions: u64,
    /// Time spent running the network (tensors in, policies out).
    inference: std::time::Duration,
    /// Where the forward pass runs.
    device: Device,
    /// The last snapshot's parameters on `device`, keyed by the id of the
    /// snapshot's first tensor, so a GPU receives each snapshot once.
    params_on_device: Option<(TensorId, ParamSet)>,
}

impl SelfPlay {
    /// `games` concurrent games, sampling from `source`.
    pub fn new(game: Arc<dyn Game>, shape: NetShape, games: usize, source: RngStream) -> SelfPlay {
        let mut play = SelfPlay {
            slots: Vec::with_capacity(games),
            sequels: std::collections::VecDeque::new(),
            rng: source.generator(),
            source,
            game,
            shape,
            decisions: 0,
            inference: std::time::Duration::ZERO,
            device: Device::Cpu,
            params_on_device: None,
        };
        for _ in 0..games {
            let slot = play.fresh_slot();
            play.slots.push(slot);
        }
        play
    }

    /// The same games with the forward pass on `device` (a GPU: the
    /// observations go there and the policies come back each step).
    pub fn on_device(mut self, device: Device) -> SelfPlay {
        self.device = device;
        self.params_on_device = None;
        self
    }

    /// Decisions taken so far.
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    /// Seconds spent so far running the network, from the distinct
    /// observations to the legal policies: what part of an actor's time
    /// inference is.
    pub fn inference_seconds(&self) -> f64 {
        self.inference.as_secs_f64()
    }

    /// The generator's seed and position on stream 0 (a lockstep run's
    /// only stream), enough to restore it exactly.
    pub fn rng_position(&self) -> (u64, u128) {
        debug_assert_eq!(self.source.stream, 0, "positions are saved for stream 0");
        (self.source.seed, self.rng.get_word_pos())
    }

    /// Moves the generator to a position saved by [`SelfPlay::rng_position`].
    pub fn set_rng_position(&mut self, seed: u64, word_pos: u128) {
        self.source = RngStream::of(seed);
        self.rng = self.source.generator();
        self.rng.set_word_pos(word_pos);
    }

    fn fresh_slot(&mut self) -> Slot {
        let state = self.game.new_initial_state();
        self.slot_from(state)
    }

    fn slot_from(&mut self, mut state: Box<dyn State>) -> Slot {
        skip_chance(&mut self.rng, state.as_mut());
        Slot {
            state,
            record: Trajectory::default(),
        }
    }

    /// One decision in every game; returns the games that finished, each
    /// replaced by a new game.
    pub fn step(&mut self, snapshot: &PolicySnapshot) -> Result<Vec<Trajectory>> {
        self.advance(snapshot, true)
    }

    /// Plays exactly `count` new games to their end with `snapshot` and
    /// returns them in finishing order. Nothing carries over between calls
    /// but the generator and, where games play series, the next episodes
    /// of the games finished, which makes lockstep training reproducible
    /// (a resumed run's series start afresh).
    pub fn play_fresh(
        &mut self,
        snapshot: &PolicySnapshot,
        count: usize,
    ) -> Result<Vec<Trajectory>> {
        let mut slots = Vec::with_capacity(count);
        for _ in 0..count {
            slots.push(match self.sequels.pop_front() {
                Some(next) => self.slot_from(next),
                None => self.fresh_slot(),
            });
        }
        self.slots = slots;
        let mut out = Vec::with_capacity(count);
        while !self.slots.is_empty() {
            out.extend(self.advance(snapshot, false)?);
        }
        Ok(out)
    }

    /// One decision in every game; finished games are replaced by new ones
    /// (`refill`) or dropped from the set.
    fn advance(&mut self, snapshot: &PolicySnapshot, refill: bool) -> Result<Vec<Trajectory>> {
        let n = self.slots.len();
        let input = self.shape.input;
        let mut obs = vec![0.0f32; n * input];
        // Each game's legal actions in increasing order (its legal action
        // groups where the network scores groups): what its decision
        // records, and the order sampling walks them in.
        let mut legal_ids: Vec<Vec<u16>> = Vec::with_capacity(n);
        let mut legal_groups: Vec<Vec<ActionGroup>> = Vec::new();
        let mut players = Vec::with_capacity(n);
        for (i, slot) in self.slots.iter().enumerate() {
            let Turn::Player(player) = slot.state.turn() else {
                unreachable!("slots always wait on a decision");
            };
            players.push(player);
            slot.state
                .network_input(player, &mut obs[i * input..(i + 1) * input]);
            if self.shape.grouped {
                let groups = slot.state.legal_groups();
                legal_ids.push(groups.iter().map(|g| g.id).collect());
                legal_groups.push(groups);
                continue;
            }
            let mut ids: Vec<u16> = slot
                .state
                .legal_actions()
                .into_iter()
                .map(|a| u16::try_from(a).expect("the registry's games have under 65,536 actions"))
                .collect();
            ids.sort_unstable();
            legal_ids.push(ids);
        }
        // Concurrent games are often in the same information state: the
        // network runs once per distinct one, at each game's legal cells.
        let inference = std::time::Instant::now();
        let params = self.params_on_device(snapshot)?;
        let device = &self.device;
        let (distinct, index) = distinct_rows(&obs, input);
        let mut cells = LegalCells::new();
        for (&state, ids) in index.iter().zip(&legal_ids) {
            cells.push_row(state, ids.iter().copied());
        }
        let count = distinct.len() / input;
        let distinct = NetInput::from_rows(distinct, count, input, device)?;
        let net = PolicyValueNet::new(&self.shape, params.tensors())?;
        let (logits, _) = net.forward_cells(&distinct, &cells.on(device, self.shape.actions)?)?;
        let policy = CellPolicy::new(&logits.to_vec1::<f32>()?, cells.offsets()).policy;
        self.inference += inference.elapsed();

        let mut finished = Vec::new();
        let mut done = vec![false; n];
        let no_rewards = vec![0.0; self.game.num_players()];
        for i in 0..n {
            let ids = &legal_ids[i];
            let behaviour = &policy[cells.row(i)];
            let choice = self.sample(ids, behaviour);
            let action = match legal_groups.get(i) {
                Some(groups) => play_in_group(&mut self.rng, groups, choice),
                None => choice,
            };
            let player = players[i];
            let slot = &mut self.slots[i];
            slot.state.apply_action(action);
            slot.record.push(Decision {
                obs: &obs[i * input..(i + 1) * input],
                legal: ids,
                player: u8::try_from(player).expect("the registry allows at most 10 players"),
                action: u16::try_from(choice)
                    .expect("the registry's games have under 65,536 actions"),
                behaviour,
                rewards: &no_rewards,
            });
            self.decisions += 1;
            skip_chance(&mut self.rng, slot.state.as_mut());
            if slot.state.turn() == Turn::Terminal {
                let mut game = std::mem::take(&mut slot.record);
                let returns: Vec<f32> = slot.state.returns().iter().map(|&r| r as f32).collect();
                game.last_rewards_mut().copy_from_slice(&returns);
                game.param_version = snapshot.version;
                finished.push(game);
                done[i] = true;
                let next = slot.state.next_episode();
                if refill {
                    self.slots[i] = match next {
                        Some(next) => self.slot_from(next),
                        None => self.fresh_slot(),
                    };
                } else {
                    self.sequels.extend(next);
                }
            }
        }
        if !refill {
            let mut index = 0;
            self.slots.retain(|_| {
                index += 1;
                !done[index - 1]
            });
        }
        Ok(finished)
    }

    /// `snapshot`'s parameters on the actor's device: a copy made the first
    /// time a snapshot is played (none where they are there already).
    fn params_on_device(&mut self, snapshot: &PolicySnapshot) -> Result<ParamSet> {
        let Some(first) = snapshot.params.tensors().first() else {
            return Ok(snapshot.params.clone());
        };
        if first.device().same_device(&self.device) {
            return Ok(snapshot.params.clone());
        }
        match &self.params_on_device {
            Some((id, params)) if *id == first.id() => Ok(params.clone()),
            _ => {
                let params = snapshot.params.to_device(&self.device)?;
                self.params_on_device = Some((first.id(), params.clone()));
                Ok(params)
            }
        }
    }

    /// Samples one of the `legal` actions from its `behaviour` probabilities.
    fn sample(&mut self, legal: &[u16], behaviour: &[f32]) -> usize {
        let u: f32 = self.rng.random();
        inverse_cdf(
            u,
            legal
                .iter()
                .zip(behaviour)
                .map(|(&a, &p)| (usize::from(a), p)),
        )
    }
}

/// One of the actions of the group numbered `id` among `groups`, each as
/// likely as the others: a group's actions share its probability evenly.
fn play_in_group(rng: &mut ChaCha8Rng, groups: &[ActionGroup], id: usize) -> usize {
    let group = groups
        .iter()
        .find(|g| usize::from(g.id) == id)
        .expect("the sampled id is a legal group's");
    rng.random_range(group.actions.clone())
}

/// Plays chance's moves, drawn from `rng`, until a player is to move or
/// the game is over.
fn skip_chance(rng: &mut ChaCha8Rng, state: &mut dyn State) {
    while state.turn() == Turn::Chance {
        let u: f64 = rng.random();
        state.apply_action(inverse_cdf(u, state.chance_outcomes()));
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Tensor};
    use rand::RngExt;
    use rnad_games::GameSpec;
    use rnad_net::{HeadKind, NetShape, ParamSet, PolicyValueNet, TorsoKind};

    use super::{play_in_group, PolicySnapshot, RngStream, SelfPlay};
    use rnad_games::ActionGroup;

    /// Games in the same information state share one forward pass: every
    /// recorded behaviour policy is still the network's legal policy of
    /// that step's own observation and mask, computed alone by the dense
    /// forward pass (what the evaluator plays), with the MLP and the
    /// residual torso (Leduc's input holds no card blocks) under either
    /// policy head.
    /// And where the network scores action groups (a no-limit game whose
    /// every raise amount is an action), decisions record the legal
    /// groups, in increasing order, and the policy over them.
    #[test]
    fn behaviour_is_each_steps_own_policy() {
        for torso in [TorsoKind::Mlp, TorsoKind::ResidualMlp] {
            for head in [HeadKind::Dense, HeadKind::Gathered] {
                behaviour_is_each_steps_own_policy_with("leduc_poker", torso, head, false);
            }
        }
        for head in [HeadKind::Dense, HeadKind::Gathered] {
            let game = rnad_testkit::SMALL_FULL_GAME;
            behaviour_is_each_steps_own_policy_with(game, TorsoKind::Mlp, head, true);
        }
    }

    fn behaviour_is_each_steps_own_policy_with(
        spec: &str,
        torso: TorsoKind,
        head: HeadKind,
        grouped: bool,
    ) {
        let game = GameSpec::parse(spec).unwrap().load();
        let mut shape = NetShape::for_game(&*game, torso, &[16]).with_head(head);
        if grouped {
            shape = shape.with_action_groups(&*game).unwrap();
        }
        let snapshot = PolicySnapshot {
            version: 3,
            params: ParamSet::init(&shape, 5).unwrap(),
        };
        let mut play = SelfPlay::new(game, shape.clone(), 64, RngStream::of(1));
        let games = play.play_fresh(&snapshot, 200).unwrap();
        let net = PolicyValueNet::new(&shape, snapshot.params.tensors()).unwrap();
        let steps: Vec<_> = games.iter().flat_map(|g| g.decisions()).collect();
        let (mut distinct, mut far_from_uniform) = (std::collections::HashSet::new(), 0);
        for step in &steps {
            let row = |values: &[f32]| {
                Tensor::from_slice(values, (1, values.len()), &Device::Cpu).unwrap()
            };
            let mut mask = vec![0.0f32; shape.actions];
            for &a in step.legal {
                mask[usize::from(a)] = 1.0;
            }
            let alone = net
                .policy(&row(step.obs), &row(&mask))
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            // The recorded behaviour is the policy alone over the legal
            // actions, in their order; the rest has none.
            let uniform = 1.0 / step.legal.len() as f32;
            for (&a, &b) in step.legal.iter().zip(step.behaviour) {
                let alone_a = alone[usize::from(a)];
                assert!(
                    (alone_a - b).abs() < 1e-5,
                    "{alone:?} vs {:?}",
                    step.behaviour
                );
                far_from_uniform += usize::from((b - uniform).abs() > 0.02);
            }
            assert!(step.legal.windows(2).all(|w| w[0] < w[1]));
            assert!(step.legal.iter().all(|&a| usize::from(a) < shape.actions));
            let legal_mass: f32 = step.legal.iter().map(|&a| alone[usize::from(a)]).sum();
            assert!((legal_mass - 1.0).abs() < 1e-5);
            distinct.insert(step.obs.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        }
        // States repeat (concurrent games do share passes), and the policy
        // is not uniform (so a row given another's policy would show).
        assert!(
            distinct.len() * 3 < steps.len() * 2,
            "{} of {}",
            distinct.len(),
            steps.len()
        );
        assert!(far_from_uniform > steps.len() / 4, "{torso:?} {head:?}");
    }

    /// Games that play series go on from one episode to the next, in
    /// continuous and in lockstep play: Daihinmin's later games of a
    /// series have an exchange, whose gifts back are recorded decisions.
    #[test]
    fn self_play_continues_a_series_from_game_to_game() {
        let game = GameSpec::parse("daihinmin(series=3)").unwrap().load();
        // Every play, then a gift of each of the 53 cards.
        let give_base = rnad_games::daihinmin::catalogue().actions();
        assert_eq!(game.num_distinct_actions(), give_base + 53);
        let shape = NetShape {
            input: game.information_state_tensor_size(),
            torso: TorsoKind::Mlp,
            hidden: vec![8],
            actions: game.num_distinct_actions(),
            head: HeadKind::Gathered,
            grouped: false,
            cards: game.card_layout(),
        };
        let snapshot = PolicySnapshot {
            version: 1,
            params: ParamSet::init(&shape, 2).unwrap(),
        };
        let gifts = |games: &[rnad_wire::trajectory::Trajectory]| {
            games
                .iter()
                .flat_map(|g| g.decisions())
                .filter(|d| usize::from(d.action) >= give_base)
                .count()
        };
        let mut play = SelfPlay::new(game.clone(), shape.clone(), 2, RngStream::of(4));
        let mut finished = Vec::new();
        for _ in 0..100_000 {
            finished.extend(play.step(&snapshot).unwrap());
            if finished.len() >= 6 {
                break;
            }
        }
        assert!(finished.len() >= 6);
        // Two games' series of three: four later games, three gifts each.
        assert!(gifts(&finished) >= 12, "{} gifts", gifts(&finished));
        let mut lockstep = SelfPlay::new(game, shape, 1, RngStream::of(5));
        let first = lockstep.play_fresh(&snapshot, 2).unwrap();
        assert_eq!(gifts(&first), 0, "first games have no exchange");
        let second = lockstep.play_fresh(&snapshot, 2).unwrap();
        assert_eq!(gifts(&second), 6, "the second games of both series");
    }

    /// A group's actions are played evenly, and no other action is.
    #[test]
    fn a_group_is_played_by_its_actions_evenly() {
        let groups = [
            ActionGroup::alone(1),
            ActionGroup {
                id: 4,
                actions: 10..16,
            },
            ActionGroup {
                id: 5,
                actions: 16..40,
            },
        ];
        let mut rng = RngStream::of(3).generator();
        let mut counts = [0u32; 6];
        for _ in 0..12_000 {
            let action = play_in_group(&mut rng, &groups, 4);
            assert!((10..16).contains(&action), "{action}");
            counts[action - 10] += 1;
        }
        // 2,000 expected each; a binomial's standard deviation is 41.
        assert!(counts.iter().all(|&c| c.abs_diff(2000) < 200), "{counts:?}");
        assert_eq!(play_in_group(&mut rng, &groups, 1), 1);
    }

    #[test]
    fn streams_of_one_seed_are_different_sequences() {
        let draw = |source: RngStream| -> Vec<u64> {
            let mut rng = source.generator();
            (0..8).map(|_| rng.random()).collect()
        };
        let base = draw(RngStream::of(7));
        assert_eq!(base, draw(RngStream::of(7)), "a stream is reproducible");
        let next = draw(RngStream { seed: 7, stream: 1 });
        let other_seed = draw(RngStream::of(8));
        assert_ne!(base, next);
        assert_ne!(base, other_seed);
        // seed 8's stream 0 is not seed 7's stream 1 shifted: no shared values.
        assert!(next.iter().all(|v| !other_seed.contains(v)));
    }
}
