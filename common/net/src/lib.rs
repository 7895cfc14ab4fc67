//! The networks: the policy-value network (a torso chosen by the config
//! under policy and value heads, in candle-nn; the policy head dense or
//! gathered at a batch's legal cells), its parameter sets and the
//! sets the learner publishes, the legal (masked) softmax, the check for
//! non-finite numbers, and the devices it runs on; with what batched
//! inference shares (the distinct rows of a batch, threads per product) and
//! the rule both policy averages use to drop the actions NeuRD holds at
//! its threshold.
//!
//! Above the games layer ([`rnad_games`]: a game's tensor sizes and card
//! layout give a [`NetShape`]) and below everything that trains, plays or
//! judges a network.

pub mod autograd;
mod builder;
mod card_conv;
mod cells;
pub mod compute;
pub mod conv;
mod device;
pub mod distinct;
mod finite;
mod head;
pub mod held_actions;
mod legal;
mod mlp;
mod params;
mod policy_value;
mod published;
mod residual_mlp;
mod sparse_input;
mod torso;

pub use builder::{parameter_names, ParameterList};
pub use cells::{DeviceCells, LegalCells};
pub use device::{parse_device, UnusableDevice};
pub use finite::first_nonfinite;
pub use head::HeadKind;
pub use legal::{legal_log_policy, legal_policy, CellPolicy};
pub use params::{ParamSet, ShapeMismatch};
pub use policy_value::{NetShape, PolicyValueNet, RecordedForward};
pub use published::{PublishedSet, PublishedSets};
pub use sparse_input::NetInput;
pub use torso::TorsoKind;
