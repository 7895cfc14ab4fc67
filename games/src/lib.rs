//! The games layer: everything about a game that needs no network, no
//! runtime and no process, so that every other layer can build on it and
//! nothing here compiles candle, tokio or tarpc.
//!
//! * [`Game`] and [`State`]: games with OpenSpiel's rules, strings and
//!   tensors, named by OpenSpiel specs ([`GameSpec`]) through one
//!   [`registry`] that each game joins with its own parameters.
//! * [`public_tree`]: a game walked once into its public states, with the
//!   information-state index the evaluator and the solvers share.
//! * [`policy`] and [`policy_file`]: tabular policies and OpenSpiel's JSON
//!   policy format.
//! * [`exploitability`]: exact best responses and NashConv, vectorised over
//!   private hands at each public node ([`terminal`] values the leaves);
//!   [`cfr`]: tabular CFR and CFR+.
//! * [`headtohead`]: the match engine (duplicate deals, every seating,
//!   sampled or exact) and seed 002's opponent-action abstraction.

pub mod daihinmin;
mod game;
mod kuhn;
mod leduc;
mod liars_dice;
pub mod spec;
pub mod universal_poker;

pub mod algorithms;
pub mod bots;
pub mod capabilities;
pub mod cfr;
pub mod encodings;
pub mod exploitability;
pub mod headtohead;
pub mod policy;
pub mod policy_file;
pub mod public_tree;
pub mod registry;
pub mod sampling;
pub mod terminal;

pub use daihinmin::Daihinmin;
pub use game::{Action, ActionGroup, CardLayout, Game, Hands, Payoff, State, Turn};
pub use kuhn::KuhnPoker;
pub use leduc::LeducPoker;
pub use liars_dice::LiarsDice;
pub use spec::{GameSpec, ParamValue, SpecError};
pub use universal_poker::UniversalPoker;
