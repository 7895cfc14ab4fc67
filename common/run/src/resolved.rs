//! A run's config resolved once into what everything downstream needs: the
//! config itself, its game loaded, and the network's shape around that
//! game. The learner, its checkpoints, the service, actors and evaluators
//! all take a [`ResolvedRun`], so none of them loads the game or derives
//! the shape again, and a config whose network cannot read its game is
//! refused here, before anything starts.

use std::sync::Arc;

use rnad_games::Game;
use rnad_net::{NetShape, TorsoKind};

use crate::config::{Config, ConfigError, EtaUnit};

/// A checked config with its game and network shape.
#[derive(Clone, Debug)]
pub struct ResolvedRun {
    config: Config,
    game: Arc<dyn Game>,
    shape: NetShape,
}

impl ResolvedRun {
    /// Loads the config's game and builds the network's shape around it,
    /// refusing a torso the game's input does not fit (the card torso on a
    /// game without card blocks).
    pub fn new(config: Config) -> Result<ResolvedRun, ConfigError> {
        let game = config.game.load();
        if config.network.torso == TorsoKind::CardConv && game.card_layout().is_none() {
            return Err(ConfigError::Invalid {
                key: "network.torso".into(),
                message: format!(
                    "card_conv reads cards where the game's input holds them as one-hot blocks (universal_poker); {} has none: use mlp or residual_mlp",
                    config.game
                ),
            });
        }
        let network = &config.network;
        let mut shape =
            NetShape::for_game(&*game, network.torso, &network.hidden).with_head(network.head);
        if network.action_groups {
            shape = shape.with_action_groups(&*game).ok_or_else(|| ConfigError::Invalid {
                key: "network.action_groups".into(),
                message: format!(
                    "{} does not group its actions (universal_poker's no-limit fullgame does): set it to false",
                    config.game
                ),
            })?;
        }
        Ok(ResolvedRun {
            config,
            game,
            shape,
        })
    }

    /// The config.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The game, loaded once.
    pub fn game(&self) -> &Arc<dyn Game> {
        &self.game
    }

    /// The network's shape: the configured torso around the game's input
    /// and actions (or action groups).
    pub fn shape(&self) -> &NetShape {
        &self.shape
    }

    /// The longest trajectory a game of this run can produce: the game's
    /// maximum number of decisions.
    pub fn trajectory_max(&self) -> usize {
        self.game.max_game_length()
    }

    /// The most one player can lose in a game, in the game's units: what
    /// `rnad.eta` is relative to with `eta_unit = "stake"`. Positive: every
    /// game is zero-sum, so its lowest return is a loss.
    pub fn stake(&self) -> f64 {
        -self.game.utility_range().0
    }

    /// `rnad.eta` in the units of the rewards the learner sees (the game's
    /// returns times `rnad.reward_scale`): what shapes the reward.
    pub fn eta_in_rewards(&self) -> f64 {
        let r = &self.config.rnad;
        match r.eta_unit {
            EtaUnit::Reward => r.eta,
            EtaUnit::Stake => r.eta * self.stake() * r.reward_scale,
        }
    }
}
