//! Encodings of game states that one model reads, kept apart from the
//! rules: seed 004's card planes of a hold'em decision ([`card_planes`]).

pub mod card_planes;
