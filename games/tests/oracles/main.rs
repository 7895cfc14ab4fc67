//! The games layer held against independent truth: OpenSpiel 2.0.2's
//! information states and solver outputs (`fixtures/openspiel/`), known
//! game values, and the per-history oracles kept here with the tests
//! (every history enumerated as its own node, and the simplest correct
//! best response over them), which the public-tree algorithms must match.

mod history_tree;
mod reference;

mod exact_values;
mod head_to_head;
mod openspiel_fixtures;
mod playthroughs;
mod universal_poker_nash_conv;
