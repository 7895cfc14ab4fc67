//! Algorithms that play or judge games from outside their rules: seed
//! 003's Monte-Carlo search for Daihinmin and local best response for
//! heads-up poker. (Exact best responses and CFR, which work on any game
//! with a public tree, are [`crate::exploitability`] and [`crate::cfr`].)

pub mod lbr;
pub mod monte_carlo;
