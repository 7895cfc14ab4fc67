//! Everything the rnad processes share: the games (with OpenSpiel's exact
//! rules, strings and tensors), the game tree with its information-state
//! index, and tabular policies in OpenSpiel's JSON format.
//!
//! The data flow of the project starts here: a [`game::Game`] is played by
//! actors, enumerated once into a [`tree::GameTree`] for exact evaluation, and
//! policies over its information states are [`policy::TabularPolicy`] values.

pub mod game;
pub mod policy;
pub mod tree;
