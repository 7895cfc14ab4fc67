//! The players of a match, each turned into a tabular policy over the
//! game's public tree before play (so sampled and exact matches read the
//! same probabilities, and a network player costs one batched forward pass
//! over every information state rather than one per decision).
//!
//! * `uniform`: uniform over the legal actions;
//! * `heuristic`, `call`, `raise`: seed 004's baselines for poker
//!   ([`rnad_games::bots::poker_baselines`]), played state by state (the
//!   only players of games too large for a public tree, such as hold'em);
//! * `rules`: the game's rule-based player
//!   ([`rnad_games::bots::rules`]);
//! * `policy:FILE`: a tabular policy in OpenSpiel's JSON format;
//! * `checkpoint:FILE[:KIND][:greedy]`: a learner checkpoint's policy of
//!   KIND (`online`, `target`, `target_postprocessed` — the default — or
//!   `reg`); with `greedy`, always its most probable action (against
//!   fixed opponents a pure policy can take more than the mixed one it
//!   came from, which is made to be hard to exploit, not to exploit);
//! * `reduced:FILE`: a k-player Leduc policy played in this n-player Leduc
//!   game through seed 002's opponent-action abstraction
//!   ([`rnad_games::headtohead::reduced`]);
//! * `gain:FILE`: seed 004's convolutional player, a network that
//!   `gain-train` fitted to hand histories ([`crate::gain`]), state by
//!   state in heads-up hold'em.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rnad_games::algorithms::monte_carlo::{MonteCarloPlayer, MonteCarloSpec};
use rnad_games::bots::uecda_default::DefaultPlayer;
use rnad_run::history::PolicyKind;

/// The names of seed 003's Monte-Carlo players (`NAME:N[:PARAMS]`).
const MONTE_CARLO: [&str; 6] = [
    "random-sampling",
    "epsilon",
    "softmax",
    "ucb1-tuned",
    "majority",
    "majority-full",
];
use rnad_games::bots::poker_baselines::Baseline;
use rnad_games::bots::{rules, RuleBot};
use rnad_games::headtohead::reduced;
use rnad_games::headtohead::sampled::Player;
use rnad_games::policy::TabularPolicy;
use rnad_games::policy_file::read_policy_file;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;

use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::gain::{heads_up_poker_with_planes, GainPlayer};
use crate::neural::NetworkInputs;

/// One player as named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniform over the legal actions.
    Uniform,
    /// The game's rule-based player.
    Rules,
    /// One of seed 004's poker baselines other than uniform.
    Baseline(Baseline),
    /// A tabular policy file.
    Policy(PathBuf),
    /// A checkpoint's policy of one kind.
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// Which policy.
        kind: PolicyKind,
        /// Whether it always plays its most probable action.
        greedy: bool,
    },
    /// A smaller game's policy file, through seed 002's abstraction.
    Reduced(PathBuf),
    /// One of seed 003's Monte-Carlo Daihinmin players.
    MonteCarlo(MonteCarloSpec),
    /// Seed 004's gain network.
    Gain(PathBuf),
}

/// A player named on the command line that is none of the kinds there are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownPlayer(pub String);

impl FromStr for PlayerSpec {
    type Err = UnknownPlayer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let file = |rest: &str| -> Result<PathBuf, UnknownPlayer> {
            if rest.is_empty() {
                Err(UnknownPlayer(format!(
                    "player {s:?}: a file is missing after the colon"
                )))
            } else {
                Ok(PathBuf::from(rest))
            }
        };
        match s.split_once(':') {
            None if s == "uniform" => Ok(PlayerSpec::Uniform),
            // Daihinmin's rule-based player is the UECda "default" client.
            None if s == "rules" || s == "default" => Ok(PlayerSpec::Rules),
            None if s.parse::<Baseline>().is_ok() => Ok(PlayerSpec::Baseline(s.parse().expect("checked"))),
            Some(("policy", rest)) => Ok(PlayerSpec::Policy(file(rest)?)),
            Some(("reduced", rest)) => Ok(PlayerSpec::Reduced(file(rest)?)),
            Some(("gain", rest)) => Ok(PlayerSpec::Gain(file(rest)?)),
            Some((name, _)) if MONTE_CARLO.contains(&name) => s
                .parse::<MonteCarloSpec>()
                .map(PlayerSpec::MonteCarlo)
                .map_err(UnknownPlayer),
            Some(("checkpoint", rest)) => {
                let (rest, greedy) = match rest.strip_suffix(":greedy") {
                    Some(rest) => (rest, true),
                    None => (rest, false),
                };
                let (path, kind) = match rest.rsplit_once(':') {
                    Some((path, kind)) if kind.parse::<PolicyKind>().is_ok() => {
                        (path, kind.parse().expect("checked"))
                    }
                    _ => (rest, PolicyKind::TargetPostprocessed),
                };
                Ok(PlayerSpec::Checkpoint {
                    path: file(path)?,
                    kind,
                    greedy,
                })
            }
            _ => Err(UnknownPlayer(format!(
                "unknown player {s:?}: use uniform, heuristic, call, raise, fold, rules (or default), policy:FILE, checkpoint:FILE[:KIND][:greedy], reduced:FILE, gain:FILE or a Monte-Carlo player (random-sampling:N, epsilon:N[:x[:d]], softmax:N[:r], ucb1-tuned:N, majority:N, majority-full:N)"
            ))),
        }
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Uniform => f.write_str("uniform"),
            PlayerSpec::Rules => f.write_str("rules"),
            PlayerSpec::Baseline(b) => write!(f, "{b}"),
            PlayerSpec::Policy(path) => write!(f, "policy:{}", path.display()),
            PlayerSpec::Checkpoint { path, kind, greedy } => {
                write!(f, "checkpoint:{}:{kind}", path.display())?;
                if *greedy {
                    f.write_str(":greedy")?;
                }
                Ok(())
            }
            PlayerSpec::Reduced(path) => write!(f, "reduced:{}", path.display()),
            PlayerSpec::MonteCarlo(spec) => write!(f, "{spec}"),
            PlayerSpec::Gain(path) => write!(f, "gain:{}", path.display()),
        }
    }
}

/// Turns players into tabular policies over one tree, making the network
/// inputs once for every checkpoint player.
pub struct Tabulator<'t> {
    tree: &'t PublicTree,
    inputs: Option<NetworkInputs>,
}

impl<'t> Tabulator<'t> {
    /// A tabulator for `tree`.
    pub fn new(tree: &'t PublicTree) -> Self {
        Tabulator { tree, inputs: None }
    }

    /// `player`'s tabular policy.
    pub fn policy(&mut self, player: &PlayerSpec) -> Result<TabularPolicy, EvaluatorError> {
        let tree = self.tree;
        match player {
            PlayerSpec::Uniform => Ok(TabularPolicy::uniform(tree)),
            PlayerSpec::Rules => match tree.spec().capabilities().rules {
                Some(bot) if bot.is_tabular() => Ok(rules::policy(tree)),
                Some(_) => Err(EvaluatorError::Usage(format!(
                    "{}'s rule-based player decides state by state, not as a table: it is a player of `match` only",
                    tree.spec()
                ))),
                None => Err(EvaluatorError::Usage(format!(
                    "{} has no rule-based player",
                    tree.spec()
                ))),
            },
            // A baseline's policy reads only the legal actions, so it
            // tabulates (in poker games, whose actions it understands).
            PlayerSpec::Baseline(b) if tree.spec().capabilities().poker_baselines => {
                let mut probs = vec![0.0; tree.num_slots()];
                for decision in tree.decisions() {
                    let row = b.probabilities(&decision.legal_actions);
                    for hand in 0..tree.num_hands() {
                        probs[decision.slots(hand)].copy_from_slice(&row);
                    }
                }
                Ok(TabularPolicy::from_slots(tree, probs).expect("one probability a slot"))
            }
            PlayerSpec::Baseline(_) | PlayerSpec::MonteCarlo(_) | PlayerSpec::Gain(_) => {
                Err(EvaluatorError::Usage(format!(
                    "{player} plays state by state, not as a table: it is a player of `match` only"
                )))
            }
            PlayerSpec::Policy(path) => Ok(read_policy_file(tree, path)?),
            PlayerSpec::Checkpoint { path, kind, greedy } => self.checkpoint(path, *kind, *greedy),
            PlayerSpec::Reduced(path) => reduced_from_file(tree, path),
        }
    }

    /// A checkpoint's policy of `kind`, played greedily with `greedy`
    /// (among groups where its network scores groups).
    fn checkpoint(
        &mut self,
        path: &Path,
        kind: PolicyKind,
        greedy: bool,
    ) -> Result<TabularPolicy, EvaluatorError> {
        let tree = self.tree;
        let checkpoint = CheckpointPolicies::read(path)?;
        let inputs = self.inputs.get_or_insert_with(|| NetworkInputs::new(tree));
        let policy = checkpoint.policy(tree, inputs, kind)?;
        Ok(match greedy {
            true => crate::neural::greedy(tree, inputs.choices(checkpoint.shape()), &policy),
            false => policy,
        })
    }
}

/// The reduced player of a k-player policy file over this n-player tree.
fn reduced_from_file(tree: &PublicTree, path: &Path) -> Result<TabularPolicy, EvaluatorError> {
    let spec = tree.spec();
    let text = std::fs::read_to_string(path).map_err(|source| EvaluatorError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let small: GameSpec = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v["game"].as_str().and_then(|g| g.parse().ok()))
        .ok_or_else(|| {
            EvaluatorError::Usage(format!(
                "{}: a reduced player's file must name its game (a `game` field)",
                path.display()
            ))
        })?;
    let fits = match spec.capabilities().reduced_from {
        Some(reduced_from) => reduced_from(spec, &small),
        None => Err(format!("{spec} has no reduced players")),
    };
    if let Err(why) = fits {
        return Err(EvaluatorError::Usage(format!("{}: {why}", path.display())));
    }
    let small_tree = PublicTree::build(small.load())?;
    let small_policy =
        TabularPolicy::from_json(&small_tree, &text).map_err(|source| EvaluatorError::Policy {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(reduced::reduced_policy(tree, &small_tree, &small_policy))
}

impl PlayerSpec {
    /// This player as one that decides state by state in `game`, for games
    /// without a public tree: the baselines, Daihinmin's rule-based player
    /// and checkpoints' networks.
    /// `seed` feeds the randomness of players that have some of their own
    /// (the Monte-Carlo players).
    pub fn state_player(
        &self,
        game: &GameSpec,
        seed: u64,
    ) -> Result<Box<dyn Player>, EvaluatorError> {
        let offers = game.capabilities();
        match self {
            PlayerSpec::Uniform => Ok(Box::new(Baseline::Uniform)),
            PlayerSpec::Rules if offers.rules == Some(RuleBot::UecdaDefault) => {
                Ok(Box::new(DefaultPlayer))
            }
            PlayerSpec::MonteCarlo(spec) if offers.monte_carlo => Ok(Box::new(
                MonteCarloPlayer::new(spec.allocation, spec.playouts, seed),
            )),
            PlayerSpec::Baseline(b) if offers.poker_baselines => Ok(Box::new(*b)),
            PlayerSpec::Baseline(b) => Err(EvaluatorError::Usage(format!(
                "{b} is a poker player (fold, check/call, raise), and {game} is not poker"
            ))),
            PlayerSpec::Checkpoint { path, kind, greedy } => {
                let player = CheckpointPolicies::read(path)?.network_player(game, *kind)?;
                Ok(Box::new(if *greedy { player.greedy() } else { player }))
            }
            PlayerSpec::Gain(path) => {
                heads_up_poker_with_planes(game)?;
                let (params, meta) = crate::gain::file::load(path)?;
                if &meta.game != game {
                    return Err(EvaluatorError::GainNetwork {
                        path: path.clone(),
                        message: format!("it plays {}, the match is {game}", meta.game),
                    });
                }
                Ok(Box::new(GainPlayer::new(&params)?))
            }
            other => Err(EvaluatorError::Usage(format!(
                "{other} needs the game's public tree, which this game is too large for: \
                 its players are uniform, checkpoint:FILE[:KIND][:greedy], heuristic, call, raise, fold and \
                 gain:FILE (poker) and rules (Daihinmin's UECda default player)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_player_names_its_kind_and_greedy_play_and_reads_back() {
        let parse = |s: &str| s.parse::<PlayerSpec>().unwrap();
        let cases = [
            (
                "checkpoint:a/b.safetensors",
                PolicyKind::TargetPostprocessed,
                false,
            ),
            ("checkpoint:a/b.safetensors:reg", PolicyKind::Reg, false),
            (
                "checkpoint:a/b.safetensors:greedy",
                PolicyKind::TargetPostprocessed,
                true,
            ),
            (
                "checkpoint:a/b.safetensors:online:greedy",
                PolicyKind::Online,
                true,
            ),
        ];
        for (text, kind, greedy) in cases {
            let spec = parse(text);
            let expected = PlayerSpec::Checkpoint {
                path: PathBuf::from("a/b.safetensors"),
                kind,
                greedy,
            };
            assert_eq!(spec, expected, "{text}");
            assert_eq!(parse(&spec.to_string()), expected, "{text}");
        }
        assert!("checkpoint::greedy".parse::<PlayerSpec>().is_err());
    }
}
